import Foundation
import NIOCore
import ReplayStorePostgres
import ReplayStoreSQLite
import SQLiteNIO
import Testing
import VerificationCore

/// Idempotency keys, asserted on every store (in-memory, SQLite, PostgreSQL): the same submission
/// retried with its key finds what it consumed; another key, no key, another body or a closed window
/// is a replay as before.
@Suite("Idempotency keys in the stores")
struct IdempotencyStoreTests {
    static func tag(_ key: UInt8, body: UInt8 = 1, until: Double = 600) -> IdempotencyTag {
        IdempotencyTag(key: [UInt8](repeating: key, count: 32), body: [UInt8](repeating: body, count: 32), retryUntil: at(until))
    }

    @Test("a recorded transaction identifier: the same tag is a retry, anything else a replay", arguments: TestEnvironment.kinds)
    func transactionIdentifiers(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            let first = Self.tag(1)
            #expect(
                try await store.recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(300), now: at(10), idempotency: first) == .firstUse)
            // The same key and body, inside the window: a retry, dated at the first use.
            let retry = try await store.recordFirstUse(
                namespace: "applepay", key: "tx", expiresAt: at(300), now: at(20), idempotency: Self.tag(1, until: 620))
            #expect(retry == .idempotentRetry(firstUse: at(10)))
            // Without a key, with another key, with another body: a replay, as without keys.
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(300), now: at(20)) == .alreadyUsed)
            #expect(
                try await store.recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(300), now: at(20), idempotency: Self.tag(2))
                    == .alreadyUsed)
            #expect(
                try await store.recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(300), now: at(20), idempotency: Self.tag(1, body: 2))
                    == .alreadyUsed)
            // After the first tag's window (600): a replay, whatever the retry's own window says.
            #expect(
                try await store.recordFirstUse(namespace: "applepay", key: "tx2", expiresAt: at(900), now: at(10), idempotency: first) == .firstUse)
            #expect(
                try await store.recordFirstUse(
                    namespace: "applepay", key: "tx2", expiresAt: at(900), now: at(600), idempotency: Self.tag(1, until: 1200)) == .alreadyUsed)
            // A value recorded without a key is never taken for a retry.
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx3", expiresAt: at(300), now: at(10)) == .firstUse)
            #expect(
                try await store.recordFirstUse(namespace: "applepay", key: "tx3", expiresAt: at(300), now: at(11), idempotency: first) == .alreadyUsed
            )
        }
    }

    @Test("a consumed nonce: the same tag gets its payload again until the window or the request ends", arguments: TestEnvironment.kinds)
    func nonces(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            try await store.issueNonce("request", payload: [4, 2], expiresAt: at(300))
            #expect(try await store.consumeNonce("request", now: at(10), idempotency: Self.tag(1)) == .consumed(payload: [4, 2]))
            #expect(
                try await store.consumeNonce("request", now: at(20), idempotency: Self.tag(1))
                    == .consumedAgain(payload: [4, 2], firstConsumed: at(10)))
            #expect(try await store.consumeNonce("request", now: at(20)) == .alreadyConsumed)
            #expect(try await store.consumeNonce("request", now: at(20), idempotency: Self.tag(3)) == .alreadyConsumed)
            #expect(try await store.consumeNonce("request", now: at(20), idempotency: Self.tag(1, body: 9)) == .alreadyConsumed)
            // The request still expires: no retry at or after its expiry, though the window is open.
            #expect(
                try await store.consumeNonce("request", now: at(300), idempotency: Self.tag(1))
                    != .consumedAgain(payload: [4, 2], firstConsumed: at(10)))
            // The window ends before the request does.
            try await store.issueNonce("long", payload: [7], expiresAt: at(5000))
            #expect(try await store.consumeNonce("long", now: at(10), idempotency: Self.tag(5, until: 100)) == .consumed(payload: [7]))
            #expect(
                try await store.consumeNonce("long", now: at(99), idempotency: Self.tag(5, until: 700))
                    == .consumedAgain(payload: [7], firstConsumed: at(10)))
            #expect(try await store.consumeNonce("long", now: at(100), idempotency: Self.tag(5, until: 700)) == .alreadyConsumed)
            // Consumed without a key: never a retry.
            try await store.issueNonce("plain", payload: [1], expiresAt: at(300))
            #expect(try await store.consumeNonce("plain", now: at(10)) == .consumed(payload: [1]))
            #expect(try await store.consumeNonce("plain", now: at(11), idempotency: Self.tag(1)) == .alreadyConsumed)
        }
    }

    @Test("beginning a submission: new, in progress, finished, another request, a lease taken over", arguments: TestEnvironment.kinds)
    func submissions(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            let tag = Self.tag(1)
            #expect(try await store.beginIdempotentRequest(tag, now: at(0), leaseUntil: at(10)) == .proceed(firstSeen: nil))
            #expect(try await store.beginIdempotentRequest(tag, now: at(1), leaseUntil: at(11)) == .inProgress(leaseUntil: at(10)))
            #expect(try await store.beginIdempotentRequest(Self.tag(1, body: 2), now: at(1), leaseUntil: at(11)) == .conflict)
            try await store.finishIdempotentRequest(key: tag.key, result: Array("{\"requestId\":\"r\"}".utf8))
            #expect(
                try await store.beginIdempotentRequest(tag, now: at(2), leaseUntil: at(12))
                    == .completed(result: Array("{\"requestId\":\"r\"}".utf8), firstSeen: at(0)))
            #expect(try await store.beginIdempotentRequest(Self.tag(1, body: 2), now: at(2), leaseUntil: at(12)) == .conflict)
            // A verification keeps no result.
            let verification = Self.tag(2)
            #expect(try await store.beginIdempotentRequest(verification, now: at(0), leaseUntil: at(10)) == .proceed(firstSeen: nil))
            try await store.finishIdempotentRequest(key: verification.key, result: nil)
            #expect(try await store.beginIdempotentRequest(verification, now: at(5), leaseUntil: at(15)) == .completed(result: nil, firstSeen: at(0)))
            // An attempt that never finished (its process died): held until its lease ends, then taken over once.
            let crashed = Self.tag(3)
            #expect(try await store.beginIdempotentRequest(crashed, now: at(0), leaseUntil: at(10)) == .proceed(firstSeen: nil))
            #expect(try await store.beginIdempotentRequest(crashed, now: at(9), leaseUntil: at(19)) == .inProgress(leaseUntil: at(10)))
            #expect(try await store.beginIdempotentRequest(crashed, now: at(10), leaseUntil: at(20)) == .proceed(firstSeen: at(0)))
            #expect(try await store.beginIdempotentRequest(crashed, now: at(11), leaseUntil: at(21)) == .inProgress(leaseUntil: at(20)))
            // An abandoned attempt is forgotten: the next one starts anew. A finished one is not forgotten.
            try await store.abandonIdempotentRequest(key: crashed.key)
            #expect(try await store.beginIdempotentRequest(crashed, now: at(12), leaseUntil: at(22)) == .proceed(firstSeen: nil))
            try await store.abandonIdempotentRequest(key: tag.key)
            #expect(try await store.beginIdempotentRequest(tag, now: at(13), leaseUntil: at(23)) != .proceed(firstSeen: nil))
            // After the window (600) the key is new again, with any body; and purged with the rest.
            #expect(
                try await store.beginIdempotentRequest(Self.tag(1, body: 2, until: 1300), now: at(600), leaseUntil: at(610))
                    == .proceed(firstSeen: nil))
            #expect(try await store.purgeExpired(now: at(700)) >= 2)
            #expect(try await store.beginIdempotentRequest(verification, now: at(700), leaseUntil: at(710)) == .proceed(firstSeen: nil))
        }
    }

    @Test("concurrent beginnings with one key: exactly one proceeds", arguments: TestEnvironment.kinds)
    func concurrentBeginnings(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            for round in 0..<5 {
                let tag = Self.tag(UInt8(10 + round))
                let starts = try await withThrowingTaskGroup(of: IdempotencyStart.self) { group in
                    for _ in 0..<16 { group.addTask { try await store.beginIdempotentRequest(tag, now: at(0), leaseUntil: at(10)) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(starts.filter { $0 == .proceed(firstSeen: nil) }.count == 1)
                #expect(starts.filter { $0 == .inProgress(leaseUntil: at(10)) }.count == 15)
            }
        }
    }

    @Test("two PostgreSQL instances: a retry on the other instance finds the first one's records")
    func retryOnAnotherInstance() async throws {
        guard TestEnvironment.runsPostgres else { return }
        try await withPostgresStores(count: 2) { stores in
            let tag = Self.tag(7)
            try await stores[0].issueNonce("shared", payload: [9], expiresAt: at(300))
            #expect(try await stores[0].beginIdempotentRequest(tag, now: at(0), leaseUntil: at(10)) == .proceed(firstSeen: nil))
            #expect(try await stores[0].consumeNonce("shared", now: at(1), idempotency: tag) == .consumed(payload: [9]))
            #expect(
                try await stores[0].recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(300), now: at(1), idempotency: tag) == .firstUse)
            // The first instance dies before answering; the retry reaches the second after the lease.
            #expect(try await stores[1].beginIdempotentRequest(tag, now: at(5), leaseUntil: at(15)) == .inProgress(leaseUntil: at(10)))
            #expect(try await stores[1].beginIdempotentRequest(tag, now: at(10), leaseUntil: at(20)) == .proceed(firstSeen: at(0)))
            #expect(try await stores[1].consumeNonce("shared", now: at(10), idempotency: tag) == .consumedAgain(payload: [9], firstConsumed: at(1)))
            #expect(
                try await stores[1].recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(300), now: at(10), idempotency: tag)
                    == .idempotentRetry(firstUse: at(1)))
            #expect(try await stores[1].consumeNonce("shared", now: at(10)) == .alreadyConsumed)
        }
    }

    @Test("a schema-1 SQLite file is migrated on open, its records kept")
    func sqliteMigration() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/" + SQLiteReplayStore.defaultFileName
        // The tables as schema 1 wrote them, with a used key and a consumed nonce.
        let raw = try await SQLiteConnection.open(storage: .file(path: path))
        for statement in [
            "CREATE TABLE replay_keys (id BLOB NOT NULL PRIMARY KEY, expires_at INTEGER NOT NULL) WITHOUT ROWID",
            "CREATE TABLE replay_nonces (id BLOB NOT NULL PRIMARY KEY, payload BLOB, expires_at INTEGER NOT NULL, consumed_at INTEGER) WITHOUT ROWID",
            "PRAGMA user_version = 1",
        ] { _ = try await raw.query(statement) }
        let expiry = SQLiteData.integer(Int(EpochMillis.of(at(60))))
        _ = try await raw.query(
            "INSERT INTO replay_keys (id, expires_at) VALUES (?, ?)",
            [.blob(ByteBuffer(bytes: ReplayKeyDigest.replay(namespace: "n", key: "k"))), expiry])
        _ = try await raw.query(
            "INSERT INTO replay_nonces (id, payload, expires_at, consumed_at) VALUES (?, ?, ?, ?)",
            [.blob(ByteBuffer(bytes: ReplayKeyDigest.nonce("x"))), .blob(ByteBuffer(bytes: [1])), expiry, .integer(Int(EpochMillis.of(t0)))])
        try await raw.close()
        let store = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        #expect(try await store.recordFirstUse(namespace: "n", key: "k", expiresAt: at(60), now: t0, idempotency: Self.tag(1)) == .alreadyUsed)
        #expect(try await store.consumeNonce("x", now: t0, idempotency: Self.tag(1)) == .alreadyConsumed)
        #expect(try await store.beginIdempotentRequest(Self.tag(1), now: t0, leaseUntil: at(10)) == .proceed(firstSeen: nil))
        await store.close()
        let check = try await SQLiteConnection.open(storage: .file(path: path))
        let version = try await check.query("PRAGMA user_version").first?.column("user_version")?.integer
        try await check.close()
        #expect(version == SQLiteReplayStore.schemaVersion)
    }
}
