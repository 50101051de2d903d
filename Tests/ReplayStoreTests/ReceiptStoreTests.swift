import Foundation
import PostgresNIO
import ReplayStorePostgres
import ReplayStoreSQLite
import SQLiteNIO
import Testing
import VerificationCore

/// The receipts and receipt keys of every store (`ReceiptStore`): one behaviour, whether in memory,
/// in the SQLite file or in PostgreSQL. Times are whole seconds (a receipt's `iat` always is).
@Suite struct ReceiptStoreTests {
    /// A fresh, empty store of `kind` for the duration of `body`.
    static func store(_ kind: StoreKind, _ body: (any ReceiptStore) async throws -> Void) async throws {
        switch kind {
        case .memory:
            try await body(InMemoryReceiptStore())
        case .sqlite:
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let store = try await SQLiteReplayStore.open(dataDirectory: directory.path)
            do { try await body(store) } catch {
                await store.close()
                throw error
            }
            await store.close()
        case .postgres:
            try await withPostgresStores(count: 1) { stores in try await body(stores[0]) }
        }
    }

    /// A receipt issued `seconds` after ``t0``; its JWS names it (the stores never read the JWS).
    static func receipt(_ id: String, at seconds: Double, flow: String = "web", verdict: String = "accepted") -> StoredReceipt {
        StoredReceipt(id: id, issuedAt: at(seconds), flow: flow, verdict: verdict, jws: "eyJhbGciOiJFUzI1NiJ9.\(id).c2ln")
    }

    /// `receipts` in the order every store lists them: by `iat` second, then by the id's bytes.
    static func listed(_ receipts: [StoredReceipt]) -> [StoredReceipt] {
        receipts.sorted { first, second in
            if first.issuedAt != second.issuedAt { return first.issuedAt < second.issuedAt }
            return first.id.utf8.lexicographicallyPrecedes(second.id.utf8)
        }
    }

    /// Every page of `query` from its first, following `nextCursor` (at most 100 pages): the
    /// receipts in the order listed, and the size of each page.
    static func walk(_ store: any ReceiptStore, _ query: ReceiptQuery) async throws -> (receipts: [StoredReceipt], pages: [Int]) {
        var query = query
        var receipts: [StoredReceipt] = []
        var pages: [Int] = []
        for _ in 0..<100 {
            let page = try await store.keptReceipts(query)
            receipts += page.receipts
            pages.append(page.receipts.count)
            guard let next = page.nextCursor else { return (receipts, pages) }
            query.cursor = next
        }
        Issue.record("the pages did not end")
        return (receipts, pages)
    }

    @Test(arguments: TestEnvironment.kinds)
    func aKeptReceiptReadsBackAndKeepingItsIdAgainKeepsTheFirst(kind: StoreKind) async throws {
        try await Self.store(kind) { store in
            let first = Self.receipt("r-1", at: 0)
            #expect(try await store.keptReceipt("r-1") == nil)
            try await store.keepReceipt(first, keepUntil: at(3600))
            #expect(try await store.keptReceipt("r-1") == first)
            // A retry with other content (it cannot be one, ids are random) leaves the kept receipt.
            let other = StoredReceipt(id: "r-1", issuedAt: at(5), flow: "mdoc", verdict: "rejected", jws: "other")
            try await store.keepReceipt(other, keepUntil: at(7200))
            #expect(try await store.keptReceipt("r-1") == first)
            #expect(try await store.keptReceipts(ReceiptQuery()).receipts == [first])
            #expect(try await store.keptReceipt("r-2") == nil)
        }
    }

    /// 25 receipts, three to a second, kept out of order, ids of mixed case and punctuation (listed
    /// by their bytes, whatever PostgreSQL's collation).
    static let twentyFive: [StoredReceipt] = (0..<25).map { index in
        let prefix = ["a", "B", "_", "Z", "-"][index % 5]
        return receipt("\(prefix)\(String(24 - index, radix: 10))", at: Double(index / 3))
    }

    @Test(arguments: TestEnvironment.kinds)
    func pagesWalkEveryReceiptOnceInOrder(kind: StoreKind) async throws {
        try await Self.store(kind) { store in
            for index in 0..<25 {
                try await store.keepReceipt(Self.twentyFive[(index * 7) % 25], keepUntil: at(86_400))
            }
            let expected = Self.listed(Self.twentyFive)
            let byTen = try await Self.walk(store, ReceiptQuery(limit: 10))
            #expect(byTen.pages == [10, 10, 5])
            #expect(byTen.receipts == expected)
            // A last page that is full has no next cursor either.
            let byFive = try await Self.walk(store, ReceiptQuery(limit: 5))
            #expect(byFive.pages == [5, 5, 5, 5, 5])
            #expect(byFive.receipts == expected)
            let all = try await store.keptReceipts(ReceiptQuery(limit: 1000))
            #expect(all.receipts == expected && all.nextCursor == nil)
            // The cursor names the last receipt of its page.
            let first = try await store.keptReceipts(ReceiptQuery(limit: 10))
            #expect(first.nextCursor == ReceiptCursor.after(expected[9]))
            // A cursor after the last receipt: an empty last page.
            let past = try await store.keptReceipts(ReceiptQuery(cursor: ReceiptCursor.after(expected[24])))
            #expect(past.receipts.isEmpty && past.nextCursor == nil)
        }
    }

    /// 30 receipts a second apart, every flow with every verdict.
    static let thirty: [StoredReceipt] = (0..<30).map { index in
        receipt(
            "f-\(index)", at: Double(index), flow: ["web", "mdoc", "identity"][index % 3],
            verdict: ["accepted", "rejected"][index % 2])
    }

    @Test(arguments: TestEnvironment.kinds)
    func filtersCombineWithPages(kind: StoreKind) async throws {
        try await Self.store(kind) { store in
            for receipt in Self.thirty.reversed() { try await store.keepReceipt(receipt, keepUntil: at(86_400)) }
            let queries: [(ReceiptQuery, (StoredReceipt) -> Bool)] = [
                (
                    ReceiptQuery(from: at(5), to: at(25), verdict: "accepted", flow: "web", limit: 1),
                    { $0.issuedAt >= at(5) && $0.issuedAt < at(25) && $0.verdict == "accepted" && $0.flow == "web" }
                ),
                (ReceiptQuery(from: at(10), limit: 4), { $0.issuedAt >= at(10) }),
                (ReceiptQuery(to: at(10), limit: 4), { $0.issuedAt < at(10) }),
                (ReceiptQuery(verdict: "rejected", limit: 4), { $0.verdict == "rejected" }),
                (ReceiptQuery(flow: "mdoc", limit: 3), { $0.flow == "mdoc" }),
                (
                    ReceiptQuery(from: at(3), to: at(12), flow: "identity", limit: 2),
                    { $0.issuedAt >= at(3) && $0.issuedAt < at(12) && $0.flow == "identity" }
                ),
                // Bounds between two seconds are rounded up: from 4.5 lists 5 on, to 9.5 lists up to 9.
                (ReceiptQuery(from: at(4.5), to: at(9.5), limit: 2), { $0.issuedAt >= at(5) && $0.issuedAt <= at(9) }),
                (ReceiptQuery(from: at(30), limit: 2), { _ in false }),
                (ReceiptQuery(verdict: "indeterminate"), { _ in false }),
            ]
            for (query, matches) in queries {
                let expected = Self.thirty.filter(matches)
                let walked = try await Self.walk(store, query)
                #expect(walked.receipts == expected, "\(query)")
                let pages =
                    expected.isEmpty ? [0] : stride(from: 0, to: expected.count, by: query.limit).map { min(query.limit, expected.count - $0) }
                #expect(walked.pages == pages, "\(query)")
            }
        }
    }

    @Test(arguments: TestEnvironment.kinds)
    func aCursorTheStoreDidNotMakeIsRefused(kind: StoreKind) async throws {
        try await Self.store(kind) { store in
            try await store.keepReceipt(Self.receipt("r-1", at: 0), keepUntil: at(60))
            let malformed = [
                "", "abc", "12", "12.", ".r-1", "x.r-1", "1.5.r-1x y", "12.has space", "12.\u{e9}t\u{e9}", "99999999999999999999.r-1",
                "1." + String(repeating: "r", count: 200),
            ]
            for cursor in malformed {
                await #expect(throws: ReceiptStoreError.self, "\(cursor)") { try await store.keptReceipts(ReceiptQuery(cursor: cursor)) }
            }
        }
    }

    @Test(arguments: TestEnvironment.kinds)
    func purgingRemovesReceiptsPastTheirKeepAndKeysUnusedSinceTheBound(kind: StoreKind) async throws {
        try await Self.store(kind) { store in
            let receipts = (0..<3).map { Self.receipt("p-\($0)", at: Double($0)) }
            for (index, receipt) in receipts.enumerated() { try await store.keepReceipt(receipt, keepUntil: at(Double(10 * (index + 1)))) }
            // Keeping the first again does not extend its keep.
            try await store.keepReceipt(receipts[0], keepUntil: at(100))
            for seconds in [4.0, 5, 6] {
                try await store.recordReceiptKey(ReceiptKeyRecord(keyID: "k\(Int(seconds))", jwk: "{}", lastUsed: at(seconds)))
            }
            #expect(try await store.purgeReceipts(now: at(19), keysUsedBefore: at(0)) == 1)
            #expect(try await store.purgeReceipts(now: at(20), keysUsedBefore: at(5)) == 1)
            #expect(try await store.keptReceipts(ReceiptQuery()).receipts == [receipts[2]])
            #expect(try await store.keptReceipt("p-1") == nil)
            #expect(try await store.receiptKeys(usedSince: .distantPast).map(\.keyID) == ["k5", "k6"])
            #expect(try await store.purgeReceipts(now: at(20), keysUsedBefore: at(5)) == 0)
            #expect(try await store.purgeReceipts(now: at(30), keysUsedBefore: at(7)) == 1)
            #expect(try await store.keptReceipts(ReceiptQuery()).receipts.isEmpty)
            #expect(try await store.receiptKeys(usedSince: .distantPast).isEmpty)
        }
    }

    @Test(arguments: TestEnvironment.kinds)
    func aKeyRecordKeepsItsFirstJWKAndItsLatestUse(kind: StoreKind) async throws {
        try await Self.store(kind) { store in
            try await store.recordReceiptKey(ReceiptKeyRecord(keyID: "k1", jwk: #"{"kid":"k1","x":"first"}"#, lastUsed: at(10)))
            try await store.recordReceiptKey(ReceiptKeyRecord(keyID: "k1", jwk: #"{"kid":"k1","x":"second"}"#, lastUsed: at(5)))
            #expect(
                try await store.receiptKeys(usedSince: at(0)) == [ReceiptKeyRecord(keyID: "k1", jwk: #"{"kid":"k1","x":"first"}"#, lastUsed: at(10))])
            try await store.recordReceiptKey(ReceiptKeyRecord(keyID: "k1", jwk: #"{"kid":"k1","x":"third"}"#, lastUsed: at(20)))
            try await store.recordReceiptKey(ReceiptKeyRecord(keyID: "k0", jwk: #"{"kid":"k0"}"#, lastUsed: at(1)))
            let k1 = ReceiptKeyRecord(keyID: "k1", jwk: #"{"kid":"k1","x":"first"}"#, lastUsed: at(20))
            let k0 = ReceiptKeyRecord(keyID: "k0", jwk: #"{"kid":"k0"}"#, lastUsed: at(1))
            #expect(try await store.receiptKeys(usedSince: at(1)) == [k0, k1])
            #expect(try await store.receiptKeys(usedSince: at(2)) == [k1])
            #expect(try await store.receiptKeys(usedSince: at(20)) == [k1])
            #expect(try await store.receiptKeys(usedSince: at(21)).isEmpty)
        }
    }

    @Test(arguments: TestEnvironment.kinds)
    func valuesWithQuotesAreBoundNotWrittenIntoTheStatement(kind: StoreKind) async throws {
        try await Self.store(kind) { store in
            let quoted = [
                StoredReceipt(id: "it's-1", issuedAt: at(1), flow: "o'flow", verdict: "'accepted'", jws: "a'); DROP TABLE verification_receipts; --"),
                StoredReceipt(id: "it's-2'--", issuedAt: at(1), flow: "o'flow", verdict: "'accepted'", jws: "x' OR '1'='1"),
            ]
            for receipt in quoted { try await store.keepReceipt(receipt, keepUntil: at(60)) }
            try await store.keepReceipt(Self.receipt("plain", at: 1), keepUntil: at(60))
            #expect(try await store.keptReceipt("it's-1") == quoted[0])
            #expect(try await store.keptReceipt("it's-2'--") == quoted[1])
            #expect(try await store.keptReceipt("' OR '1'='1") == nil)
            // The cursor of the first page names an id with a quote.
            let walked = try await Self.walk(store, ReceiptQuery(verdict: "'accepted'", flow: "o'flow", limit: 1))
            #expect(walked.receipts == quoted && walked.pages == [1, 1])
            let key = ReceiptKeyRecord(keyID: "k'1", jwk: #"{"kid":"k'1","kty":"EC","crv":"P-256"}"#, lastUsed: at(1))
            try await store.recordReceiptKey(key)
            #expect(try await store.receiptKeys(usedSince: at(0)) == [key])
            #expect(try await store.keptReceipts(ReceiptQuery()).receipts.count == 3)
        }
    }
}

/// What only the SQLite file shows: receipts and keys outlive the connection, the columns hold
/// seconds and milliseconds, and a schema-4 file gains the tables.
@Suite("SQLite receipt store")
struct SQLiteReceiptStoreTests {
    @Test("receipts and receipt keys survive closing and reopening the file")
    func persistence() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let receipts = (0..<3).map { ReceiptStoreTests.receipt("s-\($0)", at: Double($0)) }
        let key = ReceiptKeyRecord(keyID: "k1", jwk: #"{"kid":"k1"}"#, lastUsed: at(2))
        let first = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        for receipt in receipts { try await first.keepReceipt(receipt, keepUntil: at(60)) }
        try await first.recordReceiptKey(key)
        await first.close()

        let second = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        #expect(try await second.keptReceipt("s-1") == receipts[1])
        #expect(try await ReceiptStoreTests.walk(second, ReceiptQuery(limit: 2)).receipts == receipts)
        #expect(try await second.receiptKeys(usedSince: at(0)) == [key])
        #expect(try await second.purgeReceipts(now: at(60), keysUsedBefore: at(0)) == 3)
        await second.close()

        let third = try await SQLiteReplayStore.open(path: directory.path + "/" + SQLiteReplayStore.defaultFileName)
        #expect(try await third.keptReceipts(ReceiptQuery()).receipts.isEmpty)
        #expect(try await third.receiptKeys(usedSince: at(0)) == [key])
        await third.close()
    }

    @Test("issued_at is stored in seconds, keep_until and last_used in milliseconds")
    func storedRepresentation() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        try await store.keepReceipt(ReceiptStoreTests.receipt("s-1", at: 7), keepUntil: at(60.5))
        try await store.recordReceiptKey(ReceiptKeyRecord(keyID: "k1", jwk: "{}", lastUsed: at(2.25)))
        await store.close()
        let raw = try await SQLiteConnection.open(storage: .file(path: directory.path + "/" + SQLiteReplayStore.defaultFileName))
        let receipt = try await raw.query("SELECT issued_at, keep_until, typeof(id) AS kind FROM verification_receipts").first
        let key = try await raw.query("SELECT last_used FROM receipt_keys").first
        try await raw.close()
        #expect(receipt?.column("issued_at")?.integer == 1_800_000_007)
        #expect(receipt?.column("keep_until")?.integer == 1_800_000_060_500)
        #expect(receipt?.column("kind")?.string == "text")
        #expect(key?.column("last_used")?.integer == 1_800_000_002_250)
    }

    @Test("texts are bound with their length: an empty one and one with a NUL read back whole")
    func emptyAndNULTexts() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = try await SQLiteReplayStore.open(dataDirectory: directory.path)
        let receipt = StoredReceipt(id: "nul\u{0}inside", issuedAt: at(1), flow: "", verdict: "accepted", jws: "a\u{0}b")
        try await store.keepReceipt(receipt, keepUntil: at(60))
        #expect(try await store.keptReceipt("nul\u{0}inside") == receipt)
        #expect(try await store.keptReceipt("nul") == nil)
        #expect(try await store.keptReceipts(ReceiptQuery(flow: "")).receipts == [receipt])
        await store.close()
    }

    @Test("a schema-4 file gains the receipt tables on open, its records kept")
    func migrationFromSchema4() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/" + SQLiteReplayStore.defaultFileName
        let before = try await SQLiteReplayStore.open(path: path)
        #expect(try await before.recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(600), now: t0) == .firstUse)
        await before.close()
        // What schema 4 wrote: the same file without the receipt tables.
        let raw = try await SQLiteConnection.open(storage: .file(path: path))
        for statement in ["DROP TABLE verification_receipts", "DROP TABLE receipt_keys", "PRAGMA user_version = 4"] {
            _ = try await raw.query(statement)
        }
        try await raw.close()

        let store = try await SQLiteReplayStore.open(path: path)
        #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(600), now: at(1)) == .alreadyUsed)
        try await store.keepReceipt(ReceiptStoreTests.receipt("m-1", at: 1), keepUntil: at(60))
        #expect(try await store.keptReceipt("m-1") != nil)
        await store.close()
        let check = try await SQLiteConnection.open(storage: .file(path: path))
        let version = try await check.query("PRAGMA user_version").first?.column("user_version")?.integer
        try await check.close()
        #expect(version == 5 && SQLiteReplayStore.schemaVersion == 5)
    }
}

/// Needs a real PostgreSQL (WALLET_VERIFIER_POSTGRES_URL), like ``PostgresReplayStoreTests``.
@Suite(
    "PostgreSQL receipt store",
    .enabled(if: TestEnvironment.runsPostgres, "WALLET_VERIFIER_POSTGRES_URL is not set (scripts/test starts a throwaway PostgreSQL)")
)
struct PostgresReceiptStoreTests {
    @Test("two instances on one database see each other's receipts and keys")
    func twoInstancesShareReceiptsAndKeys() async throws {
        try await withPostgresStores(count: 2) { stores in
            let receipts = (0..<5).map { ReceiptStoreTests.receipt("i-\($0)", at: Double($0)) }
            for (index, receipt) in receipts.enumerated() { try await stores[index % 2].keepReceipt(receipt, keepUntil: at(60)) }
            #expect(try await stores[1].keptReceipt("i-0") == receipts[0])
            #expect(try await stores[0].keptReceipt("i-1") == receipts[1])
            // A page from one instance, the next from the other.
            let firstPage = try await stores[0].keptReceipts(ReceiptQuery(limit: 3))
            let secondPage = try await stores[1].keptReceipts(ReceiptQuery(limit: 3, cursor: firstPage.nextCursor))
            #expect(firstPage.receipts + secondPage.receipts == receipts && secondPage.nextCursor == nil)

            try await stores[0].recordReceiptKey(ReceiptKeyRecord(keyID: "k1", jwk: "first", lastUsed: at(10)))
            try await stores[1].recordReceiptKey(ReceiptKeyRecord(keyID: "k1", jwk: "second", lastUsed: at(30)))
            try await stores[0].recordReceiptKey(ReceiptKeyRecord(keyID: "k1", jwk: "third", lastUsed: at(20)))
            for store in stores {
                #expect(try await store.receiptKeys(usedSince: at(0)) == [ReceiptKeyRecord(keyID: "k1", jwk: "first", lastUsed: at(30))])
            }
            // One instance purges for both.
            #expect(try await stores[1].purgeReceipts(now: at(60), keysUsedBefore: at(31)) == 5)
            #expect(try await stores[0].keptReceipts(ReceiptQuery()).receipts.isEmpty)
            #expect(try await stores[0].receiptKeys(usedSince: .distantPast).isEmpty)
        }
    }

    @Test("sixteen concurrent keeps of one id from two instances keep one receipt")
    func concurrentKeepsOfOneID() async throws {
        try await withPostgresStores(count: 2) { stores in
            _ = try await concurrently(16) { index in
                try await stores[index % 2].keepReceipt(
                    StoredReceipt(id: "same", issuedAt: at(1), flow: "web", verdict: "accepted", jws: "jws-\(index)"), keepUntil: at(60))
            }
            let kept = try await stores[0].keptReceipts(ReceiptQuery()).receipts
            #expect(kept.count == 1)
            #expect(try await stores[1].keptReceipt("same") == kept.first)
        }
    }

    @Test("issued_at is stored in seconds, keep_until and last_used in milliseconds")
    func storedRepresentation() async throws {
        try await withPostgresStores(count: 1) { stores in
            let store = stores[0]
            try await store.keepReceipt(ReceiptStoreTests.receipt("s-1", at: 7), keepUntil: at(60.5))
            try await store.recordReceiptKey(ReceiptKeyRecord(keyID: "k1", jwk: "{}", lastUsed: at(2.25)))
            let stored = try await withRawPostgres(store.configuration.client) { client in
                var found: [Int64] = []
                for try await (issued, keep) in try await client.query("SELECT issued_at, keep_until FROM verification_receipts").decode(
                    (Int64, Int64).self)
                {
                    found += [issued, keep]
                }
                for try await used in try await client.query("SELECT last_used FROM receipt_keys").decode(Int64.self) { found.append(used) }
                return found
            }
            #expect(stored == [1_800_000_007, 1_800_000_060_500, 1_800_000_002_250])
            // Ids and key ids compare as bytes also in a database whose collation is not C (the test
            // cluster's is C, so the order alone would not show it).
            let collations = try await withRawPostgres(store.configuration.client) { client in
                var found: [String] = []
                for try await (column, collation) in try await client.query(
                    """
                    SELECT column_name::TEXT, collation_name::TEXT FROM information_schema.columns
                    WHERE table_schema = current_schema() AND column_name IN ('id', 'key_id')
                        AND table_name IN ('verification_receipts', 'receipt_keys')
                    ORDER BY column_name
                    """
                ).decode((String, String?).self) {
                    found.append("\(column):\(collation ?? "default")")
                }
                return found
            }
            #expect(collations == ["id:C", "key_id:C"])
        }
    }
}
