import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MdocVerifier
import SwiftASN1
import Testing
import TrustDocuments
import VerificationCore
import VerifierServer
import WalletCOSE
import WalletEncoding
import WalletVerifierTestSupport
import X509

/// Current, or loud: a VICAL past its nextUpdate and a Google Pay key list that stops answering are
/// shown stale in `/v1/trust`, `/readyz`, the metrics, `serve --check` and the log once they are past
/// it by more than `--trust-stale-after`; `--trust-stale fail` makes their roots stop anchoring.
@Suite struct TrustStalenessRouteTests {
    /// A VICAL file listing the fixture's IACA whose nextUpdate was `daysAgo` days before the fixture's time.
    static func vicalFiles(_ fixture: ServiceFixture, nextUpdateDaysAgo daysAgo: Double) throws -> (vical: String, anchor: String) {
        var vical = try VICALFixture()
        vical.date = ServiceFixture.time.addingTimeInterval(-40 * 86_400)
        vical.nextUpdate = ServiceFixture.time.addingTimeInterval(-daysAgo * 86_400)
        vical.entries = [.init(fixture.mdocPKI.iaca, docTypes: [MdocFixture.mDL])]
        let vicalPath = fixture.directory.appendingPathComponent("vical.cbor").path
        try Data(try vical.signed()).write(to: URL(fileURLWithPath: vicalPath))
        let anchorPath = fixture.directory.appendingPathComponent("vical-anchor.pem").path
        try Data(vical.anchorPEM.utf8).write(to: URL(fileURLWithPath: anchorPath))
        return (vicalPath, anchorPath)
    }

    static func settings(_ fixture: ServiceFixture, _ extra: ServerSettings.Source) throws -> ServerSettings {
        var flags: ServerSettings.Source = [
            "store": ["sqlite"], "dataDir": [fixture.directory.appendingPathComponent("data").path],
            "identityKeys": [fixture.identityKeyPath], "merchantId": [fixture.merchantID], "teamId": [fixture.teamID],
            "webKeys": [fixture.webKeyPath], "webOrigins": [fixture.webOrigin],
        ]
        flags.merge(extra) { $1 }
        return try ServerSettings.resolve(flags: flags, environment: [:], configFile: nil)
    }

    @Test func aVICALPastItsNextUpdateIsStaleAndStillUsedByDefault() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let files = try Self.vicalFiles(fixture, nextUpdateDaysAgo: 10)
        let logs = LogCapture()
        let services = try await VerifierServices.make(
            settings: try Self.settings(fixture, ["vicals": [files.vical], "vicalTrust": [files.anchor]]), logger: logs.logger,
            clock: FixedClock(ServiceFixture.time))
        #expect(services.trustStore.anchors.count == 1)
        #expect(logs.text.contains("trust: vical:\(files.vical) is past its next update") && logs.text.contains("still used"), "\(logs.text)")
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let (report, _) = try await TrustProvenanceRouteTests.verifyIdentity(client, fixture, receipts: false)
            #expect(report["verdict"] as? String == "accepted", "\(report)")
            let details = TrustProvenanceRouteTests.check(report, "mdoc.issuer.chain")?["details"] as? [String: String]
            #expect(details?["trustSource"] == "vical" && details?["trustLocation"] == files.vical, "\(details ?? [:])")
            let trustBody = try await client.execute(uri: "/v1/trust", method: .get).body
            ContractSamples.record(trustBody, schema: "Trust", name: "trust-stale-vical")
            let trust = try RouterTests.json(trustBody)
            let source = try #require((trust["sources"] as? [[String: Any]])?.first { $0["kind"] as? String == "vical" })
            #expect(source["stale"] as? Bool == true && source["roots"] as? Int == 1 && source["problem"] is NSNull, "\(source)")
            let root = try #require((trust["roots"] as? [[String: Any]])?.first)
            let provenance = try #require(root["provenance"] as? [String: Any])
            #expect(provenance["kind"] as? String == "vical" && provenance["issuer"] as? String == "Test Trust Service")
            #expect(provenance["country"] as? String == "US" && provenance["issueID"] as? Int == 42)
            #expect(provenance["signerSHA256"] as? String == IACATrustStore.sha256(try VICALFixtureSigner.signer(files.vical)))
            let ready = try RouterTests.json(try await client.execute(uri: "/readyz", method: .get).body)
            #expect((ready["trust"] as? [String])?.first?.contains("past its next update") == true, "\(ready)")
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            let nextUpdate = Int(ServiceFixture.time.addingTimeInterval(-10 * 86_400).timeIntervalSince1970)
            #expect(metrics.contains("wallet_verifier_trust_roots{source=\"vical:\(files.vical)\"} 1"), "\(metrics)")
            #expect(metrics.contains("wallet_verifier_trust_source_next_update_timestamp_seconds{source=\"vical:\(files.vical)\"} \(nextUpdate)"))
        }
        await services.shutdown()
        // serve --check warns, naming it.
        let findings = await ServicePreflight.run(
            settings: try Self.settings(fixture, ["vicals": [files.vical], "vicalTrust": [files.anchor]]), logger: Logger(label: "test"))
        let finding = try #require(findings.first { $0.check == "vical \(files.vical)" })
        #expect(finding.status == .warn && finding.message.contains("past its next update"), "\(finding)")
    }

    @Test func withTrustStaleFailItsRootsStopAnchoring() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let files = try Self.vicalFiles(fixture, nextUpdateDaysAgo: 10)
        let flags: ServerSettings.Source = ["vicals": [files.vical], "vicalTrust": [files.anchor], "trustStale": ["fail"]]
        let services = try await VerifierServices.make(
            settings: try Self.settings(fixture, flags), logger: Logger(label: "test"), clock: FixedClock(ServiceFixture.time))
        #expect(services.trustStore.anchors.isEmpty)
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let (report, _) = try await TrustProvenanceRouteTests.verifyIdentity(client, fixture, receipts: false)
            #expect(report["verdict"] as? String == "rejected")
            #expect(TrustProvenanceRouteTests.check(report, "mdoc.issuer.chain")?["status"] as? String == "failed")
            let trust = try RouterTests.json(try await client.execute(uri: "/v1/trust", method: .get).body)
            let source = try #require((trust["sources"] as? [[String: Any]])?.first { $0["kind"] as? String == "vical" })
            #expect(source["roots"] as? Int == 0 && (source["problem"] as? String)?.contains("--trust-stale fail") == true, "\(source)")
        }
        await services.shutdown()
        let findings = await ServicePreflight.run(settings: try Self.settings(fixture, flags), logger: Logger(label: "test"))
        #expect(findings.contains { $0.check == "vical \(files.vical)" && $0.status == .fail }, "\(findings)")
        // A wider margin: not stale, no problem anywhere.
        let wide = try await VerifierServices.make(
            settings: try Self.settings(fixture, flags.merging(["trustStaleAfter": ["30d"]]) { $1 }), logger: Logger(label: "test"),
            clock: FixedClock(ServiceFixture.time))
        #expect(wide.trustStore.anchors.count == 1 && wide.trustSourceProblems(at: ServiceFixture.time).isEmpty)
        await wide.shutdown()
        #expect(throws: SettingsError.self) { try Self.settings(fixture, ["trustStaleAfter": ["7 weeks"]]) }
        #expect(throws: SettingsError.self) { try Self.settings(fixture, ["trustStale": ["ignore"]]) }
    }

    @Test func aKeyListThatStopsAnsweringGoesStaleAndIsLoggedDaily() async throws {
        for policy in ["warn", "fail"] {
            let fixture = try ServiceFixture()
            defer { fixture.remove() }
            let server = try LocalHTTPServer()
            let good = try GooglePayRouteTests.Vectors.bytes(GooglePayRouteTests.Vectors.testRoots)
            server.set("/keys.json", .init(body: good, headers: [("Cache-Control", "max-age=3600")]))
            let url = server.url("/keys.json")
            let clock = IdempotencyRouteTests.MovableClock(GooglePayRouteTests.Vectors.time)
            let services = try await GooglePayRouteTests.services(
                fixture, roots: url, store: ["sqlite"], clock: clock, extra: ["trustStale": [policy], "trustStaleAfter": ["1d"]])
            let live = LiveServices(services)
            let logs = LogCapture()
            let monitor = TrustSourceMonitor(live: live, logger: logs.logger)
            #expect(await monitor.checkOnce().isEmpty)
            try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
                let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
                let fetched = Int(services.googlePay?.rootKeysFetchedAt?.timeIntervalSince1970 ?? 0)
                #expect(metrics.contains("wallet_verifier_trust_source_last_success_timestamp_seconds{source=\"googlepay-keys:\(url)\"} \(fetched)"))
                #expect(
                    metrics.contains("wallet_verifier_trust_source_next_update_timestamp_seconds{source=\"googlepay-keys:\(url)\"} \(fetched + 3600)")
                )
            }
            server.stop()
            // Two days on, the server silent: refreshes fail, the list stays, and is past its max-age by more than a day.
            clock.advance(2 * 86_400)
            #expect(await GooglePayRootKeysRefreshService(live: live, logger: Logger(label: "test")).refreshOnce() == false)
            let problems = await monitor.checkOnce()
            #expect(problems.count == 1 && problems[0].contains("googlepay-keys:\(url) is past its next update"), "\(problems)")
            #expect(logs.text.components(separatedBy: "past its next update").count == 2, "\(logs.text)")
            // Logged daily, not at every check.
            _ = await monitor.checkOnce()
            #expect(logs.text.components(separatedBy: "past its next update").count == 2)
            clock.advance(86_401)
            _ = await monitor.checkOnce()
            #expect(logs.text.components(separatedBy: "past its next update").count == 3)
            try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
                let trust = try RouterTests.json(try await client.execute(uri: "/v1/trust", method: .get).body)
                let source = try #require((trust["sources"] as? [[String: Any]])?.first { $0["kind"] as? String == "googlepay-keys" })
                #expect(source["stale"] as? Bool == true, "\(source)")
                let answer = try await GooglePayRouteTests.post(client, try GooglePayRouteTests.objectBody())
                if policy == "warn" {
                    // The list is still the best knowledge: the token verifies against it (its own expiry aside).
                    #expect(answer.status == .ok, "\(answer.json)")
                    #expect(logs.text.contains("still used"))
                } else {
                    #expect(answer.status == .serviceUnavailable, "\(answer.json)")
                    #expect((answer.json["detail"] as? String)?.contains("--trust-stale fail") == true, "\(answer.json)")
                }
            }
            await services.shutdown()
        }
    }
}

/// The signer certificate of a VICAL file (its x5chain's first certificate).
enum VICALFixtureSigner {
    static func signer(_ path: String) throws -> Certificate {
        let vical = try VICAL(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        return try Certificate(derEncoded: try #require(try vical.sign1.headers.x5chain().first))
    }
}
