import PostgresNIO
import VerificationCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Kept receipts in `verification_receipts` and the keys that signed them in `receipt_keys`, shared
/// by every instance. A receipt's `issued_at` is whole **seconds** (its `iat`, the unit of
/// ``ReceiptCursor``); `keep_until` and `last_used` are milliseconds like every other time in the
/// schema. Ids and key ids sort by their bytes (`COLLATE "C"`), as in the SQLite store.
///
/// Listing bounds are whole seconds too: `from` and `to` are rounded **up** to the second
/// (`issued_at >= ceil(from)`, `issued_at < ceil(to)`), which for receipts issued on a whole second
/// (an `iat` always is) selects exactly what comparing the dates selects.
extension PostgresReplayStore: ReceiptStore {
    /// Inserts the receipt's row; a row with the same id stays as it is (`ON CONFLICT DO NOTHING`).
    public func keepReceipt(_ receipt: StoredReceipt, keepUntil: Date) async throws {
        let id = receipt.id, flow = receipt.flow, verdict = receipt.verdict, jws = receipt.jws
        let issued = ReceiptSeconds.of(receipt.issuedAt), keep = EpochMillis.of(keepUntil)
        try await perform("keepReceipt") { client in
            _ = try await client.query(
                """
                INSERT INTO verification_receipts (id, issued_at, flow, verdict, jws, keep_until)
                VALUES (\(id), \(issued), \(flow), \(verdict), \(jws), \(keep))
                ON CONFLICT (id) DO NOTHING
                """
            )
        }
    }

    /// Reads the row of `id` from `verification_receipts`, if there is one.
    public func keptReceipt(_ id: String) async throws -> StoredReceipt? {
        try await perform("keptReceipt") { client in
            let rows = try await client.query("SELECT id, issued_at, flow, verdict, jws FROM verification_receipts WHERE id = \(id)")
            var found: StoredReceipt?
            for try await row in rows.decode((String, Int64, String, String, String).self) { found = Self.receipt(row) }
            return found
        }
    }

    /// Reads one page in one `SELECT` over the `(issued_at, id)` index: `limit + 1` rows, the last
    /// one only telling that another page follows. Throws ``ReceiptStoreError`` for a cursor this
    /// store did not make.
    public func keptReceipts(_ query: ReceiptQuery) async throws -> ReceiptPage {
        let position = try query.cursor.map(ReceiptCursor.position)
        let from = query.from.map(ReceiptSeconds.bound), to = query.to.map(ReceiptSeconds.bound)
        let verdict = query.verdict, flow = query.flow
        let afterSeconds = position?.seconds, afterID = position?.id
        let limit = min(max(query.limit, 1), 1000)
        let fetch = Int64(limit + 1)
        // One statement: an absent filter is a NULL, and PostgreSQL plans this unnamed statement with
        // the values bound, so the NULL conditions fall away and the bounds and the cursor remain
        // a range of the (issued_at, id) index.
        let rows = try await perform("keptReceipts") { client in
            let rows = try await client.query(
                """
                SELECT id, issued_at, flow, verdict, jws FROM verification_receipts
                WHERE (\(from)::BIGINT IS NULL OR issued_at >= \(from)::BIGINT)
                    AND (\(to)::BIGINT IS NULL OR issued_at < \(to)::BIGINT)
                    AND (\(verdict)::TEXT IS NULL OR verdict = \(verdict)::TEXT)
                    AND (\(flow)::TEXT IS NULL OR flow = \(flow)::TEXT)
                    AND (\(afterSeconds)::BIGINT IS NULL OR (issued_at, id) > (\(afterSeconds)::BIGINT, \(afterID)::TEXT))
                ORDER BY issued_at, id
                LIMIT \(fetch)
                """
            )
            var receipts: [StoredReceipt] = []
            for try await row in rows.decode((String, Int64, String, String, String).self) { receipts.append(Self.receipt(row)) }
            return receipts
        }
        let page = Array(rows.prefix(limit))
        return ReceiptPage(receipts: page, nextCursor: rows.count > limit ? page.last.map(ReceiptCursor.after) : nil)
    }

    /// Deletes the receipts whose `keep_until` is at or before `now` and the keys last used before
    /// `keysUsedBefore`, in one statement; returns how many receipts.
    public func purgeReceipts(now: Date, keysUsedBefore: Date) async throws -> Int {
        let nowMillis = EpochMillis.of(now), keysMillis = EpochMillis.of(keysUsedBefore)
        let deleted = try await perform("purgeReceipts") { client in
            // Both deletions run to completion whether or not the SELECT reads their rows.
            let rows = try await client.query(
                """
                WITH receipts AS (DELETE FROM verification_receipts WHERE keep_until <= \(nowMillis) RETURNING 1),
                     keys AS (DELETE FROM receipt_keys WHERE last_used < \(keysMillis) RETURNING 1)
                SELECT (SELECT count(*) FROM receipts)
                """
            )
            var total: Int64 = 0
            for try await count in rows.decode(Int64.self) { total = count }
            return total
        }
        return Int(clamping: deleted)
    }

    /// Inserts the key's row, or moves a known key's `last_used` forward in the same statement (its
    /// JWK stays).
    public func recordReceiptKey(_ key: ReceiptKeyRecord) async throws {
        let keyID = key.keyID, jwk = key.jwk, lastUsed = EpochMillis.of(key.lastUsed)
        try await perform("recordReceiptKey") { client in
            _ = try await client.query(
                """
                INSERT INTO receipt_keys (key_id, jwk, last_used) VALUES (\(keyID), \(jwk), \(lastUsed))
                ON CONFLICT (key_id) DO UPDATE SET last_used = GREATEST(receipt_keys.last_used, EXCLUDED.last_used)
                """
            )
        }
    }

    /// The rows of `receipt_keys` last used at or after `since`, ordered by `key_id`.
    public func receiptKeys(usedSince since: Date) async throws -> [ReceiptKeyRecord] {
        let sinceMillis = EpochMillis.of(since)
        return try await perform("receiptKeys") { client in
            let rows = try await client.query("SELECT key_id, jwk, last_used FROM receipt_keys WHERE last_used >= \(sinceMillis) ORDER BY key_id")
            var keys: [ReceiptKeyRecord] = []
            for try await (keyID, jwk, lastUsed) in rows.decode((String, String, Int64).self) {
                keys.append(ReceiptKeyRecord(keyID: keyID, jwk: jwk, lastUsed: EpochMillis.date(lastUsed)))
            }
            return keys
        }
    }

    /// A receipt from a row of `id, issued_at, flow, verdict, jws`.
    static func receipt(_ row: (String, Int64, String, String, String)) -> StoredReceipt {
        StoredReceipt(id: row.0, issuedAt: ReceiptSeconds.date(row.1), flow: row.2, verdict: row.3, jws: row.4)
    }
}
