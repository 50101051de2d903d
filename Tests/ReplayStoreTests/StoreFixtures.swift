import Foundation
import PostgresNIO
import ReplayStorePostgres
import ReplayStoreSQLite
import Testing
import VerificationCore

/// The stores the behavioural suite runs against.
enum StoreKind: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case memory, sqlite, postgres
    var testDescription: String { rawValue }
}

enum TestEnvironment {
    static let environment = ProcessInfo.processInfo.environment

    /// A PostgreSQL database the tests may create schemas in (scripts/test starts a throwaway one).
    static let postgresURL: String? = environment["WALLET_VERIFIER_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    static let isCI: Bool = {
        guard let value = environment["CI"]?.lowercased() else { return false }
        return ["true", "1", "yes"].contains(value)
    }()

    /// PostgreSQL tests run when a URL is given, and always in CI (where a missing URL is a failure).
    static let runsPostgres = postgresURL != nil || isCI

    static let kinds: [StoreKind] = runsPostgres ? [.memory, .sqlite, .postgres] : [.memory, .sqlite]

    static let missingPostgresMessage = """
        WALLET_VERIFIER_POSTGRES_URL is not set, and CI=true: the PostgreSQL store was not tested. \
        Run scripts/test (it starts a throwaway PostgreSQL cluster with scripts/postgres-test-server) \
        or export WALLET_VERIFIER_POSTGRES_URL=postgres://user:pass@127.0.0.1:PORT/db.
        """

    static func requirePostgresURL() throws -> String {
        guard let url = postgresURL else { throw PostgresNotConfigured() }
        return url
    }
}

/// Thrown (and so recorded as a failure) when CI=true and no PostgreSQL URL was given.
struct PostgresNotConfigured: Error, CustomStringConvertible {
    var description: String { TestEnvironment.missingPostgresMessage }
}

/// A fixed instant, so every expiry in the tests is exact.
let t0 = Date(timeIntervalSince1970: 1_800_000_000)

func at(_ seconds: Double) -> Date { t0.addingTimeInterval(seconds) }

/// A fresh, empty store of the given kind for the duration of `body`.
func withFreshStore(_ kind: StoreKind, _ body: (any ReplayStore & IdempotencyStore) async throws -> Void) async throws {
    switch kind {
    case .memory:
        try await body(InMemoryReplayStore())
    case .sqlite:
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        do {
            try await body(store)
            await store.close()
        } catch {
            await store.close()
            throw error
        }
    case .postgres:
        try await withPostgresStores(count: 1) { stores in try await body(stores[0]) }
    }
}

/// `count` PostgreSQL stores, each with its own client and connection pool (like separate service
/// instances), sharing one fresh schema that is dropped afterwards.
func withPostgresStores<T>(count: Int, _ body: ([PostgresReplayStore]) async throws -> T) async throws -> T {
    let url = try TestEnvironment.requirePostgresURL()
    var configuration = try PostgresReplayStore.Configuration(url: url, operationTimeout: .seconds(30))
    let schema = "wv_test_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
    try configuration.useSchema(schema)
    let result: Result<T, any Error>
    do {
        result = .success(try await nest(configuration, remaining: count, stores: [], body))
    } catch {
        result = .failure(error)
    }
    // Best effort: the cluster of scripts/test is thrown away anyway.
    try? await dropSchema(schema, client: configuration.client)
    return try result.get()
}

private func nest<T>(
    _ configuration: PostgresReplayStore.Configuration,
    remaining: Int,
    stores: [PostgresReplayStore],
    _ body: ([PostgresReplayStore]) async throws -> T
) async throws -> T {
    if remaining == 0 { return try await body(stores) }
    return try await PostgresReplayStore.withStore(configuration) { store in
        try await nest(configuration, remaining: remaining - 1, stores: stores + [store], body)
    }
}

/// Runs `body` with a raw postgres-nio client on the test database (to look at what the store wrote).
func withRawPostgres<T: Sendable>(_ configuration: PostgresClient.Configuration, _ body: @Sendable (PostgresClient) async throws -> T) async throws
    -> T
{
    let client = PostgresClient(configuration: configuration)
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { await client.run() }
        defer { group.cancelAll() }
        return try await body(client)
    }
}

private func dropSchema(_ schema: String, client configuration: PostgresClient.Configuration) async throws {
    try await withRawPostgres(configuration) { client in
        _ = try await client.query(PostgresQuery(unsafeSQL: "DROP SCHEMA IF EXISTS \(schema) CASCADE")).collect()
    }
}

struct TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/replay-store-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Runs `count` copies of `operation` at once and returns every result, in index order.
func concurrently<T: Sendable>(_ count: Int, _ operation: @escaping @Sendable (Int) async throws -> T) async throws -> [T] {
    try await withThrowingTaskGroup(of: (Int, T).self) { group in
        for index in 0..<count {
            group.addTask { (index, try await operation(index)) }
        }
        // In index order, not in the order the operations finished: callers match results to indices.
        var results: [T?] = Array(repeating: nil, count: count)
        for try await (index, result) in group { results[index] = result }
        return results.map { $0! }
    }
}

/// The error a store threw, as an ``OperationalError`` (nil when it threw something else or nothing).
func operationalError(_ body: () async throws -> Void) async -> OperationalError? {
    do {
        try await body()
        return nil
    } catch let error as OperationalError {
        return error
    } catch {
        Issue.record("expected an OperationalError, got \(type(of: error)): \(error)")
        return nil
    }
}
