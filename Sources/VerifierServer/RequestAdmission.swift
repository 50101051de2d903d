import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import VerificationCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

    /// The client as the per-client limits count it (``ClientKey``).
    var clientKey: String { ClientKey.of(remoteAddress) }
}

/// What keeps the API bounded, per process. Every per-client limit keys on ``ClientKey`` (the
/// address; an IPv6 address by its /64).
/// - a per-client token bucket on request creation (`--request-rate` per minute; 0 turns it off),
///   and another on verification POSTs (`--verify-rate`), 429 with Retry-After when empty;
/// - a cap on outstanding request sessions in the store (`--max-outstanding-requests`), counted with
///   one store query per second at most (the count is at most a second old), 503 with Retry-After;
///   and each client's share of it (`--max-client-outstanding-requests`, sessions it created within
///   the request lifetime, counted in this process), 429 past it, so one client cannot fill the cap;
/// - at most `--max-concurrent-verifications` verifications at once, and at most
///   `--max-client-verifications` of one client; a further one waits at most `verificationWait`
///   for a slot (503 with Retry-After after that, or 429 when its own client's share was full), so
///   CPU-heavy work queues instead of piling onto the event loops that answer /healthz and /readyz.
///   A verification waiting on another server (``OutboundWait``) gives its slot back meanwhile.
final class RequestAdmission: Sendable {
    struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    /// Why a verification got no slot.
    enum Refusal: Error, Equatable {
        /// Every slot stayed busy for the whole wait.
        case busy
        /// This client's own share of the slots stayed full for the whole wait.
        case clientBusy
    }

    private struct Waiter {
        let id: UInt64
        let client: String
        let continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var buckets: [String: Bucket] = [:]
        var verifyBuckets: [String: Bucket] = [:]
        var outstanding: (count: Int, at: ContinuousClock.Instant)?
        /// Per client: when each session it created expires (oldest first).
        var sessions: [String: [ContinuousClock.Instant]] = [:]
        var running = 0
        var runningPerClient: [String: Int] = [:]
        var waiters: [Waiter] = []
        var nextWaiter: UInt64 = 0

        func mayRun(_ client: String, maxConcurrent: Int, perClient: Int) -> Bool {
            running < maxConcurrent && runningPerClient[client, default: 0] < perClient
        }

        mutating func take(_ client: String) {
            running += 1
            runningPerClient[client, default: 0] += 1
        }
    }

    let ratePerMinute: Int
    let verifyRatePerMinute: Int
    let maxOutstanding: Int
    let maxClientOutstanding: Int
    let sessionLifetime: Duration
    let maxConcurrent: Int
    let maxPerClient: Int
    let verificationWait: Duration
    private let state = Mutex(State())

    init(
        ratePerMinute: Int, maxOutstanding: Int, maxConcurrent: Int, verificationWait: Duration = .seconds(10),
        verifyRatePerMinute: Int = 0, maxClientOutstanding: Int? = nil, sessionLifetime: Duration = .seconds(600),
        maxPerClient: Int? = nil
    ) {
        self.ratePerMinute = ratePerMinute
        self.verifyRatePerMinute = verifyRatePerMinute
        self.maxOutstanding = maxOutstanding
        self.maxClientOutstanding = maxClientOutstanding ?? maxOutstanding
        self.sessionLifetime = sessionLifetime
        self.maxConcurrent = max(1, maxConcurrent)
        self.maxPerClient = max(1, min(self.maxConcurrent, maxPerClient ?? self.maxConcurrent))
        self.verificationWait = verificationWait
    }

    /// The admission limits of `settings`.
    convenience init(settings: ServerSettings) {
        self.init(
            ratePerMinute: settings.requestRate, maxOutstanding: settings.maxOutstandingRequests,
            maxConcurrent: settings.maxConcurrentVerifications, verifyRatePerMinute: settings.verifyRate,
            maxClientOutstanding: settings.clientOutstandingCap, sessionLifetime: .seconds(settings.requestLifetime),
            maxPerClient: settings.clientVerificationCap)
    }

    /// Takes a token from the client's request-creation bucket; nil when allowed, else the seconds until one is free.
    func takeCreationToken(client: String, now: ContinuousClock.Instant = .now) -> Int? {
        takeToken(client: client, perMinute: ratePerMinute, buckets: \.buckets, now: now)
    }

    /// Takes a token from the client's verification bucket; nil when allowed, else the seconds until one is free.
    func takeVerificationToken(client: String, now: ContinuousClock.Instant = .now) -> Int? {
        takeToken(client: client, perMinute: verifyRatePerMinute, buckets: \.verifyBuckets, now: now)
    }

    private func takeToken(
        client: String, perMinute: Int, buckets: WritableKeyPath<State, [String: Bucket]>, now: ContinuousClock.Instant
    ) -> Int? {
        guard perMinute > 0 else { return nil }
        let capacity = max(1, Double(perMinute) / 10)
        let perSecond = Double(perMinute) / 60
        return state.withLock { state in
            if state[keyPath: buckets].count > 10_000 {
                // Forget clients idle for a minute (their buckets are full again anyway).
                state[keyPath: buckets] = state[keyPath: buckets].filter { now - $0.value.updated < .seconds(60) }
            }
            var bucket = state[keyPath: buckets][client] ?? Bucket(tokens: capacity, updated: now)
            let elapsed = now - bucket.updated
            bucket.tokens = min(
                capacity, bucket.tokens + (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18) * perSecond)
            bucket.updated = now
            defer { state[keyPath: buckets][client] = bucket }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Counts a session the client is about to create against its share; false (and nothing
    /// counted) when its share is full. Sessions count until the request lifetime passes.
    func takeClientSession(client: String, now: ContinuousClock.Instant = .now) -> Bool {
        state.withLock { state in
            if state.sessions.count > 10_000 {
                state.sessions = state.sessions.filter { $0.value.last.map { $0 > now } ?? false }
            }
            var list = state.sessions[client, default: []]
            if let firstLive = list.firstIndex(where: { $0 > now }) {
                list.removeFirst(firstLive)
            } else {
                list.removeAll()
            }
            guard list.count < maxClientOutstanding else {
                state.sessions[client] = list
                return false
            }
            list.append(now + sessionLifetime)
            state.sessions[client] = list
            return true
        }
    }

    /// Gives back a session counted by ``takeClientSession(client:now:)`` that was not created.
    func returnClientSession(client: String) {
        state.withLock { state in
            if var list = state.sessions[client], !list.isEmpty {
                list.removeLast()
                state.sessions[client] = list
            }
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

    /// Takes back a session ``mayCreateSession(count:)`` counted that is not created after all.
    func uncountSession() {
        state.withLock { state in
            if let outstanding = state.outstanding { state.outstanding = (max(0, outstanding.count - 1), outstanding.at) }
        }
    }

    /// Runs `body` in a verification slot of `client`; nil when no slot freed up within `verificationWait`.
    func withVerificationSlot<T: Sendable>(client: String = "", _ body: () async throws -> T) async throws -> T? {
        switch try await withVerificationSlotOrRefusal(client: client, body) {
        case .success(let value): return value
        case .failure: return nil
        }
    }

    /// Runs `body` in a verification slot of `client`, or says why no slot freed up within
    /// `verificationWait`. While `body` waits on another server (``OutboundWait/during(_:)``) the slot
    /// is given back, and taken again (ahead of new arrivals) before it goes on.
    func withVerificationSlotOrRefusal<T: Sendable>(client: String, _ body: () async throws -> T) async throws -> Result<T, Refusal> {
        if let refusal = await acquire(client: client, wait: verificationWait, first: false) { return .failure(refusal) }
        let hooks = OutboundWait.Hooks(
            leave: { [self] in release(client: client) },
            reenter: { [self] in _ = await acquire(client: client, wait: nil, first: true) })
        defer { release(client: client) }
        return .success(try await OutboundWait.$hooks.withValue(hooks) { try await body() })
    }

    /// How many verifications are running now (tests and metrics).
    var runningCount: Int { state.withLock { $0.running } }

    /// Takes a slot for `client`, waiting at most `wait` (nil: as long as it takes); nil when taken.
    private func acquire(client: String, wait: Duration?, first: Bool) async -> Refusal? {
        let maxConcurrent = maxConcurrent, perClient = maxPerClient
        let queued: UInt64? = state.withLock { state in
            if state.mayRun(client, maxConcurrent: maxConcurrent, perClient: perClient) {
                state.take(client)
                return nil
            }
            state.nextWaiter += 1
            return state.nextWaiter
        }
        guard let id = queued else { return nil }
        let granted = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let queuedNow = state.withLock { state -> Bool in
                // A slot may have freed up in between.
                if state.mayRun(client, maxConcurrent: maxConcurrent, perClient: perClient) {
                    state.take(client)
                    return false
                }
                let waiter = Waiter(id: id, client: client, continuation: continuation)
                if first { state.waiters.insert(waiter, at: 0) } else { state.waiters.append(waiter) }
                return true
            }
            guard queuedNow else {
                continuation.resume(returning: true)
                return
            }
            guard let wait else { return }
            Task {
                try? await Task.sleep(for: wait)
                let timedOut = self.state.withLock { state -> CheckedContinuation<Bool, Never>? in
                    guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                    return state.waiters.remove(at: index).continuation
                }
                timedOut?.resume(returning: false)
            }
        }
        if granted { return nil }
        return state.withLock { $0.runningPerClient[client, default: 0] >= perClient } ? .clientBusy : .busy
    }

    private func release(client: String) {
        let maxConcurrent = maxConcurrent, perClient = maxPerClient
        let next = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.running -= 1
            let remaining = state.runningPerClient[client, default: 1] - 1
            state.runningPerClient[client] = remaining > 0 ? remaining : nil
            // The slot passes to the first waiter whose client is under its share.
            guard let index = state.waiters.firstIndex(where: { state.mayRun($0.client, maxConcurrent: maxConcurrent, perClient: perClient) })
            else { return nil }
            let waiter = state.waiters.remove(at: index)
            state.take(waiter.client)
            return waiter.continuation
        }
        next?.resume(returning: true)
    }
}

/// The client as per-client limits count it: an IPv4 address, or the /64 of an IPv6 address (one
/// subscriber usually holds a whole /64, so counting single addresses would give it 2^64 shares).
/// An IPv4-mapped IPv6 address counts as its IPv4 address. The port is left out.
enum ClientKey {
    static func of(_ address: SocketAddress?) -> String {
        guard let address else { return "unknown" }
        switch address {
        case .v4:
            return address.ipAddress ?? "unknown"
        case .v6:
            var bytes = [UInt8](repeating: 0, count: 16)
            guard let text = address.ipAddress, inet_pton(AF_INET6, text, &bytes) == 1 else { return address.ipAddress ?? "unknown" }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
                return bytes[12...].map(String.init).joined(separator: ".")
            }
            let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            return groups.joined(separator: ":") + "::/64"
        case .unixDomainSocket:
            return "local"
        }
    }
}
