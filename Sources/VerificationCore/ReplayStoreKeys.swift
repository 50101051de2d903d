import Crypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How keys are written to the database: a SHA-256 digest with a domain prefix.
///
/// - Any string is a key: empty, containing NUL, or long (no index-size limit is ever reached).
/// - The database never holds a transaction identifier or a request identifier in clear.
/// - `(namespace, key)` pairs cannot collide across namespaces: the namespace is length-prefixed.
///
/// The SQLite and PostgreSQL stores both use these, so the two schemas hold the same values.
package enum ReplayKeyDigest {
    /// SHA-256("replay" 0x00 ‖ UInt64-BE(byte length of namespace) ‖ namespace ‖ key), UTF-8.
    package static func replay(namespace: String, key: String) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Array("replay\u{0}".utf8))
        var length = UInt64(namespace.utf8.count).bigEndian
        withUnsafeBytes(of: &length) { hasher.update(bufferPointer: $0) }
        hasher.update(data: Array(namespace.utf8))
        hasher.update(data: Array(key.utf8))
        return Array(hasher.finalize())
    }

    /// SHA-256("nonce" 0x00 ‖ request identifier), UTF-8.
    package static func nonce(_ identifier: String) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Array("nonce\u{0}".utf8))
        hasher.update(data: Array(identifier.utf8))
        return Array(hasher.finalize())
    }
}

/// Dates as integer milliseconds since 1970-01-01T00:00:00Z, rounded down; non-finite or
/// out-of-range dates are clamped (never a trap).
package enum EpochMillis {
    package static func of(_ date: Date) -> Int64 {
        let millis = (date.timeIntervalSince1970 * 1000).rounded(.down)
        if millis.isNaN { return Int64.min }
        if millis >= 9.2e18 { return Int64.max }
        if millis <= -9.2e18 { return Int64.min }
        return Int64(millis)
    }

    /// The date of a stored value.
    package static func date(_ millis: Int64) -> Date {
        Date(timeIntervalSince1970: Double(millis) / 1000)
    }
}

/// A nonce's row as the SQL stores keep it (times in epoch milliseconds), and what consuming it
/// would find: the reading of a row behind both SQL stores' ``ReplayStore/lookupNonce(_:now:idempotency:)``.
package struct StoredNonceRow: Sendable {
    package var payload: [UInt8]
    package var expires: Int64
    package var consumed: Int64?
    package var key: [UInt8]?
    package var body: [UInt8]?
    package var until: Int64?

    package init(payload: [UInt8], expires: Int64, consumed: Int64?, key: [UInt8]?, body: [UInt8]?, until: Int64?) {
        self.payload = payload
        self.expires = expires
        self.consumed = consumed
        self.key = key
        self.body = body
        self.until = until
    }

    /// Consumed by the same submission (its retry window open, the request unexpired): consumed
    /// again; consumed by another: already consumed; else expired or outstanding.
    package func lookup(nowMillis: Int64, idempotency: IdempotencyTag?) -> NonceLookup {
        if let consumed {
            if let idempotency, expires > nowMillis, key == idempotency.key, body == idempotency.body, let until, until > nowMillis {
                return .consumedAgain(payload: payload, firstConsumed: EpochMillis.date(consumed))
            }
            return .alreadyConsumed
        }
        return expires <= nowMillis ? .expired : .outstanding(payload: payload)
    }
}
