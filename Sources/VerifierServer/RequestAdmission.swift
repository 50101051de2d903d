import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import VerificationCore

/// The request context of the service: Hummingbird's basic context plus the client's address (for
/// the per-client rate limit).
public struct VerifierRequestContext: RequestContext, RemoteAddressRequestContext {
    /// Hummingbird's per-request storage (logger, request identifier and the like), required by `RequestContext`.
    public var coreContext: CoreRequestContextStorage
    /// The client's socket address; nil when the channel does not know it.
    public let remoteAddress: SocketAddress?
    /// The submission's Idempotency-Key (digests), set by ``IdempotentSubmissions`` for the handler.
    public var idempotency: IdempotencyTag?

    /// Creates the context of a request arriving on `source`'s channel.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }

    /// The client's address as a rate-limit key (the port left out).
    var clientKey: String { remoteAddress?.ipAddress ?? "unknown" }
}

/// What keeps the API bounded, per process:
/// - a per-client token bucket on request creation (`--request-rate` per minute; 0 turns it off),
///   429 with Retry-After when empty;
/// - a cap on outstanding request sessions in the store (`--max-outstanding-requests`), counted with
///   one store query per second at most (the count is at most a second old), 503 with Retry-After;
/// - at most `--max-concurrent-verifications` verifications at once, each further one waiting at
///   most `verificationWait` for a slot (503 with Retry-After after that), so CPU-heavy work queues
///   instead of piling onto the event loops that answer /healthz and /readyz.
final class RequestAdmission: Sendable {
    struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private struct State {
        var buckets: [String: Bucket] = [:]
        var outstanding: (count: Int, at: ContinuousClock.Instant)?
        var running = 0
        var waiters: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
        var nextWaiter: UInt64 = 0
    }

    let ratePerMinute: Int
    let maxOutstanding: Int
    let maxConcurrent: Int
    let verificationWait: Duration
    private let state = Mutex(State())

    init(ratePerMinute: Int, maxOutstanding: Int, maxConcurrent: Int, verificationWait: Duration = .seconds(10)) {
        self.ratePerMinute = ratePerMinute
        self.maxOutstanding = maxOutstanding
        self.maxConcurrent = max(1, maxConcurrent)
        self.verificationWait = verificationWait
    }

    /// Takes a token from the client's bucket; nil when allowed, else the seconds until one is free.
    func takeCreationToken(client: String, now: ContinuousClock.Instant = .now) -> Int? {
        guard ratePerMinute > 0 else { return nil }
        let capacity = max(1, Double(ratePerMinute) / 10)
        let perSecond = Double(ratePerMinute) / 60
        return state.withLock { state in
            if state.buckets.count > 10_000 {
                // Forget clients idle for a minute (their buckets are full again anyway).
                state.buckets = state.buckets.filter { now - $0.value.updated < .seconds(60) }
            }
            var bucket = state.buckets[client] ?? Bucket(tokens: capacity, updated: now)
            let elapsed = now - bucket.updated
            bucket.tokens = min(
                capacity, bucket.tokens + (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * perSecond)
            bucket.updated = now
            defer { state.buckets[client] = bucket }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Whether another request session may be created, given the store's count (refreshed at most
    /// once a second).
    func mayCreateSession(count: () async throws -> Int) async throws -> Bool {
        let now = ContinuousClock.now
        if let cached = state.withLock({ $0.outstanding }), now - cached.at < .seconds(1) {
            if cached.count < maxOutstanding {
                state.withLock { $0.outstanding?.count += 1 }
                return true
            }
            return false
        }
        let counted = try await count()
        state.withLock { $0.outstanding = (counted + 1, now) }
        return counted < maxOutstanding
    }

    /// Runs `body` in a verification slot; nil when no slot freed up within `verificationWait`.
    func withVerificationSlot<T: Sendable>(_ body: () async throws -> T) async throws -> T? {
        guard await acquire() else { return nil }
        defer { release() }
        return try await body()
    }

    private func acquire() async -> Bool {
        enum Entry { case acquired, wait(UInt64) }
        let entry: Entry = state.withLock { state in
            if state.running < maxConcurrent {
                state.running += 1
                return .acquired
            }
            state.nextWaiter += 1
            return .wait(state.nextWaiter)
        }
        guard case .wait(let id) = entry else { return true }
        let deadline = verificationWait
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let queued = state.withLock { state -> Bool in
                // A slot may have freed up in between.
                if state.running < maxConcurrent {
                    state.running += 1
                    return false
                }
                state.waiters.append((id, continuation))
                return true
            }
            guard queued else {
                continuation.resume(returning: true)
                return
            }
            Task {
                try? await Task.sleep(for: deadline)
                let timedOut = self.state.withLock { state -> CheckedContinuation<Bool, Never>? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index).continuation
                }
                timedOut?.resume(returning: false)
            }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            if state.waiters.isEmpty {
                state.running -= 1
                return nil
            }
            // The slot passes to the next waiter (running stays the same).
            return state.waiters.removeFirst().continuation
        }
        next?.resume(returning: true)
    }
}
