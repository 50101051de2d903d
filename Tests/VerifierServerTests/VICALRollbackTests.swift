import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MdocVerifier
import ReplayStoreSQLite
import Testing
import VerificationCore
import WalletEncoding
import WalletVerifierTestSupport
import X509

@testable import VerifierServer

/// Issue 29, item 6: a VICAL URL that later serves an older issue (lower vicalIssueID, earlier
/// date) must not bring back an issuer the newer issue removed. The newest issue accepted per URL
/// is recorded in the store, shared by every instance on it, and checked at refresh and at start.
@Suite(.serialized) struct VICALRollbackTests {
    /// Two issues of one VICAL: v1 lists the fixture's IACA and `removed`; v2, a day later, only the fixture's IACA.
    static func issues(_ fixture: ServiceFixture, removed: MdocPKI, now: Date, v2NextUpdate: Date? = nil) throws -> (
        v1: VICALFixture, v2: VICALFixture
    ) {
        var v1 = try VICALFixture()
        v1.issueID = 1
        v1.date = now.addingTimeInterval(-2 * 86_400)
        v1.nextUpdate = now.addingTimeInterval(30 * 86_400)
        v1.entries = [.init(fixture.mdocPKI.iaca, docTypes: [MdocFixture.mDL]), .init(removed.iaca, docTypes: [MdocFixture.mDL])]
        var v2 = v1
        v2.issueID = 2
        v2.date = now.addingTimeInterval(-86_400)
        v2.nextUpdate = v2NextUpdate ?? now.addingTimeInterval(30 * 86_400)
        v2.entries = [.init(fixture.mdocPKI.iaca, docTypes: [MdocFixture.mDL])]
        return (v1, v2)
    }

    static func sha256(_ certificate: Certificate) -> String {
        Hex.encode(Array(SHA256.hash(data: RevocationSignerPKI.der(certificate))))
    }

    static func trust(_ services: VerifierServices) async throws -> [String: Any] {
        let body = try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            Array(try await client.execute(uri: "/v1/trust", method: .get).body.readableBytesView)
        }
        return (try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any]) ?? [:]
    }

    static func anchorDigests(_ trust: [String: Any]) -> [String] {
        (trust["anchors"] as? [[String: Any]])?.compactMap { $0["sha256"] as? String } ?? []
    }

    static func issueIDs(_ trust: [String: Any]) -> [Int] {
        (trust["vicals"] as? [[String: Any]])?.compactMap { $0["issueID"] as? Int } ?? []
    }

    @Test func aRefreshNeverGoesBackToAnOlderIssue() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let removed = try MdocPKI()
        let issues = try Self.issues(fixture, removed: removed, now: ServiceFixture.time)
        var v1 = issues.v1
        let v2 = issues.v2
        server.set("/vical", .init(body: try v2.signed()))
        let anchorPath = fixture.directory.appendingPathComponent("vical-anchor.pem").path
        try Data(v2.anchorPEM.utf8).write(to: URL(fileURLWithPath: anchorPath))
        let clock = IdempotencyRouteTests.MovableClock(ServiceFixture.time)
        let live = LiveServices(
            try await VerifierServices.make(
                settings: try ServiceVICALTests.settings(fixture, vicals: [server.url("/vical")], anchors: [anchorPath]),
                logger: Logger(label: "test"), clock: clock))
        let refresher = VICALRefreshService(live: live, logger: Logger(label: "test"))
        var trust = try await Self.trust(live.current)
        #expect(Self.issueIDs(trust) == [2], "\(trust["vicals"] ?? "")")
        #expect(!Self.anchorDigests(trust).contains(Self.sha256(removed.iaca)))

        // A day later the URL serves issue 1 again (it still verifies): refused, the roots of issue 2 stay.
        server.set("/vical", .init(body: try v1.signed()))
        clock.advance(86_400 + 1)
        #expect(await refresher.refreshOnce() == 0)
        #expect(server.requestedPaths.count == 2)
        trust = try await Self.trust(live.current)
        #expect(Self.issueIDs(trust) == [2])
        #expect(!Self.anchorDigests(trust).contains(Self.sha256(removed.iaca)))

        // Issue 2 again with other content (the removed issuer put back): refused too.
        var tampered = v2
        tampered.entries = v1.entries
        server.set("/vical", .init(body: try tampered.signed()))
        clock.advance(86_400 + 1)
        #expect(await refresher.refreshOnce() == 0)
        #expect(!Self.anchorDigests(try await Self.trust(live.current)).contains(Self.sha256(removed.iaca)))

        // Issue 2 signed again, same content: the same issue, taken.
        server.set("/vical", .init(body: try v2.signed()))
        clock.advance(86_400 + 1)
        #expect(await refresher.refreshOnce() == 1)
        #expect(Self.issueIDs(try await Self.trust(live.current)) == [2])

        // A genuine newer issue is taken: issue 3 re-adds the issuer.
        v1.issueID = 3
        v1.date = clock.now()
        server.set("/vical", .init(body: try v1.signed()))
        clock.advance(86_400 + 1)
        #expect(await refresher.refreshOnce() == 1)
        trust = try await Self.trust(live.current)
        #expect(Self.issueIDs(trust) == [3])
        #expect(Self.anchorDigests(trust).contains(Self.sha256(removed.iaca)))
    }

    /// Two `serve` processes on one SQLite data directory (and on PostgreSQL when
    /// WALLET_VERIFIER_POSTGRES_URL is set): the first accepts issue 2; its copy lapses; the second
    /// starts while the URL serves issue 1 and refuses it because of the record the first left.
    @Test(arguments: ["sqlite", "postgres"]) func aRestartedOrOtherInstanceRefusesAnOlderIssue(store: String) async throws {
        var storeArguments: [String]
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        switch store {
        case "postgres":
            guard let url = DeploymentTests.postgresURL else {
                if DeploymentTests.inCI { Issue.record("WALLET_VERIFIER_POSTGRES_URL is not set; scripts/test starts a throwaway PostgreSQL") }
                return
            }
            storeArguments = ["--store", "postgres", "--postgres-url", url]
        default:
            storeArguments = ["--store", "sqlite", "--data-dir", fixture.directory.appendingPathComponent("data").path]
        }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let removed = try MdocPKI()
        // Issue 2's copy is usable only until its nextUpdate, a few seconds from now.
        let lapses = Date().addingTimeInterval(12)
        let (v1, v2) = try Self.issues(fixture, removed: removed, now: Date(), v2NextUpdate: lapses)
        server.set("/vical", .init(body: try v2.signed()))
        let anchorPath = fixture.directory.appendingPathComponent("vical-anchor.pem").path
        try Data(v2.anchorPEM.utf8).write(to: URL(fileURLWithPath: anchorPath))
        let arguments = storeArguments + fixture.serveArguments + ["--vical", server.url("/vical"), "--vical-trust", anchorPath]

        let first = try await ServiceInstance(arguments: arguments)
        let firstTrust = try await first.getJSON("/v1/trust")
        first.stop()
        #expect(Self.issueIDs(firstTrust) == [2], "\(firstTrust["vicals"] ?? "") \(first.log)")

        server.set("/vical", .init(body: try v1.signed()))
        try await Task.sleep(for: .seconds(max(0, lapses.timeIntervalSinceNow) + 0.5))
        let second = try await ServiceInstance(arguments: arguments)
        defer { second.stop() }
        let trust = try await second.getJSON("/v1/trust")
        // On PostgreSQL the store answers only once the service runs: the issue fetched at start is
        // checked against the record then, before any request, and fetched again.
        #expect(server.requestedPaths.count >= 2, "the second instance fetched issue 1")
        #expect(!Self.anchorDigests(trust).contains(Self.sha256(removed.iaca)), "\(trust)")
        // Issue 2, past its nextUpdate, stays the best knowledge: the copy the first instance kept.
        #expect(Self.issueIDs(trust) == [2], "\(trust["vicals"] ?? "")")
        #expect(second.log.contains("refused as a rollback: its issue 1 is older than issue 2"), "\(second.log)")
    }

    /// At start, a copy in the store older than the record (left by an instance from before the
    /// record, say) is not used: the URL is fetched again and checked the same way.
    @Test func aStoredCopyOlderThanTheRecordIsNotUsedAtStart() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let removed = try MdocPKI()
        let (v1, v2) = try Self.issues(fixture, removed: removed, now: ServiceFixture.time)
        server.set("/vical", .init(body: try v2.signed()))
        let url = server.url("/vical")
        let anchorPath = fixture.directory.appendingPathComponent("vical-anchor.pem").path
        try Data(v2.anchorPEM.utf8).write(to: URL(fileURLWithPath: anchorPath))
        let dataDirectory = fixture.directory.appendingPathComponent("data").path
        // The store holds issue 1 as the last copy, and the record of issue 2.
        let sqlite = try await SQLiteReplayStore.open(dataDirectory: dataDirectory)
        let v1Bytes = try v1.signed(), v2Bytes = try v2.signed()
        try await sqlite.storeDocument(
            CachedDocument(
                key: VICALCopies.cacheKey(url), bytes: v1Bytes, fetchedAt: ServiceFixture.time.addingTimeInterval(-60),
                freshUntil: ServiceFixture.time.addingTimeInterval(86_400), usableUntil: ServiceFixture.time.addingTimeInterval(86_400)))
        await VICALCopies().raise(url, to: VICALIssue(try VICAL(bytes: v2Bytes), bytes: v2Bytes), store: sqlite)
        await sqlite.close()

        var settings = try ServiceVICALTests.settings(fixture, vicals: [url], anchors: [anchorPath])
        settings.store = .sqlite
        settings.dataDirectory = dataDirectory
        let services = try await VerifierServices.make(settings: settings, logger: Logger(label: "test"), clock: FixedClock(ServiceFixture.time))
        defer { Task { await services.shutdown() } }
        #expect(server.requestedPaths == ["/vical"], "the stored issue 1 was not used; the URL was fetched")
        let trust = try await Self.trust(services)
        #expect(Self.issueIDs(trust) == [2])
        #expect(!Self.anchorDigests(trust).contains(Self.sha256(removed.iaca)))
    }

    @Test func theRecordOnlyRises() async throws {
        let newer = VICALIssue(issueID: 3, date: Date(timeIntervalSince1970: 1_800_000_000), digest: [UInt8](repeating: 3, count: 32))
        let older = VICALIssue(issueID: 2, date: Date(timeIntervalSince1970: 1_700_000_000), digest: [UInt8](repeating: 2, count: 32))
        #expect(older.refusal(against: newer)?.contains("issue 2 is older than issue 3") == true)
        #expect(newer.refusal(against: older) == nil)
        #expect(newer.refusal(against: newer) == nil)
        let sameIssueOtherBytes = VICALIssue(issueID: 3, date: newer.date, digest: [UInt8](repeating: 9, count: 32))
        #expect(sameIssueOtherBytes.refusal(against: newer)?.contains("other content") == true)
        let earlierWithoutID = VICALIssue(issueID: nil, date: older.date, digest: older.digest)
        #expect(earlierWithoutID.refusal(against: newer)?.contains("before") == true)
        #expect(VICALIssue(record: newer.record) == newer)

        // Two instances raising the record at once, in either order, leave the newest in the shared store.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vical-record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let sqlite = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        let stores: [any DocumentCacheStore] = [InMemoryDocumentCache(), sqlite]
        for store in stores {
            let a = VICALCopies(), b = VICALCopies()
            await a.raise("https://vical.example/v", to: newer, store: store)
            await b.raise("https://vical.example/v", to: older, store: store)
            #expect(await VICALCopies().highestIssue("https://vical.example/v", store: store) == newer, "\(type(of: store))")
            #expect(await b.highestIssue("https://vical.example/v", store: store) == newer)
        }
        await sqlite.close()
    }
}
