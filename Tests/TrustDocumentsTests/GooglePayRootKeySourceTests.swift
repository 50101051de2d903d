import Crypto
import Foundation
import GooglePayVerifier
import Testing
import TrustDocuments
import VerificationCore
import WalletVerifierTestSupport

/// Google's root keys from a URL, in the library: a refreshed list never narrows trust to nothing and
/// never rolls it back; what is refused is said loudly and the list in use stays.
@Suite struct GooglePayRootKeySourceTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    /// A served key list whose responses the test changes, with max-age 0 so every refresh fetches.
    struct Fixture {
        let server: LocalHTTPServer
        let url: String
        let source = GooglePayRootKeySource(transport: HTTPTrustDocumentTransport(timeout: 5))
        let store = InMemoryDocumentCache()

        init() throws {
            server = try LocalHTTPServer()
            url = server.url("/keys.json")
        }

        func serve(_ body: [UInt8]) { server.set("/keys.json", .init(body: body, headers: [("Cache-Control", "max-age=0")])) }
    }

    static func list(expiring expiration: Date?, version: String = "ECv2") -> [UInt8] {
        GooglePayFixtureKeys().rootKeyListJSON(expiration: expiration, protocolVersion: version)
    }

    @Test func aListWithNoUsableKeyNeverReplacesTheOneInUse() async throws {
        let fixture = try Fixture()
        defer { fixture.server.stop() }
        let good = Self.list(expiring: Self.now.addingTimeInterval(365 * 86_400))
        fixture.serve(good)
        var events: [TrustSourceEvent] = []
        let first = try #require(await fixture.source.load(fixture.url, store: fixture.store, now: Self.now) { events.append($0) })
        #expect(first.bytes == good)
        for (name, bad) in [
            ("empty", Array(#"{"keys":[]}"#.utf8)),
            ("expired", Self.list(expiring: Self.now.addingTimeInterval(-60))),
            ("ECv1 only", Self.list(expiring: Self.now.addingTimeInterval(365 * 86_400), version: "ECv1")),
            ("no expiration", Self.list(expiring: nil)),
        ] {
            fixture.serve(bad)
            events = []
            let later = Self.now.addingTimeInterval(600)
            let changed = await fixture.source.refresh(fixture.url, store: fixture.store, now: later) { events.append($0) }
            #expect(!changed, "\(name)")
            #expect(fixture.source.copy(fixture.url)?.bytes == good, "\(name)")
            #expect(try await fixture.store.cachedDocument(GooglePayRootKeySource.cacheKey(fixture.url))?.bytes == good, "\(name)")
            // Loud: an error naming why, and that the previous list stays.
            guard case .error(let message)? = events.last else {
                Issue.record("\(name): no error logged: \(events)")
                continue
            }
            #expect(message.contains("no ECv2 key usable now") && message.contains("stays in use"), "\(name): \(message)")
        }
    }

    @Test func anOlderListIsARollbackAndANewerOneIsTaken() async throws {
        let fixture = try Fixture()
        defer { fixture.server.stop() }
        let current = Self.list(expiring: Self.now.addingTimeInterval(365 * 86_400))
        fixture.serve(current)
        _ = await fixture.source.load(fixture.url, store: fixture.store, now: Self.now) { _ in }
        // A list whose newest ECv2 key expires earlier than the newest in use: an older list.
        let older = Self.list(expiring: Self.now.addingTimeInterval(30 * 86_400))
        fixture.serve(older)
        var events: [TrustSourceEvent] = []
        #expect(!(await fixture.source.refresh(fixture.url, store: fixture.store, now: Self.now.addingTimeInterval(600)) { events.append($0) }))
        #expect(fixture.source.copy(fixture.url)?.bytes == current)
        #expect(events.last?.message.contains("older than the list in use") == true, "\(events)")
        // A rotation: a list with a later key is taken.
        let newer = GooglePayTokenBuilder.keyListJSON([
            (P256.Signing.PrivateKey().publicKey, "ECv2", Self.now.addingTimeInterval(400 * 86_400)),
            (P256.Signing.PrivateKey().publicKey, "ECv2", Self.now.addingTimeInterval(200 * 86_400)),
        ])
        fixture.serve(newer)
        #expect(await fixture.source.refresh(fixture.url, store: fixture.store, now: Self.now.addingTimeInterval(1200)) { _ in })
        #expect(fixture.source.copy(fixture.url)?.bytes == newer)
    }

    /// A new instance whose store holds a list past its max-age: an older list fetched then is a
    /// rollback of the stored one, refused, and the stored list is used.
    @Test func aNewInstanceDoesNotRollBackTheStoredList() async throws {
        let fixture = try Fixture()
        defer { fixture.server.stop() }
        let current = Self.list(expiring: Self.now.addingTimeInterval(365 * 86_400))
        fixture.serve(current)
        _ = await fixture.source.load(fixture.url, store: fixture.store, now: Self.now) { _ in }
        fixture.serve(Self.list(expiring: Self.now.addingTimeInterval(30 * 86_400)))
        let second = GooglePayRootKeySource(transport: HTTPTrustDocumentTransport(timeout: 5))
        var events: [TrustSourceEvent] = []
        let loaded = await second.load(fixture.url, store: fixture.store, now: Self.now.addingTimeInterval(7200)) { events.append($0) }
        #expect(loaded?.bytes == current)
        #expect(events.contains { $0.message.contains("older than the list in use") }, "\(events)")
    }

    /// A refused list is logged with its key versions: a version with line breaks cannot write lines of its own.
    @Test func aRefusedListCannotWriteLinesIntoTheLog() async throws {
        let fixture = try Fixture()
        defer { fixture.server.stop() }
        // Cut to 32 characters, control characters shown as "?".
        fixture.serve(Self.list(expiring: Self.now.addingTimeInterval(365 * 86_400), version: "ECv9\ngooglepay: root keys refreshed\r\u{1b}[2K"))
        var events: [TrustSourceEvent] = []
        #expect(await fixture.source.load(fixture.url, store: fixture.store, now: Self.now) { events.append($0) } == nil)
        let message = try #require(events.last?.message)
        #expect(message.contains("(ECv9?googlepay: root keys refres)"), "\(message)")
        #expect(!message.contains("\n") && !message.contains("\r") && !message.contains("\u{1b}"))
    }

    @Test func aFirstListWithNoUsableKeyIsNotLoaded() async throws {
        let fixture = try Fixture()
        defer { fixture.server.stop() }
        fixture.serve(Array(#"{"keys":[]}"#.utf8))
        var events: [TrustSourceEvent] = []
        #expect(await fixture.source.load(fixture.url, store: fixture.store, now: Self.now) { events.append($0) } == nil)
        #expect(events.last?.message.contains("no ECv2 key usable now") == true)
        #expect(try await fixture.store.cachedDocument(GooglePayRootKeySource.cacheKey(fixture.url)) == nil)
    }

    @Test func aKeyListThatStopsAnsweringKeepsTheStoredCopy() async throws {
        let fixture = try Fixture()
        let good = Self.list(expiring: Self.now.addingTimeInterval(365 * 86_400))
        fixture.serve(good)
        _ = await fixture.source.load(fixture.url, store: fixture.store, now: Self.now) { _ in }
        fixture.server.stop()
        // A second instance (a new source) on the same store while the server is down.
        let second = GooglePayRootKeySource(transport: HTTPTrustDocumentTransport(timeout: 5))
        var events: [TrustSourceEvent] = []
        let copy = await second.load(fixture.url, store: fixture.store, now: Self.now.addingTimeInterval(7200)) { events.append($0) }
        #expect(copy?.bytes == good)
        #expect(events.last?.message.contains("kept in the store") == true, "\(events)")
    }
}
