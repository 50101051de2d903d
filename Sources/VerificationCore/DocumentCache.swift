import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A document fetched from the network and kept for every instance that shares a store: a
/// revocation list by its uri, a VICAL by its URL. The store keeps bytes and dates only; what the
/// bytes mean (and whether they are trusted) is decided by whoever reads them, each time.
public struct CachedDocument: Sendable, Equatable {
    /// What the document is kept under (a uri).
    public let key: String
    /// The document exactly as fetched.
    public let bytes: [UInt8]
    /// When it was fetched; of two copies under one key, the store keeps the later fetch.
    public let fetchedAt: Date
    /// Refetch after this time (the list's ttl, a maximum age).
    public let freshUntil: Date
    /// Never use after this time (the list's own exp); the store purges it then.
    public let usableUntil: Date

    /// Creates a copy of a fetched document with its dates.
    public init(key: String, bytes: [UInt8], fetchedAt: Date, freshUntil: Date, usableUntil: Date) {
        self.key = key
        self.bytes = bytes
        self.fetchedAt = fetchedAt
        self.freshUntil = freshUntil
        self.usableUntil = usableUntil
    }
}

/// Where fetched documents are shared: the in-memory, SQLite and PostgreSQL stores implement it
/// beside ``ReplayStore``, so instances on one PostgreSQL database fetch a list once per validity
/// period, and a restart does not refetch a list that is still fresh.
public protocol DocumentCacheStore: Sendable {
    /// The stored copy, if any (whatever its dates: the caller decides).
    nonisolated(nonsending) func cachedDocument(_ key: String) async throws -> CachedDocument?
    /// Stores `document`, replacing an older copy (one fetched earlier); a newer stored copy wins.
    nonisolated(nonsending) func storeDocument(_ document: CachedDocument) async throws
    /// Every stored copy (for refreshing and for the operator's view), bytes included.
    nonisolated(nonsending) func cachedDocuments() async throws -> [CachedDocument]
    /// Removes copies no longer usable at `now`; returns how many.
    nonisolated(nonsending) func purgeDocuments(now: Date) async throws -> Int
    /// Claims the fetch of `key` until `until`, so that instances sharing the store fetch a document
    /// once: true when this caller may fetch (no claim, or an expired one), false while another
    /// instance's claim runs.
    nonisolated(nonsending) func claimFetch(_ key: String, now: Date, until: Date) async throws -> Bool
    /// Ends this caller's claim (after storing the copy, or on failure).
    nonisolated(nonsending) func releaseFetch(_ key: String) async throws
}

/// The in-memory store's documents (tests, `--store memory`).
public final class InMemoryDocumentCache: DocumentCacheStore, Sendable {
    private let documents = Mutex<[String: CachedDocument]>([:])
    private let claims = Mutex<[String: Date]>([:])

    /// An empty cache.
    public init() {}

    /// The stored copy under `key`, if any.
    public nonisolated(nonsending) func cachedDocument(_ key: String) async throws -> CachedDocument? {
        documents.withLock { $0[key] }
    }

    /// Stores `document` unless a copy fetched later is stored already.
    public nonisolated(nonsending) func storeDocument(_ document: CachedDocument) async throws {
        documents.withLock { stored in
            if let existing = stored[document.key], existing.fetchedAt > document.fetchedAt { return }
            stored[document.key] = document
        }
    }

    /// Every stored copy, ordered by key.
    public nonisolated(nonsending) func cachedDocuments() async throws -> [CachedDocument] {
        documents.withLock { $0.values.sorted { $0.key < $1.key } }
    }

    /// Claims the fetch of `key` until `until`; false while an unexpired claim is held.
    public nonisolated(nonsending) func claimFetch(_ key: String, now: Date, until: Date) async throws -> Bool {
        claims.withLock { held in
            if let current = held[key], current > now { return false }
            held[key] = until
            return true
        }
    }

    /// Drops the claim on `key`, whoever holds it.
    public nonisolated(nonsending) func releaseFetch(_ key: String) async throws {
        _ = claims.withLock { $0.removeValue(forKey: key) }
    }

    /// Removes copies whose `usableUntil` is at or before `now`; returns how many.
    public nonisolated(nonsending) func purgeDocuments(now: Date) async throws -> Int {
        documents.withLock { stored in
            let expired = stored.filter { $0.value.usableUntil <= now }.map(\.key)
            for key in expired { stored[key] = nil }
            return expired.count
        }
    }
}
