import VerificationCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Kept receipts in `verification_receipts` and the keys that signed them in `receipt_keys`
/// (schema 5). A receipt's `issued_at` is whole **seconds** (its `iat`, the unit of
/// ``ReceiptCursor``); `keep_until` and `last_used` are milliseconds like every other time in the
/// file.
///
/// Listing bounds are whole seconds too: `from` and `to` are rounded **up** to the second
/// (`issued_at >= ceil(from)`, `issued_at < ceil(to)`), which for receipts issued on a whole second
/// (an `iat` always is) selects exactly what comparing the dates selects.
extension SQLiteReplayStore: ReceiptStore {
    /// Inserts the receipt's row; a row with the same id stays as it is (`ON CONFLICT DO NOTHING`).
    public nonisolated(nonsending) func keepReceipt(_ receipt: StoredReceipt, keepUntil: Date) async throws {
        let values: [SQLiteValue] = [
            .text(receipt.id), .integer(ReceiptSeconds.of(receipt.issuedAt)), .text(receipt.flow), .text(receipt.verdict),
            .text(receipt.jws), .integer(EpochMillis.of(keepUntil)),
        ]
        try await perform("keepReceipt") { db in
            try db.execute(
                """
                INSERT INTO verification_receipts (id, issued_at, flow, verdict, jws, keep_until) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                ON CONFLICT (id) DO NOTHING
                """, values)
        }
    }

    /// Reads the row of `id` from `verification_receipts`, if there is one.
    public nonisolated(nonsending) func keptReceipt(_ id: String) async throws -> StoredReceipt? {
        let key = SQLiteValue.text(id)
        return try await perform("keptReceipt") { db in
            var found: StoredReceipt?
            try db.execute("SELECT id, issued_at, flow, verdict, jws FROM verification_receipts WHERE id = ?1", [key]) { row in
                found = Self.receipt(row)
            }
            return found
        }
    }

    /// Reads one page in one `SELECT` over the `(issued_at, id)` index: `limit + 1` rows, the last
    /// one only telling that another page follows. Throws ``ReceiptStoreError`` for a cursor this
    /// store did not make.
    public nonisolated(nonsending) func keptReceipts(_ query: ReceiptQuery) async throws -> ReceiptPage {
        let listing = try Self.listing(query)
        let limit = Self.pageLimit(query)
        let rows = try await perform("keptReceipts") { db in
            var receipts: [StoredReceipt] = []
            try db.execute(listing.sql, listing.values) { row in receipts.append(Self.receipt(row)) }
            return receipts
        }
        let page = Array(rows.prefix(limit))
        return ReceiptPage(receipts: page, nextCursor: rows.count > limit ? page.last.map(ReceiptCursor.after) : nil)
    }

    /// Deletes the receipts whose `keep_until` is at or before `now`, then the keys last used before
    /// `keysUsedBefore`; returns how many receipts.
    public nonisolated(nonsending) func purgeReceipts(now: Date, keysUsedBefore: Date) async throws -> Int {
        let values: [SQLiteValue] = [.integer(EpochMillis.of(now)), .integer(EpochMillis.of(keysUsedBefore))]
        return try await perform("purgeReceipts") { db in
            var count = 0
            try db.execute("DELETE FROM verification_receipts WHERE keep_until <= ?1 RETURNING 1", [values[0]]) { _ in count += 1 }
            try db.execute("DELETE FROM receipt_keys WHERE last_used < ?1", [values[1]])
            return count
        }
    }

    /// Inserts the key's row, or moves a known key's `last_used` forward in the same statement (its
    /// JWK stays).
    public nonisolated(nonsending) func recordReceiptKey(_ key: ReceiptKeyRecord) async throws {
        let values: [SQLiteValue] = [.text(key.keyID), .text(key.jwk), .integer(EpochMillis.of(key.lastUsed))]
        try await perform("recordReceiptKey") { db in
            try db.execute(
                """
                INSERT INTO receipt_keys (key_id, jwk, last_used) VALUES (?1, ?2, ?3)
                ON CONFLICT (key_id) DO UPDATE SET last_used = max(receipt_keys.last_used, excluded.last_used)
                """, values)
        }
    }

    /// The rows of `receipt_keys` last used at or after `since`, ordered by `key_id`.
    public nonisolated(nonsending) func receiptKeys(usedSince since: Date) async throws -> [ReceiptKeyRecord] {
        let sinceMillis = SQLiteValue.integer(EpochMillis.of(since))
        return try await perform("receiptKeys") { db in
            var keys: [ReceiptKeyRecord] = []
            try db.execute("SELECT key_id, jwk, last_used FROM receipt_keys WHERE last_used >= ?1 ORDER BY key_id", [sinceMillis]) { row in
                keys.append(ReceiptKeyRecord(keyID: row.text(0) ?? "", jwk: row.text(1) ?? "", lastUsed: EpochMillis.date(row.integer(2))))
            }
            return keys
        }
    }

    // MARK: - Helpers

    /// A receipt from a row of `id, issued_at, flow, verdict, jws`.
    static func receipt(_ row: SQLiteRow) -> StoredReceipt {
        StoredReceipt(
            id: row.text(0) ?? "", issuedAt: ReceiptSeconds.date(row.integer(1)), flow: row.text(2) ?? "", verdict: row.text(3) ?? "",
            jws: row.text(4) ?? "")
    }

    /// The query's limit within 1–1000 (also when the property was set past the initializer's clamp).
    static func pageLimit(_ query: ReceiptQuery) -> Int {
        min(max(query.limit, 1), 1000)
    }

    /// The `SELECT` of a page and its values: one condition per filter given (SQLite plans a statement
    /// before values are bound, so an absent filter is left out rather than bound as NULL, and the
    /// bounds and the cursor stay a range of the `(issued_at, id)` index). Only placeholders are
    /// written into the text; every value is bound.
    static func listing(_ query: ReceiptQuery) throws -> (sql: String, values: [SQLiteValue]) {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        /// Binds `value` and returns its placeholder.
        func bind(_ value: SQLiteValue) -> String {
            values.append(value)
            return "?\(values.count)"
        }
        if let from = query.from { conditions.append("issued_at >= \(bind(.integer(ReceiptSeconds.bound(from))))") }
        if let to = query.to { conditions.append("issued_at < \(bind(.integer(ReceiptSeconds.bound(to))))") }
        if let verdict = query.verdict { conditions.append("verdict = \(bind(.text(verdict)))") }
        if let flow = query.flow { conditions.append("flow = \(bind(.text(flow)))") }
        if let cursor = query.cursor {
            let position = try ReceiptCursor.position(cursor)
            conditions.append("(issued_at, id) > (\(bind(.integer(position.seconds))), \(bind(.text(position.id))))")
        }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let limit = bind(.integer(Int64(pageLimit(query) + 1)))
        return ("SELECT id, issued_at, flow, verdict, jws FROM verification_receipts\(filter) ORDER BY issued_at, id LIMIT \(limit)", values)
    }
}
