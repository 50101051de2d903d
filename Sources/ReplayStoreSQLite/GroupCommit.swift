import NIOCore
import SQLiteNIO
import Synchronization

/// One SQL statement of an operation, with its bound values.
struct PlannedStatement: Sendable {
    let sql: String
    let binds: [SQLiteData]

    init(_ sql: String, _ binds: [SQLiteData] = []) {
        self.sql = sql
        self.binds = binds
    }
}

/// Group commit for the store's single connection.
///
/// With `synchronous=FULL` every commit waits for the disk (fsync), and one connection commits one
/// transaction at a time, so under load the disk, not the CPU, would set the pace. Operations that
/// arrive while a transaction is being written wait here and then run together, one after the other,
/// in one `BEGIN IMMEDIATE … COMMIT`: one fsync for the whole group. Each operation is a fixed list
/// of statements and a function that reads their rows, so a group's statements are handed to the
/// connection's thread all at once (it runs them in order) instead of one round trip each. Each
/// operation still sees the effects of the ones before it, so two submissions of the same value in
/// one group still get "first use" and "already used"; no caller hears of success before the
/// transaction holding its change has committed.
///
/// Failures: if `BEGIN` fails, the group's operations run one by one. A statement that fails inside
/// the transaction fails its own operation only, provided the `COMMIT` succeeds (then the transaction
/// was intact and the failed statement had no effect). If the `COMMIT` fails, the group is rolled back
/// and every operation in it fails (retryable): never an answer for a change that may not be stored.
final class GroupCommit: Sendable {
    typealias Reader = @Sendable ([[SQLiteRow]]) throws -> any Sendable

    private struct Item {
        let statements: [PlannedStatement]
        let read: Reader
        let continuation: CheckedContinuation<any Sendable, any Error>
    }

    private struct State {
        var queue: [Item] = []
        var writing = false
    }

    private let connection: SQLiteConnection
    private let state = Mutex(State())
    /// Groups of more than one operation committed, and the operations in them (for tests).
    let statistics = Mutex((groups: 0, operations: 0))

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Runs `statements` in the next group and returns what `read` makes of their rows once that
    /// group has committed.
    func run<T: Sendable>(_ statements: [PlannedStatement], read: @escaping @Sendable ([[SQLiteRow]]) throws -> T) async throws -> T {
        let result = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any Sendable, any Error>) in
            let startWriter = state.withLock { state in
                state.queue.append(Item(statements: statements, read: { try read($0) }, continuation: continuation))
                guard !state.writing else { return false }
                state.writing = true
                return true
            }
            if startWriter {
                Task { await self.writeGroups() }
            }
        }
        guard let value = result as? T else {
            throw SQLiteGroupCommitError()
        }
        return value
    }

    /// Writes groups until no operation is waiting.
    private func writeGroups() async {
        while true {
            let group: [Item] = state.withLock { state in
                guard !state.queue.isEmpty else {
                    state.writing = false
                    return []
                }
                defer { state.queue.removeAll(keepingCapacity: true) }
                return state.queue
            }
            guard !group.isEmpty else { return }
            if group.count == 1 {
                await runAlone(group[0])
            } else {
                await runTogether(group)
            }
        }
    }

    /// Hands every statement to the connection at once (its one thread runs them in order) and
    /// collects each operation's rows, or the first error of its statements.
    private func submit(_ items: [Item]) -> [[EventLoopFuture<[SQLiteRow]>]] {
        items.map { item in item.statements.map { connection.query($0.sql, $0.binds) } }
    }

    private func collect(_ futures: [[EventLoopFuture<[SQLiteRow]>]]) async -> [Result<[[SQLiteRow]], any Error>] {
        var outcomes: [Result<[[SQLiteRow]], any Error>] = []
        outcomes.reserveCapacity(futures.count)
        for statements in futures {
            var rows: [[SQLiteRow]] = []
            var failure: (any Error)?
            for future in statements {
                do {
                    rows.append(try await future.get())
                } catch {
                    failure = failure ?? error
                }
            }
            outcomes.append(failure.map { .failure($0) } ?? .success(rows))
        }
        return outcomes
    }

    private func answer(_ item: Item, _ outcome: Result<[[SQLiteRow]], any Error>) {
        item.continuation.resume(with: outcome.flatMap { rows in Result { try item.read(rows) } })
    }

    /// Without a transaction of its own (each statement commits by itself).
    private func runAlone(_ item: Item) async {
        answer(item, await collect(submit([item]))[0])
    }

    private func runTogether(_ group: [Item]) async {
        do {
            _ = try await connection.query("BEGIN IMMEDIATE", [])
        } catch {
            for item in group { await runAlone(item) }
            return
        }
        let futures = submit(group)
        let commit: EventLoopFuture<[SQLiteRow]> = connection.query("COMMIT", [])
        let outcomes = await collect(futures)
        do {
            _ = try await commit.get()
        } catch {
            _ = try? await connection.query("ROLLBACK", [])
            for item in group { item.continuation.resume(throwing: error) }
            return
        }
        statistics.withLock { $0 = ($0.groups + 1, $0.operations + group.count) }
        for (item, outcome) in zip(group, outcomes) {
            answer(item, outcome)
        }
    }
}

/// A result of an unexpected type came back from a group (a programming error, reported rather than trapped).
struct SQLiteGroupCommitError: Error {}
