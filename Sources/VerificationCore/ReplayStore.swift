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
}

/// One-time values shared by every instance of a service: Apple Pay transaction identifiers and
/// identity-request nonces.
///
/// Implementations make each operation a single atomic step, so that two concurrent submissions of
/// the same value can never both succeed. Operational failures are thrown as ``OperationalError``
/// and make the verdict indeterminate (never accepted, never silently rejected).
public protocol ReplayStore: Sendable {
    /// Records `key` in `namespace` until `expiresAt`, if it is not already recorded and unexpired.
    nonisolated(nonsending) func recordFirstUse(namespace: String, key: String, expiresAt: Date, now: Date) async throws -> ReplayOutcome

    /// Stores an issued nonce with its payload until `expiresAt`. Issuing the same nonce twice throws.
    nonisolated(nonsending) func issueNonce(_ nonce: String, payload: [UInt8], expiresAt: Date) async throws

    /// Atomically marks an issued nonce as used and returns its payload.
    nonisolated(nonsending) func consumeNonce(_ nonce: String, now: Date) async throws -> NonceConsumption

    /// Deletes entries that expired before `now`; returns how many.
    @discardableResult
    nonisolated(nonsending) func purgeExpired(now: Date) async throws -> Int

    /// Throws if the store cannot be reached (readiness probes).
    nonisolated(nonsending) func ping() async throws

    /// How many issued nonces are outstanding (unconsumed and unexpired) at `now`: what a caps on
    /// request sessions counts, so that the store cannot be grown without bound.
    nonisolated(nonsending) func outstandingNonceCount(now: Date) async throws -> Int
}

/// A process-local store for tests and single-process use.
///
/// A class with a lock rather than an actor: each operation is a few dictionary accesses, done on
/// the caller's thread. An actor would run them on its own executor and resume the caller from
/// there, which moves a request handler off the event loop that serves its connection when the
/// service runs tasks on its event loops (one loop then ends up with most of the work).
public final class InMemoryReplayStore: ReplayStore, Sendable {
    private struct Nonce {
        var payload: [UInt8]
        var expiresAt: Date
        var consumed: Bool
    }

    private struct Entries {
        var used: [String: Date] = [:]
        var nonces: [String: Nonce] = [:]
    }

    private let entries = Mutex(Entries())

    public init() {}

    public nonisolated(nonsending) func recordFirstUse(namespace: String, key: String, expiresAt: Date, now: Date) async throws -> ReplayOutcome {
        let compound = namespace + "\u{0}" + key
        return entries.withLock { entries in
            if let existing = entries.used[compound], existing > now { return .alreadyUsed }
            entries.used[compound] = expiresAt
            return .firstUse
        }
    }

    public nonisolated(nonsending) func issueNonce(_ nonce: String, payload: [UInt8], expiresAt: Date) async throws {
        let issued = entries.withLock { entries in
            guard entries.nonces[nonce] == nil else { return false }
            entries.nonces[nonce] = Nonce(payload: payload, expiresAt: expiresAt, consumed: false)
            return true
        }
        guard issued else {
            throw OperationalError("duplicateNonce", "a nonce with this value was issued already", retryable: false)
        }
    }

    public nonisolated(nonsending) func consumeNonce(_ nonce: String, now: Date) async throws -> NonceConsumption {
        entries.withLock { entries in
            guard var entry = entries.nonces[nonce] else { return .unknown }
            if entry.consumed { return .alreadyConsumed }
            if entry.expiresAt <= now { return .expired }
            entry.consumed = true
            entries.nonces[nonce] = entry
            return .consumed(payload: entry.payload)
        }
    }

    @discardableResult
    public nonisolated(nonsending) func purgeExpired(now: Date) async throws -> Int {
        entries.withLock { entries in
            let before = entries.used.count + entries.nonces.count
            entries.used = entries.used.filter { $0.value > now }
            entries.nonces = entries.nonces.filter { $0.value.expiresAt > now }
            return before - entries.used.count - entries.nonces.count
        }
    }

    public nonisolated(nonsending) func ping() async throws {}

    public nonisolated(nonsending) func outstandingNonceCount(now: Date) async throws -> Int {
        entries.withLock { entries in entries.nonces.values.reduce(0) { $0 + (!$1.consumed && $1.expiresAt > now ? 1 : 0) } }
    }
}
