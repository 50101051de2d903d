import Crypto
import Foundation
import MdocRevocationHTTP
import Testing
import VerificationCore
import WalletCBOR
import WalletVerifierTestSupport

@testable import MdocVerifier

/// A clock the test moves (cache freshness).
final class ManualClock: VerificationClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date) { current = start }
    func now() -> Date { lock.withLock { current } }
    func advance(_ seconds: TimeInterval) { lock.withLock { current = current.addingTimeInterval(seconds) } }
}

/// Lists fetched over HTTP from a real server on 127.0.0.1.
@Suite(.serialized) struct RevocationFetchTests {
    func passport(_ s: RevocationScenario, uri: String, source: any RevocationListSource) async throws -> VerificationReport {
        let response = try s.response(status: try RevocationListFixture.identifierListStatus(id: RevocationScenario.id, uri: uri))
        let verifier = PassportVerifier(trustStore: s.trustStore, revocationSource: source)
        return await verifier.verify(deviceResponse: response, transcript: s.transcript, context: .at(RevocationScenario.time)).report
    }

    @Test func aListIsFetchedOnceAndThenServedFromTheCache() async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let s = try RevocationScenario()
        let uri = server.url("/lists/7")
        var fixture = s.identifierList([[0xee]])
        fixture.uri = uri
        fixture.subject = uri
        server.set("/lists/7", .init(body: try fixture.signed(by: s.signer)))
        let clock = ManualClock(RevocationScenario.time)
        let cache = RevocationListCache(transport: HTTPRevocationTransport(timeout: 5), clock: clock)

        let first = try await passport(s, uri: uri, source: cache)
        #expect(first.verdict == .accepted, "\(first.checks.filter { $0.status != .passed }.map(\.message))")
        #expect(first.check(.mdocRevocationList)?.details["source"] == "fetched")
        let second = try await passport(s, uri: uri, source: cache)
        #expect(second.verdict == .accepted)
        #expect(second.check(.mdocRevocationList)?.details["source"]?.hasPrefix("cached") == true)
        #expect(server.requestedPaths == ["/lists/7"])

        // The list's ttl is 12 hours: after that it is fetched again, and now the document is on it.
        fixture.content = .identifiers([RevocationScenario.id])
        server.set("/lists/7", .init(body: try fixture.signed(by: s.signer)))
        clock.advance(12 * 3600 + 1)
        let third = try await passport(s, uri: uri, source: cache)
        #expect(third.check(.mdocRevocationStatus)?.reason == "revoked")
        #expect(server.requestedPaths.count == 2)
    }

    @Test func concurrentVerificationsShareOneFetch() async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let s = try RevocationScenario()
        let uri = server.url("/lists/shared")
        var fixture = s.identifierList([])
        fixture.uri = uri
        fixture.subject = uri
        server.set("/lists/shared", .init(body: try fixture.signed(by: s.signer)))
        let cache = RevocationListCache(transport: HTTPRevocationTransport(timeout: 5), clock: ManualClock(RevocationScenario.time))
        async let one = passport(s, uri: uri, source: cache)
        async let two = passport(s, uri: uri, source: cache)
        async let three = passport(s, uri: uri, source: cache)
        let reports = try await [one, two, three]
        #expect(reports.allSatisfy { $0.verdict == .accepted })
        #expect(server.requestedPaths == ["/lists/shared"])
    }

    @Test func theCacheNeverKeepsAListLongerThanADayItsTTLOrItsExpiry() async throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func freshFor(ttl: UInt64?, exp: TimeInterval?) throws -> TimeInterval {
            let s = try RevocationScenario()
            let fixture = RevocationListFixture(
                content: .identifiers([]), uri: "https://x.example/l", issuedAt: now,
                expiresAt: exp.map { now.addingTimeInterval($0) }, timeToLive: ttl)
            let entry = RevocationListCache.entry(bytes: try fixture.signed(by: s.signer), fetchedAt: now, maximumAge: .seconds(86_400))
            return entry.freshUntil.timeIntervalSince(now)
        }
        #expect(try freshFor(ttl: 3600, exp: 10 * 86_400) == 3600)
        #expect(try freshFor(ttl: 30 * 86_400, exp: 10 * 86_400) == 86_400)
        #expect(try freshFor(ttl: nil, exp: 600) == 600)
        #expect(try freshFor(ttl: 7200, exp: 60) == 60)
        // Bytes that are not a list are never cached.
        #expect(RevocationListCache.entry(bytes: [1, 2, 3], fetchedAt: now, maximumAge: .seconds(86_400)).freshUntil == now)
    }

    @Test func anUnreachableURIIsUndeterminedAndRetryable() async throws {
        let s = try RevocationScenario()
        let uri = LocalHTTPServer.unreachableURL("/lists/7")
        let cache = RevocationListCache(transport: HTTPRevocationTransport(timeout: 5))
        let report = try await passport(s, uri: uri, source: cache)
        #expect(report.verdict == .indeterminate)
        let list = try #require(report.check(.mdocRevocationList))
        #expect(list.status == .error)
        #expect(list.reason == "listUnavailable")
        #expect(list.retryable == true)
        #expect(report.isRetryable)
        #expect(await cache.freshCount == 0)
    }

    @Test func serverErrorsRedirectsAndOversizedBodiesAreUndetermined() async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let s = try RevocationScenario()
        server.set("/broken", .init(status: 503, body: Array("down".utf8)))
        server.set("/moved", .init(status: 302, headers: [("Location", server.url("/broken"))]))
        server.set("/huge", .init(body: [UInt8](repeating: 0xa0, count: 300_000)))
        let cache = RevocationListCache(transport: HTTPRevocationTransport(timeout: 5), maximumSize: 100_000)
        for path in ["/broken", "/moved", "/missing"] {
            let report = try await passport(s, uri: server.url(path), source: cache)
            #expect(report.check(.mdocRevocationList)?.reason == "listUnavailable", "\(path)")
            #expect(report.verdict == .indeterminate)
        }
        let huge = try await passport(s, uri: server.url("/huge"), source: cache)
        #expect(huge.check(.mdocRevocationList)?.reason == "listTooLarge")
    }

    @Test func onlyHTTPSOrLoopbackIsFetched() async throws {
        #expect(RevocationListCache.fetchableURL("https://lists.example/1") != nil)
        #expect(RevocationListCache.fetchableURL("http://127.0.0.1:8080/1") != nil)
        #expect(RevocationListCache.fetchableURL("http://localhost/1") != nil)
        #expect(RevocationListCache.fetchableURL("http://lists.example/1") == nil)
        #expect(RevocationListCache.fetchableURL("file:///etc/passwd") == nil)
        #expect(RevocationListCache.fetchableURL("https://user:pw@lists.example/1") == nil)
        #expect(RevocationListCache.fetchableURL("not a uri") == nil)
        let s = try RevocationScenario()
        let report = try await passport(s, uri: "http://lists.example/1", source: RevocationListCache(transport: HTTPRevocationTransport()))
        #expect(report.check(.mdocRevocationList)?.reason == "unsupportedURI")
        #expect(report.check(.mdocRevocationList)?.retryable == false)
    }

    @Test func filesComeFirstThenTheNetwork() async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let s = try RevocationScenario()
        let uri = server.url("/lists/9")
        var fixture = s.identifierList([])
        fixture.uri = uri
        fixture.subject = uri
        server.set("/lists/9", .init(body: try fixture.signed(by: s.signer)))
        var offline = OfflineRevocationLists()
        try offline.add(bytes: try s.identifierList([]).signed(by: s.signer), name: "other.cwt")
        let sources = RevocationListSources([offline, RevocationListCache(transport: HTTPRevocationTransport(timeout: 5))])
        let report = try await passport(s, uri: uri, source: sources)
        #expect(report.verdict == .accepted)
        #expect(report.check(.mdocRevocationList)?.details["source"] == "fetched")
        let fromFile = try await passport(s, uri: RevocationScenario.uri, source: sources)
        #expect(fromFile.check(.mdocRevocationList)?.details["source"] == "file other.cwt")
    }
}
