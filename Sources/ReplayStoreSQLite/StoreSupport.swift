import Crypto
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
