import PostgresNIO
import VerificationCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fetched documents (revocation lists) in the `cached_documents` table, shared by every instance:
/// one row per uri, replaced only by a copy fetched later.
extension PostgresReplayStore: DocumentCacheStore {
    /// Reads the row of `key` from `cached_documents`, if there is one.
    public func cachedDocument(_ key: String) async throws -> CachedDocument? {
        try await perform("cachedDocument") { client in
            let rows = try await client.query("SELECT bytes, fetched_at, fresh_until, usable_until FROM cached_documents WHERE key = \(key)")
            var found: CachedDocument?
            for try await (bytes, fetched, fresh, usable) in rows.decode((ByteBuffer, Int64, Int64, Int64).self) {
                found = CachedDocument(
                    key: key, bytes: Array(bytes.readableBytesView), fetchedAt: EpochMillis.date(fetched),
                    freshUntil: EpochMillis.date(fresh), usableUntil: EpochMillis.date(usable))
            }
            return found
        }
    }

    /// Inserts or replaces the row of `document.key`; a stored copy fetched later than `document` is kept.
    public func storeDocument(_ document: CachedDocument) async throws {
        let key = document.key, bytes = ByteBuffer(bytes: document.bytes)
        let fetched = EpochMillis.of(document.fetchedAt), fresh = EpochMillis.of(document.freshUntil), usable = EpochMillis.of(document.usableUntil)
        try await perform("storeDocument") { client in
            _ = try await client.query(
                """
                INSERT INTO cached_documents (key, bytes, fetched_at, fresh_until, usable_until)
                VALUES (\(key), \(bytes), \(fetched), \(fresh), \(usable))
                ON CONFLICT (key) DO UPDATE SET bytes = EXCLUDED.bytes, fetched_at = EXCLUDED.fetched_at,
                    fresh_until = EXCLUDED.fresh_until, usable_until = EXCLUDED.usable_until
                WHERE EXCLUDED.fetched_at >= cached_documents.fetched_at
                """
            )
        }
    }

    /// Every row of `cached_documents`, ordered by key.
    public func cachedDocuments() async throws -> [CachedDocument] {
        try await perform("cachedDocuments") { client in
            let rows = try await client.query("SELECT key, bytes, fetched_at, fresh_until, usable_until FROM cached_documents ORDER BY key")
            var documents: [CachedDocument] = []
            for try await (key, bytes, fetched, fresh, usable) in rows.decode((String, ByteBuffer, Int64, Int64, Int64).self) {
                documents.append(
                    CachedDocument(
                        key: key, bytes: Array(bytes.readableBytesView), fetchedAt: EpochMillis.date(fetched),
                        freshUntil: EpochMillis.date(fresh), usableUntil: EpochMillis.date(usable)))
            }
            return documents
        }
    }

    /// Inserts the claim, or takes over one that ended by `now`, in one statement; true when this caller holds it.
    public func claimFetch(_ key: String, now: Date, until: Date) async throws -> Bool {
        let untilMillis = EpochMillis.of(until), nowMillis = EpochMillis.of(now)
        return try await perform("claimFetch") { client in
            var claimed = false
            for try await _ in try await client.query(
                """
                INSERT INTO document_fetch_claims (key, until) VALUES (\(key), \(untilMillis))
                ON CONFLICT (key) DO UPDATE SET until = EXCLUDED.until WHERE document_fetch_claims.until <= \(nowMillis)
                RETURNING 1
                """
            ) { claimed = true }
            return claimed
        }
    }

    /// Deletes the claim row of `key`.
    public func releaseFetch(_ key: String) async throws {
        try await perform("releaseFetch") { client in
            _ = try await client.query("DELETE FROM document_fetch_claims WHERE key = \(key)")
        }
    }

    /// Deletes the rows whose `usable_until` is at or before `now`; returns how many.
    public func purgeDocuments(now: Date) async throws -> Int {
        let nowMillis = EpochMillis.of(now)
        return try await perform("purgeDocuments") { client in
            var count = 0
            for try await _ in try await client.query("DELETE FROM cached_documents WHERE usable_until <= \(nowMillis) RETURNING 1") { count += 1 }
            return count
        }
    }
}
