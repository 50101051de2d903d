#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReplayStoreKeys
import VerificationCore

/// The embedded replay store: one SQLite file (WAL mode) under the service's data directory.
///
/// Every operation that decides a verdict is a single SQL statement, so two concurrent submissions
/// of the same value can never both succeed, also when several connections (or processes on the
/// same machine) open the same file:
///
/// - ``recordFirstUse(namespace:key:expiresAt:now:)`` is one `INSERT … ON CONFLICT … DO UPDATE …
///   WHERE expires_at <= now RETURNING` (a row comes back only for a first use or the reuse of an
///   expired entry);
/// - ``consumeNonce(_:now:)`` is one `UPDATE … WHERE consumed_at IS NULL AND expires_at > now
///   RETURNING payload`; when it returns nothing, the read that follows it tells `alreadyConsumed`,
///   `expired` and `unknown` apart (the answer is a rejection in all three cases).
///
/// Operations that arrive together are committed together (``SQLiteWorker``): one fsync per group.
///
/// Times are stored as integer **milliseconds** since 1970-01-01T00:00:00Z (rounded down). Keys
/// are stored as SHA-256 digests (docs/stores.md), so neither transaction identifiers nor
/// request identifiers appear in the file, and any string (empty, with NUL, megabytes long) is a
/// valid key.
///
/// Open with ``open(dataDirectory:fileName:busyTimeout:)`` or ``open(path:busyTimeout:)``; call
/// ``close()`` before the last reference goes away. After `close()`, every operation throws an
/// ``OperationalError``. Failures of SQLite (disk full, I/O error, a lock held too long) are thrown as
/// retryable ``OperationalError``s so that verdicts become indeterminate.
public final class SQLiteReplayStore: ReplayStore {
    /// The file name used by ``open(dataDirectory:fileName:busyTimeout:)`` by default.
    public static let defaultFileName = "replay-store.sqlite"
    /// The schema this code writes (`PRAGMA user_version`).
    public static let schemaVersion = 1

    /// Absolute or relative path of the database file.
    public let path: String

    private let gate = OperationGate()
    let worker: SQLiteWorker

    private init(path: String, worker: SQLiteWorker) {
        self.path = path
        self.worker = worker
    }

    /// Opens (creating when needed) `dataDirectory/fileName`. The directory is created with mode
    /// 0700 when it does not exist.
    public static func open(
        dataDirectory: String,
        fileName: String = defaultFileName,
        busyTimeout: Duration = .seconds(5)
    ) async throws -> SQLiteReplayStore {
        do {
            try FileManager.default.createDirectory(
                atPath: dataDirectory,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw OperationalError(.unavailable, "The data directory for the SQLite replay store could not be created.", retryable: false)
        }
        let separator = dataDirectory.hasSuffix("/") ? "" : "/"
        return try await open(path: dataDirectory + separator + fileName, busyTimeout: busyTimeout)
    }

    /// Opens (creating when needed) the database file at `path`: WAL journal, `synchronous=FULL`
    /// (a consumed nonce survives a power cut once the call returned), a busy timeout for locks held
    /// by other connections, and the tables.
    ///
    /// The connection belongs to one thread of the store's own (``SQLiteWorker``): statements run one
    /// after the other on it (SQLite serialises writers anyway), and no shared thread waits for fsync.
    public static func open(path: String, busyTimeout: Duration = .seconds(5)) async throws -> SQLiteReplayStore {
        let worker: SQLiteWorker
        do {
            worker = try await SQLiteWorker.start(path: path)
        } catch {
            throw OperationalError(.unavailable, "The SQLite replay store could not be opened (\(Self.describe(error))).")
        }
        let store = SQLiteReplayStore(path: path, worker: worker)
        do {
            try await store.prepare(busyTimeout: busyTimeout)
        } catch {
            await store.close()
            throw error
        }
        return store
    }

    private func prepare(busyTimeout: Duration) async throws {
        let millis = max(0, min(busyTimeout.components.seconds, 86_400)) * 1000
            + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        try await perform("open", grouped: false) { db in
            // A bounded wait for locks held by other connections (processes sharing the file).
            db.setBusyTimeout(milliseconds: Int32(max(0, millis)))
            guard try db.text("PRAGMA journal_mode = WAL")?.lowercased() == "wal" else {
                throw OperationalError(.unavailable, "The SQLite replay store could not switch to WAL mode.", retryable: false)
            }
            try db.execute("PRAGMA synchronous = FULL")
            let version = try db.integer("PRAGMA user_version") ?? 0
            guard version <= Int64(Self.schemaVersion) else {
                throw OperationalError(
                    .unavailable,
                    "The SQLite replay store was written by a newer version (schema \(version)).",
                    retryable: false
                )
            }
            for statement in SQLiteSchema.statements {
                try db.execute(statement)
            }
            if version < Int64(Self.schemaVersion) {
                try db.execute("PRAGMA user_version = \(Self.schemaVersion)")
            }
        }
    }

    /// Transactions committed so far (a group of operations or one alone), the operations in them, and
    /// the seconds spent committing (mostly waiting for the disk). For diagnostics and benchmarks.
    public var commitStatistics: (transactions: Int, operations: Int, commitSeconds: Double) {
        worker.commits.withLock { $0 }
    }

    /// Answers handed back to callers on event loops, and the hand-overs that carried them (one per
    /// event loop and group).
    public var eventLoopAnswers: (answers: Int, handOvers: Int) {
        worker.loopAnswers.withLock { $0 }
    }

    /// Waits for the operations under way, then closes the file. Idempotent.
    public func close() async {
        guard await gate.closeAndDrain() else { return }
        await worker.stop()
    }

    /// A store dropped without ``close()``: close in the background rather than trap (no operation
    /// can be under way: each one holds a reference to the store).
    deinit {
        guard gate.closeImmediately() else { return }
        worker.stopInBackground()
    }

    // MARK: - ReplayStore

    public nonisolated(nonsending) func recordFirstUse(namespace: String, key: String, expiresAt: Date, now: Date) async throws -> ReplayOutcome {
        let values: [SQLiteValue] = [
            .blob(ReplayKeyDigest.replay(namespace: namespace, key: key)),
            .integer(EpochMillis.of(expiresAt)),
            .integer(EpochMillis.of(now)),
        ]
        return try await perform("recordFirstUse") { db in
            let recorded = try db.integer(
                """
                INSERT INTO replay_keys (id, expires_at) VALUES (?1, ?2)
                ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at
                WHERE replay_keys.expires_at <= ?3
                RETURNING 1 AS recorded
                """,
                values
            )
            return recorded == nil ? .alreadyUsed : .firstUse
        }
    }

    public nonisolated(nonsending) func issueNonce(_ nonce: String, payload: [UInt8], expiresAt: Date) async throws {
        let values: [SQLiteValue] = [
            .blob(ReplayKeyDigest.nonce(nonce)),
            .blob(payload),
            .integer(EpochMillis.of(expiresAt)),
        ]
        let issued = try await perform("issueNonce") { db in
            try db.integer(
                """
                INSERT INTO replay_nonces (id, payload, expires_at, consumed_at) VALUES (?1, ?2, ?3, NULL)
                ON CONFLICT (id) DO NOTHING
                RETURNING 1 AS issued
                """,
                values
            ) != nil
        }
        guard issued else {
            throw OperationalError("duplicateNonce", "a nonce with this value was issued already", retryable: false)
        }
    }

    public nonisolated(nonsending) func consumeNonce(_ nonce: String, now: Date) async throws -> NonceConsumption {
        let id = SQLiteValue.blob(ReplayKeyDigest.nonce(nonce))
        let nowMillis = SQLiteValue.integer(EpochMillis.of(now))
        return try await perform("consumeNonce") { db -> NonceConsumption in
            var payload: [UInt8]?
            try db.execute(
                """
                UPDATE replay_nonces SET consumed_at = ?2
                WHERE id = ?1 AND consumed_at IS NULL AND expires_at > ?2
                RETURNING payload
                """,
                [id, nowMillis]
            ) { row in
                if payload == nil { payload = row.isNull(0) ? [] : row.blob(0) }
            }
            if let payload { return .consumed(payload: payload) }
            // Nothing consumed: say why. States only move forward (unused → used, valid → expired →
            // purged), so this read cannot turn a rejection into an acceptance.
            guard let used = try db.integer("SELECT consumed_at IS NOT NULL FROM replay_nonces WHERE id = ?1", [id]) else {
                return .unknown
            }
            return used != 0 ? .alreadyConsumed : .expired
        }
    }

    @discardableResult
    public nonisolated(nonsending) func purgeExpired(now: Date) async throws -> Int {
        let nowMillis = SQLiteValue.integer(EpochMillis.of(now))
        return try await perform("purgeExpired") { db in
            var count = 0
            try db.execute("DELETE FROM replay_keys WHERE expires_at <= ?1 RETURNING 1", [nowMillis]) { _ in count += 1 }
            try db.execute("DELETE FROM replay_nonces WHERE expires_at <= ?1 RETURNING 1", [nowMillis]) { _ in count += 1 }
            return count
        }
    }

    public nonisolated(nonsending) func outstandingNonceCount(now: Date) async throws -> Int {
        let nowMillis = SQLiteValue.integer(EpochMillis.of(now))
        return try await perform("outstandingNonceCount") { db in
            // A range scan of the expires_at index.
            Int(try db.integer("SELECT count(*) FROM replay_nonces WHERE expires_at > ?1 AND consumed_at IS NULL", [nowMillis]) ?? 0)
        }
    }

    public nonisolated(nonsending) func ping() async throws {
        try await perform("ping") { db in
            _ = try db.integer("SELECT count(*) FROM replay_nonces WHERE 0")
        }
    }

    // MARK: - Helpers

    /// Runs an operation on the store's thread (in the next commit group unless `grouped` is false)
    /// unless the store is closed; every failure becomes an ``OperationalError`` (the message names
    /// the operation and SQLite's result code, never a value).
    private nonisolated(nonsending) func perform<T: Sendable>(
        _ operation: String,
        grouped: Bool = true,
        _ body: @escaping @Sendable (SQLiteDatabase) throws -> T
    ) async throws -> T {
        guard gate.enter() else {
            throw OperationalError(.unavailable, "The SQLite replay store is closed.")
        }
        defer { gate.leave() }
        do {
            return try await worker.run(grouped: grouped, body)
        } catch let error as OperationalError {
            throw error
        } catch {
            throw OperationalError(.unavailable, "SQLite replay store: \(operation) failed (\(Self.describe(error))).")
        }
    }

    /// SQLite's result code only: SQLite's own messages may quote values.
    static func describe(_ error: any Error) -> String {
        if let error = error as? SQLiteFailure {
            return error.description
        }
        return String(describing: type(of: error))
    }
}

/// The tables of the SQLite store (created on open; idempotent).
enum SQLiteSchema {
    static let statements = [
        """
        CREATE TABLE IF NOT EXISTS replay_keys (
            id BLOB NOT NULL PRIMARY KEY,      -- SHA-256 of (namespace, key), see ReplayKeyDigest
            expires_at INTEGER NOT NULL         -- milliseconds since the Unix epoch
        ) WITHOUT ROWID
        """,
        "CREATE INDEX IF NOT EXISTS replay_keys_expires_at ON replay_keys (expires_at)",
        """
        CREATE TABLE IF NOT EXISTS replay_nonces (
            id BLOB NOT NULL PRIMARY KEY,      -- SHA-256 of the request identifier
            payload BLOB,                       -- what was stored with the nonce (NULL reads as empty)
            expires_at INTEGER NOT NULL,        -- milliseconds since the Unix epoch
            consumed_at INTEGER                 -- NULL until consumed; then milliseconds since the epoch
        ) WITHOUT ROWID
        """,
        "CREATE INDEX IF NOT EXISTS replay_nonces_expires_at ON replay_nonces (expires_at)",
        // Counting outstanding sessions (--max-outstanding-requests) scans only unconsumed rows.
        "CREATE INDEX IF NOT EXISTS replay_nonces_outstanding ON replay_nonces (expires_at) WHERE consumed_at IS NULL",
    ]
}
