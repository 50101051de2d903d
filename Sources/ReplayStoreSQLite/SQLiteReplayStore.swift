#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ReplayStoreKeys
import SQLiteNIO
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
/// Operations that arrive together are committed together (``GroupCommit``): one fsync per group.
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

    private let connection: SQLiteConnection
    private let threadPool: NIOThreadPool
    private let gate = OperationGate()
    let groups: GroupCommit

    private init(path: String, connection: SQLiteConnection, threadPool: NIOThreadPool) {
        self.path = path
        self.connection = connection
        self.threadPool = threadPool
        self.groups = GroupCommit(connection: connection)
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
    public static func open(path: String, busyTimeout: Duration = .seconds(5)) async throws -> SQLiteReplayStore {
        // One thread for this store: statements run one after the other on one connection; SQLite
        // serialises writers anyway, and the shared NIO pool is not blocked by fsync.
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        let connection: SQLiteConnection
        do {
            connection = try await SQLiteConnection.open(
                storage: .file(path: path),
                threadPool: pool,
                on: MultiThreadedEventLoopGroup.singleton.any()
            )
        } catch {
            try? await pool.shutdownGracefully()
            throw OperationalError(.unavailable, "The SQLite replay store could not be opened (\(Self.describe(error))).")
        }
        let store = SQLiteReplayStore(path: path, connection: connection, threadPool: pool)
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
        try await performDirectly("open") { db in
            // Replaces sqlite-nio's busy handler (which waits forever) by a bounded wait.
            _ = try await db.query("PRAGMA busy_timeout = \(max(0, millis))")
            let mode = try await db.query("PRAGMA journal_mode = WAL")
            guard mode.first?.columns.first?.data.string?.lowercased() == "wal" else {
                throw OperationalError(.unavailable, "The SQLite replay store could not switch to WAL mode.", retryable: false)
            }
            _ = try await db.query("PRAGMA synchronous = FULL")
            let version = try await db.query("PRAGMA user_version").first?.columns.first?.data.integer ?? 0
            guard version <= Self.schemaVersion else {
                throw OperationalError(
                    .unavailable,
                    "The SQLite replay store was written by a newer version (schema \(version)).",
                    retryable: false
                )
            }
            for statement in SQLiteSchema.statements {
                _ = try await db.query(statement)
            }
            if version < Self.schemaVersion {
                _ = try await db.query("PRAGMA user_version = \(Self.schemaVersion)")
            }
        }
    }

    /// Waits for the operations under way, then closes the file. Idempotent.
    public func close() async {
        guard await gate.closeAndDrain() else { return }
        try? await connection.close()
        try? await threadPool.shutdownGracefully()
    }

    /// A store dropped without ``close()``: close in the background rather than trap (no operation
    /// can be under way: each one holds a reference to the store).
    deinit {
        guard gate.closeImmediately() else { return }
        let pool = threadPool
        connection.close().whenComplete { _ in
            pool.shutdownGracefully { _ in }
        }
    }

    // MARK: - ReplayStore

    public func recordFirstUse(namespace: String, key: String, expiresAt: Date, now: Date) async throws -> ReplayOutcome {
        let id = ReplayKeyDigest.replay(namespace: namespace, key: key)
        return try await perform("recordFirstUse", [PlannedStatement(
            """
            INSERT INTO replay_keys (id, expires_at) VALUES (?1, ?2)
            ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at
            WHERE replay_keys.expires_at <= ?3
            RETURNING 1 AS recorded
            """,
            [.blob(ByteBuffer(bytes: id)), .integer(SQLiteInt64(EpochMillis.of(expiresAt))), .integer(SQLiteInt64(EpochMillis.of(now)))]
        )]) { rows in
            rows[0].isEmpty ? .alreadyUsed : .firstUse
        }
    }

    public func issueNonce(_ nonce: String, payload: [UInt8], expiresAt: Date) async throws {
        let id = ReplayKeyDigest.nonce(nonce)
        let issued = try await perform("issueNonce", [PlannedStatement(
            """
            INSERT INTO replay_nonces (id, payload, expires_at, consumed_at) VALUES (?1, ?2, ?3, NULL)
            ON CONFLICT (id) DO NOTHING
            RETURNING 1 AS issued
            """,
            [.blob(ByteBuffer(bytes: id)), .blob(ByteBuffer(bytes: payload)), .integer(SQLiteInt64(EpochMillis.of(expiresAt)))]
        )]) { rows in
            !rows[0].isEmpty
        }
        guard issued else {
            throw OperationalError("duplicateNonce", "a nonce with this value was issued already", retryable: false)
        }
    }

    public func consumeNonce(_ nonce: String, now: Date) async throws -> NonceConsumption {
        let id = ByteBuffer(bytes: ReplayKeyDigest.nonce(nonce))
        let nowMillis = SQLiteInt64(EpochMillis.of(now))
        // The read after the update runs every time (statements are handed over together); its
        // answer is used only when the update consumed nothing, to say why. States only move forward
        // (unused → used, valid → expired → purged), so it cannot turn a rejection into an acceptance.
        return try await perform("consumeNonce", [
            PlannedStatement(
                """
                UPDATE replay_nonces SET consumed_at = ?2
                WHERE id = ?1 AND consumed_at IS NULL AND expires_at > ?2
                RETURNING payload
                """,
                [.blob(id), .integer(nowMillis)]
            ),
            PlannedStatement("SELECT consumed_at IS NOT NULL AS used FROM replay_nonces WHERE id = ?1", [.blob(id)]),
        ]) { rows -> NonceConsumption in
            if let row = rows[0].first {
                return .consumed(payload: Self.bytes(row.column("payload")))
            }
            guard let row = rows[1].first else { return .unknown }
            return row.column("used")?.bool == true ? .alreadyConsumed : .expired
        }
    }

    @discardableResult
    public func purgeExpired(now: Date) async throws -> Int {
        let nowMillis = SQLiteInt64(EpochMillis.of(now))
        return try await perform("purgeExpired", [
            PlannedStatement("DELETE FROM replay_keys WHERE expires_at <= ?1 RETURNING 1", [.integer(nowMillis)]),
            PlannedStatement("DELETE FROM replay_nonces WHERE expires_at <= ?1 RETURNING 1", [.integer(nowMillis)]),
        ]) { rows in
            rows[0].count + rows[1].count
        }
    }

    public func ping() async throws {
        try await perform("ping", [PlannedStatement("SELECT count(*) FROM replay_nonces WHERE 0")]) { _ in () }
    }

    // MARK: - Helpers

    /// Runs an operation's statements in the next commit group (see ``GroupCommit``) unless the store
    /// is closed; every failure becomes an ``OperationalError`` (the message names the operation and
    /// SQLite's result code, never a value).
    private func perform<T: Sendable>(_ operation: String, _ statements: [PlannedStatement],
                                      read: @escaping @Sendable ([[SQLiteRow]]) throws -> T) async throws -> T {
        try await performDirectly(operation) { _ in try await self.groups.run(statements, read: read) }
    }

    /// Runs `body` on the connection unless the store is closed (outside the commit groups: for
    /// opening); failures become ``OperationalError``s as in ``perform(_:_:read:)``.
    private func performDirectly<T: Sendable>(_ operation: String, _ body: (SQLiteConnection) async throws -> T) async throws -> T {
        guard gate.enter() else {
            throw OperationalError(.unavailable, "The SQLite replay store is closed.")
        }
        defer { gate.leave() }
        do {
            return try await body(connection)
        } catch let error as OperationalError {
            throw error
        } catch {
            throw OperationalError(.unavailable, "SQLite replay store: \(operation) failed (\(Self.describe(error))).")
        }
    }

    private static func bytes(_ data: SQLiteData?) -> [UInt8] {
        guard let buffer = data?.blob else { return [] }
        return Array(buffer.readableBytesView)
    }

    /// SQLite's result code only: SQLite's own messages may quote values.
    static func describe(_ error: any Error) -> String {
        if let error = error as? SQLiteError {
            return "SQLite \(error.reason)"
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
    ]
}
