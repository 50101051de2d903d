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
    func recordFirstUse(namespace: String, key: String, expiresAt: Date, now: Date) async throws -> ReplayOutcome

    /// Stores an issued nonce with its payload until `expiresAt`. Issuing the same nonce twice throws.
    func issueNonce(_ nonce: String, payload: [UInt8], expiresAt: Date) async throws

    /// Atomically marks an issued nonce as used and returns its payload.
    func consumeNonce(_ nonce: String, now: Date) async throws -> NonceConsumption

    /// Deletes entries that expired before `now`; returns how many.
    @discardableResult
    func purgeExpired(now: Date) async throws -> Int

    /// Throws if the store cannot be reached (readiness probes).
    func ping() async throws
}

/// A process-local store for tests and single-process use.
public actor InMemoryReplayStore: ReplayStore {
    private struct Nonce {
        var payload: [UInt8]
        var expiresAt: Date
        var consumed: Bool
    }

    private var used: [String: Date] = [:]
    private var nonces: [String: Nonce] = [:]

    public init() {}

    public func recordFirstUse(namespace: String, key: String, expiresAt: Date, now: Date) async throws -> ReplayOutcome {
        let compound = namespace + "\u{0}" + key
        if let existing = used[compound], existing > now { return .alreadyUsed }
        used[compound] = expiresAt
        return .firstUse
    }

    public func issueNonce(_ nonce: String, payload: [UInt8], expiresAt: Date) async throws {
        guard nonces[nonce] == nil else {
            throw OperationalError("duplicateNonce", "a nonce with this value was issued already", retryable: false)
        }
        nonces[nonce] = Nonce(payload: payload, expiresAt: expiresAt, consumed: false)
    }

    public func consumeNonce(_ nonce: String, now: Date) async throws -> NonceConsumption {
        guard var entry = nonces[nonce] else { return .unknown }
        if entry.consumed { return .alreadyConsumed }
        if entry.expiresAt <= now { return .expired }
        entry.consumed = true
        nonces[nonce] = entry
        return .consumed(payload: entry.payload)
    }

    @discardableResult
    public func purgeExpired(now: Date) async throws -> Int {
        let before = used.count + nonces.count
        used = used.filter { $0.value > now }
        nonces = nonces.filter { $0.value.expiresAt > now }
        return before - used.count - nonces.count
    }

    public func ping() async throws {}
}
