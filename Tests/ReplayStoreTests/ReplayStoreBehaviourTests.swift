import Foundation
import Synchronization
import Testing
import VerificationCore

/// The same behaviour, asserted on every store: in-memory, SQLite (a temporary file) and
/// PostgreSQL (a real server; see scripts/postgres-test-server).
@Suite("ReplayStore behaviour")
struct ReplayStoreBehaviourTests {
    // MARK: recordFirstUse

    @Test("first use, replay, namespaces", arguments: TestEnvironment.kinds)
    func firstUseAndReplay(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            let expiry = at(600)
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx-1", expiresAt: expiry, now: t0) == .firstUse)
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx-1", expiresAt: expiry, now: t0) == .alreadyUsed)
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx-1", expiresAt: expiry, now: at(599)) == .alreadyUsed)
            // The same key in another namespace, and another key in the same namespace, are new.
            #expect(try await store.recordFirstUse(namespace: "other", key: "tx-1", expiresAt: expiry, now: t0) == .firstUse)
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx-2", expiresAt: expiry, now: t0) == .firstUse)
            // Namespace and key do not run into each other.
            #expect(try await store.recordFirstUse(namespace: "ab", key: "c", expiresAt: expiry, now: t0) == .firstUse)
            #expect(try await store.recordFirstUse(namespace: "a", key: "bc", expiresAt: expiry, now: t0) == .firstUse)
            #expect(try await store.recordFirstUse(namespace: "a", key: "bc", expiresAt: expiry, now: t0) == .alreadyUsed)
            // Keys are case-sensitive and exact.
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "TX-1", expiresAt: expiry, now: t0) == .firstUse)
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx-1 ", expiresAt: expiry, now: t0) == .firstUse)
        }
    }

    @Test("an expired transaction identifier may be used again, and is then guarded again", arguments: TestEnvironment.kinds)
    func expiryAllowsReuse(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(60), now: t0) == .firstUse)
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(120), now: at(59.9)) == .alreadyUsed)
            // At the expiry instant the entry is expired.
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(120), now: at(60)) == .firstUse)
            // The reuse recorded the new expiry: guarded until then, not only until the old one.
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(300), now: at(90)) == .alreadyUsed)
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(300), now: at(119)) == .alreadyUsed)
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(300), now: at(121)) == .firstUse)
            // A replay does not extend the entry's life.
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(10_000), now: at(200)) == .alreadyUsed)
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx", expiresAt: at(400), now: at(300)) == .firstUse)
        }
    }

    @Test("far-future and far-past dates", arguments: TestEnvironment.kinds)
    func extremeDates(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            #expect(try await store.recordFirstUse(namespace: "n", key: "forever", expiresAt: .distantFuture, now: t0) == .firstUse)
            #expect(try await store.recordFirstUse(namespace: "n", key: "forever", expiresAt: .distantFuture, now: at(1e9)) == .alreadyUsed)
            #expect(try await store.recordFirstUse(namespace: "n", key: "past", expiresAt: .distantPast, now: t0) == .firstUse)
            #expect(try await store.recordFirstUse(namespace: "n", key: "past", expiresAt: .distantPast, now: t0) == .firstUse)
            // Dates beyond the 64-bit millisecond range are clamped, never a trap.
            let huge = Date(timeIntervalSince1970: 1e300)
            #expect(try await store.recordFirstUse(namespace: "n", key: "huge", expiresAt: huge, now: t0) == .firstUse)
            #expect(try await store.recordFirstUse(namespace: "n", key: "huge", expiresAt: huge, now: .distantFuture) == .alreadyUsed)
            try await store.issueNonce("far", payload: [7], expiresAt: huge)
            #expect(try await store.consumeNonce("far", now: .distantFuture) == .consumed(payload: [7]))
        }
    }

    @Test("hostile keys and identifiers are exact values", arguments: TestEnvironment.kinds)
    func hostileKeys(kind: StoreKind) async throws {
        let keys = ["", "\u{0}", "a\u{0}b", "a\u{0}c", "'; DROP TABLE replay_keys; --", "🧾💳", String(repeating: "x", count: 20_000)]
        try await withFreshStore(kind) { store async throws in
            for key in keys {
                #expect(
                    try await store.recordFirstUse(namespace: "applepay", key: key, expiresAt: at(60), now: t0) == .firstUse,
                    "key of \(key.utf8.count) bytes")
            }
            for key in keys {
                #expect(
                    try await store.recordFirstUse(namespace: "applepay", key: key, expiresAt: at(60), now: t0) == .alreadyUsed,
                    "key of \(key.utf8.count) bytes")
            }
            #expect(try await store.recordFirstUse(namespace: "", key: "", expiresAt: at(60), now: t0) == .firstUse)
            for (index, identifier) in keys.enumerated() {
                try await store.issueNonce(identifier, payload: [UInt8(index)], expiresAt: at(60))
            }
            for (index, identifier) in keys.enumerated() {
                #expect(try await store.consumeNonce(identifier, now: t0) == .consumed(payload: [UInt8(index)]))
                #expect(try await store.consumeNonce(identifier, now: t0) == .alreadyConsumed)
            }
            #expect(try await store.consumeNonce("a\u{0}", now: t0) == .unknown)
        }
    }

    // MARK: nonces

    @Test("a nonce is consumed once; expired and unknown nonces are told apart", arguments: TestEnvironment.kinds)
    func nonceLifecycle(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            let big = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try await store.issueNonce("req-1", payload: [1, 2, 3], expiresAt: at(60))
            try await store.issueNonce("req-2", payload: [9], expiresAt: at(60))
            try await store.issueNonce("req-empty", payload: [], expiresAt: at(60))
            try await store.issueNonce("req-big", payload: big, expiresAt: at(60))

            #expect(try await store.consumeNonce("req-1", now: t0) == .consumed(payload: [1, 2, 3]))
            #expect(try await store.consumeNonce("req-1", now: t0) == .alreadyConsumed)
            #expect(try await store.consumeNonce("req-1", now: at(1)) == .alreadyConsumed)
            // Used, then expired: still reported as used.
            #expect(try await store.consumeNonce("req-1", now: at(3600)) == .alreadyConsumed)

            // Never used, expired (at the expiry instant already); stays expired, never consumed.
            #expect(try await store.consumeNonce("req-2", now: at(60)) == .expired)
            #expect(try await store.consumeNonce("req-2", now: at(61)) == .expired)

            #expect(try await store.consumeNonce("req-empty", now: at(59.999)) == .consumed(payload: []))
            #expect(try await store.consumeNonce("req-big", now: t0) == .consumed(payload: big))
            #expect(try await store.consumeNonce("req-3", now: t0) == .unknown)
            #expect(try await store.consumeNonce("", now: t0) == .unknown)
        }
    }

    @Test("issuing the same nonce twice throws and leaves the first one intact", arguments: TestEnvironment.kinds)
    func duplicateIssue(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            try await store.issueNonce("req", payload: [1], expiresAt: at(60))
            let error = await operationalError {
                try await store.issueNonce("req", payload: [2], expiresAt: at(600))
            }
            #expect(error?.reasonCode == "duplicateNonce")
            #expect(error?.retryable == false)
            // Still the first payload and the first expiry.
            #expect(try await store.consumeNonce("req", now: t0) == .consumed(payload: [1]))
            // Also after it was consumed, or once it expired, the identifier cannot be issued again.
            #expect(await operationalError { try await store.issueNonce("req", payload: [3], expiresAt: at(600)) } != nil)
            try await store.issueNonce("old", payload: [], expiresAt: at(1))
            #expect(await operationalError { try await store.issueNonce("old", payload: [], expiresAt: at(600)) } != nil)
            #expect(try await store.consumeNonce("old", now: at(2)) == .expired)
        }
    }

    // MARK: purge

    @Test("purging deletes exactly the expired entries and counts them", arguments: TestEnvironment.kinds)
    func purgeCounts(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            #expect(try await store.purgeExpired(now: t0) == 0)
            _ = try await store.recordFirstUse(namespace: "applepay", key: "k1", expiresAt: at(10), now: t0)
            _ = try await store.recordFirstUse(namespace: "applepay", key: "k2", expiresAt: at(50), now: t0)
            _ = try await store.recordFirstUse(namespace: "applepay", key: "k3", expiresAt: at(100), now: t0)
            try await store.issueNonce("n1", payload: [1], expiresAt: at(10))
            try await store.issueNonce("n2", payload: [2], expiresAt: at(20))
            try await store.issueNonce("n3", payload: [3], expiresAt: at(100))
            #expect(try await store.consumeNonce("n2", now: t0) == .consumed(payload: [2]))

            #expect(try await store.purgeExpired(now: at(5)) == 0)
            // Expired at or before 50 s: k1, k2 (expiry == now), n1, n2 (consumed or not).
            #expect(try await store.purgeExpired(now: at(50)) == 4)
            #expect(try await store.purgeExpired(now: at(50)) == 0)

            #expect(try await store.consumeNonce("n1", now: at(50)) == .unknown)
            #expect(try await store.consumeNonce("n2", now: at(50)) == .unknown)
            #expect(try await store.recordFirstUse(namespace: "applepay", key: "k3", expiresAt: at(100), now: at(50)) == .alreadyUsed)
            #expect(try await store.consumeNonce("n3", now: at(50)) == .consumed(payload: [3]))
            // A consumed nonce is kept (and stays consumed) until it expires.
            #expect(try await store.purgeExpired(now: at(99)) == 0)
            #expect(try await store.consumeNonce("n3", now: at(99)) == .alreadyConsumed)
            #expect(try await store.purgeExpired(now: at(100)) == 2)
            try await store.ping()
        }
    }

    @Test("the purge loop purges until cancelled", arguments: TestEnvironment.kinds)
    func purgeLoop(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            for index in 0..<5 {
                _ = try await store.recordFirstUse(namespace: "applepay", key: "k\(index)", expiresAt: at(10), now: t0)
            }
            try await store.issueNonce("n", payload: [1], expiresAt: at(10))
            let purged = Counter()
            let purger = ReplayStorePurger(store: store, interval: .milliseconds(20), clock: FixedClock(at(11)))
            let loop = Task {
                await purger.run { result in
                    if case .success(let count) = result { purged.add(count) }
                    purged.tick()
                }
            }
            // Ends at the third tick; the long deadline only matters when a full test run starves the
            // cooperative threads (one tick in 30 s seen on two cores).
            let deadline = ContinuousClock.now + .seconds(120)
            while purged.ticks < 3, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            loop.cancel()
            await loop.value
            #expect(purged.ticks >= 3)
            #expect(purged.total == 6)
            #expect(try await store.consumeNonce("n", now: t0) == .unknown)
        }
    }

    // MARK: lookupNonce and releaseNonce

    @Test("a lookup reads a nonce without consuming it", arguments: TestEnvironment.kinds)
    func lookupDoesNotConsume(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            try await store.issueNonce("req", payload: [1, 2], expiresAt: at(600))
            #expect(try await store.lookupNonce("req", now: t0, idempotency: nil) == .outstanding(payload: [1, 2]))
            #expect(try await store.lookupNonce("req", now: at(1), idempotency: nil) == .outstanding(payload: [1, 2]))
            #expect(try await store.outstandingNonceCount(now: at(1)) == 1)
            #expect(try await store.lookupNonce("other", now: t0, idempotency: nil) == .unknown)
            #expect(try await store.lookupNonce("req", now: at(600), idempotency: nil) == .expired)
            let tag = IdempotencyTag(key: [1], body: [2], retryUntil: at(300))
            #expect(try await store.consumeNonce("req", now: at(2), idempotency: tag, attempt: .random()) == .consumed(payload: [1, 2]))
            #expect(try await store.lookupNonce("req", now: at(3), idempotency: nil) == .alreadyConsumed)
            #expect(
                try await store.lookupNonce("req", now: at(3), idempotency: IdempotencyTag(key: [9], body: [2], retryUntil: at(300)))
                    == .alreadyConsumed)
            #expect(try await store.lookupNonce("req", now: at(3), idempotency: tag) == .consumedAgain(payload: [1, 2], firstConsumed: at(2)))
            #expect(try await store.lookupNonce("req", now: at(300), idempotency: tag) == .alreadyConsumed)
        }
    }

    @Test("only the attempt that consumed a nonce gives it back, before it expires", arguments: TestEnvironment.kinds)
    func releaseByTheConsumingAttemptOnly(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            try await store.issueNonce("req", payload: [5], expiresAt: at(600))
            let first = NonceAttempt.random(), other = NonceAttempt.random()
            // Nothing to give back before it is consumed.
            #expect(try await store.releaseNonce("req", attempt: first, now: t0) == false)
            let tag = IdempotencyTag(key: [1], body: [2], retryUntil: at(300))
            #expect(try await store.consumeNonce("req", now: t0, idempotency: tag, attempt: first) == .consumed(payload: [5]))
            #expect(try await store.releaseNonce("req", attempt: other, now: at(1)) == false)
            #expect(try await store.consumeNonce("req", now: at(1)) == .alreadyConsumed)
            #expect(try await store.releaseNonce("req", attempt: first, now: at(2)) == true)
            // Unused again, its tag forgotten; released once only.
            #expect(try await store.releaseNonce("req", attempt: first, now: at(2)) == false)
            #expect(try await store.lookupNonce("req", now: at(3), idempotency: tag) == .outstanding(payload: [5]))
            #expect(try await store.outstandingNonceCount(now: at(3)) == 1)
            // Consumed again by another attempt: the first cannot give that consumption back.
            #expect(try await store.consumeNonce("req", now: at(4), idempotency: nil, attempt: other) == .consumed(payload: [5]))
            #expect(try await store.releaseNonce("req", attempt: first, now: at(5)) == false)
            #expect(try await store.consumeNonce("req", now: at(5)) == .alreadyConsumed)
            // A consumption without an attempt is never given back; neither is an expired one.
            try await store.issueNonce("plain", payload: [], expiresAt: at(600))
            #expect(try await store.consumeNonce("plain", now: t0) == .consumed(payload: []))
            try await store.issueNonce("late", payload: [], expiresAt: at(10))
            let late = NonceAttempt.random()
            #expect(try await store.consumeNonce("late", now: t0, idempotency: nil, attempt: late) == .consumed(payload: []))
            #expect(try await store.releaseNonce("late", attempt: late, now: at(10)) == false)
            #expect(try await store.lookupNonce("late", now: at(10), idempotency: nil) == .alreadyConsumed)
        }
    }

    @Test("a released nonce is consumed again exactly once by 50 concurrent attempts", arguments: TestEnvironment.kinds)
    func releasedNonceIsConsumedOnce(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            try await store.issueNonce("req", payload: [8], expiresAt: at(600))
            let first = NonceAttempt.random()
            #expect(try await store.consumeNonce("req", now: t0, idempotency: nil, attempt: first) == .consumed(payload: [8]))
            #expect(try await store.releaseNonce("req", attempt: first, now: at(1)) == true)
            let outcomes = try await concurrently(50) { _ in
                try await store.consumeNonce("req", now: at(2), idempotency: nil, attempt: .random())
            }
            #expect(outcomes.filter { $0 == .consumed(payload: [8]) }.count == 1)
            #expect(outcomes.filter { $0 == .alreadyConsumed }.count == 49)
        }
    }

    // MARK: concurrency

    @Test("50 concurrent first uses of one key: exactly one succeeds", arguments: TestEnvironment.kinds)
    func concurrentFirstUse(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            let outcomes = try await concurrently(50) { _ in
                try await store.recordFirstUse(namespace: "applepay", key: "same-tx", expiresAt: at(600), now: t0)
            }
            #expect(outcomes.count == 50)
            #expect(outcomes.filter { $0 == .firstUse }.count == 1)
            #expect(outcomes.filter { $0 == .alreadyUsed }.count == 49)
        }
    }

    @Test("50 concurrent consumptions of one nonce: exactly one succeeds", arguments: TestEnvironment.kinds)
    func concurrentConsume(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            try await store.issueNonce("req", payload: [4, 2], expiresAt: at(600))
            let outcomes = try await concurrently(50) { _ in
                try await store.consumeNonce("req", now: t0)
            }
            #expect(outcomes.count == 50)
            #expect(outcomes.filter { $0 == .consumed(payload: [4, 2]) }.count == 1)
            #expect(outcomes.filter { $0 == .alreadyConsumed }.count == 49)
        }
    }

    @Test("50 concurrent first uses of different keys: none is lost", arguments: TestEnvironment.kinds)
    func concurrentDistinctKeys(kind: StoreKind) async throws {
        try await withFreshStore(kind) { store async throws in
            let outcomes = try await concurrently(50) { index in
                try await store.recordFirstUse(namespace: "applepay", key: "tx-\(index)", expiresAt: at(600), now: t0)
            }
            #expect(outcomes.allSatisfy { $0 == .firstUse })
            for index in 0..<50 {
                #expect(try await store.recordFirstUse(namespace: "applepay", key: "tx-\(index)", expiresAt: at(600), now: t0) == .alreadyUsed)
            }
        }
    }
}

/// Counts purge-loop callbacks (shared with the loop's task).
final class Counter: Sendable {
    private let state = Mutex((total: 0, ticks: 0))
    func add(_ count: Int) { state.withLock { $0.total += count } }
    func tick() { state.withLock { $0.ticks += 1 } }
    var total: Int { state.withLock { $0.total } }
    var ticks: Int { state.withLock { $0.ticks } }
}
