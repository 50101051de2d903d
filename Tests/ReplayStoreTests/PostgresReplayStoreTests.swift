import Foundation
import PostgresNIO
import ReplayStorePostgres
import Testing
import VerificationCore

/// Needs a real PostgreSQL (WALLET_VERIFIER_POSTGRES_URL; scripts/test starts one). In CI a missing
/// URL fails these tests; elsewhere they are skipped.
@Suite(
    "PostgreSQL replay store",
    .enabled(if: TestEnvironment.runsPostgres, "WALLET_VERIFIER_POSTGRES_URL is not set (scripts/test starts a throwaway PostgreSQL)")
)
struct PostgresReplayStoreTests {
    @Test("two clients (two pools, like two instances): exactly one of 50 concurrent first uses wins")
    func twoClientsFirstUse() async throws {
        try await withPostgresStores(count: 2) { stores in
            let outcomes = try await concurrently(50) { index in
                try await stores[index % 2].recordFirstUse(namespace: "applepay", key: "same-tx", expiresAt: at(600), now: t0)
            }
            #expect(outcomes.filter { $0 == .firstUse }.count == 1)
            #expect(outcomes.filter { $0 == .alreadyUsed }.count == 49)
        }
    }

    @Test("two clients: a nonce issued by one is consumed exactly once across both")
    func twoClientsConsume() async throws {
        try await withPostgresStores(count: 2) { stores in
            for round in 0..<3 {
                try await stores[round % 2].issueNonce("req-\(round)", payload: [UInt8(round)], expiresAt: at(600))
                let outcomes = try await concurrently(50) { index in
                    try await stores[index % 2].consumeNonce("req-\(round)", now: t0)
                }
                #expect(outcomes.filter { $0 == .consumed(payload: [UInt8(round)]) }.count == 1)
                #expect(outcomes.filter { $0 == .alreadyConsumed }.count == 49)
            }
            // Issuing the same identifier from the other instance is refused too.
            let error = await operationalError { try await stores[1].issueNonce("req-0", payload: [], expiresAt: at(600)) }
            #expect(error?.reasonCode == "duplicateNonce")
        }
    }

    @Test("several instances creating the tables at the same moment all succeed")
    func concurrentCreateTables() async throws {
        try await withPostgresStores(count: 3) { stores in
            // withStore created the tables once per store already; do it again, all at once.
            let done = try await concurrently(9) { index in
                try await stores[index % 3].createTables()
                return true
            }
            #expect(done.count == 9)
            #expect(try await stores[0].recordFirstUse(namespace: "n", key: "k", expiresAt: at(60), now: t0) == .firstUse)
            #expect(try await stores[2].recordFirstUse(namespace: "n", key: "k", expiresAt: at(60), now: t0) == .alreadyUsed)
        }
    }

    @Test("the tables hold digests and millisecond times, not the identifiers")
    func storedRepresentation() async throws {
        try await withPostgresStores(count: 1) { stores in
            let store = stores[0]
            let secret = "TX-visible-if-stored-in-clear"
            _ = try await store.recordFirstUse(namespace: "applepay", key: secret, expiresAt: at(60.5), now: t0)
            try await store.issueNonce(secret, payload: [1, 2], expiresAt: at(61))
            let rows = try await withRawPostgres(store.configuration.client) { client in
                var found: [(Int, Int64)] = []
                for try await (length, expires) in try await client.query(
                    "SELECT length(id), expires_at FROM replay_keys UNION ALL SELECT length(id), expires_at FROM replay_nonces ORDER BY 2"
                )
                .decode((Int, Int64).self) {
                    found.append((length, expires))
                }
                var clear = 0
                for try await count in try await client.query(
                    "SELECT count(*) FROM replay_keys WHERE position(convert_to(\(secret), 'UTF8') in id) > 0"
                ).decode(Int.self) {
                    clear += count
                }
                return (found.map { "\($0.0):\($0.1)" }, clear)
            }
            #expect(rows.0 == ["32:1800000060500", "32:1800000061000"])
            #expect(rows.1 == 0)
        }
    }

    @Test("run() with a purge interval purges in the background")
    func backgroundPurge() async throws {
        let url = try TestEnvironment.requirePostgresURL()
        var configuration = try PostgresReplayStore.Configuration(url: url, operationTimeout: .seconds(30), purgeInterval: .milliseconds(50))
        try configuration.useSchema("wv_test_purge_" + String(UInt32.random(in: 0...UInt32.max), radix: 36))
        try await PostgresReplayStore.withStore(configuration) { store in
            // Expired long ago by the system clock the background purge uses.
            try await store.issueNonce("old", payload: [1], expiresAt: Date(timeIntervalSince1970: 1_000))
            try await store.issueNonce("live", payload: [2], expiresAt: Date().addingTimeInterval(3600))
            // Issuing "old" again succeeds only once the purge deleted it.
            let deadline = ContinuousClock.now + .seconds(20)
            var purged = false
            while !purged, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                do {
                    try await store.issueNonce("old", payload: [1], expiresAt: Date(timeIntervalSince1970: 1_000))
                    purged = true
                } catch let error as OperationalError where error.reasonCode == "duplicateNonce" {
                    continue
                }
            }
            #expect(purged)
            #expect(try await store.consumeNonce("live", now: Date()) == .consumed(payload: [2]))
        }
        guard let schema = configuration.schema else { return }
        try? await withRawPostgres(configuration.client) { client in
            _ = try await client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(schema) CASCADE")).collect()
        }
    }
}

/// These need no server: they point the store at a port where nothing listens.
@Suite("PostgreSQL replay store failures")
struct PostgresReplayStoreFailureTests {
    /// A local TCP port with nothing listening on it.
    static func closedPort() -> Int {
        // Port 9 (discard) is not served on test machines; the connection is refused at once.
        9
    }

    @Test("an unreachable server makes every operation throw a retryable OperationalError, quickly")
    func unreachable() async throws {
        let configuration = try PostgresReplayStore.Configuration(
            url: "postgres://wallet:Zq9-s3cret@127.0.0.1:\(Self.closedPort())/wallet?sslmode=disable",
            operationTimeout: .seconds(1)
        )
        let started = ContinuousClock.now
        let errors = try await PostgresReplayStore.withStore(configuration, createTables: false) { store in
            [
                await operationalError { try await store.createTables() },
                await operationalError { _ = try await store.recordFirstUse(namespace: "n", key: "k", expiresAt: at(1), now: t0) },
                await operationalError { try await store.issueNonce("n", payload: [], expiresAt: at(1)) },
                await operationalError { _ = try await store.consumeNonce("n", now: t0) },
                await operationalError { _ = try await store.purgeExpired(now: t0) },
                await operationalError { try await store.ping() },
            ]
        }
        #expect(errors.count == 6)
        for error in errors {
            #expect(error?.retryable == true)
            #expect(error?.reasonCode == .unavailable)
            #expect(error.map { !$0.checkMessage.contains("Zq9-s3cret") } ?? false)
        }
        // Six operations with a 1 s deadline each: bounded, not the pool's 60 s circuit breaker (which
        // would take 360 s). The margin is for a full test run on two cores, which delays wake-ups (48 s seen).
        #expect(ContinuousClock.now - started < .seconds(180))
    }

    @Test("a store whose pool is not running answers with OperationalError at the deadline")
    func notRunning() async throws {
        let store = try PostgresReplayStore(url: "postgres://u@127.0.0.1:\(Self.closedPort())/d", operationTimeout: .milliseconds(300))
        let error = await operationalError { try await store.ping() }
        #expect(error?.retryable == true)
        #expect(error?.checkMessage.contains("did not finish") == true)
    }

    @Test(
        "configuration URLs",
        arguments: [
            ("postgres://user:Zq9pw@127.0.0.1:5433/db", true),
            ("postgresql://user@localhost/db?sslmode=disable&application_name=svc-1", true),
            ("postgres://us%40er:p%2Fss@[::1]:5432/my_db?sslmode=require&connect_timeout=3", true),
            ("postgres://db.example/db?schema=wallet_verifier", true),
            ("", false),
            ("   ", false),
            ("mysql://user:Zq9pw@host/db", false),
            ("postgres:///db", false),
            ("postgres://user:Zq9pw@host:0/db", false),
            ("postgres://user:Zq9pw@host:99999/db", false),
            ("postgres://user:Zq9pw@host/db/extra", false),
            ("postgres://user:Zq9pw@host/db?sslmode=sometimes", false),
            ("postgres://user:Zq9pw@host/db?unknown=1", false),
            ("postgres://user:Zq9pw@host/db?connect_timeout=-1", false),
            ("postgres://user:Zq9pw@host/db?schema=Robert%27);DROP", false),
            ("postgres://user:Zq9pw@host/db?schema=pg_catalog", false),
            ("postgres://user:Zq9pw@host/db?application_name=%0Aevil", false),
            ("postgres://user:Zq9pw@host/db?%00=%00", false),
            ("\u{0}postgres://user:Zq9pw@host/db", false),
        ])
    func urls(url: String, valid: Bool) {
        do {
            let configuration = try PostgresReplayStore.Configuration(url: url)
            #expect(valid, "accepted \(url)")
            #expect(configuration.client.username.isEmpty == false)
        } catch let error as OperationalError {
            #expect(!valid, "refused \(url): \(error)")
            #expect(error.retryable == false)
            #expect(!error.checkMessage.contains("Zq9pw"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test("URL fields are decoded")
    func urlFields() throws {
        let configuration = try PostgresReplayStore.Configuration(
            url: "postgres://us%40er:p%2Fss@db.internal:6543/wallet_db?sslmode=disable&schema=wv")
        #expect(configuration.client.host == "db.internal")
        #expect(configuration.client.port == 6543)
        #expect(configuration.client.username == "us@er")
        #expect(configuration.client.password == "p/ss")
        #expect(configuration.client.database == "wallet_db")
        #expect(configuration.schema == "wv")
        let defaults = try PostgresReplayStore.Configuration(url: "postgres://db.internal")
        #expect(defaults.client.port == 5432)
        #expect(defaults.client.username == "postgres")
        #expect(defaults.client.database == nil)
        #expect(defaults.schema == nil)
    }
}
