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
/// The SQLite store computes the same digests (this copy keeps the PostgreSQL target free of SQLite).
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

/// Races an operation against a deadline without waiting for a loser that ignores cancellation
/// (a query stuck on a dead connection): whichever finishes first answers, the other is cancelled.
enum Deadline {
    static func run<T: Sendable>(_ timeout: Duration, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let race = Race<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                race.install(continuation)
                let work = Task {
                    do {
                        race.finish(.success(try await operation()))
                    } catch {
                        race.finish(.failure(error))
                    }
                }
                let timer = Task {
                    try? await Task.sleep(for: timeout)
                    race.finish(.failure(DeadlineExceeded()))
                }
                race.attach([work, timer])
            }
        } onCancel: {
            race.finish(.failure(CancellationError()))
        }
    }
}

struct DeadlineExceeded: Error {}

/// The state shared by the racers of ``Deadline``: the first result wins, the tasks are then cancelled.
final class Race<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var result: Result<T, any Error>?
        var finished = false
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Mutex(State())

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = state.withLock { state in
            if let result = state.result {
                state.result = nil
                return result
            }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(with: early) }
    }

    func attach(_ tasks: [Task<Void, Never>]) {
        let cancelNow = state.withLock { state in
            if state.finished { return true }
            state.tasks.append(contentsOf: tasks)
            return false
        }
        if cancelNow { for task in tasks { task.cancel() } }
    }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, tasks): (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) = state.withLock { state in
            guard !state.finished else { return (nil, []) }
            state.finished = true
            let tasks = state.tasks
            state.tasks = []
            if let continuation = state.continuation {
                state.continuation = nil
                return (continuation, tasks)
            }
            state.result = result
            return (nil, tasks)
        }
        continuation?.resume(with: result)
        for task in tasks { task.cancel() }
    }
}
