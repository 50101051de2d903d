#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Crypto
import Synchronization

/// How keys are written to the database: a SHA-256 digest with a domain prefix.
///
/// - Any string is a key: empty, containing NUL, or long (no index-size limit is ever reached).
/// - The database never holds a transaction identifier or a request identifier in clear.
/// - `(namespace, key)` pairs cannot collide across namespaces: the namespace is length-prefixed.
///
/// The PostgreSQL store computes the same digests (so the two schemas hold comparable values).
enum ReplayKeyDigest {
    /// SHA-256("replay" 0x00 ‖ UInt64-BE(byte length of namespace) ‖ namespace ‖ key), UTF-8.
    static func replay(namespace: String, key: String) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Array("replay\u{0}".utf8))
        var length = UInt64(namespace.utf8.count).bigEndian
        withUnsafeBytes(of: &length) { hasher.update(bufferPointer: $0) }
        hasher.update(data: Array(namespace.utf8))
        hasher.update(data: Array(key.utf8))
        return Array(hasher.finalize())
    }

    /// SHA-256("nonce" 0x00 ‖ request identifier), UTF-8.
    static func nonce(_ identifier: String) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Array("nonce\u{0}".utf8))
        hasher.update(data: Array(identifier.utf8))
        return Array(hasher.finalize())
    }
}

/// Dates as integer milliseconds since 1970-01-01T00:00:00Z, rounded down; non-finite or
/// out-of-range dates are clamped (never a trap).
enum EpochMillis {
    static func of(_ date: Date) -> Int64 {
        let millis = (date.timeIntervalSince1970 * 1000).rounded(.down)
        if millis.isNaN { return Int64.min }
        if millis >= 9.2e18 { return Int64.max }
        if millis <= -9.2e18 { return Int64.min }
        return Int64(millis)
    }
}

/// Tracks operations under way so that closing waits for them and later operations are refused.
final class OperationGate: Sendable {
    private struct State {
        var closed = false
        var inFlight = 0
        var drained: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// False when closed (the caller must not touch the connection).
    func enter() -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.inFlight += 1
            return true
        }
    }

    func leave() {
        let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
            state.inFlight -= 1
            guard state.closed, state.inFlight == 0 else { return [] }
            defer { state.drained = [] }
            return state.drained
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Marks the gate closed without waiting (nothing may be under way). False if it was closed already.
    func closeImmediately() -> Bool {
        state.withLock { state in
            guard !state.closed else { return false }
            state.closed = true
            return true
        }
    }

    /// Marks the gate closed and waits until no operation is under way. False if it was closed already.
    func closeAndDrain() async -> Bool {
        let first = state.withLock { state in
            guard !state.closed else { return false }
            state.closed = true
            return true
        }
        guard first else { return false }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state in
                if state.inFlight == 0 { return true }
                state.drained.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
        return true
    }
}

/// A thread-safe row counter for statements whose rows are only counted.
final class RowCounter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
