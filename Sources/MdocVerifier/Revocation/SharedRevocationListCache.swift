import Foundation
import VerificationCore
import WalletEncoding

/// Revocation lists fetched from their uri and kept in a ``DocumentCacheStore`` (the service's
/// SQLite or PostgreSQL store), so that instances sharing the store fetch a list once per validity
/// period and a restart does not refetch a fresh list.
///
/// - A list is fresh until the earliest of its `exp`, its `ttl` after the fetch and ``maximumAge``
///   after the fetch; after that it is fetched again (at most one fetch per uri in flight in this
///   process).
/// - A list that can no longer be fetched is used until its own `exp` (or ``maximumAge`` after the
///   fetch when it has none), never after; the checker still judges it at the verification time.
/// - Only `https` uris are fetched, and `http` to a loopback address (tests), as
///   ``RevocationListCache/fetchableURL(_:)`` says.
/// - The bytes are never trusted because they were cached: every verification verifies the list.
public actor SharedRevocationListCache: RevocationListSource {
    /// What happened to a lookup or a fetch, for metrics.
    public enum Event: Sendable, Equatable {
        /// A fresh copy was used (from this process or from the store).
        case hit
        /// A list was fetched and stored.
        case fetched
        /// A fetch failed (the reason code).
        case fetchFailed(String)
        /// A fetch failed and a copy that is still usable was used instead.
        case usedStale
    }

    /// A cached list as the operator sees it (`GET /v1/trust`).
    public struct Entry: Sendable, Equatable {
        /// The uri the list is published at (its key in the store).
        public let uri: String
        /// The list's `iat`; nil when absent or the copy does not decode.
        public let issuedAt: Date?
        /// The list's `exp`; nil when absent or the copy does not decode.
        public let expiresAt: Date?
        /// When this copy was fetched.
        public let fetchedAt: Date
        /// When the copy stops being fresh and is fetched again (the earliest of `exp`, `ttl` and the maximum age).
        public let freshUntil: Date
        /// The last moment the copy may stand in for a failed fetch; the store purges it then.
        public let usableUntil: Date
    }

    /// The store shared with the other instances, where copies are kept and fetches claimed.
    public let store: any DocumentCacheStore
    /// Fetches the lists' bytes.
    public let transport: any TrustDocumentTransport
    /// Decides freshness, usability and fetch claims (not whether a list is valid).
    public let clock: any VerificationClock
    /// Longest a fetched copy is fresh, and how long it stays usable when it has no `exp`.
    public let maximumAge: Duration
    /// Largest list body accepted from the transport, in bytes.
    public let maximumSize: Int
    private let observe: @Sendable (Event) -> Void
    private var memory: [String: CachedDocument] = [:]
    private var inFlight: [String: Task<(copy: CachedDocument, fetched: Bool), any Error>] = [:]
    /// How long an instance may hold the fetch of a uri (the transport's deadline and a margin); the
    /// others wait that long at most for its copy, then fetch themselves.
    public let fetchClaim: Duration

    /// Creates a cache over `store`; `observe` is told every ``Event``, for metrics.
    /// Defaults: the system clock, a maximum age of one day, lists up to 4 MiB, a fetch claimed for
    /// 15 s (the transport's default deadline of 10 s and a margin).
    public init(
        store: any DocumentCacheStore, transport: any TrustDocumentTransport, clock: any VerificationClock = SystemClock(),
        maximumAge: Duration = .seconds(86_400), maximumSize: Int = 4 * 1024 * 1024, fetchClaim: Duration = .seconds(15),
        observe: @escaping @Sendable (Event) -> Void = { _ in }
    ) {
        self.fetchClaim = fetchClaim
        self.store = store
        self.transport = transport
        self.clock = clock
        self.maximumAge = maximumAge
        self.maximumSize = maximumSize
        self.observe = observe
    }

    /// A fresh copy of `uri` from memory or the store, otherwise a new fetch, or else a copy that is still usable.
    /// `time` is ignored. Throws `unsupportedURI` or the fetch's failure when no usable copy exists.
    public func list(for uri: String, at time: Date) async throws -> RevocationListDocument {
        let now = clock.now()
        if let copy = memory[uri], now < copy.freshUntil {
            observe(.hit)
            return Self.document(copy, "cached")
        }
        // Another instance (or this one before a restart) may have fetched it.
        let stored = try? await store.cachedDocument(uri)
        if let stored, now < stored.freshUntil {
            memory[uri] = stored
            observe(.hit)
            return Self.document(stored, "cached")
        }
        do {
            return Self.document(try await fetch(uri, now: now), "fetched")
        } catch {
            let copies = [memory[uri], stored].compactMap { $0 }.filter { now < $0.usableUntil }
            if let usable = copies.max(by: { $0.fetchedAt < $1.fetchedAt }) {
                observe(.usedStale)
                return Self.document(usable, "cached; refetching failed")
            }
            throw error
        }
    }

    static func document(_ copy: CachedDocument, _ how: String) -> RevocationListDocument {
        RevocationListDocument(bytes: copy.bytes, origin: "\(how) (fetched \(RFC3339.format(copy.fetchedAt)))")
    }

    /// Fetches `uri` unless a copy fresh beyond `freshBeyond` (now, or the refresh horizon) is in
    /// memory or appears in the store meanwhile.
    private func fetch(_ uri: String, now: Date, freshBeyond: Date? = nil) async throws -> CachedDocument {
        let freshBeyond = freshBeyond ?? now
        guard let url = RevocationListCache.fetchableURL(uri) else {
            observe(.fetchFailed("unsupportedURI"))
            throw RevocationFailure(
                .unsupportedURI, "The revocation list uri \(uri) is not fetched: only https (or http to a loopback address) is allowed.")
        }
        if let running = inFlight[uri] {
            return try await OutboundWait.during { try await running.value }.copy
        }
        if let copy = memory[uri], copy.freshUntil > max(clock.now(), freshBeyond) {
            return copy
        }
        let claimSeconds = Double(fetchClaim.components.seconds)
        // The fetch (and the wait for another instance's) runs outside any caller's slot hooks; each
        // caller gives its own slot back while it waits for the result.
        let task = OutboundWait.$hooks.withValue(nil) {
            Task { [transport, maximumSize, maximumAge, store, clock] () async throws -> (copy: CachedDocument, fetched: Bool) in
                // Instances sharing the store fetch a list once: the one that claims it fetches, the
                // others wait for its copy in the store (and fetch themselves if none comes in time).
                // A claim released without a copy (the other instance's fetch failed) or expired (it
                // died) passes to the next one that asks, which then fetches itself.
                func claim() async -> Bool {
                    let at = clock.now()
                    return (try? await store.claimFetch(uri, now: at, until: at.addingTimeInterval(claimSeconds))) ?? true
                }
                var claimed = await claim()
                var waited = 0
                while true {
                    // Fetched meanwhile (by another instance, or by this one for a caller that read the
                    // store before the copy was there): use that copy.
                    if let stored = try? await store.cachedDocument(uri), stored.freshUntil > max(clock.now(), freshBeyond) {
                        if claimed { try? await store.releaseFetch(uri) }
                        return (stored, false)
                    }
                    if claimed || waited >= Int(claimSeconds * 10) { break }
                    try await Task.sleep(for: .milliseconds(100))
                    waited += 1
                    claimed = await claim()
                }
                do {
                    let bytes = try await RevocationFailure.fetching { try await transport.fetch(url, maximumSize: maximumSize) }
                    let copy = Self.copy(uri: uri, bytes: bytes, fetchedAt: now, maximumAge: maximumAge)
                    // A list that does not even decode is returned (the checker says why) but never kept.
                    if copy.freshUntil > now { try? await store.storeDocument(copy) }
                    if claimed { try? await store.releaseFetch(uri) }
                    return (copy, true)
                } catch {
                    if claimed { try? await store.releaseFetch(uri) }
                    throw error
                }
            }
        }
        inFlight[uri] = task
        defer { inFlight[uri] = nil }
        let result: (copy: CachedDocument, fetched: Bool)
        do {
            result = try await OutboundWait.during { try await task.value }
        } catch {
            observe(.fetchFailed(RevocationFailure.reason(of: error).rawValue))
            throw error
        }
        observe(result.fetched ? .fetched : .hit)
        if result.copy.freshUntil > now { memory[uri] = result.copy }
        return result.copy
    }

    /// The dates a fetched list is kept by. Unverified: used only to decide how long to keep the
    /// bytes, never to trust them.
    static func copy(uri: String, bytes: [UInt8], fetchedAt: Date, maximumAge: Duration) -> CachedDocument {
        let ageLimit = fetchedAt.addingTimeInterval(Double(maximumAge.components.seconds))
        guard let token = try? RevocationListToken(bytes: bytes) else {
            return CachedDocument(key: uri, bytes: bytes, fetchedAt: fetchedAt, freshUntil: fetchedAt, usableUntil: fetchedAt)
        }
        var freshUntil = ageLimit
        if let ttl = token.timeToLive, ttl < UInt64(Int32.max) { freshUntil = min(freshUntil, fetchedAt.addingTimeInterval(Double(ttl))) }
        if let exp = token.expiresAt { freshUntil = min(freshUntil, exp) }
        let usableUntil = token.expiresAt ?? ageLimit
        return CachedDocument(key: uri, bytes: bytes, fetchedAt: fetchedAt, freshUntil: freshUntil, usableUntil: max(usableUntil, freshUntil))
    }

    /// Fetches again every stored list that stops being fresh within `margin` (and is still
    /// usable), unless another instance already did; returns how many were fetched. Failures are
    /// counted through the observer and leave the stored copy in place.
    @discardableResult
    public func refresh(margin: Duration = .seconds(120)) async -> Int {
        let now = clock.now()
        let horizon = now.addingTimeInterval(Double(margin.components.seconds))
        guard let stored = try? await store.cachedDocuments() else { return 0 }
        var fetched = 0
        // Only lists: other documents sharing the cache (VICAL copies, Google Pay root keys) are
        // kept under keys that are not URLs and are refreshed by their owners.
        for copy in stored where copy.freshUntil <= horizon && now < copy.usableUntil && RevocationListCache.fetchableURL(copy.key) != nil {
            // Re-read: another instance may have refreshed it meanwhile.
            if let current = try? await store.cachedDocument(copy.key), current.freshUntil > horizon {
                memory[copy.key] = current
                continue
            }
            if let copy = try? await fetch(copy.key, now: now, freshBeyond: horizon), copy.fetchedAt == now { fetched += 1 }
        }
        _ = try? await store.purgeDocuments(now: now)
        return fetched
    }

    /// The lists in the store, for the operator's view.
    public func entries() async throws -> [Entry] {
        try await store.cachedDocuments().map { copy in
            let token = try? RevocationListToken(bytes: copy.bytes)
            return Entry(
                uri: copy.key, issuedAt: token?.issuedAt, expiresAt: token?.expiresAt, fetchedAt: copy.fetchedAt,
                freshUntil: copy.freshUntil, usableUntil: copy.usableUntil)
        }
    }
}
