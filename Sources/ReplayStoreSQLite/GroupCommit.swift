import SQLiteNIO
import Synchronization

/// Group commit for the store's single connection.
///
/// With `synchronous=FULL` every commit waits for the disk (fsync), and one connection commits one
/// transaction at a time, so under load the disk, not the CPU, would set the pace. Operations that
/// arrive while a transaction is being written wait here and then run together, one after the other,
/// in one `BEGIN IMMEDIATE … COMMIT`: one fsync for the whole group. Each operation still is its own
/// statement(s) and sees the effects of the ones before it, so two submissions of the same value in
/// one group still get "first use" and "already used"; no caller hears of success before the
/// transaction holding its change has committed.
///
/// If an operation fails inside a group, the transaction is rolled back and every operation of the
/// group runs again on its own (autocommit), so one bad operation cannot take the others with it.
final class GroupCommit: Sendable {
    typealias Work = @Sendable (SQLiteConnection) async throws -> any Sendable

    private struct Item {
        let work: Work
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

    /// Runs `work` in the next group and returns its result once that group has committed.
    func run<T: Sendable>(_ work: @escaping @Sendable (SQLiteConnection) async throws -> T) async throws -> T {
        let result = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any Sendable, any Error>) in
            let startWriter = state.withLock { state in
                state.queue.append(Item(work: { try await work($0) }, continuation: continuation))
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

    private func runAlone(_ item: Item) async {
        do {
            item.continuation.resume(returning: try await item.work(connection))
        } catch {
            item.continuation.resume(throwing: error)
        }
    }

    private func runTogether(_ group: [Item]) async {
        do {
            _ = try await connection.query("BEGIN IMMEDIATE")
        } catch {
            for item in group { await runAlone(item) }
            return
        }
        var results: [any Sendable] = []
        results.reserveCapacity(group.count)
        for item in group {
            do {
                results.append(try await item.work(connection))
            } catch {
                _ = try? await connection.query("ROLLBACK")
                for item in group { await runAlone(item) }
                return
            }
        }
        do {
            _ = try await connection.query("COMMIT")
        } catch {
            _ = try? await connection.query("ROLLBACK")
            for item in group { item.continuation.resume(throwing: error) }
            return
        }
        statistics.withLock { $0 = ($0.groups + 1, $0.operations + group.count) }
        for (item, result) in zip(group, results) {
            item.continuation.resume(returning: result)
        }
    }
}

/// A result of an unexpected type came back from a group (a programming error, reported rather than trapped).
struct SQLiteGroupCommitError: Error {}
