import Synchronization
import VerificationCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
/// Times are stored as integer **milliseconds** since 1970-01-01T00:00:00Z (rounded down), but for
/// a kept receipt's `issued_at` (its `iat`, whole seconds). Keys
/// are stored as SHA-256 digests (docs/stores.md), so neither transaction identifiers nor
/// request identifiers appear in the file, and any string (empty, with NUL, megabytes long) is a
/// valid key.
///
/// Open with ``open(dataDirectory:fileName:busyTimeout:)`` or ``open(path:busyTimeout:)``; call
/// ``close()`` before the last reference goes away. After `close()`, every operation throws an
/// ``OperationalError``. Failures of SQLite (disk full, I/O error, a lock held too long) are thrown as
/// retryable ``OperationalError``s so that verdicts become indeterminate.
public final class SQLiteReplayStore: ReplayStore, IdempotencyStore {
    /// The file name used by ``open(dataDirectory:fileName:busyTimeout:)`` by default.
    public static let defaultFileName = "replay-store.sqlite"
    /// The schema this code writes (`PRAGMA user_version`).
    public static let schemaVersion = 5

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
        let millis =
            max(0, min(busyTimeout.components.seconds, 86_400)) * 1000
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
                // One writer at a time: another process opening the same file migrates it first, and
                // this one then sees the new version.
                try db.execute("BEGIN IMMEDIATE")
                do {
                    let current = try db.integer("PRAGMA user_version") ?? 0
                    if current < 2 {
                        for statement in SQLiteSchema.version2 { try db.execute(statement) }
                    }
                    if current < 4 {
                        for statement in SQLiteSchema.version4 { try db.execute(statement) }
                    }
                    // Schemas 3 and 5 only added tables, which `SQLiteSchema.statements` created above.
                    try db.execute("PRAGMA user_version = \(Self.schemaVersion)")
                    try db.execute("COMMIT")
                } catch {
                    if !db.isAutocommit { try? db.execute("ROLLBACK") }
                    throw error
                }
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

    /// Records the key's digest in `replay_keys` in one statement; when it is there already, a read tells a retry from a replay.
    public nonisolated(nonsending) func recordFirstUse(
        namespace: String, key: String, expiresAt: Date, now: Date,
        idempotency: IdempotencyTag?
    ) async throws -> ReplayOutcome {
        let values: [SQLiteValue] =
            [
                .blob(ReplayKeyDigest.replay(namespace: namespace, key: key)),
                .integer(EpochMillis.of(expiresAt)),
                .integer(EpochMillis.of(now)),
            ] + Self.tagValues(idempotency)
        return try await perform("recordFirstUse") { db -> ReplayOutcome in
            let recorded = try db.integer(
                """
                INSERT INTO replay_keys (id, expires_at, recorded_at, idem_key, idem_body, idem_until) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                ON CONFLICT (id) DO UPDATE SET expires_at = excluded.expires_at, recorded_at = excluded.recorded_at,
                    idem_key = excluded.idem_key, idem_body = excluded.idem_body, idem_until = excluded.idem_until
                WHERE replay_keys.expires_at <= ?3
                RETURNING 1 AS recorded
                """,
                values
            )
            if recorded != nil { return .firstUse }
            // Recorded already: by the same submission (same tag, window open) or a replay. A read
            // only: it cannot turn a replay into a first use.
            guard idempotency != nil,
                let first = try db.integer(
                    "SELECT recorded_at FROM replay_keys WHERE id = ?1 AND idem_key = ?4 AND idem_body = ?5 AND idem_until > ?3 AND expires_at > ?3",
                    Array(values.prefix(5))
                )
            else { return .alreadyUsed }
            return .idempotentRetry(firstUse: EpochMillis.date(first))
        }
    }

    /// ?4, ?5, ?6 of the statements that record a tag: key digest, request digest, window end.
    static func tagValues(_ tag: IdempotencyTag?) -> [SQLiteValue] {
        guard let tag else { return [.null, .null, .null] }
        return [.blob(tag.key), .blob(tag.body), .integer(EpochMillis.of(tag.retryUntil))]
    }

    /// Inserts the nonce's digest and payload into `replay_nonces`; throws a non-retryable `duplicateNonce` error if it exists.
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

    /// Marks the nonce consumed (by `attempt`) in one `UPDATE`; when nothing was consumed, reads why (a retry, used, expired or unknown).
    public nonisolated(nonsending) func consumeNonce(
        _ nonce: String, now: Date, idempotency: IdempotencyTag?, attempt: NonceAttempt?
    ) async throws -> NonceConsumption {
        let id = SQLiteValue.blob(ReplayKeyDigest.nonce(nonce))
        let nowMillis = SQLiteValue.integer(EpochMillis.of(now))
        let values = [id, nowMillis] + Self.tagValues(idempotency)
        let consumer: SQLiteValue = attempt.map { .blob($0.bytes) } ?? .null
        return try await perform("consumeNonce") { db -> NonceConsumption in
            var payload: [UInt8]?
            try db.execute(
                """
                UPDATE replay_nonces SET consumed_at = ?2, idem_key = ?3, idem_body = ?4, idem_until = ?5, consumed_by = ?6
                WHERE id = ?1 AND consumed_at IS NULL AND expires_at > ?2
                RETURNING payload
                """,
                values + [consumer]
            ) { row in
                if payload == nil { payload = row.isNull(0) ? [] : row.blob(0) }
            }
            if let payload { return .consumed(payload: payload) }
            if idempotency != nil {
                // Consumed by the same submission (same tag, window open, request not expired)?
                var again: (payload: [UInt8], consumed: Int64)?
                try db.execute(
                    """
                    SELECT payload, consumed_at FROM replay_nonces
                    WHERE id = ?1 AND consumed_at IS NOT NULL AND idem_key = ?3 AND idem_body = ?4 AND idem_until > ?2 AND expires_at > ?2
                    """,
                    Array(values.prefix(4))
                ) { row in
                    if again == nil { again = (row.isNull(0) ? [] : row.blob(0), row.integer(1)) }
                }
                if let again { return .consumedAgain(payload: again.payload, firstConsumed: EpochMillis.date(again.consumed)) }
            }
            // Nothing consumed: say why. States only move forward (unused → used, valid → expired →
            // purged), so this read cannot turn a rejection into an acceptance.
            guard let used = try db.integer("SELECT consumed_at IS NOT NULL FROM replay_nonces WHERE id = ?1", [id]) else {
                return .unknown
            }
            return used != 0 ? .alreadyConsumed : .expired
        }
    }

    /// Reads the nonce's row (one `SELECT`) and says what consuming it would find; changes nothing.
    public nonisolated(nonsending) func lookupNonce(_ nonce: String, now: Date, idempotency: IdempotencyTag?) async throws -> NonceLookup {
        let values = [SQLiteValue.blob(ReplayKeyDigest.nonce(nonce))]
        let nowMillis = EpochMillis.of(now)
        return try await perform("lookupNonce") { db -> NonceLookup in
            var row: StoredNonceRow?
            try db.execute(
                "SELECT payload, expires_at, consumed_at, idem_key, idem_body, idem_until FROM replay_nonces WHERE id = ?1", values
            ) { found in
                row = StoredNonceRow(
                    payload: found.isNull(0) ? [] : found.blob(0), expires: found.integer(1), consumed: found.isNull(2) ? nil : found.integer(2),
                    key: found.isNull(3) ? nil : found.blob(3), body: found.isNull(4) ? nil : found.blob(4),
                    until: found.isNull(5) ? nil : found.integer(5))
            }
            return row?.lookup(nowMillis: nowMillis, idempotency: idempotency) ?? .unknown
        }
    }

    /// Gives the nonce back in one `UPDATE`, only when `attempt` consumed it and it has not expired.
    public nonisolated(nonsending) func releaseNonce(_ nonce: String, attempt: NonceAttempt, now: Date) async throws -> Bool {
        let values: [SQLiteValue] = [.blob(ReplayKeyDigest.nonce(nonce)), .blob(attempt.bytes), .integer(EpochMillis.of(now))]
        return try await perform("releaseNonce") { db in
            try db.integer(
                """
                UPDATE replay_nonces SET consumed_at = NULL, consumed_by = NULL, idem_key = NULL, idem_body = NULL, idem_until = NULL
                WHERE id = ?1 AND consumed_at IS NOT NULL AND consumed_by = ?2 AND expires_at > ?3
                RETURNING 1
                """,
                values
            ) != nil
        }
    }

    // MARK: - IdempotencyStore

    /// Starts or restarts the submission in one statement, or reports the earlier attempt; takes over an ended lease once.
    public nonisolated(nonsending) func beginIdempotentRequest(_ tag: IdempotencyTag, now: Date, leaseUntil: Date) async throws -> IdempotencyStart {
        let values: [SQLiteValue] = [
            .blob(tag.key), .blob(tag.body), .integer(EpochMillis.of(now)), .integer(EpochMillis.of(tag.retryUntil)),
            .integer(EpochMillis.of(leaseUntil)),
        ]
        return try await perform("beginIdempotentRequest") { db -> IdempotencyStart in
            // New, or its window passed: (re)start it. One statement, so two instances cannot both start it.
            let started = try db.integer(
                """
                INSERT INTO idempotency_keys (id, body, first_seen, expires_at, lease_until, finished, result) VALUES (?1, ?2, ?3, ?4, ?5, 0, NULL)
                ON CONFLICT (id) DO UPDATE SET body = excluded.body, first_seen = excluded.first_seen, expires_at = excluded.expires_at,
                    lease_until = excluded.lease_until, finished = 0, result = NULL
                WHERE idempotency_keys.expires_at <= ?3
                RETURNING 1
                """,
                values
            )
            if started != nil { return .proceed(firstSeen: nil) }
            var existing: (body: [UInt8], firstSeen: Int64, lease: Int64?, finished: Bool, result: [UInt8]?)?
            try db.execute("SELECT body, first_seen, lease_until, finished, result FROM idempotency_keys WHERE id = ?1", [values[0]]) { row in
                existing = (row.blob(0), row.integer(1), row.isNull(2) ? nil : row.integer(2), row.integer(3) != 0, row.isNull(4) ? nil : row.blob(4))
            }
            guard let existing else { return .proceed(firstSeen: nil) }
            guard existing.body == tag.body else { return .conflict }
            if existing.finished { return .completed(result: existing.result, firstSeen: EpochMillis.date(existing.firstSeen)) }
            if let lease = existing.lease, lease > EpochMillis.of(now) { return .inProgress(leaseUntil: EpochMillis.date(lease)) }
            // An attempt that never finished (its process died): take its lease over, once.
            let taken = try db.integer(
                "UPDATE idempotency_keys SET lease_until = ?5 WHERE id = ?1 AND finished = 0 AND (lease_until IS NULL OR lease_until <= ?3) RETURNING 1",
                values
            )
            return taken != nil ? .proceed(firstSeen: EpochMillis.date(existing.firstSeen)) : .inProgress(leaseUntil: leaseUntil)
        }
    }

    /// Marks the submission finished, ends its lease and stores `result`.
    public nonisolated(nonsending) func finishIdempotentRequest(key: [UInt8], result: [UInt8]?) async throws {
        let values: [SQLiteValue] = [.blob(key), result.map { .blob($0) } ?? .null]
        try await perform("finishIdempotentRequest") { db in
            try db.execute("UPDATE idempotency_keys SET finished = 1, lease_until = NULL, result = ?2 WHERE id = ?1", values)
        }
    }

    /// Deletes the submission's row unless it has finished.
    public nonisolated(nonsending) func abandonIdempotentRequest(key: [UInt8]) async throws {
        try await perform("abandonIdempotentRequest") { db in
            try db.execute("DELETE FROM idempotency_keys WHERE id = ?1 AND finished = 0", [.blob(key)])
        }
    }

    /// Deletes expired replay keys, nonces and idempotency keys; returns how many.
    @discardableResult
    public nonisolated(nonsending) func purgeExpired(now: Date) async throws -> Int {
        let nowMillis = SQLiteValue.integer(EpochMillis.of(now))
        return try await perform("purgeExpired") { db in
            var count = 0
            try db.execute("DELETE FROM replay_keys WHERE expires_at <= ?1 RETURNING 1", [nowMillis]) { _ in count += 1 }
            try db.execute("DELETE FROM replay_nonces WHERE expires_at <= ?1 RETURNING 1", [nowMillis]) { _ in count += 1 }
            try db.execute("DELETE FROM idempotency_keys WHERE expires_at <= ?1 RETURNING 1", [nowMillis]) { _ in count += 1 }
            return count
        }
    }

    /// Counts the unconsumed, unexpired nonces (a range scan of the `expires_at` index).
    public nonisolated(nonsending) func outstandingNonceCount(now: Date) async throws -> Int {
        let nowMillis = SQLiteValue.integer(EpochMillis.of(now))
        return try await perform("outstandingNonceCount") { db in
            // A range scan of the expires_at index.
            Int(try db.integer("SELECT count(*) FROM replay_nonces WHERE expires_at > ?1 AND consumed_at IS NULL", [nowMillis]) ?? 0)
        }
    }

    /// Runs a query on `replay_nonces`: throws when the store is closed or the database cannot be read.
    public nonisolated(nonsending) func ping() async throws {
        try await perform("ping") { db in
            _ = try db.integer("SELECT count(*) FROM replay_nonces WHERE 0")
        }
    }

    // MARK: - Helpers

    /// Runs an operation on the store's thread (in the next commit group unless `grouped` is false)
    /// unless the store is closed; every failure becomes an ``OperationalError`` (the message names
    /// the operation and SQLite's result code, never a value).
    nonisolated(nonsending) func perform<T: Sendable>(
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
        // Idempotency keys (schema 2): digests only, see docs/stores.md.
        """
        CREATE TABLE IF NOT EXISTS idempotency_keys (
            id BLOB NOT NULL PRIMARY KEY,      -- SHA-256 of the caller's scope and key
            body BLOB NOT NULL,                 -- SHA-256 of method, path and body
            first_seen INTEGER NOT NULL,        -- milliseconds since the Unix epoch
            expires_at INTEGER NOT NULL,        -- end of the retry window
            lease_until INTEGER,                -- while an attempt runs; NULL once finished
            finished INTEGER NOT NULL,          -- 1 once answered
            result BLOB                         -- a request creation's answer (no personal data)
        ) WITHOUT ROWID
        """,
        "CREATE INDEX IF NOT EXISTS idempotency_keys_expires_at ON idempotency_keys (expires_at)",
        // Fetched documents (schema 3): revocation lists by uri, shared by restarts.
        """
        CREATE TABLE IF NOT EXISTS cached_documents (
            key BLOB NOT NULL PRIMARY KEY,     -- the uri (UTF-8)
            bytes BLOB NOT NULL,                -- the document as fetched
            fetched_at INTEGER NOT NULL,        -- milliseconds since the Unix epoch
            fresh_until INTEGER NOT NULL,       -- refetch after
            usable_until INTEGER NOT NULL       -- never used after (the list's exp)
        ) WITHOUT ROWID
        """,
        // Who fetches a document now (one instance at a time).
        """
        CREATE TABLE IF NOT EXISTS document_fetch_claims (
            key BLOB NOT NULL PRIMARY KEY,     -- the uri (UTF-8)
            until INTEGER NOT NULL              -- the claim ends then at the latest
        ) WITHOUT ROWID
        """,
        // Kept receipts (schema 5): signed verdicts, no personal data. A rowid table: a receipt's JWS
        // is too long for the rows of a WITHOUT ROWID table.
        """
        CREATE TABLE IF NOT EXISTS verification_receipts (
            id TEXT NOT NULL PRIMARY KEY,       -- the receipt's jti
            issued_at INTEGER NOT NULL,         -- its iat: SECONDS since the Unix epoch
            flow TEXT NOT NULL,
            verdict TEXT NOT NULL,
            jws TEXT NOT NULL,                  -- the compact JWS, as issued
            keep_until INTEGER NOT NULL         -- milliseconds since the Unix epoch; purged then
        )
        """,
        // Listing pages walks this index: ORDER BY issued_at, id from the cursor's (issued_at, id).
        "CREATE INDEX IF NOT EXISTS verification_receipts_issued_at ON verification_receipts (issued_at, id)",
        "CREATE INDEX IF NOT EXISTS verification_receipts_keep_until ON verification_receipts (keep_until)",
        // The keys receipts were signed with (schema 5), so receipts stay verifiable after a rotation.
        """
        CREATE TABLE IF NOT EXISTS receipt_keys (
            key_id TEXT NOT NULL PRIMARY KEY,   -- the key's kid
            jwk TEXT NOT NULL,                  -- the public JWK (JSON), as first recorded
            last_used INTEGER NOT NULL          -- milliseconds since the Unix epoch; the latest recorded
        ) WITHOUT ROWID
        """,
    ]

    /// From schema 1 to 2: the idempotency tag beside each recorded value (all NULL without a key).
    static let version2 = [
        "ALTER TABLE replay_keys ADD COLUMN recorded_at INTEGER",
        "ALTER TABLE replay_keys ADD COLUMN idem_key BLOB",
        "ALTER TABLE replay_keys ADD COLUMN idem_body BLOB",
        "ALTER TABLE replay_keys ADD COLUMN idem_until INTEGER",
        "ALTER TABLE replay_nonces ADD COLUMN idem_key BLOB",
        "ALTER TABLE replay_nonces ADD COLUMN idem_body BLOB",
        "ALTER TABLE replay_nonces ADD COLUMN idem_until INTEGER",
    ]

    /// From schema 3 to 4: which attempt consumed a nonce (random bytes; NULL when unused or not
    /// releasable), so that only that attempt can give it back after an indeterminate verdict.
    static let version4 = [
        "ALTER TABLE replay_nonces ADD COLUMN consumed_by BLOB"
    ]
}
