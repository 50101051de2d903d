import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP connection to a loopback port from a chosen loopback source address (127.0.0.2 and
/// the like are other "clients" to the service), for sending requests byte by byte as an attacker
/// would: half request lines, bodies that trickle, paths no HTTP client library would send as given.
final class RawConnection: @unchecked Sendable {
    let descriptor: Int32
    private var closedByPeer = false

    /// Connects to 127.0.0.1:`port` from `source` (an address in 127.0.0.0/8); with `receiveBuffer`,
    /// the socket's SO_RCVBUF is set to it before connecting (a small window, as a slow reader has).
    init(port: Int, from source: String = "127.0.0.1", receiveBuffer: Int32? = nil) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawConnectionError("socket() failed: \(errno)") }
        if var size = receiveBuffer {
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_port = 0
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw RawConnectionError("bind(\(source)) failed: \(errno)")
        }
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw RawConnectionError("connect() failed: \(errno)")
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Sends `text` (or fails silently once the peer has closed: an attacker does not care).
    func send(_ text: String) {
        send(Array(text.utf8))
    }

    /// Sends `bytes` as they are.
    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads what arrives within `timeout` seconds, until the peer closes or `until` says the text is
    /// complete; the blocking reads run on a thread of their own (see ``request(port:from:method:path:headers:body:timeout:)``).
    func receive(timeout: TimeInterval, until complete: @escaping @Sendable (String) -> Bool = { _ in false }) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.blockingReceive(timeout: timeout, until: complete)) }
        }
    }

    private func blockingReceive(timeout: TimeInterval, until complete: (String) -> Bool = { _ in false }) -> String {
        var collected: [UInt8] = []
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let wait = Int32(max(1, min(200, deadline.timeIntervalSinceNow * 1000)))
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, wait) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 65_536)
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count <= 0 {
                closedByPeer = true
                break
            }
            collected += buffer[0..<count]
            if complete(String(decoding: collected, as: UTF8.self)) { break }
        }
        return String(decoding: collected, as: UTF8.self)
    }

    /// The socket's TCP state as the kernel has it (Linux `tcpi_state`: 1 established, 7 closed, 8
    /// close-wait), read without reading any data; nil when it cannot be read.
    var tcpState: Int? {
        var info = [UInt8](repeating: 0, count: 256)
        var length = socklen_t(info.count)
        let result = info.withUnsafeMutableBytes { getsockopt(descriptor, Int32(IPPROTO_TCP), TCP_INFO, $0.baseAddress, &length) }
        guard result == 0, length > 0 else { return nil }
        return Int(info[0])
    }

    /// Whether the peer ended the connection (reset it, or closed it: the state is no longer
    /// established) within `timeout` seconds, without reading anything: a client that never reads
    /// sees a reset at once, while a closing handshake waits behind the unread data.
    func isEnded(within timeout: TimeInterval) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let state = tcpState, state != 1 { return true }
            try? await Task.sleep(for: .milliseconds(100))
        } while Date() < deadline
        return false
    }

    /// Reads at most `count` bytes that have already arrived, without waiting: nil once the peer has
    /// closed or reset the connection, [] when nothing is there yet.
    func receiveNow(_ count: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: count)
        let read = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if read > 0 { return Array(buffer[0..<read]) }
        if read < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return [] }
        return nil
    }

    /// Whether the peer closed the connection within `timeout` seconds (anything it sent is dropped).
    func isClosed(within timeout: TimeInterval) async -> Bool {
        if closedByPeer { return true }
        _ = await receive(timeout: timeout)
        return closedByPeer
    }

    /// One whole request with `Connection: close`; the status code and the body of the answer (0 and
    /// "" when none came within `timeout`). The blocking socket calls run on a thread of their own,
    /// never on one of Swift's cooperative threads, which other tests running in parallel need.
    static func request(
        port: Int, from source: String = "127.0.0.1", method: String, path: String, headers: [String: String] = [:], body: String? = nil,
        timeout: TimeInterval = 20
    ) async throws -> (status: Int, body: String) {
        let answer: Result<Answer, any Error> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    returning: Result {
                        let (status, text) = try blockingRequest(
                            port: port, from: source, method: method, path: path, headers: headers, body: body, timeout: timeout)
                        return Answer(status: status, body: text)
                    })
            }
        }
        let value = try answer.get()
        return (value.status, value.body)
    }

    private struct Answer: Sendable {
        let status: Int
        let body: String
    }

    private static func blockingRequest(
        port: Int, from source: String, method: String, path: String, headers: [String: String], body: String?, timeout: TimeInterval
    ) throws -> (status: Int, body: String) {
        let connection = try RawConnection(port: port, from: source)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body {
            head += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
        }
        connection.send(head + "\r\n" + (body ?? ""))
        return parse(connection.blockingReceive(timeout: timeout))
    }

    /// The status code and body of an HTTP/1.1 answer (chunked bodies joined).
    static func parse(_ text: String) -> (status: Int, body: String) {
        guard text.hasPrefix("HTTP/1.1 "), let headEnd = text.range(of: "\r\n\r\n") else { return (0, "") }
        let status = Int(text.dropFirst(9).prefix(3)) ?? 0
        let head = text[..<headEnd.lowerBound].lowercased()
        var body = String(text[headEnd.upperBound...])
        if head.contains("transfer-encoding: chunked") {
            var joined = ""
            var rest = Substring(body)
            while let line = rest.range(of: "\r\n"), let size = Int(rest[..<line.lowerBound], radix: 16), size > 0 {
                let start = line.upperBound
                let end = rest.utf8.index(start, offsetBy: size, limitedBy: rest.utf8.endIndex) ?? rest.endIndex
                joined += rest[start..<end]
                rest = rest[end...].dropFirst(2)
            }
            body = joined
        }
        return (status, body)
    }
}

struct RawConnectionError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
