import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import Synchronization

/// What one listener allows each connection, so that connections a client opens and never uses,
/// or uses slowly, cost it its own share and not everyone's:
/// - at most `maxPerClient` open connections per client (``ClientKey``: an IPv6 client by its /64);
///   a further one is closed as it is accepted;
/// - a complete request head within `headerTimeout` of connecting (or of the previous answer, for a
///   kept-alive connection: then `idleTimeout`);
/// - the whole request body within `bodyTimeout` of its head, plus a grace period (the routes answer
///   408 at `bodyTimeout`; this closes what a client keeps trickling after that).
/// A connection that misses a deadline is closed. Answering a request has no deadline here: the
/// work of a request is bounded by the routes.
final class ConnectionLimits: Sendable {
    let maxPerClient: Int
    let headerTimeout: TimeAmount
    let idleTimeout: TimeAmount
    let bodyTimeout: TimeAmount
    let logger: Logger
    private let open = Mutex<[String: Int]>([:])
    private let refusedCount = Mutex(0)

    init(maxPerClient: Int, headerTimeout: Duration, idleTimeout: Duration, bodyTimeout: Duration, logger: Logger) {
        self.maxPerClient = max(1, maxPerClient)
        self.headerTimeout = TimeAmount(headerTimeout)
        self.idleTimeout = TimeAmount(idleTimeout)
        // The routes answer 408 at the body deadline; the connection goes two seconds later.
        self.bodyTimeout = TimeAmount(bodyTimeout + .seconds(2))
        self.logger = logger
    }

    /// The limits of `settings` for one listener.
    convenience init(settings: ServerSettings, logger: Logger) {
        self.init(
            maxPerClient: settings.maxClientConnections, headerTimeout: .seconds(settings.headerTimeout),
            idleTimeout: .seconds(settings.idleTimeout), bodyTimeout: .seconds(settings.bodyTimeout), logger: logger)
    }

    /// Counts a new connection of `client`; false when the client already holds its share.
    func admit(_ client: String) -> Bool {
        let admitted = open.withLock { open in
            let count = open[client, default: 0]
            guard count < maxPerClient else { return false }
            open[client] = count + 1
            return true
        }
        if !admitted {
            // Logged once per 1,000 refusals: a flood must not flood the log too.
            let refused = refusedCount.withLock { count in
                count += 1
                return count
            }
            if refused % 1000 == 1 {
                logger.warning("connections: a client holds \(maxPerClient) open connections (--max-client-connections); further ones are closed")
            }
        }
        return admitted
    }

    /// Forgets a connection counted by ``admit(_:)``.
    func release(_ client: String) {
        open.withLock { open in
            let count = open[client, default: 1] - 1
            open[client] = count > 0 ? count : nil
        }
    }

    /// Open connections per client now (tests).
    func openConnections(_ client: String) -> Int { open.withLock { $0[client, default: 0] } }

    /// The HTTP/1 server of a listener with these limits.
    var server: HTTPServerBuilder {
        .http1(configuration: HTTP1Channel.Configuration(additionalChannelHandlers: [ConnectionGuardHandler(limits: self)]))
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let parts = duration.components
        self = .nanoseconds(parts.seconds * 1_000_000_000 + parts.attoseconds / 1_000_000_000)
    }
}

/// One connection's share of ``ConnectionLimits``: counted while open, closed when a deadline passes.
final class ConnectionGuardHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    let limits: ConnectionLimits
    private var client: String?
    private var started = false
    private var timer: Scheduled<Void>?
    /// A request head was read and its end not yet.
    private var readingRequest = false
    /// Requests read whose answer is not written yet.
    private var unanswered = 0

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        let key = ClientKey.of(context.channel.remoteAddress)
        guard limits.admit(key) else {
            context.close(promise: nil)
            return
        }
        client = key
        arm(context, limits.headerTimeout)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        finish()
    }

    private func finish() {
        timer?.cancel()
        timer = nil
        if let client {
            limits.release(client)
            self.client = nil
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            readingRequest = true
            unanswered += 1
            arm(context, limits.bodyTimeout)
        case .body:
            break
        case .end:
            readingRequest = false
            // The request is complete: answering it has no deadline here.
            disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            unanswered = max(0, unanswered - 1)
            // Nothing pending: the next request head must come within the idle timeout.
            if unanswered == 0 && !readingRequest { arm(context, limits.idleTimeout) }
        }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, _ delay: TimeAmount) {
        timer?.cancel()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: delay) {
            loopBound.value.close(promise: nil)
        }
    }

    private func disarm() {
        timer?.cancel()
        timer = nil
    }
}
