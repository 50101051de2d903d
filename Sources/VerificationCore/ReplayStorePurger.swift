#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Deletes expired entries of a ``ReplayStore`` in the background: calls
/// ``ReplayStore/purgeExpired(now:)`` every ``interval`` until the task running ``run(onPurge:)`` is
/// cancelled. Works with every store; a failed purge is reported and the loop goes on (purging is
/// housekeeping, never part of a verdict).
///
/// ```swift
/// let purger = ReplayStorePurger(store: store, interval: .seconds(60))
/// let task = Task { await purger.run() }
/// // ...
/// task.cancel()
/// ```
public struct ReplayStorePurger: Sendable {
    /// The store whose expired entries are deleted.
    public let store: any ReplayStore
    /// Time between two purges (at least one millisecond).
    public let interval: Duration
    /// Where "now" comes from (the system clock by default).
    public let clock: any VerificationClock

    /// Creates a purger; an `interval` shorter than one millisecond is raised to one millisecond.
    public init(store: any ReplayStore, interval: Duration = .seconds(60), clock: any VerificationClock = SystemClock()) {
        self.store = store
        self.interval = max(interval, .milliseconds(1))
        self.clock = clock
    }

    /// Purges once; returns how many entries were deleted.
    @discardableResult
    public func purgeOnce() async throws -> Int {
        try await store.purgeExpired(now: clock.now())
    }

    /// Purges now and then every ``interval`` until the current task is cancelled; returns soon after
    /// the cancellation. `onPurge` receives each result (a count, or the error of a failed purge).
    public func run(onPurge: @Sendable (Result<Int, any Error>) -> Void = { _ in }) async {
        while !Task.isCancelled {
            let result: Result<Int, any Error>
            do {
                result = .success(try await purgeOnce())
            } catch {
                result = .failure(error)
            }
            onPurge(result)
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
        }
    }
}
