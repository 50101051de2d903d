import Foundation
import VerificationCore

/// Fetched documents (revocation lists) in the `cached_documents` table (schema 3): one row per
/// uri, replaced only by a copy fetched later.
extension SQLiteReplayStore: DocumentCacheStore {
    /// Reads the row of `key` from `cached_documents`, if there is one.
    public nonisolated(nonsending) func cachedDocument(_ key: String) async throws -> CachedDocument? {
        let id = SQLiteValue.blob(Array(key.utf8))
        return try await perform("cachedDocument") { db in
            var found: CachedDocument?
            try db.execute("SELECT bytes, fetched_at, fresh_until, usable_until FROM cached_documents WHERE key = ?1", [id]) { row in
                found = CachedDocument(
                    key: key, bytes: row.blob(0), fetchedAt: EpochMillis.date(row.integer(1)),
                    freshUntil: EpochMillis.date(row.integer(2)), usableUntil: EpochMillis.date(row.integer(3)))
            }
            return found
        }
    }

    /// Inserts or replaces the row of `document.key`; a stored copy fetched later than `document` is kept.
    public nonisolated(nonsending) func storeDocument(_ document: CachedDocument) async throws {
        let values: [SQLiteValue] = [
            .blob(Array(document.key.utf8)), .blob(document.bytes), .integer(EpochMillis.of(document.fetchedAt)),
            .integer(EpochMillis.of(document.freshUntil)), .integer(EpochMillis.of(document.usableUntil)),
        ]
        try await perform("storeDocument") { db in
            try db.execute(
                """
                INSERT INTO cached_documents (key, bytes, fetched_at, fresh_until, usable_until) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (key) DO UPDATE SET bytes = excluded.bytes, fetched_at = excluded.fetched_at,
                    fresh_until = excluded.fresh_until, usable_until = excluded.usable_until
                WHERE excluded.fetched_at >= cached_documents.fetched_at
                """, values)
        }
    }

    /// Every row of `cached_documents`, ordered by key.
    public nonisolated(nonsending) func cachedDocuments() async throws -> [CachedDocument] {
        try await perform("cachedDocuments") { db in
            var documents: [CachedDocument] = []
            try db.execute("SELECT key, bytes, fetched_at, fresh_until, usable_until FROM cached_documents ORDER BY key") { row in
                documents.append(
                    CachedDocument(
                        key: String(decoding: row.blob(0), as: UTF8.self), bytes: row.blob(1), fetchedAt: EpochMillis.date(row.integer(2)),
                        freshUntil: EpochMillis.date(row.integer(3)), usableUntil: EpochMillis.date(row.integer(4))))
            }
            return documents
        }
    }

    /// Inserts the claim, or takes over one that ended by `now`, in one statement; true when this caller holds it.
    public nonisolated(nonsending) func claimFetch(_ key: String, now: Date, until: Date) async throws -> Bool {
        let values: [SQLiteValue] = [.blob(Array(key.utf8)), .integer(EpochMillis.of(until)), .integer(EpochMillis.of(now))]
        return try await perform("claimFetch") { db in
            var claimed = false
            try db.execute(
                """
                INSERT INTO document_fetch_claims (key, until) VALUES (?1, ?2)
                ON CONFLICT (key) DO UPDATE SET until = excluded.until WHERE document_fetch_claims.until <= ?3
                RETURNING 1
                """, values
            ) { _ in claimed = true }
            return claimed
        }
    }

    /// Deletes the claim row of `key`.
    public nonisolated(nonsending) func releaseFetch(_ key: String) async throws {
        let id = SQLiteValue.blob(Array(key.utf8))
        try await perform("releaseFetch") { db in try db.execute("DELETE FROM document_fetch_claims WHERE key = ?1", [id]) }
    }

    /// Deletes the rows whose `usable_until` is at or before `now`; returns how many.
    public nonisolated(nonsending) func purgeDocuments(now: Date) async throws -> Int {
        let nowMillis = SQLiteValue.integer(EpochMillis.of(now))
        return try await perform("purgeDocuments") { db in
            var count = 0
            try db.execute("DELETE FROM cached_documents WHERE usable_until <= ?1 RETURNING 1", [nowMillis]) { _ in count += 1 }
            return count
        }
    }
}
