import Crypto
import PostgresNIO
import ServiceLifecycle
import Synchronization
import VerificationCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The shared replay store: PostgreSQL, for several service instances behind a load balancer.
///
/// Every operation that decides a verdict is one SQL statement, atomic across all clients of the
/// database (row locks under READ COMMITTED re-check the `WHERE` clause on the newest row version):
///
/// - ``recordFirstUse(namespace:key:expiresAt:now:)``: `INSERT … ON CONFLICT (id) DO UPDATE SET
///   expires_at = EXCLUDED.expires_at WHERE replay_keys.expires_at <= now RETURNING 1`;
/// - ``consumeNonce(_:now:)``: `UPDATE replay_nonces SET consumed_at = now WHERE id = … AND
///   consumed_at IS NULL AND expires_at > now RETURNING payload`, and only when no row came back a
///   read that tells `alreadyConsumed`, `expired` and `unknown` apart.
///
/// Times are `BIGINT` milliseconds since 1970-01-01T00:00:00Z (rounded down), taken from the
/// caller's `now` (not the database clock), exactly as in the SQLite store (and, as there, a kept
/// receipt's `issued_at` is its `iat` in whole seconds). Keys are SHA-256 digests (`BYTEA`).
///
/// The store wraps a `PostgresClient`, whose connection pool works only while ``run()`` runs: add
/// the store to a `ServiceGroup` (it is a `Service`), or use ``withStore(_:createTables:_:)``. Call
/// ``createTables()`` once at start-up (idempotent, safe when several instances start together).
/// Every operation has a deadline (``Configuration/operationTimeout``); a database that cannot be
/// reached, refuses the login or answers too late makes the operation throw a retryable
/// ``OperationalError``: the verdict is indeterminate, never "accepted".
public final class PostgresReplayStore: ReplayStore, IdempotencyStore, Service {
    /// Where the database is, how long an operation may take, and the purge interval and schema.
    public struct Configuration: Sendable {
        /// The postgres-nio client configuration (host, port, user, password, database, TLS, pool size).
        public var client: PostgresClient.Configuration
        /// The longest any single operation may take, connecting included (default 5 s).
        public var operationTimeout: Duration
        /// When set, ``run()`` also purges expired entries at this interval.
        public var purgeInterval: Duration?
        /// The schema holding the tables (`search_path` of every connection); `nil` uses the
        /// server's default (usually `public`). Set it with ``useSchema(_:)``.
        public private(set) var schema: String?

        /// A configuration around a postgres-nio client configuration; the schema is the server's default until ``useSchema(_:)``.
        public init(client: PostgresClient.Configuration, operationTimeout: Duration = .seconds(5), purgeInterval: Duration? = nil) {
            self.client = client
            self.operationTimeout = operationTimeout
            self.purgeInterval = purgeInterval
        }

        /// Reads a connection URL: `postgres://user:password@host:port/database?sslmode=…`.
        ///
        /// - scheme `postgres` or `postgresql`; user, password and database are percent-decoded;
        /// - port 5432 and user `postgres` when absent; the database defaults to the user's name;
        /// - `sslmode`: `disable`, `prefer` (the default: TLS when the server offers it), or
        ///   `require`/`verify-ca`/`verify-full` (TLS required, certificate and host name verified
        ///   against the system's trust roots);
        /// - `application_name` (default `wallet-verifier`), `connect_timeout` (seconds);
        /// - `schema` (this project's addition): see ``useSchema(_:)``.
        ///
        /// Throws an ``OperationalError`` (not retryable) whose message never contains the password.
        public init(url: String, operationTimeout: Duration = .seconds(5), purgeInterval: Duration? = nil) throws {
            let parsed = try PostgresURL.parse(url, operationTimeout: operationTimeout)
            self.init(client: parsed.client, operationTimeout: operationTimeout, purgeInterval: purgeInterval)
            if let schema = parsed.schema {
                try useSchema(schema)
            }
        }

        /// Keeps the tables in `name` (created by ``PostgresReplayStore/createTables()`` when
        /// missing): 1 to 63 characters from `a`–`z`, `0`–`9` and `_`, not starting with a digit
        /// and not starting with `pg_`. Instances that must see each other's entries use the same
        /// schema. Throws a non-retryable ``OperationalError`` for any other name.
        public mutating func useSchema(_ name: String) throws {
            guard Self.isPlainIdentifier(name) else {
                throw OperationalError(
                    "invalidConfiguration",
                    "The PostgreSQL schema name must be 1 to 63 characters from a-z, 0-9 and _, not starting with a digit or pg_.",
                    retryable: false
                )
            }
            schema = name
        }

        static func isPlainIdentifier(_ name: String) -> Bool {
            let bytes = Array(name.utf8)
            guard (1...63).contains(bytes.count), !name.hasPrefix("pg_") else { return false }
            guard let first = bytes.first, first == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else {
                return false
            }
            return bytes.allSatisfy { byte in
                byte == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
        }
    }

    /// The configuration in use, as the store adjusted it (connect timeout, `statement_timeout`, `search_path`).
    public let configuration: Configuration
    private let client: PostgresClient
    private let started = Mutex(false)

    /// A store for `configuration`; it connects only while ``run()`` runs.
    /// The connect timeout is capped at the operation timeout, and the server stops statements that run longer (`statement_timeout`).
    public init(configuration: Configuration) {
        var clientConfiguration = configuration.client
        if clientConfiguration.options.connectTimeout > configuration.operationTimeout {
            clientConfiguration.options.connectTimeout = configuration.operationTimeout
        }
        // The server stops a statement that runs longer than the operation may take.
        let millis =
            configuration.operationTimeout.components.seconds * 1000
            + configuration.operationTimeout.components.attoseconds / 1_000_000_000_000_000
        if !clientConfiguration.options.additionalStartupParameters.contains(where: { $0.0 == "statement_timeout" }) {
            clientConfiguration.options.additionalStartupParameters.append(("statement_timeout", String(max(1, millis))))
        }
        if let schema = configuration.schema {
            clientConfiguration.options.additionalStartupParameters.removeAll { $0.0 == "search_path" }
            clientConfiguration.options.additionalStartupParameters.append(("search_path", schema))
        }
        var stored = configuration
        stored.client = clientConfiguration
        self.configuration = stored
        // postgres-nio logs nothing by default; its query logging would include bound values.
        self.client = PostgresClient(configuration: clientConfiguration)
    }

    /// `PostgresReplayStore(configuration: try .init(url: url))`.
    public convenience init(url: String, operationTimeout: Duration = .seconds(5), purgeInterval: Duration? = nil) throws {
        self.init(configuration: try Configuration(url: url, operationTimeout: operationTimeout, purgeInterval: purgeInterval))
    }

    /// Runs the connection pool (and the purge loop when ``Configuration/purgeInterval`` is set)
    /// until the task is cancelled or the service group shuts down gracefully. A second call
    /// returns at once.
    public func run() async {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        await withDiscardingTaskGroup { group in
            group.addTask { await self.client.run() }
            if let interval = configuration.purgeInterval {
                group.addTask {
                    let purger = ReplayStorePurger(store: self, interval: interval)
                    await cancelWhenGracefulShutdown { await purger.run() }
                }
            }
        }
    }

    /// Runs the store for the duration of `body`: starts the pool, creates the tables (unless told
    /// not to), calls `body`, then stops the pool.
    public static func withStore<Result>(
        _ configuration: Configuration,
        createTables: Bool = true,
        _ body: (PostgresReplayStore) async throws -> Result
    ) async throws -> Result {
        let store = PostgresReplayStore(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await store.run() }
            defer { group.cancelAll() }
            if createTables {
                try await store.createTables()
            }
            return try await body(store)
        }
    }

    /// Creates the tables and indexes when they do not exist. Several instances may call this at the
    /// same moment: a transaction-scoped advisory lock (one per schema) makes them take turns.
    ///
    /// When the schema is already the current one (its statements' fingerprint is recorded in
    /// `wallet_verifier_schema`), nothing is locked or altered: a starting instance never takes the
    /// exclusive table locks of `ALTER TABLE` while the others serve traffic.
    public func createTables() async throws {
        let schema = configuration.schema
        try await perform("createTables") { client in
            try await client.withConnection { connection in
                let logger = Self.quietLogger
                if try await Self.schemaIsCurrent(connection, logger: logger) { return }
                _ = try await Self.count(try await connection.query("BEGIN", logger: logger))
                do {
                    let lock: PostgresQuery = "SELECT pg_advisory_xact_lock(\(PostgresSchema.advisoryLockKey(schema: schema)))"
                    _ = try await Self.count(try await connection.query(lock, logger: logger))
                    if let schema {
                        // A plain identifier (checked by Configuration.useSchema), safe to write inline.
                        let create = PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)")
                        _ = try await Self.count(try await connection.query(create, logger: logger))
                    }
                    for statement in PostgresSchema.statements {
                        _ = try await Self.count(try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger))
                    }
                    let fingerprint = PostgresSchema.fingerprint
                    _ = try await Self.count(
                        try await connection.query(
                            """
                            INSERT INTO wallet_verifier_schema (id, fingerprint) VALUES (1, \(fingerprint))
                            ON CONFLICT (id) DO UPDATE SET fingerprint = EXCLUDED.fingerprint
                            """, logger: logger))
                    _ = try await Self.count(try await connection.query("COMMIT", logger: logger))
                } catch {
                    _ = try? await Self.count(try await connection.query("ROLLBACK", logger: logger))
                    throw error
                }
            }
        }
    }

    /// Whether `wallet_verifier_schema` records the fingerprint of today's statements: one read, no
    /// lock. A missing table (a database this store has not set up, or one set up before the table
    /// existed) is "not current".
    static func schemaIsCurrent(_ connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows: PostgresRowSequence
        do {
            rows = try await connection.query("SELECT fingerprint FROM wallet_verifier_schema WHERE id = 1", logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42P01" {
            return false
        }
        var current = false
        for try await (fingerprint) in rows.decode(String.self) where fingerprint == PostgresSchema.fingerprint { current = true }
        return current
    }

    // MARK: - ReplayStore

    /// Records the key's digest in `replay_keys` in one statement; when it is there already, a read tells a retry from a replay.
    public func recordFirstUse(namespace: String, key: String, expiresAt: Date, now: Date, idempotency: IdempotencyTag?) async throws -> ReplayOutcome
    {
        let id = ByteBuffer(bytes: ReplayKeyDigest.replay(namespace: namespace, key: key))
        let expires = EpochMillis.of(expiresAt)
        let nowMillis = EpochMillis.of(now)
        let tagKey = idempotency.map { ByteBuffer(bytes: $0.key) }, tagBody = idempotency.map { ByteBuffer(bytes: $0.body) }
        let tagUntil = idempotency.map { EpochMillis.of($0.retryUntil) }
        return try await perform("recordFirstUse") { client -> ReplayOutcome in
            let rows = try await client.query(
                """
                INSERT INTO replay_keys (id, expires_at, recorded_at, idem_key, idem_body, idem_until)
                VALUES (\(id), \(expires), \(nowMillis), \(tagKey), \(tagBody), \(tagUntil))
                ON CONFLICT (id) DO UPDATE SET expires_at = EXCLUDED.expires_at, recorded_at = EXCLUDED.recorded_at,
                    idem_key = EXCLUDED.idem_key, idem_body = EXCLUDED.idem_body, idem_until = EXCLUDED.idem_until
                WHERE replay_keys.expires_at <= \(nowMillis)
                RETURNING 1
                """
            )
            if try await Self.count(rows) > 0 { return .firstUse }
            // Recorded already: by the same submission (same tag, window open) or a replay. A read only.
            guard let tagKey, let tagBody else { return .alreadyUsed }
            let same = try await client.query(
                """
                SELECT recorded_at FROM replay_keys
                WHERE id = \(id) AND idem_key = \(tagKey) AND idem_body = \(tagBody)
                    AND idem_until > \(nowMillis) AND expires_at > \(nowMillis)
                """
            )
            var first: Int64?
            for try await row in same { first = try row.decode(Int64?.self) ?? nowMillis }
            return first.map { .idempotentRetry(firstUse: EpochMillis.date($0)) } ?? .alreadyUsed
        }
    }

    /// Inserts the nonce's digest and payload into `replay_nonces`; throws a non-retryable `duplicateNonce` error if it exists.
    public func issueNonce(_ nonce: String, payload: [UInt8], expiresAt: Date) async throws {
        let id = ByteBuffer(bytes: ReplayKeyDigest.nonce(nonce))
        let payloadBuffer = ByteBuffer(bytes: payload)
        let expires = EpochMillis.of(expiresAt)
        let issued = try await perform("issueNonce") { client in
            let rows = try await client.query(
                """
                INSERT INTO replay_nonces (id, payload, expires_at, consumed_at)
                VALUES (\(id), \(payloadBuffer), \(expires), NULL)
                ON CONFLICT (id) DO NOTHING
                RETURNING 1
                """
            )
            return try await Self.count(rows)
        }
        guard issued > 0 else {
            throw OperationalError("duplicateNonce", "a nonce with this value was issued already", retryable: false)
        }
    }

    /// Marks the nonce consumed (by `attempt`) in one `UPDATE`; when nothing was consumed, reads why (a retry, used, expired or unknown).
    public func consumeNonce(_ nonce: String, now: Date, idempotency: IdempotencyTag?, attempt: NonceAttempt?) async throws -> NonceConsumption {
        let id = ByteBuffer(bytes: ReplayKeyDigest.nonce(nonce))
        let nowMillis = EpochMillis.of(now)
        let tagKey = idempotency.map { ByteBuffer(bytes: $0.key) }, tagBody = idempotency.map { ByteBuffer(bytes: $0.body) }
        let tagUntil = idempotency.map { EpochMillis.of($0.retryUntil) }
        let consumer = attempt.map { ByteBuffer(bytes: $0.bytes) }
        return try await perform("consumeNonce") { client in
            let consumed = try await client.query(
                """
                UPDATE replay_nonces SET consumed_at = \(nowMillis), idem_key = \(tagKey), idem_body = \(tagBody), idem_until = \(tagUntil),
                    consumed_by = \(consumer)
                WHERE id = \(id) AND consumed_at IS NULL AND expires_at > \(nowMillis)
                RETURNING payload
                """
            )
            var payload: [UInt8]?
            for try await row in consumed {
                let buffer = try row.decode(ByteBuffer?.self)
                payload = buffer.map { Array($0.readableBytesView) } ?? []
            }
            if let payload {
                return .consumed(payload: payload)
            }
            if let tagKey, let tagBody {
                // Consumed by the same submission (same tag, window open, request not expired)?
                let again = try await client.query(
                    """
                    SELECT payload, consumed_at FROM replay_nonces
                    WHERE id = \(id) AND consumed_at IS NOT NULL AND idem_key = \(tagKey) AND idem_body = \(tagBody)
                        AND idem_until > \(nowMillis) AND expires_at > \(nowMillis)
                    """
                )
                var found: (payload: [UInt8], consumed: Int64)?
                for try await row in again {
                    let (buffer, consumedAt) = try row.decode((ByteBuffer?, Int64).self)
                    found = (buffer.map { Array($0.readableBytesView) } ?? [], consumedAt)
                }
                if let found { return .consumedAgain(payload: found.payload, firstConsumed: EpochMillis.date(found.consumed)) }
            }
            // Not consumed by this call: say why. States only move forward (unused → used, valid →
            // expired → purged), so this read cannot turn a rejection into an acceptance.
            let existing = try await client.query("SELECT consumed_at IS NOT NULL FROM replay_nonces WHERE id = \(id)")
            var used: Bool?
            for try await row in existing {
                used = try row.decode(Bool.self)
            }
            switch used {
            case nil: return .unknown
            case true?: return .alreadyConsumed
            case false?: return .expired
            }
        }
    }

    /// Reads the nonce's row (one `SELECT`) and says what consuming it would find; changes nothing.
    public func lookupNonce(_ nonce: String, now: Date, idempotency: IdempotencyTag?) async throws -> NonceLookup {
        let id = ByteBuffer(bytes: ReplayKeyDigest.nonce(nonce))
        let nowMillis = EpochMillis.of(now)
        return try await perform("lookupNonce") { client -> NonceLookup in
            let rows = try await client.query(
                "SELECT payload, expires_at, consumed_at, idem_key, idem_body, idem_until FROM replay_nonces WHERE id = \(id)")
            var found: StoredNonceRow?
            for try await row in rows {
                let (payload, expires, consumed, key, body, until) = try row.decode(
                    (ByteBuffer?, Int64, Int64?, ByteBuffer?, ByteBuffer?, Int64?).self)
                found = StoredNonceRow(
                    payload: payload.map { Array($0.readableBytesView) } ?? [], expires: expires, consumed: consumed,
                    key: key.map { Array($0.readableBytesView) }, body: body.map { Array($0.readableBytesView) }, until: until)
            }
            return found?.lookup(nowMillis: nowMillis, idempotency: idempotency) ?? .unknown
        }
    }

    /// Gives the nonce back in one `UPDATE`, only when `attempt` consumed it and it has not expired.
    public func releaseNonce(_ nonce: String, attempt: NonceAttempt, now: Date) async throws -> Bool {
        let id = ByteBuffer(bytes: ReplayKeyDigest.nonce(nonce))
        let consumer = ByteBuffer(bytes: attempt.bytes)
        let nowMillis = EpochMillis.of(now)
        return try await perform("releaseNonce") { client in
            let rows = try await client.query(
                """
                UPDATE replay_nonces SET consumed_at = NULL, consumed_by = NULL, idem_key = NULL, idem_body = NULL, idem_until = NULL
                WHERE id = \(id) AND consumed_at IS NOT NULL AND consumed_by = \(consumer) AND expires_at > \(nowMillis)
                RETURNING 1
                """
            )
            return try await Self.count(rows) > 0
        }
    }

    // MARK: - IdempotencyStore

    /// Starts or restarts the submission in one statement, or reports the earlier attempt; takes over an ended lease once.
    public func beginIdempotentRequest(_ tag: IdempotencyTag, now: Date, leaseUntil: Date) async throws -> IdempotencyStart {
        let id = ByteBuffer(bytes: tag.key), body = ByteBuffer(bytes: tag.body)
        let nowMillis = EpochMillis.of(now), until = EpochMillis.of(tag.retryUntil), lease = EpochMillis.of(leaseUntil)
        return try await perform("beginIdempotentRequest") { client -> IdempotencyStart in
            // New, or its window passed: (re)start it. One statement, so two instances cannot both start it.
            let started = try await client.query(
                """
                INSERT INTO idempotency_keys (id, body, first_seen, expires_at, lease_until, finished, result)
                VALUES (\(id), \(body), \(nowMillis), \(until), \(lease), false, NULL)
                ON CONFLICT (id) DO UPDATE SET body = EXCLUDED.body, first_seen = EXCLUDED.first_seen, expires_at = EXCLUDED.expires_at,
                    lease_until = EXCLUDED.lease_until, finished = false, result = NULL
                WHERE idempotency_keys.expires_at <= \(nowMillis)
                RETURNING 1
                """
            )
            if try await Self.count(started) > 0 { return .proceed(firstSeen: nil) }
            let rows = try await client.query("SELECT body, first_seen, lease_until, finished, result FROM idempotency_keys WHERE id = \(id)")
            var existing: (body: [UInt8], firstSeen: Int64, lease: Int64?, finished: Bool, result: [UInt8]?)?
            for try await row in rows {
                let (storedBody, firstSeen, storedLease, finished, result) = try row.decode((ByteBuffer, Int64, Int64?, Bool, ByteBuffer?).self)
                existing = (Array(storedBody.readableBytesView), firstSeen, storedLease, finished, result.map { Array($0.readableBytesView) })
            }
            guard let existing else { return .proceed(firstSeen: nil) }
            guard existing.body == tag.body else { return .conflict }
            if existing.finished { return .completed(result: existing.result, firstSeen: EpochMillis.date(existing.firstSeen)) }
            if let current = existing.lease, current > nowMillis { return .inProgress(leaseUntil: EpochMillis.date(current)) }
            // An attempt that never finished (its process died): take its lease over, once.
            let taken = try await client.query(
                """
                UPDATE idempotency_keys SET lease_until = \(lease)
                WHERE id = \(id) AND NOT finished AND (lease_until IS NULL OR lease_until <= \(nowMillis))
                RETURNING 1
                """
            )
            return try await Self.count(taken) > 0 ? .proceed(firstSeen: EpochMillis.date(existing.firstSeen)) : .inProgress(leaseUntil: leaseUntil)
        }
    }

    /// Marks the submission finished, ends its lease and stores `result`.
    public func finishIdempotentRequest(key: [UInt8], result: [UInt8]?) async throws {
        let id = ByteBuffer(bytes: key), stored = result.map { ByteBuffer(bytes: $0) }
        try await perform("finishIdempotentRequest") { client in
            _ = try await Self.count(
                try await client.query("UPDATE idempotency_keys SET finished = true, lease_until = NULL, result = \(stored) WHERE id = \(id)"))
        }
    }

    /// Deletes the submission's row unless it has finished.
    public func abandonIdempotentRequest(key: [UInt8]) async throws {
        let id = ByteBuffer(bytes: key)
        try await perform("abandonIdempotentRequest") { client in
            _ = try await Self.count(try await client.query("DELETE FROM idempotency_keys WHERE id = \(id) AND NOT finished"))
        }
    }

    /// Deletes expired replay keys, nonces and idempotency keys in one statement; returns how many.
    @discardableResult
    public func purgeExpired(now: Date) async throws -> Int {
        let nowMillis = EpochMillis.of(now)
        let deleted = try await perform("purgeExpired") { client in
            let rows = try await client.query(
                """
                WITH keys AS (DELETE FROM replay_keys WHERE expires_at <= \(nowMillis) RETURNING 1),
                     nonces AS (DELETE FROM replay_nonces WHERE expires_at <= \(nowMillis) RETURNING 1),
                     submissions AS (DELETE FROM idempotency_keys WHERE expires_at <= \(nowMillis) RETURNING 1)
                SELECT (SELECT count(*) FROM keys) + (SELECT count(*) FROM nonces) + (SELECT count(*) FROM submissions)
                """
            )
            var total: Int64 = 0
            for try await row in rows {
                total = try row.decode(Int64.self)
            }
            return total
        }
        return Int(clamping: deleted)
    }

    /// Counts the unconsumed, unexpired nonces (a partial index keeps this cheap).
    public func outstandingNonceCount(now: Date) async throws -> Int {
        let nowMillis = EpochMillis.of(now)
        let counted = try await perform("outstandingNonceCount") { client in
            let rows = try await client.query("SELECT count(*) FROM replay_nonces WHERE expires_at > \(nowMillis) AND consumed_at IS NULL")
            var total: Int64 = 0
            for try await row in rows { total = try row.decode(Int64.self) }
            return total
        }
        return Int(clamping: counted)
    }

    /// Runs a query that reads both replay tables, so it also fails when ``createTables()`` has not run.
    public func ping() async throws {
        try await perform("ping") { client in
            // Also proves the tables exist (createTables ran) and are readable.
            _ = try await Self.count(try await client.query("SELECT 1 FROM replay_keys, replay_nonces WHERE false"))
        }
    }

    // MARK: - Helpers

    /// Logs nothing: statements carry digests and payloads, which do not belong in logs.
    static let quietLogger: Logger = {
        var logger = Logger(label: "wallet-verifier.replay-store.postgres")
        logger.logLevel = .critical
        return logger
    }()

    /// Runs `operation` with the deadline; every failure becomes an ``OperationalError`` whose
    /// message names the operation and the error's kind (never a statement, a value or a password).
    func perform<T: Sendable>(
        _ operation: String,
        _ body: @escaping @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        let client = self.client
        do {
            return try await Deadline.run(configuration.operationTimeout) {
                try await body(client)
            }
        } catch let error as OperationalError {
            throw error
        } catch is DeadlineExceeded {
            throw OperationalError(
                .unavailable,
                "PostgreSQL replay store: \(operation) did not finish within \(configuration.operationTimeout)."
            )
        } catch {
            throw OperationalError(.unavailable, "PostgreSQL replay store: \(operation) failed (\(Self.describe(error))).")
        }
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let state = error.serverInfo?[.sqlState] {
                return "\(error.code), SQLSTATE \(state)"
            }
            return "\(error.code)"
        }
        if error is CancellationError { return "cancelled" }
        return String(describing: type(of: error))
    }

    private static func count(_ rows: PostgresRowSequence) async throws -> Int {
        var count = 0
        for try await _ in rows { count += 1 }
        return count
    }
}

/// The tables of the PostgreSQL store (idempotent; see docs/stores.md).
enum PostgresSchema {
    /// The key of the transaction-scoped advisory lock taken while creating tables ("wv_repla"), for
    /// the default schema.
    static let advisoryLockKey: Int64 = 0x7776_5F72_6570_6C61

    /// The lock key for `schema`: stores in different schemas of one database set up their tables
    /// without waiting for each other. FNV-1a of the name, mixed into ``advisoryLockKey``.
    static func advisoryLockKey(schema: String?) -> Int64 {
        guard let schema else { return advisoryLockKey }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in schema.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3
        }
        return advisoryLockKey ^ Int64(bitPattern: hash)
    }

    /// SHA-256 (hex) of every statement: recorded once they have all run, so an instance that finds it
    /// knows the tables are current and runs none of them.
    static let fingerprint: String = {
        var hasher = SHA256()
        for statement in statements {
            hasher.update(data: Array(statement.utf8))
            hasher.update(data: [0])
        }
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: hasher.finalize().flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] }, as: UTF8.self)
    }()

    static let statements = [
        """
        CREATE TABLE IF NOT EXISTS replay_keys (
            id BYTEA PRIMARY KEY,
            expires_at BIGINT NOT NULL
        )
        """,
        "CREATE INDEX IF NOT EXISTS replay_keys_expires_at ON replay_keys (expires_at)",
        """
        CREATE TABLE IF NOT EXISTS replay_nonces (
            id BYTEA PRIMARY KEY,
            payload BYTEA NOT NULL,
            expires_at BIGINT NOT NULL,
            consumed_at BIGINT
        )
        """,
        "CREATE INDEX IF NOT EXISTS replay_nonces_expires_at ON replay_nonces (expires_at)",
        // Counting outstanding sessions (--max-outstanding-requests) scans only unconsumed rows.
        "CREATE INDEX IF NOT EXISTS replay_nonces_outstanding ON replay_nonces (expires_at) WHERE consumed_at IS NULL",
        // Idempotency keys (digests only, docs/stores.md); the tag beside each recorded value (NULL without a key).
        "ALTER TABLE replay_keys ADD COLUMN IF NOT EXISTS recorded_at BIGINT",
        "ALTER TABLE replay_keys ADD COLUMN IF NOT EXISTS idem_key BYTEA",
        "ALTER TABLE replay_keys ADD COLUMN IF NOT EXISTS idem_body BYTEA",
        "ALTER TABLE replay_keys ADD COLUMN IF NOT EXISTS idem_until BIGINT",
        "ALTER TABLE replay_nonces ADD COLUMN IF NOT EXISTS idem_key BYTEA",
        "ALTER TABLE replay_nonces ADD COLUMN IF NOT EXISTS idem_body BYTEA",
        "ALTER TABLE replay_nonces ADD COLUMN IF NOT EXISTS idem_until BIGINT",
        // Which attempt consumed a nonce (random bytes; NULL when unused or not releasable): only that
        // attempt can give it back after an indeterminate verdict.
        "ALTER TABLE replay_nonces ADD COLUMN IF NOT EXISTS consumed_by BYTEA",
        """
        CREATE TABLE IF NOT EXISTS idempotency_keys (
            id BYTEA PRIMARY KEY,
            body BYTEA NOT NULL,
            first_seen BIGINT NOT NULL,
            expires_at BIGINT NOT NULL,
            lease_until BIGINT,
            finished BOOLEAN NOT NULL,
            result BYTEA
        )
        """,
        "CREATE INDEX IF NOT EXISTS idempotency_keys_expires_at ON idempotency_keys (expires_at)",
        // Fetched documents: revocation lists by uri, fetched once per validity period by all instances.
        """
        CREATE TABLE IF NOT EXISTS cached_documents (
            key TEXT PRIMARY KEY,
            bytes BYTEA NOT NULL,
            fetched_at BIGINT NOT NULL,
            fresh_until BIGINT NOT NULL,
            usable_until BIGINT NOT NULL
        )
        """,
        "CREATE TABLE IF NOT EXISTS document_fetch_claims (key TEXT PRIMARY KEY, until BIGINT NOT NULL)",
        // Kept receipts: signed verdicts (no personal data), shared by every instance. issued_at is the
        // receipt's iat in SECONDS (the unit of its cursor); ids compare as bytes, whatever the
        // database's collation, so pages come in the same order as from the other stores.
        """
        CREATE TABLE IF NOT EXISTS verification_receipts (
            id TEXT COLLATE "C" PRIMARY KEY,
            issued_at BIGINT NOT NULL,
            flow TEXT NOT NULL,
            verdict TEXT NOT NULL,
            jws TEXT NOT NULL,
            keep_until BIGINT NOT NULL
        )
        """,
        // Listing pages walks this index: ORDER BY issued_at, id from the cursor's (issued_at, id).
        "CREATE INDEX IF NOT EXISTS verification_receipts_issued_at ON verification_receipts (issued_at, id)",
        "CREATE INDEX IF NOT EXISTS verification_receipts_keep_until ON verification_receipts (keep_until)",
        // The keys receipts were signed with, so receipts stay verifiable after a rotation (on every instance).
        """
        CREATE TABLE IF NOT EXISTS receipt_keys (
            key_id TEXT COLLATE "C" PRIMARY KEY,
            jwk TEXT NOT NULL,
            last_used BIGINT NOT NULL
        )
        """,
        // The fingerprint of these statements, once they have all run (see createTables).
        "CREATE TABLE IF NOT EXISTS wallet_verifier_schema (id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL)",
    ]
}
