import Foundation
import NIOCore
import NIOPosix
import SQLiteNIO
import Testing
import VerificationCore

@testable import ReplayStoreSQLite

@Suite("SQLite replay store")
struct SQLiteReplayStoreTests {
    @Test("closing and reopening the file keeps consumed nonces consumed and used keys used")
    func persistence() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }

        let first = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        try await first.issueNonce("consumed", payload: [1], expiresAt: at(600))
        try await first.issueNonce("pending", payload: [2, 2], expiresAt: at(600))
        #expect(try await first.consumeNonce("consumed", now: t0) == .consumed(payload: [1]))
        #expect(try await first.recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(600), now: t0) == .firstUse)
        await first.close()

        let second = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        #expect(try await second.consumeNonce("consumed", now: at(1)) == .alreadyConsumed)
        #expect(try await second.recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(600), now: at(1)) == .alreadyUsed)
        #expect(try await second.consumeNonce("pending", now: at(1)) == .consumed(payload: [2, 2]))
        #expect(try await second.consumeNonce("never-issued", now: at(1)) == .unknown)
        await second.close()

        let third = try await SQLiteReplayStore.open(path: directory.path + "/" + SQLiteReplayStore.defaultFileName)
        #expect(try await third.consumeNonce("pending", now: at(2)) == .alreadyConsumed)
        await third.close()
    }

    @Test("callers on event loops each get their own answer, back on their event loop, also when a group answers several on one loop")
    func answersOnEventLoops() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        for index in 0..<160 { try await store.issueNonce("n\(index)", payload: [UInt8(index)], expiresAt: at(600)) }
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        let callers = loops.makeIterator().map { EventLoopCaller(eventLoop: $0) }
        #expect(callers.count == 2)
        // Rounds of 280 operations from both event loops: 40 keys submitted twice, and 160 nonces
        // (each with a payload of its own) consumed, 40 of them twice, until some group has answered
        // several callers on one event loop at once.
        var round = 0
        repeat {
            let namespace = "round\(round)"
            let outcomes = try await concurrently(280) { index -> String in
                try await callers[index % 2].operation(index, namespace: namespace, store: store)
            }
            #expect(Set(outcomes.filter { $0.hasPrefix("first:") }).count == 40)
            #expect(outcomes.filter { $0 == "used" }.count == 40)
            let againExpected = round == 0 ? 40 : 200
            #expect(outcomes.filter { $0.hasPrefix("again:") }.count == againExpected)
            #expect(Set(outcomes.filter { $0.hasPrefix("consumed:") }).count == 200 - againExpected)
            #expect(outcomes.filter { $0.hasPrefix("consumed:") }.count == 200 - againExpected)
            #expect(
                outcomes.allSatisfy { $0.hasPrefix("first:") || $0.hasPrefix("consumed:") || $0 == "used" || $0.hasPrefix("again:") },
                "\(Set(outcomes))")
            round += 1
        } while store.eventLoopAnswers.answers == store.eventLoopAnswers.handOvers && round < 20
        let handedBack = store.eventLoopAnswers
        #expect(handedBack.answers > handedBack.handOvers, "no group answered two callers on one event loop in \(round) rounds")
        #expect(handedBack.answers == round * 280, "every answer went back on its event loop")
        await store.close()
        try await loops.shutdownGracefully()
    }

    @Test("operations arriving together commit as groups, each with its own answer, and all of them survive a reopen")
    func groupCommit() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        for index in 0..<40 { try await store.issueNonce("n\(index)", payload: [UInt8(index)], expiresAt: at(600)) }
        // 60 keys submitted 3 times each, 40 nonces consumed twice each, and a nonce issued twice
        // (its second issue fails inside a group, which must not take the others with it).
        let outcomes = try await concurrently(342) { index -> String in
            switch index {
            case 0..<180:
                return try await store.recordFirstUse(namespace: "ns", key: "k\(index % 60)", expiresAt: at(600), now: t0) == .firstUse
                    ? "first:k\(index % 60)" : "used"
            case 180..<260:
                let consumption = try await store.consumeNonce("n\(index % 40)", now: t0)
                if case .consumed(let payload) = consumption { return "consumed:n\(index % 40):\(payload)" }
                return consumption == .alreadyConsumed ? "again" : "other"
            case 260..<340:
                return try await store.recordFirstUse(namespace: "other", key: "solo\(index)", expiresAt: at(600), now: t0) == .firstUse
                    ? "solo" : "used"
            default:
                do {
                    try await store.issueNonce("twice", payload: [7], expiresAt: at(600))
                    return "issued"
                } catch let error as OperationalError {
                    return "duplicate:\(error.reasonCode.rawValue)"
                }
            }
        }
        #expect(Set(outcomes.filter { $0.hasPrefix("first:") }).count == 60)
        #expect(outcomes.filter { $0.hasPrefix("first:") }.count == 60)
        #expect(outcomes.filter { $0 == "used" }.count == 120)
        #expect(outcomes.filter { $0.hasPrefix("consumed:") }.count == 40)
        #expect(Set(outcomes.filter { $0.hasPrefix("consumed:") }).count == 40)
        #expect(outcomes.filter { $0 == "again" }.count == 40)
        #expect(outcomes.filter { $0 == "solo" }.count == 80)
        #expect(outcomes.filter { $0 == "issued" }.count == 1)
        #expect(outcomes.filter { $0 == "duplicate:duplicateNonce" }.count == 1)
        // Some transaction held more than one operation.
        let commits = store.commitStatistics
        #expect(commits.operations > commits.transactions, "342 concurrent operations never formed a group")
        await store.close()

        let reopened = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        for index in 0..<60 {
            #expect(try await reopened.recordFirstUse(namespace: "ns", key: "k\(index)", expiresAt: at(600), now: at(1)) == .alreadyUsed)
        }
        for index in 0..<40 { #expect(try await reopened.consumeNonce("n\(index)", now: at(1)) == .alreadyConsumed) }
        #expect(try await reopened.consumeNonce("twice", now: at(1)) == .consumed(payload: [7]))
        await reopened.close()
    }

    @Test("the file is in WAL mode, in a private directory, and holds no key in clear")
    func fileLayout() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let dataDirectory = directory.path + "/data/nested"
        let store = try await SQLiteReplayStore.open(dataDirectory: dataDirectory)
        let secretKey = "TX-4f1c2a9e-visible-if-stored-in-clear"
        let secretRequest = "REQ-77ab-visible-if-stored-in-clear"
        _ = try await store.recordFirstUse(namespace: "applepay", key: secretKey, expiresAt: at(600), now: t0)
        try await store.issueNonce(secretRequest, payload: [0xAB], expiresAt: at(600))

        let attributes = try FileManager.default.attributesOfItem(atPath: dataDirectory)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let databasePath = dataDirectory + "/" + SQLiteReplayStore.defaultFileName
        #expect(FileManager.default.fileExists(atPath: databasePath + "-wal"))

        var bytes = Data()
        for suffix in ["", "-wal"] {
            if let data = FileManager.default.contents(atPath: databasePath + suffix) { bytes.append(data) }
        }
        #expect(!bytes.isEmpty)
        #expect(bytes.range(of: Data(secretKey.utf8)) == nil)
        #expect(bytes.range(of: Data(secretRequest.utf8)) == nil)
        // What is stored instead: the digest.
        #expect(bytes.range(of: Data(ReplayKeyDigest.replay(namespace: "applepay", key: secretKey))) != nil)
        await store.close()
    }

    @Test("two connections to one file: exactly one of 50 concurrent submissions wins")
    func twoConnectionsOneFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let a = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        let b = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        try await a.issueNonce("req", payload: [5], expiresAt: at(600))
        let stores = [a, b]

        let firstUses = try await concurrently(50) { index in
            try await stores[index % 2].recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(600), now: t0)
        }
        #expect(firstUses.filter { $0 == .firstUse }.count == 1)
        #expect(firstUses.filter { $0 == .alreadyUsed }.count == 49)

        let consumptions = try await concurrently(50) { index in
            try await stores[index % 2].consumeNonce("req", now: t0)
        }
        #expect(consumptions.filter { $0 == .consumed(payload: [5]) }.count == 1)
        #expect(consumptions.filter { $0 == .alreadyConsumed }.count == 49)
        await a.close()
        await b.close()
    }

    @Test("a closed store throws OperationalError; closing twice is harmless")
    func closedStore() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        await store.close()
        await store.close()
        let errors: [OperationalError?] = [
            await operationalError { _ = try await store.recordFirstUse(namespace: "n", key: "k", expiresAt: at(1), now: t0) },
            await operationalError { try await store.issueNonce("n", payload: [], expiresAt: at(1)) },
            await operationalError { _ = try await store.consumeNonce("n", now: t0) },
            await operationalError { _ = try await store.purgeExpired(now: t0) },
            await operationalError { try await store.ping() },
        ]
        for error in errors {
            #expect(error?.retryable == true)
            #expect(error?.isOperational == true)
        }
    }

    @Test("a full disk inside a group: every operation that answered success is stored, every one that failed is not")
    func fullDiskInsideGroups() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        // The file may not grow beyond its current size plus a few pages: large payloads soon fail
        // with SQLITE_FULL, some of them inside groups of concurrent operations.
        try await store.worker.run(grouped: false) { db in
            let pages = try db.integer("PRAGMA page_count") ?? 0
            _ = try db.integer("PRAGMA max_page_count = \(pages + 12)")
        }
        let payload = [UInt8](repeating: 0xA5, count: 3000)
        let issued = try await concurrently(120) { index -> Bool in
            do {
                try await store.issueNonce("big\(index)", payload: payload, expiresAt: at(600))
                return true
            } catch let error as OperationalError {
                #expect(error.retryable)
                return false
            }
        }
        #expect(issued.contains(true))
        #expect(issued.contains(false), "the page limit never filled the file")
        await store.close()

        let reopened = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        for (index, success) in issued.enumerated() {
            let consumption = try await reopened.consumeNonce("big\(index)", now: t0)
            let stored = consumption == .consumed(payload: payload)
            #expect(stored == success, "nonce \(index): answered \(success ? "issued" : "failed"), stored: \(stored)")
            #expect(stored || consumption == .unknown)
        }
        await reopened.close()
    }

    @Test("a store dropped without close() closes itself; the file opens again")
    func droppedWithoutClose() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let store = try await SQLiteReplayStore.open(dataDirectory: directory.path)
            try await store.issueNonce("req", payload: [1], expiresAt: at(60))
            #expect(try await store.consumeNonce("req", now: t0) == .consumed(payload: [1]))
        }
        try await Task.sleep(for: .milliseconds(100))
        let reopened = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        #expect(try await reopened.consumeNonce("req", now: t0) == .alreadyConsumed)
        await reopened.close()
    }

    @Test("closing while operations are under way waits for them; later ones are refused")
    func closeDuringOperations() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<40 {
                group.addTask {
                    do {
                        _ = try await store.recordFirstUse(namespace: "n", key: "k\(index)", expiresAt: at(60), now: t0)
                        return true
                    } catch is OperationalError {
                        return false
                    }
                }
            }
            group.addTask {
                await store.close()
                return true
            }
            var results: [Bool] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(results.count == 41)
        #expect(await operationalError { try await store.ping() } != nil)
    }

    @Test("a path that cannot hold a database throws OperationalError")
    func unusablePaths() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A directory below a regular file.
        let file = directory.path + "/plain-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        #expect(await operationalError { _ = try await SQLiteReplayStore.open(dataDirectory: file + "/sub") } != nil)
        #expect(await operationalError { _ = try await SQLiteReplayStore.open(path: file + "/db.sqlite") } != nil)

        // A file that is not a database.
        let garbage = directory.path + "/garbage.sqlite"
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }).write(to: URL(fileURLWithPath: garbage))
        let error = await operationalError { _ = try await SQLiteReplayStore.open(path: garbage) }
        #expect(error != nil)
        #expect(error.map { !$0.checkMessage.contains(garbage) } ?? false)
    }

    @Test("a database written by a newer schema is refused")
    func newerSchema() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        await store.close()
        let raw = try await SQLiteConnection.open(storage: .file(path: directory.path + "/" + SQLiteReplayStore.defaultFileName))
        _ = try await raw.query("PRAGMA user_version = \(SQLiteReplayStore.schemaVersion + 1)")
        try await raw.close()
        let error = await operationalError { _ = try await SQLiteReplayStore.open(dataDirectory: directory.path) }
        #expect(error?.retryable == false)
    }

    @Test("time is stored in milliseconds, rounded down")
    func millisecondGranularity() async throws {
        #expect(EpochMillis.of(Date(timeIntervalSince1970: 1.9999)) == 1999)
        #expect(EpochMillis.of(Date(timeIntervalSince1970: -0.0005)) == -1)
        #expect(EpochMillis.of(Date(timeIntervalSince1970: .infinity)) == .max)
        #expect(EpochMillis.of(Date(timeIntervalSince1970: -.infinity)) == .min)
        #expect(EpochMillis.of(Date(timeIntervalSince1970: .nan)) == .min)
        #expect(EpochMillis.of(Date(timeIntervalSince1970: 1_800_000_000)) == 1_800_000_000_000)
    }

    @Test("key digests separate namespace from key")
    func digests() {
        #expect(ReplayKeyDigest.replay(namespace: "ab", key: "c") != ReplayKeyDigest.replay(namespace: "a", key: "bc"))
        #expect(ReplayKeyDigest.replay(namespace: "a\u{0}", key: "b") != ReplayKeyDigest.replay(namespace: "a", key: "\u{0}b"))
        #expect(ReplayKeyDigest.replay(namespace: "n", key: "k").count == 32)
        #expect(ReplayKeyDigest.nonce("k") != ReplayKeyDigest.replay(namespace: "", key: "k"))
    }
}

/// Runs code on one event loop's thread (an actor whose executor is the event loop), as the HTTP
/// service's request handlers do when tasks run on the event loops.
actor EventLoopCaller {
    let eventLoop: any EventLoop

    init(eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    nonisolated var unownedExecutor: UnownedSerialExecutor { eventLoop.executor.asUnownedSerialExecutor() }

    /// Operation `index` of a round: a key submitted (indices below 80) or a nonce consumed, its
    /// outcome as text; "not on its event loop" when it started or ended on another thread.
    func operation(_ index: Int, namespace: String, store: SQLiteReplayStore) async throws -> String {
        guard MultiThreadedEventLoopGroup.currentEventLoop === eventLoop else { return "not on its event loop" }
        let outcome: String
        if index < 80 {
            let key = "k\(index % 40)"
            outcome =
                try await store.recordFirstUse(namespace: namespace, key: key, expiresAt: at(600), now: t0) == .firstUse ? "first:\(key)" : "used"
        } else {
            let nonce = index < 240 ? index - 80 : index - 240
            switch try await store.consumeNonce("n\(nonce)", now: t0) {
            case .consumed(let payload): outcome = payload == [UInt8(nonce)] ? "consumed:\(nonce)" : "wrong payload for \(nonce): \(payload)"
            case .alreadyConsumed: outcome = "again:\(nonce)"
            default: outcome = "other"
            }
        }
        return eventLoop.inEventLoop ? outcome : "not on its event loop"
    }
}
