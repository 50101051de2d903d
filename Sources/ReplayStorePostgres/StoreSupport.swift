import Crypto
import Synchronization

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
