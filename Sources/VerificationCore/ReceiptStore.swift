import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A signed verification receipt as a store keeps it: its id, when it was issued, the flow and
/// verdict it states, and the compact JWS itself. Nothing else: the receipt holds no personal data,
/// and the store keeps no more than the receipt.
public struct StoredReceipt: Sendable, Equatable {
    /// The receipt's `jti`.
    public let id: String
    /// The receipt's `iat`, to the second.
    public let issuedAt: Date
    /// The receipt's `flow` (`identity`, `web`, `mdoc`, `applepay`).
    public let flow: String
    /// The receipt's `verdict` (`accepted`, `rejected`, `indeterminate`).
    public let verdict: String
    /// The compact JWS, as issued.
    public let jws: String

    /// A stored receipt from its parts.
    public init(id: String, issuedAt: Date, flow: String, verdict: String, jws: String) {
        self.id = id
        self.issuedAt = issuedAt
        self.flow = flow
        self.verdict = verdict
        self.jws = jws
    }
}

/// Which kept receipts to list: issued in `[from, to)`, of a verdict and a flow when given, oldest
/// first, at most `limit`, after `cursor` (the `nextCursor` of the previous page).
public struct ReceiptQuery: Sendable, Equatable {
    /// The earliest `iat` listed (inclusive).
    public var from: Date?
    /// The end of the window (exclusive).
    public var to: Date?
    /// Only this verdict.
    public var verdict: String?
    /// Only this flow.
    public var flow: String?
    /// The most receipts on one page (1–1000).
    public var limit: Int
    /// Where the previous page ended: an opaque text the store made.
    public var cursor: String?

    /// A query; the limit is clamped to 1–1000.
    public init(from: Date? = nil, to: Date? = nil, verdict: String? = nil, flow: String? = nil, limit: Int = 100, cursor: String? = nil) {
        self.from = from
        self.to = to
        self.verdict = verdict
        self.flow = flow
        self.limit = min(max(limit, 1), 1000)
        self.cursor = cursor
    }
}

/// One page of kept receipts: oldest first (by `iat`, then id), and the cursor of the next page
/// (nil when this page is the last).
public struct ReceiptPage: Sendable, Equatable {
    /// The receipts of this page.
    public let receipts: [StoredReceipt]
    /// Pass as ``ReceiptQuery/cursor`` for the next page; nil at the end.
    public let nextCursor: String?

    /// A page of receipts.
    public init(receipts: [StoredReceipt], nextCursor: String?) {
        self.receipts = receipts
        self.nextCursor = nextCursor
    }
}

/// A public key receipts were signed with, kept so that receipts stay verifiable after the key is
/// rotated out (and by every instance sharing the store): its `kid`, its public JWK (JSON text) and
/// when it was last used to sign.
public struct ReceiptKeyRecord: Sendable, Equatable {
    /// The key's `kid`.
    public let keyID: String
    /// The public JWK as JSON text (with `kid`, `use: "sig"`, `alg: "ES256"`; `x5c` when the key has a certificate).
    public let jwk: String
    /// The latest time a receipt was signed with it (as recorded).
    public let lastUsed: Date

    /// A key record from its parts.
    public init(keyID: String, jwk: String, lastUsed: Date) {
        self.keyID = keyID
        self.jwk = jwk
        self.lastUsed = lastUsed
    }
}

/// Where receipts are kept (`serve --receipts keep`) and where the keys that signed them are
/// remembered: the in-memory, SQLite and PostgreSQL stores implement it beside ``ReplayStore``, so
/// instances on one PostgreSQL database share receipts and keys, and both survive a restart.
public protocol ReceiptStore: Sendable {
    /// Keeps `receipt` until `keepUntil` (then ``purgeReceipts(now:keysUsedBefore:)`` removes it).
    /// Keeping a receipt whose id is already kept leaves the kept one (ids are random: a repeat is a
    /// retry).
    nonisolated(nonsending) func keepReceipt(_ receipt: StoredReceipt, keepUntil: Date) async throws
    /// The kept receipt with this id, if any.
    nonisolated(nonsending) func keptReceipt(_ id: String) async throws -> StoredReceipt?
    /// A page of kept receipts matching `query`. An unreadable cursor throws ``ReceiptStoreError``.
    nonisolated(nonsending) func keptReceipts(_ query: ReceiptQuery) async throws -> ReceiptPage
    /// Removes receipts kept past their `keepUntil`, and key records last used before
    /// `keysUsedBefore`; returns how many receipts were removed.
    nonisolated(nonsending) func purgeReceipts(now: Date, keysUsedBefore: Date) async throws -> Int
    /// Records that `key` signed receipts up to `key.lastUsed` (a later `lastUsed` wins; the JWK
    /// of the first record stays).
    nonisolated(nonsending) func recordReceiptKey(_ key: ReceiptKeyRecord) async throws
    /// Every key record last used at or after `since`, by `kid`.
    nonisolated(nonsending) func receiptKeys(usedSince since: Date) async throws -> [ReceiptKeyRecord]
}

/// A receipt store's refusal of a query it cannot answer (an unreadable cursor).
public struct ReceiptStoreError: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    public let description: String

    /// An error with its description.
    public init(_ description: String) { self.description = description }
}

/// The cursor texts every receipt store uses: `<iat seconds>.<id>` of the last receipt of a page.
public enum ReceiptCursor {
    /// The cursor after `receipt`.
    public static func after(_ receipt: StoredReceipt) -> String {
        "\(Int64(receipt.issuedAt.timeIntervalSince1970.rounded(.down))).\(receipt.id)"
    }

    /// The position a cursor names: (iat seconds, id); throws ``ReceiptStoreError`` for another text.
    public static func position(_ cursor: String) throws -> (seconds: Int64, id: String) {
        guard let dot = cursor.firstIndex(of: "."), let seconds = Int64(cursor[..<dot]), cursor.utf8.count <= 200 else {
            throw ReceiptStoreError("the cursor is not one this service made; pass nextCursor of the previous page as it was")
        }
        let id = String(cursor[cursor.index(after: dot)...])
        guard !id.isEmpty, id.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw ReceiptStoreError("the cursor is not one this service made; pass nextCursor of the previous page as it was")
        }
        return (seconds, id)
    }
}

/// The in-memory store's receipts and receipt keys (tests, `--store memory`).
public final class InMemoryReceiptStore: ReceiptStore, Sendable {
    private struct Kept {
        var receipt: StoredReceipt
        var keepUntil: Date
    }
    private let kept = Mutex<[String: Kept]>([:])
    private let keys = Mutex<[String: ReceiptKeyRecord]>([:])

    /// An empty store.
    public init() {}

    /// Keeps the receipt unless its id is kept already.
    public nonisolated(nonsending) func keepReceipt(_ receipt: StoredReceipt, keepUntil: Date) async throws {
        kept.withLock { kept in
            if kept[receipt.id] == nil { kept[receipt.id] = Kept(receipt: receipt, keepUntil: keepUntil) }
        }
    }

    /// The kept receipt with this id, if any.
    public nonisolated(nonsending) func keptReceipt(_ id: String) async throws -> StoredReceipt? {
        kept.withLock { $0[id]?.receipt }
    }

    /// The matching receipts after the cursor, ordered by (`iat` seconds, id), `limit` of them.
    public nonisolated(nonsending) func keptReceipts(_ query: ReceiptQuery) async throws -> ReceiptPage {
        let after = try query.cursor.map(ReceiptCursor.position)
        let all = kept.withLock { Array($0.values.map(\.receipt)) }
        func seconds(_ receipt: StoredReceipt) -> Int64 { Int64(receipt.issuedAt.timeIntervalSince1970.rounded(.down)) }
        let matching =
            all
            .filter { receipt in
                (query.from.map { receipt.issuedAt >= $0 } ?? true) && (query.to.map { receipt.issuedAt < $0 } ?? true)
                    && (query.verdict.map { receipt.verdict == $0 } ?? true) && (query.flow.map { receipt.flow == $0 } ?? true)
                    && (after.map { (seconds(receipt), receipt.id) > ($0.seconds, $0.id) } ?? true)
            }
            .sorted { (seconds($0), $0.id) < (seconds($1), $1.id) }
        let page = Array(matching.prefix(query.limit))
        return ReceiptPage(receipts: page, nextCursor: matching.count > query.limit ? page.last.map(ReceiptCursor.after) : nil)
    }

    /// Removes the receipts kept until `now` or earlier and the keys last used before `keysUsedBefore`.
    public nonisolated(nonsending) func purgeReceipts(now: Date, keysUsedBefore: Date) async throws -> Int {
        keys.withLock { keys in keys = keys.filter { $0.value.lastUsed >= keysUsedBefore } }
        return kept.withLock { kept in
            let before = kept.count
            kept = kept.filter { $0.value.keepUntil > now }
            return before - kept.count
        }
    }

    /// Records a new key, or moves a known key's `lastUsed` forward (its JWK stays).
    public nonisolated(nonsending) func recordReceiptKey(_ key: ReceiptKeyRecord) async throws {
        keys.withLock { keys in
            if let known = keys[key.keyID] {
                if key.lastUsed > known.lastUsed { keys[key.keyID] = ReceiptKeyRecord(keyID: known.keyID, jwk: known.jwk, lastUsed: key.lastUsed) }
            } else {
                keys[key.keyID] = key
            }
        }
    }

    /// The keys last used at or after `since`, by `kid`.
    public nonisolated(nonsending) func receiptKeys(usedSince since: Date) async throws -> [ReceiptKeyRecord] {
        keys.withLock { $0.values.filter { $0.lastUsed >= since }.sorted { $0.keyID < $1.keyID } }
    }
}

/// A receipt's `iat` as whole seconds since 1970-01-01T00:00:00Z, as the SQL stores keep it;
/// out-of-range dates are clamped.
public enum ReceiptSeconds {
    /// The stored `issued_at`: rounded down, as ``ReceiptCursor/after(_:)`` writes it.
    public static func of(_ date: Date) -> Int64 { clamped(date.timeIntervalSince1970.rounded(.down)) }

    /// A `from` or `to` bound of a listing: rounded up, so that a bound between two whole seconds
    /// selects what a comparison of dates selects for receipts issued on whole seconds.
    public static func bound(_ date: Date) -> Int64 { clamped(date.timeIntervalSince1970.rounded(.up)) }

    /// The date of a stored `issued_at`.
    public static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: Double(seconds)) }

    private static func clamped(_ seconds: Double) -> Int64 {
        if seconds.isNaN { return Int64.min }
        if seconds >= 9.2e18 { return Int64.max }
        if seconds <= -9.2e18 { return Int64.min }
        return Int64(seconds)
    }
}
