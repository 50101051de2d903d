import AsyncHTTPClient
import Foundation
import MdocVerifier
import NIOCore
import NIOHTTP1
import VerificationCore

/// Fetches revocation lists and VICALs with AsyncHTTPClient: one GET under one wall-clock deadline
/// over connecting, the response head and the whole body; no cookies, no cache (the caller decides
/// freshness), redirects not followed, and the body capped at the caller's maximum while it arrives.
///
/// The wait for the server is wrapped in ``OutboundWait/during(_:)``, so a service that limits how
/// many verifications run at once does not hold a slot while a peer is slow. A server that sends a
/// byte now and then cannot stretch the fetch past ``timeout``: the deadline covers the body too,
/// and the wait sleeps on the event loop (no polling).
public struct HTTPRevocationTransport: RevocationListTransport {
    /// Seconds the whole fetch may take: connecting, the response head and the body.
    public var timeout: TimeInterval

    /// Creates a transport whose fetches end after `timeout` seconds at most (10 by default).
    public init(timeout: TimeInterval = 10) {
        self.timeout = timeout
    }

    /// The default deadline of a fetch, in seconds.
    public static let defaultTimeout: TimeInterval = 10

    /// Fetches `url` with one GET and returns the body (see ``RevocationListTransport/fetch(_:maximumSize:)``).
    /// Throws ``RevocationFailure``: `listUnavailable` (retryable) when the server cannot be reached,
    /// answers an error status or does not finish within ``timeout``; `listTooLarge` when the body
    /// exceeds `maximumSize`.
    public func fetch(_ url: URL, maximumSize: Int) async throws -> [UInt8] {
        try await OutboundWait.during {
            try await fetchWithinDeadline(url, maximumSize: maximumSize)
        }
    }

    private func fetchWithinDeadline(_ url: URL, maximumSize: Int) async throws -> [UInt8] {
        let seconds = max(timeout, 0.001)
        let deadline = NIODeadline.now() + .nanoseconds(Int64(seconds * 1_000_000_000))
        // The request races a timer: whichever ends first ends the other (the request's task is
        // cancelled, which closes its connection).
        let outcome = try await withThrowingTaskGroup(of: [UInt8]?.self) { group in
            group.addTask { try await Self.get(url, maximumSize: maximumSize, deadline: deadline, timeout: seconds) }
            group.addTask {
                try await Task.sleep(for: .nanoseconds(Int64(seconds * 1_000_000_000)))
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        guard let outcome else { throw Self.deadlineFailure(url, seconds) }
        return outcome
    }

    static func deadlineFailure(_ url: URL, _ seconds: TimeInterval) -> RevocationFailure {
        let shown = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
        return RevocationFailure(
            .listUnavailable, "The server at \(url.absoluteString) did not answer within \(shown) s (connection, headers and body).",
            retryable: true)
    }

    private static func get(_ url: URL, maximumSize: Int, deadline: NIODeadline, timeout: TimeInterval) async throws -> [UInt8] {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        request.headers.add(name: "Accept", value: "application/statuslist+cwt, application/identifierlist+cwt, application/cwt")
        let response: HTTPClientResponse
        do {
            response = try await OutboundHTTPClient.shared.execute(request, deadline: deadline)
        } catch {
            throw failure(error, url: url, timeout: timeout)
        }
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else {
            let hint = (300..<400).contains(status) ? " (redirects are not followed)" : ""
            throw RevocationFailure(
                .listUnavailable, "Fetching the revocation list from \(url.absoluteString) answered HTTP \(status)\(hint).",
                retryable: status >= 500 || status == 429 || status == 404)
        }
        if let declared = response.headers.first(name: "Content-Length").flatMap(Int64.init), declared > Int64(maximumSize) {
            throw RevocationFailure(
                .listTooLarge, "The revocation list at \(url.absoluteString) is \(declared) bytes; the limit is \(maximumSize).")
        }
        var body: [UInt8] = []
        do {
            for try await chunk in response.body {
                guard body.count + chunk.readableBytes <= maximumSize else {
                    throw RevocationFailure(.listTooLarge, "The revocation list at \(url.absoluteString) exceeds the limit of \(maximumSize) bytes.")
                }
                body.append(contentsOf: chunk.readableBytesView)
            }
        } catch let failure as RevocationFailure {
            throw failure
        } catch {
            throw Self.failure(error, url: url, timeout: timeout)
        }
        return body
    }

    /// A transport error as a revocation failure: the deadline, or an unreachable server.
    private static func failure(_ error: any Error, url: URL, timeout: TimeInterval) -> any Error {
        if error is CancellationError { return error }
        if let client = error as? HTTPClientError {
            if client == .deadlineExceeded || client == .readTimeout || client == .connectTimeout || client == .writeTimeout {
                return deadlineFailure(url, timeout)
            }
            if client == .cancelled { return CancellationError() }
        }
        return RevocationFailure(
            .listUnavailable,
            "The revocation list could not be fetched from \(url.absoluteString): the server could not be reached or the connection failed.",
            retryable: true)
    }
}

/// The former name of ``HTTPRevocationTransport``.
@available(*, deprecated, renamed: "HTTPRevocationTransport")
public typealias URLSessionRevocationTransport = HTTPRevocationTransport

/// The one HTTP client of the process for outbound fetches: on NIO's shared event loops, redirects
/// not followed, no decompression, connections kept briefly. It lives as long as the process (a
/// global is never deinitialized), so it is never shut down, like `HTTPClient.shared`.
enum OutboundHTTPClient {
    static let shared: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        configuration.connectionPool = .init(idleTimeout: .seconds(30))
        // A refused connection fails the fetch at once ("could not be reached"), as before, instead of
        // being retried with back-off until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        // Each fetch's own deadline bounds connecting too (a fetch may be given more than AHC's default).
        configuration.timeout = .init(connect: .seconds(600), read: nil)
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
}
