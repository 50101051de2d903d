import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// The thread that owns the store's SQLite connection, with group commit.
///
/// Every operation is a function run on this one thread, so an operation costs one hand-over to the
/// thread and one back, whatever it does, and SQLite is called directly (no event loop in between).
/// A caller running on a NIO event loop (the HTTP service's request handlers do, see
/// `EventLoopExecutor`) gets its answer back on that same event loop, where its connection lives,
/// instead of on whichever thread happens to be free.
///
/// With `synchronous=FULL` every commit waits for the disk (fsync), and one connection commits one
/// transaction at a time, so under load the disk, not the CPU, would set the pace. Operations that
/// arrive while a transaction is being written wait and then run together, one after the other, in
/// one `BEGIN IMMEDIATE … COMMIT`: one fsync for the whole group. Each operation still sees the
/// effects of the ones before it, so two submissions of the same value in one group still get
/// "first use" and "already used"; no caller hears of success before the transaction holding its
/// change has committed.
///
/// Failures: if `BEGIN` fails, the group's operations run one by one. An operation that fails inside
/// the transaction fails alone, provided the transaction is still open (a failed statement has no
/// effect) and the `COMMIT` succeeds. If SQLite rolled the transaction back by itself (a full disk, an
/// I/O error), the operations run so far fail and the rest run as a new group. If the `COMMIT` fails,
/// the group is rolled back and every operation in it fails: never an answer for a change that may not
/// be stored.
final class SQLiteWorker: Sendable {
    typealias Operation = @Sendable (SQLiteDatabase) throws -> any Sendable

    private struct Item {
        /// False for operations that must run outside any transaction (opening, pragmas).
        let grouped: Bool
        let operation: Operation
        let continuation: CheckedContinuation<any Sendable, any Error>
        /// The event loop the caller ran on, if any: its answer is handed back there.
        let eventLoop: (any EventLoop)?
    }

    private struct State {
        var queue: [Item] = []
        var idle = false
        var stopping = false
        var stopped = false
        var stopWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let condition = NSCondition()
    private let state = Mutex(State())
    /// Every transaction (a group or an operation alone), the operations in them, and the time spent committing.
    let commits = Mutex((transactions: 0, operations: 0, commitSeconds: 0.0))
    /// Answers handed back on event loops, and the hand-overs (tasks on an event loop) that carried them.
    let loopAnswers = Mutex((answers: 0, handOvers: 0))

    private init() {}

    /// Starts the thread and opens the file at `path` on it.
    static func start(path: String) async throws -> SQLiteWorker {
        let worker = SQLiteWorker()
        try await withCheckedThrowingContinuation { (opened: CheckedContinuation<Void, any Error>) in
            let thread = Thread {
                let database: SQLiteDatabase
                do {
                    database = try SQLiteDatabase(path: path)
                } catch {
                    worker.finish()
                    opened.resume(throwing: error)
                    return
                }
                opened.resume()
                worker.serve(database)
            }
            thread.name = "sqlite-replay-store"
            thread.start()
        }
        return worker
    }

    /// Runs `body` on the thread, in the next commit group when `grouped`, and returns its result once
    /// that group has committed.
    nonisolated(nonsending) func run<T: Sendable>(grouped: Bool = true, _ body: @escaping @Sendable (SQLiteDatabase) throws -> T) async throws -> T {
        let result = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any Sendable, any Error>) in
            let item = Item(
                grouped: grouped, operation: { try body($0) }, continuation: continuation,
                eventLoop: MultiThreadedEventLoopGroup.currentEventLoop)
            condition.lock()
            let accepted = state.withLock { state in
                guard !state.stopping else { return false }
                state.queue.append(item)
                return true
            }
            condition.signal()
            condition.unlock()
            if !accepted {
                continuation.resume(throwing: SQLiteFailure(21 /* SQLITE_MISUSE */, "closed"))
            }
        }
        guard let value = result as? T else { throw SQLiteFailure(21, "result") }
        return value
    }

    /// Lets the queued operations finish, closes the connection and ends the thread.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            let done = state.withLock { state in
                state.stopping = true
                if state.stopped { return true }
                state.stopWaiters.append(continuation)
                return false
            }
            condition.signal()
            condition.unlock()
            if done { continuation.resume() }
        }
    }

    /// As ``stop()``, without waiting.
    func stopInBackground() {
        condition.lock()
        state.withLock { $0.stopping = true }
        condition.signal()
        condition.unlock()
    }

    // MARK: - On the thread

    private func serve(_ database: SQLiteDatabase) {
        while true {
            condition.lock()
            var batch: [Item] = []
            var stop = false
            while true {
                let (taken, stopping) = state.withLock { state -> ([Item], Bool) in
                    defer { state.queue.removeAll(keepingCapacity: true) }
                    return (state.queue, state.stopping)
                }
                if !taken.isEmpty || stopping {
                    batch = taken
                    stop = stopping && taken.isEmpty
                    break
                }
                condition.wait()
            }
            condition.unlock()
            if stop { break }
            process(batch, database)
        }
        database.close()
        finish()
    }

    private func finish() {
        let waiters = state.withLock { state in
            state.stopped = true
            state.stopping = true
            defer { state.stopWaiters = [] }
            return state.stopWaiters
        }
        // Operations that arrived after the thread stopped (none normally: the store drains first).
        let late = state.withLock { state in
            defer { state.queue = [] }
            return state.queue
        }
        answer(late.map { ($0, .failure(SQLiteFailure(21, "closed"))) })
        for waiter in waiters { waiter.resume() }
    }

    /// Runs a batch in arrival order: runs of grouped operations together, the others alone.
    private func process(_ batch: [Item], _ database: SQLiteDatabase) {
        var start = 0
        while start < batch.count {
            guard batch[start].grouped else {
                runAlone(batch[start], database)
                start += 1
                continue
            }
            var end = start + 1
            while end < batch.count, batch[end].grouped { end += 1 }
            runGroup(batch[start..<end], database)
            start = end
        }
    }

    private func count(transactionOf operations: Int, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        commits.withLock { $0 = ($0.transactions + 1, $0.operations + operations, $0.commitSeconds + seconds) }
    }

    /// Without a transaction of its own (each statement commits by itself).
    private func runAlone(_ item: Item, _ database: SQLiteDatabase) {
        let start = ContinuousClock.now
        let result = Result { try item.operation(database) }
        count(transactionOf: 1, since: start)
        answer([(item, result)])
    }

    private func runGroup(_ group: ArraySlice<Item>, _ database: SQLiteDatabase) {
        guard group.count > 1 else {
            if let item = group.first { runAlone(item, database) }
            return
        }
        do {
            try database.execute("BEGIN IMMEDIATE")
        } catch {
            for item in group { runAlone(item, database) }
            return
        }
        var outcomes: [Result<any Sendable, any Error>] = []
        outcomes.reserveCapacity(group.count)
        for index in group.indices {
            let outcome = Result { try group[index].operation(database) }
            outcomes.append(outcome)
            if case .failure(let error) = outcome, database.isAutocommit {
                // SQLite rolled the whole transaction back: nothing of this group so far is stored.
                answer(group[group.startIndex...index].map { ($0, .failure(error)) })
                runGroup(group[(index + 1)...], database)
                return
            }
        }
        let start = ContinuousClock.now
        defer { count(transactionOf: group.count, since: start) }
        do {
            try database.execute("COMMIT")
        } catch {
            if !database.isAutocommit { try? database.execute("ROLLBACK") }
            answer(group.map { ($0, .failure(error)) })
            return
        }
        answer(Array(zip(group, outcomes)))
    }

    /// Answers operations (a committed group, a failed one, an operation alone): the callers that ran
    /// on an event loop with one task per event loop (one wake-up of that thread for all of them),
    /// the others directly.
    private func answer(_ answers: [(Item, Result<any Sendable, any Error>)]) {
        var perLoop: [(loop: any EventLoop, answers: [(CheckedContinuation<any Sendable, any Error>, Result<any Sendable, any Error>)])] = []
        for (item, result) in answers {
            guard let loop = item.eventLoop else {
                item.continuation.resume(with: result)
                continue
            }
            if let index = perLoop.firstIndex(where: { $0.loop === loop }) {
                perLoop[index].answers.append((item.continuation, result))
            } else {
                perLoop.append((loop, [(item.continuation, result)]))
            }
        }
        if !perLoop.isEmpty {
            let answered = perLoop.reduce(0) { $0 + $1.answers.count }
            loopAnswers.withLock { $0 = ($0.answers + answered, $0.handOvers + perLoop.count) }
        }
        for (loop, answers) in perLoop {
            loop.execute {
                for (continuation, result) in answers { continuation.resume(with: result) }
            }
        }
    }
}
