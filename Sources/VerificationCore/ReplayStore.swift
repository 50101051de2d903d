import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What happened when a one-time value was presented to a ``ReplayStore``.
public enum ReplayOutcome: Sendable, Hashable {
    /// First use: the value is now recorded.
    case firstUse
    /// Seen before (and not yet expired): a replay.
    case alreadyUsed
    /// Seen before, recorded by a submission with the same ``IdempotencyTag`` whose retry window is
    /// still open: the same submission retried, not a replay. `firstUse` is when it was recorded.
    case idempotentRetry(firstUse: Date)
}

/// What happened when a request nonce was consumed.
public enum NonceConsumption: Sendable, Hashable {
    /// The nonce was issued, had not expired and had not been used; it is now used. Carries what was
    /// stored with it (for example the request descriptor).
    case consumed(payload: [UInt8])
    /// The nonce was issued but has been consumed already.
    case alreadyConsumed
    /// The nonce was issued but expired before it was used.
    case expired
    /// No such nonce was issued (or it was purged long ago).
    case unknown
    /// The nonce was consumed by a submission with the same ``IdempotencyTag``, its retry window is
    /// open and the request has not expired: the same submission retried. Carries the payload again
    /// and when the nonce was first consumed.
    case consumedAgain(payload: [UInt8], firstConsumed: Date)
}

/// What a look at a request nonce found, without consuming it (``ReplayStore/lookupNonce(_:now:idempotency:)``).
public enum NonceLookup: Sendable, Hashable {
    /// Issued, unexpired and unused: a response may still consume it. Carries what was stored with it.
    case outstanding(payload: [UInt8])
    /// The nonce was issued but has been consumed already.
    case alreadyConsumed
    /// The nonce was issued but expired before it was used.
    case expired
    /// No such nonce was issued (or it was purged long ago).
    case unknown
    /// Consumed by a submission with the same ``IdempotencyTag`` (its window open, the request
    /// unexpired): the same submission retried. Carries the payload and when it was first consumed.
    case consumedAgain(payload: [UInt8], firstConsumed: Date)
}

/// Names one attempt at consuming a nonce, stored beside the consumption, so that only that attempt
/// can give the nonce back (``ReplayStore/releaseNonce(_:attempt:now:)``). 16 random bytes.
public struct NonceAttempt: Sendable, Hashable {
    /// The attempt's random bytes.
    public let bytes: [UInt8]

    /// An attempt with these bytes.
    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A new attempt: 16 bytes from the system's random number generator.
    public static func random() -> NonceAttempt {
        var generator = SystemRandomNumberGenerator()
        return NonceAttempt(bytes: (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}

/// One-time values shared by every instance of a service: Apple Pay transaction identifiers and
/// identity-request nonces.
///
/// Implementations make each operation a single atomic step, so that two concurrent submissions of
/// the same value can never both succeed. Operational failures are thrown as ``OperationalError``
/// and make the verdict indeterminate (never accepted, never silently rejected).
public protocol ReplayStore: Sendable {
    /// Records `key` in `namespace` until `expiresAt`, if it is not already recorded and unexpired,
    /// with `idempotency` beside it (in the same statement). When the key is recorded already with the
    /// same tag and the tag's window is open, answers ``ReplayOutcome/idempotentRetry(firstUse:)``.
    nonisolated(nonsending) func recordFirstUse(
        namespace: String, key: String, expiresAt: Date, now: Date,
        idempotency: IdempotencyTag?
    ) async throws -> ReplayOutcome

    /// Stores an issued nonce with its payload until `expiresAt`. Issuing the same nonce twice throws.
    nonisolated(nonsending) func issueNonce(_ nonce: String, payload: [UInt8], expiresAt: Date) async throws

    /// Atomically marks an issued nonce as used (recording `idempotency` and `attempt` beside it) and
    /// returns its payload. A nonce consumed with the same tag, within the tag's window and before the
    /// request expires, is ``NonceConsumption/consumedAgain(payload:firstConsumed:)``.
    nonisolated(nonsending) func consumeNonce(
        _ nonce: String, now: Date, idempotency: IdempotencyTag?, attempt: NonceAttempt?
    ) async throws -> NonceConsumption

    /// Reads an issued nonce without consuming it: what ``consumeNonce(_:now:idempotency:attempt:)``
    /// would find at `now`, except that an unused nonce stays unused. Request sessions read the
    /// request with it, and consume the nonce only once the response opens for that request.
    nonisolated(nonsending) func lookupNonce(_ nonce: String, now: Date, idempotency: IdempotencyTag?) async throws -> NonceLookup

    /// Gives a consumed nonce back, atomically, when it was consumed by `attempt` and has not expired at
    /// `now`: it is unused again (its idempotency tag forgotten) until it expires. Returns whether it
    /// was given back; a nonce consumed by another attempt (or without one) stays consumed.
    nonisolated(nonsending) func releaseNonce(_ nonce: String, attempt: NonceAttempt, now: Date) async throws -> Bool

    /// Deletes entries that expired before `now`; returns how many.
    @discardableResult
    nonisolated(nonsending) func purgeExpired(now: Date) async throws -> Int

    /// Throws if the store cannot be reached (readiness probes).
    nonisolated(nonsending) func ping() async throws

    /// How many issued nonces are outstanding (unconsumed and unexpired) at `now`: what a caps on
    /// request sessions counts, so that the store cannot be grown without bound.
    nonisolated(nonsending) func outstandingNonceCount(now: Date) async throws -> Int
}

extension ReplayStore {
    /// ``recordFirstUse(namespace:key:expiresAt:now:idempotency:)`` without an idempotency key.
    public nonisolated(nonsending) func recordFirstUse(namespace: String, key: String, expiresAt: Date, now: Date) async throws -> ReplayOutcome {
        try await recordFirstUse(namespace: namespace, key: key, expiresAt: expiresAt, now: now, idempotency: nil)
    }

    /// ``consumeNonce(_:now:idempotency:attempt:)`` without an idempotency key or an attempt.
    public nonisolated(nonsending) func consumeNonce(_ nonce: String, now: Date) async throws -> NonceConsumption {
        try await consumeNonce(nonce, now: now, idempotency: nil, attempt: nil)
    }

    /// ``consumeNonce(_:now:idempotency:attempt:)`` without an attempt: the consumption cannot be given back.
    public nonisolated(nonsending) func consumeNonce(_ nonce: String, now: Date, idempotency: IdempotencyTag?) async throws -> NonceConsumption {
        try await consumeNonce(nonce, now: now, idempotency: idempotency, attempt: nil)
    }
}

/// A process-local store (one-time values and idempotency keys) for tests and single-process use.
///
/// A class with a lock rather than an actor: each operation is a few dictionary accesses, done on
/// the caller's thread. An actor would run them on its own executor and resume the caller from
/// there, which moves a request handler off the event loop that serves its connection when the
/// service runs tasks on its event loops (one loop then ends up with most of the work).
public final class InMemoryReplayStore: ReplayStore, IdempotencyStore, Sendable {
    private struct Nonce {
        var payload: [UInt8]
        var expiresAt: Date
        var consumed: Date?
        var tag: IdempotencyTag?
        var attempt: NonceAttempt?
    }

    private struct Used {
        var expiresAt: Date
        var recorded: Date
        var tag: IdempotencyTag?
    }

    private struct Submission {
        var body: [UInt8]
        var firstSeen: Date
        var expiresAt: Date
        var leaseUntil: Date?
        var finished: Bool
        var result: [UInt8]?
    }

    private struct Entries {
        var used: [String: Used] = [:]
        var nonces: [String: Nonce] = [:]
        var submissions: [[UInt8]: Submission] = [:]
    }

    /// The same submission retried: the same tag, inside its window.
    private static func isRetry(_ recorded: IdempotencyTag?, _ given: IdempotencyTag?, now: Date) -> Bool {
        guard let recorded, let given else { return false }
        return recorded.key == given.key && recorded.body == given.body && recorded.retryUntil > now
    }

    private let entries = Mutex(Entries())

    /// An empty store.
    public init() {}

    /// See ``ReplayStore/recordFirstUse(namespace:key:expiresAt:now:idempotency:)``.
    public nonisolated(nonsending) func recordFirstUse(
        namespace: String, key: String, expiresAt: Date, now: Date,
        idempotency: IdempotencyTag?
    ) async throws -> ReplayOutcome {
        let compound = namespace + "\u{0}" + key
        return entries.withLock { entries in
            if let existing = entries.used[compound], existing.expiresAt > now {
                return Self.isRetry(existing.tag, idempotency, now: now) ? .idempotentRetry(firstUse: existing.recorded) : .alreadyUsed
            }
            entries.used[compound] = Used(expiresAt: expiresAt, recorded: now, tag: idempotency)
            return .firstUse
        }
    }

    /// Stores an issued nonce; a nonce stored already (even expired, until purged) throws a non-retryable ``OperationalError``.
    public nonisolated(nonsending) func issueNonce(_ nonce: String, payload: [UInt8], expiresAt: Date) async throws {
        let issued = entries.withLock { entries in
            guard entries.nonces[nonce] == nil else { return false }
            entries.nonces[nonce] = Nonce(payload: payload, expiresAt: expiresAt, consumed: nil, tag: nil, attempt: nil)
            return true
        }
        guard issued else {
            throw OperationalError("duplicateNonce", "a nonce with this value was issued already", retryable: false)
        }
    }

    /// See ``ReplayStore/consumeNonce(_:now:idempotency:attempt:)``.
    public nonisolated(nonsending) func consumeNonce(
        _ nonce: String, now: Date, idempotency: IdempotencyTag?, attempt: NonceAttempt?
    ) async throws -> NonceConsumption {
        entries.withLock { entries in
            guard var entry = entries.nonces[nonce] else { return .unknown }
            if let consumed = entry.consumed {
                if entry.expiresAt > now, Self.isRetry(entry.tag, idempotency, now: now) {
                    return .consumedAgain(payload: entry.payload, firstConsumed: consumed)
                }
                return .alreadyConsumed
            }
            if entry.expiresAt <= now { return .expired }
            entry.consumed = now
            entry.tag = idempotency
            entry.attempt = attempt
            entries.nonces[nonce] = entry
            return .consumed(payload: entry.payload)
        }
    }

    /// See ``ReplayStore/lookupNonce(_:now:idempotency:)``.
    public nonisolated(nonsending) func lookupNonce(_ nonce: String, now: Date, idempotency: IdempotencyTag?) async throws -> NonceLookup {
        entries.withLock { entries in
            guard let entry = entries.nonces[nonce] else { return .unknown }
            if let consumed = entry.consumed {
                if entry.expiresAt > now, Self.isRetry(entry.tag, idempotency, now: now) {
                    return .consumedAgain(payload: entry.payload, firstConsumed: consumed)
                }
                return .alreadyConsumed
            }
            return entry.expiresAt <= now ? .expired : .outstanding(payload: entry.payload)
        }
    }

    /// See ``ReplayStore/releaseNonce(_:attempt:now:)``.
    public nonisolated(nonsending) func releaseNonce(_ nonce: String, attempt: NonceAttempt, now: Date) async throws -> Bool {
        entries.withLock { entries in
            guard var entry = entries.nonces[nonce], entry.consumed != nil, entry.attempt == attempt, entry.expiresAt > now else { return false }
            entry.consumed = nil
            entry.tag = nil
            entry.attempt = nil
            entries.nonces[nonce] = entry
            return true
        }
    }

    /// See ``IdempotencyStore/beginIdempotentRequest(_:now:leaseUntil:)``.
    public nonisolated(nonsending) func beginIdempotentRequest(_ tag: IdempotencyTag, now: Date, leaseUntil: Date) async throws -> IdempotencyStart {
        entries.withLock { entries in
            guard var existing = entries.submissions[tag.key], existing.expiresAt > now else {
                entries.submissions[tag.key] = Submission(
                    body: tag.body, firstSeen: now, expiresAt: tag.retryUntil, leaseUntil: leaseUntil, finished: false)
                return .proceed(firstSeen: nil)
            }
            guard existing.body == tag.body else { return .conflict }
            if existing.finished { return .completed(result: existing.result, firstSeen: existing.firstSeen) }
            if let lease = existing.leaseUntil, lease > now { return .inProgress(leaseUntil: lease) }
            existing.leaseUntil = leaseUntil
            entries.submissions[tag.key] = existing
            return .proceed(firstSeen: existing.firstSeen)
        }
    }

    /// Marks the submission finished with `result` and ends its lease; an unknown key is ignored.
    public nonisolated(nonsending) func finishIdempotentRequest(key: [UInt8], result: [UInt8]?) async throws {
        entries.withLock { entries in
            entries.submissions[key]?.finished = true
            entries.submissions[key]?.leaseUntil = nil
            entries.submissions[key]?.result = result
        }
    }

    /// Forgets the submission with `key` unless it has finished.
    public nonisolated(nonsending) func abandonIdempotentRequest(key: [UInt8]) async throws {
        entries.withLock { entries in
            if entries.submissions[key]?.finished == false { entries.submissions[key] = nil }
        }
    }

    /// Deletes used values, nonces and submissions that expire at or before `now`; returns how many.
    @discardableResult
    public nonisolated(nonsending) func purgeExpired(now: Date) async throws -> Int {
        entries.withLock { entries in
            let before = entries.used.count + entries.nonces.count + entries.submissions.count
            entries.used = entries.used.filter { $0.value.expiresAt > now }
            entries.nonces = entries.nonces.filter { $0.value.expiresAt > now }
            entries.submissions = entries.submissions.filter { $0.value.expiresAt > now }
            return before - entries.used.count - entries.nonces.count - entries.submissions.count
        }
    }

    /// Always succeeds: the store is in memory.
    public nonisolated(nonsending) func ping() async throws {}

    /// Counts the nonces neither consumed nor expired at `now`.
    public nonisolated(nonsending) func outstandingNonceCount(now: Date) async throws -> Int {
        entries.withLock { entries in entries.nonces.values.reduce(0) { $0 + ($1.consumed == nil && $1.expiresAt > now ? 1 : 0) } }
    }
}
