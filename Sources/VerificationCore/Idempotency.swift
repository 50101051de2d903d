import WalletEncoding

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A submission's idempotency key, as a ``ReplayStore`` records it beside a one-time value it
/// consumes (IETF draft "The Idempotency-Key HTTP Header Field").
///
/// Only digests are stored: `key` is a digest of the caller's key (scoped to the caller's
/// credential), `body` a digest of the request (method, path and body bytes). Neither the payment
/// data nor any element value is ever stored. A later submission carrying the same tag, before
/// `retryUntil`, is the same submission retried: it finds the value it consumed the first time
/// (``ReplayOutcome/idempotentRetry(firstUse:)``, ``NonceConsumption/consumedAgain(payload:firstConsumed:)``)
/// instead of a replay. Another tag, or none, is a replay exactly as without one.
public struct IdempotencyTag: Sendable, Hashable {
    /// Digest of the scoped key (32 bytes).
    public var key: [UInt8]
    /// Digest of the request (32 bytes).
    public var body: [UInt8]
    /// Until when a retry is recognised (the retry window).
    public var retryUntil: Date

    /// Creates a tag from the two digests and the end of the retry window.
    public init(key: [UInt8], body: [UInt8], retryUntil: Date) {
        self.key = key
        self.body = body
        self.retryUntil = retryUntil
    }
}

/// Submissions with an idempotency key (IETF draft "The Idempotency-Key HTTP Header Field"): one
/// row per key, begun, then finished or abandoned. A service answering submissions needs it; a
/// verifier recording one-time values (``ReplayStore``) does not, so it is a protocol of its own.
/// The stores (in-memory, SQLite, PostgreSQL) implement both, in one database.
///
/// Implementations make each operation a single atomic step, so that two instances beginning the
/// same key cannot both proceed. Operational failures are thrown as ``OperationalError``.
public protocol IdempotencyStore: Sendable {
    /// Starts a submission with an idempotency key, atomically: records the key (until
    /// `tag.retryUntil`) with the request's digest and a lease until `leaseUntil` when the key is new
    /// or its window has passed; otherwise says what became of the earlier attempt.
    nonisolated(nonsending) func beginIdempotentRequest(_ tag: IdempotencyTag, now: Date, leaseUntil: Date) async throws -> IdempotencyStart

    /// Marks the submission with `key` finished, storing `result` (nil: nothing to store).
    nonisolated(nonsending) func finishIdempotentRequest(key: [UInt8], result: [UInt8]?) async throws

    /// Forgets an unfinished submission with `key` (it ended without an answer worth keeping), so a
    /// retry is processed anew at once.
    nonisolated(nonsending) func abandonIdempotentRequest(key: [UInt8]) async throws
}

/// What the store says when a submission with an idempotency key begins
/// (``IdempotencyStore/beginIdempotentRequest(_:now:leaseUntil:)``).
public enum IdempotencyStart: Sendable, Hashable {
    /// Process it: the key is new (or its window passed), or an earlier attempt with this key and
    /// body never finished (the process died) and its lease ran out. `firstSeen` is set for such a
    /// retry (when the key was first seen).
    case proceed(firstSeen: Date?)
    /// An attempt with this key and body is being processed now (its lease has not run out).
    case inProgress(leaseUntil: Date)
    /// An attempt with this key and body finished; `result` is what it stored (the answer of a
    /// request creation), nil when it stored none (verifications are checked again).
    case completed(result: [UInt8]?, firstSeen: Date)
    /// The key was used with another request (another body, path or method).
    case conflict
}

extension CheckOutcome {
    /// A replay check passing for the same submission retried with its idempotency key: what it
    /// consumed the first time (at `firstSeen`) is its own.
    public static func idempotentRetry(_ message: String, firstSeen: Date, details: [String: String] = [:]) -> CheckOutcome {
        var details = details
        details["firstSeen"] = RFC3339.format(firstSeen)
        return CheckOutcome(status: .passed, reason: .idempotentRetry, message: message, details: details)
    }
}
