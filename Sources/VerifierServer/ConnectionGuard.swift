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
/// - while an answer waits to be sent, the peer must accept some of its bytes at least every
///   `idleTimeout` (the write deadline): a client that stops reading, or reads so slowly that the
///   socket never drains, is closed; one that keeps accepting bytes may keep reading;
/// - at most ``maxPipelined`` requests waiting unanswered: a client that sends more before reading
///   the answers is closed.
/// The kernel's send buffer of each connection is ``sendBuffer`` (the kernel may double it), so
/// answers a client does not read stay where the write deadline sees them, not in kernel memory
/// that would outlive the connection. A connection closed for not reading (the write deadline, the
/// pipelining bound) is reset: what it did not read is dropped at once.
/// A connection that misses a deadline is closed. Working out an answer has no deadline here: the
/// work of a request is bounded by the routes.
final class ConnectionLimits: Sendable {
    /// Requests one connection may have waiting unanswered (HTTP/1.1 pipelining); the next one closes
    /// it. Browsers do not pipeline at all; 16 leaves room for clients that do, while a connection
    /// can no longer queue hundreds of answers that its client never reads.
    static let maxPipelined = 16
    /// Bytes of SO_SNDBUF per connection: 64 KiB, enough to keep a fast reader's link busy with this
    /// service's answers, small enough that a client that reads nothing holds little kernel memory.
    static let sendBuffer = 65_536

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
    private var closing = false
    private var timer: Scheduled<Void>?
    /// A request head was read and its end not yet.
    private var readingRequest = false
    /// Requests read whose answer is not written yet.
    private var unanswered = 0
    /// Writes of answer parts handed on whose bytes the socket has not all taken yet.
    private var pendingWrites = 0
    /// Writes the socket finished taking, ever: progress of the peer reading.
    private var completedWrites = 0
    /// Body bytes handed on, ever (with ``bufferedBytes(_:)``, how much the socket took meanwhile).
    private var bodyBytesWritten = 0
    /// The write deadline, armed while ``pendingWrites`` is above zero.
    private var writeTimer: Scheduled<Void>?

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
        _ = try? context.channel.syncOptions?.setOption(ChannelOptions.socketOption(.so_sndbuf), value: ConnectionLimits.sendBuffer)
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
        writeTimer?.cancel()
        writeTimer = nil
        if let client {
            limits.release(client)
            self.client = nil
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        switch unwrapInboundIn(data) {
        case .head:
            guard unanswered < ConnectionLimits.maxPipelined else {
                // A client queuing more requests than it reads answers: closed, the requests not passed on.
                limits.logger.debug("connections: more than \(ConnectionLimits.maxPipelined) pipelined requests unanswered; closed")
                close(context)
                return
            }
            readingRequest = true
            unanswered += 1
            arm(context, limits.bodyTimeout)
        case .body:
            break
        case .end:
            readingRequest = false
            // The request is complete: working out its answer has no deadline here (the write deadline
            // starts once the answer is handed on).
            disarm()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        switch part {
        case .head: break
        case .body(let buffer): bodyBytesWritten += buffer.readableBytes
        case .end: unanswered = max(0, unanswered - 1)
        }
        // Every write is watched until the socket has taken all of its bytes.
        let written = promise ?? context.eventLoop.makePromise(of: Void.self)
        pendingWrites += 1
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        written.futureResult.assumeIsolated().whenComplete { [self] _ in
            pendingWrites -= 1
            completedWrites += 1
            writeTimer?.cancel()
            writeTimer = nil
            // The socket took a whole write: the write deadline starts again, if anything still waits.
            guard pendingWrites == 0 else {
                if !closing { armWriteDeadline(loopBound.value) }
                return
            }
            // Every answer taken by the socket and nothing pending: the next request head must come
            // within the idle timeout.
            if unanswered == 0 && !readingRequest && !closing { arm(loopBound.value, limits.idleTimeout) }
        }
        context.write(data, promise: written)
        if writeTimer == nil && pendingWrites > 0 { armWriteDeadline(context) }
    }

    /// Arms the write deadline: in ``ConnectionLimits/idleTimeout``, the connection is closed unless
    /// the socket took some bytes meanwhile (a write completed, or fewer bytes wait than were handed
    /// on since); with progress it is armed again, and it ends when nothing waits.
    private func armWriteDeadline(_ context: ChannelHandlerContext) {
        let completed = completedWrites, written = bodyBytesWritten, buffered = bufferedBytes(context)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        writeTimer = context.eventLoop.scheduleTask(in: limits.idleTimeout) {
            let (handler, context) = loopBound.value
            handler.writeTimer = nil
            guard handler.pendingWrites > 0 else { return }
            let accepted =
                handler.completedWrites != completed
                || handler.bufferedBytes(context) < buffered + (handler.bodyBytesWritten - written)
            if accepted {
                handler.armWriteDeadline(context)
            } else {
                handler.limits.logger.debug("connections: the peer accepted no byte of an answer within the idle timeout; closed")
                handler.close(context)
            }
        }
    }

    /// Bytes handed to the channel that the socket has not taken yet.
    private func bufferedBytes(_ context: ChannelHandlerContext) -> Int {
        (try? context.channel.syncOptions?.getOption(ChannelOptions.bufferedWritableBytes)) ?? 0
    }

    /// Resets the connection (SO_LINGER 0): a peer that does not read would otherwise keep the
    /// answers queued for it in kernel memory after the close, for as long as it keeps the TCP
    /// connection alive.
    private func close(_ context: ChannelHandlerContext) {
        guard !closing else { return }
        closing = true
        disarm()
        writeTimer?.cancel()
        writeTimer = nil
        // `struct linger { int l_onoff; int l_linger; }`, spelled out: on, zero seconds.
        _ = (context.channel as? any SocketOptionProvider)?.unsafeSetSocketOption(
            level: .socket, name: .so_linger, value: Linger(onoff: 1, seconds: 0))
        context.close(promise: nil)
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

/// The layout of C's `struct linger` (SO_LINGER).
private struct Linger: Sendable {
    var onoff: Int32
    var seconds: Int32
}
