import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for tests that fetch revocation lists: GET only, one
/// request per connection, answers from a route table (at once, late, or a byte at a time). Loopback only, never reachable from
/// outside the machine.
public final class LocalHTTPServer: @unchecked Sendable {
    /// A canned answer for one path.
    public struct Response: Sendable {
        /// The HTTP status code.
        public var status: Int
        /// The response body.
        public var body: [UInt8]
        /// Extra header fields; `Content-Type: application/cwt` is added unless one is given.
        public var headers: [(String, String)]
        /// Seconds to wait before answering (a slow server); connections are served concurrently.
        public var delay: TimeInterval
        /// Seconds between two bytes of the body (a server that trickles it); 0 sends it at once.
        public var trickle: TimeInterval
        /// Whether the head declares `Content-Length`; without it the body ends when the connection closes.
        public var declaresLength: Bool

        /// An answer, by default 200 with an empty body, no extra headers, no delay, the body at once
        /// and its length declared.
        public init(
            status: Int = 200, body: [UInt8] = [], headers: [(String, String)] = [], delay: TimeInterval = 0, trickle: TimeInterval = 0,
            declaresLength: Bool = true
        ) {
            self.status = status
            self.body = body
            self.headers = headers
            self.delay = delay
            self.trickle = trickle
            self.declaresLength = declaresLength
        }
    }

    /// The loopback port the server listens on, chosen by the system.
    public let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var routes: [String: Response] = [:]
    private var requests: [String] = []
    private var running = true
    private let thread: Thread

    /// Binds a free port on 127.0.0.1 and starts accepting connections on a background thread.
    /// Throws ``ServerError`` when the socket cannot be created, bound or listened on.
    public init() throws {
        let fd = socket(AF_INET, Self.streamType, 0)
        guard fd >= 0 else { throw ServerError("socket() failed") }
        var reuse: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw ServerError("bind/listen on 127.0.0.1 failed")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        let box = ThreadBox()
        thread = Thread { box.server?.acceptLoop() }
        box.server = self
        thread.start()
    }

    deinit {
        stop()
    }

    #if canImport(Glibc)
    static let streamType = Int32(SOCK_STREAM.rawValue)
    static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    static let streamType = SOCK_STREAM
    static let sendFlags: Int32 = 0
    #endif

    /// `http://127.0.0.1:PORT/path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Answers requests for exactly `path` (the request target) with `response` from now on; unknown paths get 404.
    public func set(_ path: String, _ response: Response) {
        lock.withLock { routes[path] = response }
    }

    /// Paths requested so far, in order.
    public var requestedPaths: [String] { lock.withLock { requests } }

    /// Closes the listening socket; further calls do nothing. Called on deinit too.
    public func stop() {
        let wasRunning = lock.withLock { () -> Bool in
            let was = running
            running = false
            return was
        }
        guard wasRunning else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    /// A loopback URL on which nothing listens (the port was bound and released).
    public static func unreachableURL(_ path: String) -> String {
        let fd = socket(AF_INET, streamType, 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        close(fd)
        return "http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))\(path)"
    }

    private func acceptLoop() {
        while lock.withLock({ running }) {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if lock.withLock({ running }) { continue }
                return
            }
            // Each connection on its own thread, so a slow answer does not hold the others.
            Thread.detachNewThread { [self] in
                handle(client)
                close(client)
            }
        }
    }

    private func handle(_ client: Int32) {
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while request.count < 65_536 {
            let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            request += buffer[0..<count]
            if request.count >= 4, request.suffix(4) == [13, 10, 13, 10] { break }
        }
        let text = String(decoding: request, as: UTF8.self)
        let parts = text.split(separator: " ", maxSplits: 2)
        let path = parts.count >= 2 ? String(parts[1]) : "/"
        let response = lock.withLock { () -> Response in
            requests.append(path)
            return routes[path] ?? Response(status: 404, body: Array("not found".utf8))
        }
        // Waits in short steps, so a stopped server ends its connections.
        if response.delay > 0 && !pause(response.delay) { return }
        var head = "HTTP/1.1 \(response.status) \(response.status == 200 ? "OK" : "Status")\r\n"
        if response.declaresLength { head += "Content-Length: \(response.body.count)\r\n" }
        head += "Connection: close\r\n"
        if !response.headers.contains(where: { $0.0.lowercased() == "content-type" }) { head += "Content-Type: application/cwt\r\n" }
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        guard response.trickle > 0 else {
            _ = transmit(Array(head.utf8) + response.body, to: client)
            return
        }
        guard transmit(Array(head.utf8), to: client) else { return }
        for byte in response.body {
            guard pause(response.trickle), transmit([byte], to: client) else { return }
        }
    }

    /// Sleeps `seconds` in steps of at most 50 ms; false when the server stopped meanwhile.
    private func pause(_ seconds: TimeInterval) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            guard lock.withLock({ running }) else { return false }
            Thread.sleep(forTimeInterval: min(0.05, max(0, end.timeIntervalSinceNow)))
        }
        return lock.withLock { running }
    }

    /// Sends all of `bytes`; false when the peer closed the connection.
    private func transmit(_ bytes: [UInt8], to client: Int32) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, Self.sendFlags) }
            if count <= 0 { return false }
            sent += count
        }
        return true
    }

    private final class ThreadBox: @unchecked Sendable {
        weak var server: LocalHTTPServer?
    }

    /// A socket call that failed while starting the server.
    public struct ServerError: Error, CustomStringConvertible {
        /// What failed.
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
