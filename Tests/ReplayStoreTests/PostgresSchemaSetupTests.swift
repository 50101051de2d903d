import Foundation
import Logging
import PostgresNIO
import Testing
import VerificationCore

@testable import ReplayStorePostgres

/// Setting up the tables: an instance that finds them current takes no lock and alters nothing, a
/// schema set up before the fingerprint existed is brought up to date under the lock, and stores in
/// different schemas do not wait for each other.
@Suite(
    "PostgreSQL schema setup",
    .enabled(if: TestEnvironment.runsPostgres, "WALLET_VERIFIER_POSTGRES_URL is not set (scripts/test starts a throwaway PostgreSQL)")
)
struct PostgresSchemaSetupTests {
    @Test("current tables are not locked again; an older schema waits for the lock, then records its fingerprint")
    func setupTakesTheLockOnlyWhenNeeded() async throws {
        try await withPostgresStores(count: 1) { stores in
            let store = stores[0]
            let schema = try #require(store.configuration.schema)
            let key = PostgresSchema.advisoryLockKey(schema: schema)
            let logger = Logger(label: "schema-setup-test")
            try await withRawPostgres(store.configuration.client) { client in
                try await client.withConnection { connection in
                    // Another instance is setting up this schema: it holds the lock.
                    _ = try await connection.query("SELECT pg_advisory_lock(\(key))", logger: logger).collect()

                    // The tables are current: createTables returns without waiting for that lock.
                    let start = ContinuousClock.now
                    try await store.createTables()
                    #expect(ContinuousClock.now - start < .seconds(10))

                    // Another schema of the same database: its own lock, not waiting either.
                    let elsewhere = try await withPostgresStores(count: 1) { others in
                        try await others[0].recordFirstUse(namespace: "n", key: "k", expiresAt: at(60), now: t0)
                    }
                    #expect(elsewhere == .firstUse)

                    // A schema set up before the fingerprint was recorded: createTables runs the statements,
                    // so it waits until the lock is released.
                    _ = try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(schema).wallet_verifier_schema"), logger: logger).collect()
                    let setUp = Task { try await store.createTables() }
                    try await Task.sleep(for: .milliseconds(500))
                    _ = try await connection.query("SELECT pg_advisory_unlock(\(key))", logger: logger).collect()
                    try await setUp.value
                    var recorded: [String] = []
                    for try await fingerprint in try await connection.query(
                        PostgresQuery(unsafeSQL: "SELECT fingerprint FROM \(schema).wallet_verifier_schema WHERE id = 1"), logger: logger
                    ).decode(String.self) {
                        recorded.append(fingerprint)
                    }
                    #expect(recorded == [PostgresSchema.fingerprint])
                }
            }
            #expect(try await store.recordFirstUse(namespace: "n", key: "k", expiresAt: at(60), now: t0) == .firstUse)
        }
    }

    @Test("the lock key depends on the schema, and the fingerprint on every statement")
    func lockKeysAndFingerprint() {
        #expect(PostgresSchema.advisoryLockKey(schema: nil) == PostgresSchema.advisoryLockKey)
        #expect(PostgresSchema.advisoryLockKey(schema: "a") != PostgresSchema.advisoryLockKey(schema: "b"))
        #expect(PostgresSchema.advisoryLockKey(schema: "a") != PostgresSchema.advisoryLockKey)
        #expect(PostgresSchema.fingerprint.utf8.count == 64)
        #expect(PostgresSchema.statements.last?.contains("wallet_verifier_schema") == true)
    }
}
