import Crypto
import Foundation
import MdocRevocationHTTP
import MdocVerifier
import ReplayStorePostgres
import ReplayStoreSQLite
import Synchronization
import Testing
import VerificationCore
import WalletVerifierTestSupport

/// A clock the test moves.
final class MovingClock: VerificationClock, Sendable {
    private let current: Mutex<Date>
    init(_ start: Date) { current = Mutex(start) }
    func now() -> Date { current.withLock { $0 } }
    func advance(_ seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// The `cached_documents` table of every store, and the revocation-list cache shared through it:
/// instances sharing PostgreSQL (or a restart on SQLite) fetch a list once per validity period; a
/// list that cannot be refetched is used until its own `exp`, never after.
@Suite struct DocumentCacheTests {
    static func stores(_ kind: StoreKind, _ body: ([any DocumentCacheStore]) async throws -> Void) async throws {
        switch kind {
        case .memory:
            let shared = InMemoryDocumentCache()
            try await body([shared, shared])
        case .sqlite:
            // The second "instance" is the same file opened again, as after a restart.
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let first = try await SQLiteReplayStore.open(dataDirectory: directory.path)
            let second = try await SQLiteReplayStore.open(dataDirectory: directory.path)
            do { try await body([first, second]) } catch {
                await first.close()
                await second.close()
                throw error
            }
            await first.close()
            await second.close()
        case .postgres:
            try await withPostgresStores(count: 2) { stores in try await body(stores) }
        }
    }

    @Test(arguments: TestEnvironment.kinds)
    func storesKeepTheNewestCopyAndPurgeUnusableOnes(kind: StoreKind) async throws {
        try await Self.stores(kind) { stores in
            let older = CachedDocument(key: "https://issuer.example/a", bytes: [1, 2, 3], fetchedAt: at(0), freshUntil: at(60), usableUntil: at(600))
            let newer = CachedDocument(key: older.key, bytes: [4, 5], fetchedAt: at(30), freshUntil: at(90), usableUntil: at(900))
            #expect(try await stores[0].cachedDocument(older.key) == nil)
            try await stores[0].storeDocument(newer)
            // An older copy stored afterwards (a slow instance) does not replace the newer one.
            try await stores[1].storeDocument(older)
            #expect(try await stores[1].cachedDocument(older.key) == newer)
            let other = CachedDocument(key: "https://issuer.example/b", bytes: [9], fetchedAt: at(0), freshUntil: at(10), usableUntil: at(100))
            try await stores[1].storeDocument(other)
            #expect(try await stores[0].cachedDocuments().map(\.key) == [newer.key, other.key])
            #expect(try await stores[0].purgeDocuments(now: at(100)) == 1)
            #expect(try await stores[1].cachedDocuments() == [newer])
        }
    }

    /// A list with a ttl of 10 minutes and an exp a day away, served over loopback HTTP.
    static func list(uri: String, issuedAt: Date) throws -> [UInt8] {
        try RevocationListFixture(
            content: .identifiers([[1]]), uri: uri, issuedAt: issuedAt, expiresAt: issuedAt.addingTimeInterval(86_400), timeToLive: 600
        )
        .signed(key: P256.Signing.PrivateKey(), x5chain: nil)
    }

    @Test(arguments: TestEnvironment.kinds.filter { $0 != .memory })
    func instancesFetchEachListOncePerValidityPeriod(kind: StoreKind) async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let uri = server.url("/lists/1")
        server.set("/lists/1", .init(body: try Self.list(uri: uri, issuedAt: t0)))
        let clock = MovingClock(t0)
        let events = Mutex<[SharedRevocationListCache.Event]>([])
        try await Self.stores(kind) { stores in
            let caches = stores.map {
                SharedRevocationListCache(
                    store: $0, transport: HTTPRevocationTransport(timeout: 5), clock: clock,
                    observe: { event in events.withLock { $0.append(event) } })
            }
            func fetches() -> Int { server.requestedPaths.count }
            let first = try await caches[0].list(for: uri, at: t0)
            #expect(first.origin.hasPrefix("fetched") && fetches() == 1)
            #expect(try await caches[0].list(for: uri, at: t0).origin.hasPrefix("cached"))
            // The other instance (or the restarted one) finds it in the store: no second fetch.
            #expect(try await caches[1].list(for: uri, at: t0).bytes == first.bytes)
            #expect(fetches() == 1)
            // Past the ttl: one instance refetches; the other then finds the newer copy in the store.
            clock.advance(700)
            server.set("/lists/1", .init(body: try Self.list(uri: uri, issuedAt: clock.now())))
            let second = try await caches[1].list(for: uri, at: clock.now())
            #expect(second.origin.hasPrefix("fetched") && second.bytes != first.bytes && fetches() == 2)
            #expect(try await caches[0].list(for: uri, at: clock.now()).bytes == second.bytes)
            #expect(fetches() == 2)
            // The server fails: past the ttl, the stored copy is used until its exp, never after.
            server.set("/lists/1", .init(status: 500))
            clock.advance(700)
            let stale = try await caches[0].list(for: uri, at: clock.now())
            #expect(stale.bytes == second.bytes && stale.origin.contains("refetching failed"))
            clock.advance(86_400)
            await #expect(throws: RevocationFailure.self) { try await caches[0].list(for: uri, at: clock.now()) }
            let seen = events.withLock { $0 }
            #expect(seen.filter { $0 == .fetched }.count == 2)
            #expect(seen.contains(.usedStale) && seen.contains(.hit))
            #expect(seen.contains { if case .fetchFailed = $0 { return true } else { return false } })
        }
    }

    /// The background refresh fetches a list shortly before it stops being fresh, once for all
    /// instances: the second instance sees the refreshed copy in the store and does not fetch.
    @Test(arguments: TestEnvironment.kinds.filter { $0 != .memory })
    func refreshHappensBeforeTheListGoesStale(kind: StoreKind) async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let uri = server.url("/lists/2")
        server.set("/lists/2", .init(body: try Self.list(uri: uri, issuedAt: t0)))
        let clock = MovingClock(t0)
        try await Self.stores(kind) { stores in
            let caches = stores.map { SharedRevocationListCache(store: $0, transport: HTTPRevocationTransport(timeout: 5), clock: clock) }
            _ = try await caches[0].list(for: uri, at: t0)
            #expect(await caches[0].refresh(margin: .seconds(120)) == 0)
            clock.advance(500)  // 100 s before the ttl ends
            server.set("/lists/2", .init(body: try Self.list(uri: uri, issuedAt: clock.now())))
            #expect(await caches[0].refresh(margin: .seconds(120)) == 1)
            #expect(await caches[1].refresh(margin: .seconds(120)) == 0)
            #expect(server.requestedPaths.count == 2)
            let entries = try await caches[1].entries()
            #expect(entries.map(\.uri) == [uri])
            #expect(entries.first?.fetchedAt == clock.now() && entries.first?.issuedAt != nil && entries.first?.expiresAt != nil)
        }
    }

    /// Instances that miss the same list at the same moment fetch it once: the one that claims the
    /// fetch in the store fetches, the others wait for its copy.
    @Test(arguments: TestEnvironment.kinds.filter { $0 != .memory })
    func concurrentMissesAcrossInstancesFetchOnce(kind: StoreKind) async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let uri = server.url("/lists/3")
        server.set("/lists/3", .init(body: try Self.list(uri: uri, issuedAt: t0), delay: 0.5))
        let clock = MovingClock(t0)
        try await Self.stores(kind) { stores in
            let caches = stores.map { SharedRevocationListCache(store: $0, transport: HTTPRevocationTransport(timeout: 5), clock: clock) }
            let lists = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for index in 0..<10 {
                    group.addTask { try await caches[index % 2].list(for: uri, at: t0).bytes }
                }
                var all: [[UInt8]] = []
                for try await bytes in group { all.append(bytes) }
                return all
            }
            #expect(lists.count == 10 && Set(lists).count == 1)
            #expect(server.requestedPaths.count == 1, "\(server.requestedPaths)")
        }
    }

    /// When the instance that claimed a fetch fails, the others do not wait out the claim: they see
    /// it released, try themselves, and answer at once.
    @Test(arguments: TestEnvironment.kinds.filter { $0 != .memory })
    func aFailedClaimedFetchDoesNotHoldTheOthers(kind: StoreKind) async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let uri = server.url("/lists/4")
        server.set("/lists/4", .init(status: 500, delay: 0.3))
        let clock = MovingClock(t0)
        try await Self.stores(kind) { stores in
            let caches = stores.map {
                SharedRevocationListCache(store: $0, transport: HTTPRevocationTransport(timeout: 5), clock: clock, fetchClaim: .seconds(15))
            }
            let started = ContinuousClock.now
            let failures = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<4 {
                    group.addTask { (try? await caches[index % 2].list(for: uri, at: t0)) == nil }
                }
                var all: [Bool] = []
                for await failed in group { all.append(failed) }
                return all
            }
            #expect(failures == [true, true, true, true])
            // A waiter that waited out the claim would take its 15 s; the two failing fetches take
            // 0.3 s each. The bound leaves room for a machine busy with the rest of the suite (one CI
            // run took 6 s here) and still fails on a claim waited out.
            #expect(ContinuousClock.now - started < .seconds(12), "\(ContinuousClock.now - started)")
        }
    }
}
