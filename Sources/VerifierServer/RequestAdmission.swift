import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
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
    /// The event loop of the request's channel, on which the body deadline's timer runs.
    let eventLoop: any EventLoop
    /// The submission's Idempotency-Key (digests), set by ``IdempotentSubmissions`` for the handler.
    public var idempotency: IdempotencyTag?

    /// Creates the context of a request arriving on `source`'s channel.
    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
        self.eventLoop = source.channel.eventLoop
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
        let client: String
        let continuation: CheckedContinuation<Bool, Never>
        /// When it gives up; nil for a verification taking its slot back (it waits as long as it takes).
        let deadline: ContinuousClock.Instant?
        /// The event loop it waits on, when it runs on one: it is resumed there (below).
        let eventLoop: (any EventLoop)?
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
        /// Whether the one task that turns away waiters past their deadline is running.
        var sweeping = false
        /// How many times that task was started (tests: one timer for many waiters, not one each).
        var sweepsStarted = 0

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
    ///
    /// A waiter costs a list entry and a suspended task, nothing else: one sweeping task (started
    /// when the first waiter with a deadline queues, gone when none is left) sleeps until the
    /// earliest deadline and turns away whoever is still waiting past it. A timer per waiter would
    /// outlive the wait of every waiter served in time, and under load (thousands queued per
    /// second) those timers cost the event loops more than the verifications.
    private func acquire(client: String, wait: Duration?, first: Bool) async -> Refusal? {
        let maxConcurrent = maxConcurrent, perClient = maxPerClient
        let takenAtOnce = state.withLock { state in
            guard state.mayRun(client, maxConcurrent: maxConcurrent, perClient: perClient) else { return false }
            state.take(client)
            return true
        }
        if takenAtOnce { return nil }
        let granted = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let deadline = wait.map { ContinuousClock.now + $0 }
            // Only when tasks run on NIO's shared loops (`serve`): those never shut down, so a waiter
            // handed to its loop is always resumed. Elsewhere tasks run on Swift's own pool anyway.
            let eventLoop = EventLoopExecutor.isInstalled ? MultiThreadedEventLoopGroup.currentEventLoop : nil
            let (queued, startSweep) = state.withLock { state -> (Bool, Bool) in
                // A slot may have freed up in between.
                if state.mayRun(client, maxConcurrent: maxConcurrent, perClient: perClient) {
                    state.take(client)
                    return (false, false)
                }
                let waiter = Waiter(client: client, continuation: continuation, deadline: deadline, eventLoop: eventLoop)
                if first { state.waiters.insert(waiter, at: 0) } else { state.waiters.append(waiter) }
                guard deadline != nil, !state.sweeping else { return (true, false) }
                state.sweeping = true
                state.sweepsStarted += 1
                return (true, true)
            }
            guard queued else {
                continuation.resume(returning: true)
                return
            }
            if startSweep { Task { await self.sweep() } }
        }
        if granted { return nil }
        return state.withLock { $0.runningPerClient[client, default: 0] >= perClient } ? .clientBusy : .busy
    }

    /// Turns away each waiter at its deadline, sleeping until the earliest one; ends (and lets the
    /// next waiter with a deadline start it again) once no waiter has a deadline.
    private func sweep() async {
        while true {
            let next = state.withLock { state -> ContinuousClock.Instant? in
                let earliest = state.waiters.lazy.compactMap(\.deadline).min()
                if earliest == nil { state.sweeping = false }
                return earliest
            }
            guard let next else { return }
            // Deadlines are the queueing time plus one fixed wait, so none queued while this sleeps
            // comes earlier than `next`.
            try? await Task.sleep(until: next, clock: .continuous)
            let now = ContinuousClock.now
            let expired = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
                var expired: [CheckedContinuation<Bool, Never>] = []
                state.waiters.removeAll { waiter in
                    guard let deadline = waiter.deadline, deadline <= now else { return false }
                    expired.append(waiter.continuation)
                    return true
                }
                return expired
            }
            for continuation in expired { continuation.resume(returning: false) }
        }
    }

    /// How many times the deadline sweep has started (tests).
    var sweepsStarted: Int { state.withLock { $0.sweepsStarted } }

    /// How many verifications wait for a slot now (tests).
    var waitingCount: Int { state.withLock { $0.waiters.count } }

    private func release(client: String) {
        let maxConcurrent = maxConcurrent, perClient = maxPerClient
        let next = state.withLock { state -> Waiter? in
            state.running -= 1
            let remaining = state.runningPerClient[client, default: 1] - 1
            state.runningPerClient[client] = remaining > 0 ? remaining : nil
            // The slot passes to the first waiter whose client is under its share.
            guard let index = state.waiters.firstIndex(where: { state.mayRun($0.client, maxConcurrent: maxConcurrent, perClient: perClient) })
            else { return nil }
            let waiter = state.waiters.remove(at: index)
            state.take(waiter.client)
            return waiter
        }
        guard let next else { return }
        // A resumed task runs on the loop that resumes it (the executor keeps to the current loop).
        // Resumed here, every waiter would move to the loop that finishes verifications first, which
        // then finishes even more of them while the other loops idle: each waiter goes back to its own.
        if let loop = next.eventLoop, !loop.inEventLoop {
            loop.execute { next.continuation.resume(returning: true) }
        } else {
            next.continuation.resume(returning: true)
        }
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
