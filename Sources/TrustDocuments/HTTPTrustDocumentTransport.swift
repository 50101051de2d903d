import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import VerificationCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Fetches trust documents (revocation lists, VICALs, IACA roots, Google Pay root keys) with
/// AsyncHTTPClient: one GET under one wall-clock deadline
/// over connecting, the response head and the whole body; no cookies, no cache (the caller decides
/// freshness), redirects not followed, and the body capped at the caller's maximum while it arrives.
///
/// The wait for the server is wrapped in ``OutboundWait/during(_:)``, so a service that limits how
/// many verifications run at once does not hold a slot while a peer is slow. A server that sends a
/// byte now and then cannot stretch the fetch past ``timeout``: the deadline covers the body too,
/// and the wait sleeps on the event loop (no polling).
///
/// The host is resolved once, before connecting, and every address it resolves to is judged by
/// ``addressPolicy`` (``FetchAddressPolicy``): a uri that leads to a private, link-local or other
/// non-public address is refused (`addressNotAllowed`) without any connection. The connection then
/// goes to the address that was judged, never to a second resolution of the name (see
/// ``pinnedAddress(of:policy:)``), so a name that answers a public address first and a private one
/// next (DNS rebinding) cannot slip through.
public struct HTTPTrustDocumentTransport: TrustDocumentTransport {
    /// Seconds the whole fetch may take: connecting, the response head and the body.
    public var timeout: TimeInterval
    /// Which addresses a fetch may connect to: public ones, literal loopback hosts, and the
    /// operator's `--fetch-allow` ranges.
    public var addressPolicy: FetchAddressPolicy

    /// Creates a transport whose fetches end after `timeout` seconds at most (10 by default) and
    /// connect only to addresses `addressPolicy` allows (by default public ones and literal loopback hosts).
    public init(timeout: TimeInterval = 10, addressPolicy: FetchAddressPolicy = FetchAddressPolicy()) {
        self.timeout = timeout
        self.addressPolicy = addressPolicy
    }

    /// The default deadline of a fetch, in seconds.
    public static let defaultTimeout: TimeInterval = 10

    /// Fetches `url` with one GET and returns the body (see ``TrustDocumentTransport/fetch(_:maximumSize:)``),
    /// asking for the revocation list media types. Throws ``TrustDocumentFetchFailure``: `unavailable`
    /// (retryable) when the server cannot be reached, answers an error status or does not finish
    /// within ``timeout``; `tooLarge` when the body exceeds `maximumSize`; `addressNotAllowed` when
    /// the host is or resolves to an address ``addressPolicy`` refuses.
    public func fetch(_ url: URL, maximumSize: Int) async throws -> [UInt8] {
        try await fetchDocument(url, maximumSize: maximumSize, accept: Self.revocationAccept).body
    }

    /// A response body and what its headers say about caching (the former name of ``FetchedTrustDocument``).
    public typealias FetchedDocument = FetchedTrustDocument

    /// Fetches `url` like ``fetch(_:maximumSize:)``, asking for `accept`, and returns the body with
    /// the response's `Cache-Control: max-age` (for documents refreshed as their server says).
    public func fetchDocument(_ url: URL, maximumSize: Int, accept: String) async throws -> FetchedTrustDocument {
        try await OutboundWait.during {
            try await fetchWithinDeadline(url, maximumSize: maximumSize, accept: accept)
        }
    }

    static let revocationAccept = "application/statuslist+cwt, application/identifierlist+cwt, application/cwt"

    /// The `max-age` of a `Cache-Control` header value; nil without one, or with `no-store` or `no-cache`.
    public static func maxAge(cacheControl: String) -> Int? {
        var maxAge: Int?
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let name = parts.first else { continue }
            if name == "no-store" || name == "no-cache" { return nil }
            if name == "max-age", parts.count == 2 {
                let value = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                if let seconds = Int(value), seconds >= 0 { maxAge = seconds }
            }
        }
        return maxAge
    }

    private func fetchWithinDeadline(_ url: URL, maximumSize: Int, accept: String) async throws -> FetchedTrustDocument {
        let seconds = max(timeout, 0.001)
        let deadline = NIODeadline.now() + .nanoseconds(Int64(seconds * 1_000_000_000))
        // The request races a timer: whichever ends first ends the other (the request's task is
        // cancelled, which closes its connection).
        let outcome = try await withThrowingTaskGroup(of: FetchedTrustDocument?.self) { group in
            group.addTask { [addressPolicy] in
                try await Self.get(url, maximumSize: maximumSize, accept: accept, deadline: deadline, timeout: seconds, policy: addressPolicy)
            }
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

    static func deadlineFailure(_ url: URL, _ seconds: TimeInterval) -> TrustDocumentFetchFailure {
        let shown = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
        return TrustDocumentFetchFailure(
            .unavailable, "The server at \(url.absoluteString) did not answer within \(shown) s (connection, headers and body).",
            retryable: true)
    }

    private static func get(
        _ url: URL, maximumSize: Int, accept: String, deadline: NIODeadline, timeout: TimeInterval, policy: FetchAddressPolicy
    ) async throws -> FetchedTrustDocument {
        let pinned = try await pinnedAddress(of: url, policy: policy)
        guard let host = pinned.name else {
            // The uri names the address itself: AsyncHTTPClient connects to that literal, no resolver.
            return try await get(
                url, maximumSize: maximumSize, accept: accept, deadline: deadline, timeout: timeout, client: OutboundHTTPClient.shared)
        }
        // A name: a client of its own whose only DNS answer for the name is the address judged above
        // (AsyncHTTPClient's dnsOverride: it connects there, while TLS still sends and verifies the
        // name). AsyncHTTPClient 1.37 has no resolver hook and no way to see the connected address,
        // so pinning the resolved address is how the connection is held to what was checked; the
        // client costs one connection pool for one fetch, and fetches are rare (lists are cached).
        var configuration = OutboundHTTPClient.configuration
        configuration.dnsOverride = [host: pinned.address.description]
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        do {
            let body = try await get(url, maximumSize: maximumSize, accept: accept, deadline: deadline, timeout: timeout, client: client)
            try? await client.shutdown()
            return body
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    /// The address a fetch of `url` connects to: the host itself when it is an address literal,
    /// otherwise the first address the name resolves to (one resolution) that `policy` allows. Throws
    /// `addressNotAllowed` when none is allowed, `unavailable` when the name does not resolve.
    /// `name` is the host to pin to the address, nil for a literal.
    static func pinnedAddress(of url: URL, policy: FetchAddressPolicy) async throws -> (name: String?, address: IPAddress) {
        guard let host = url.host, !host.isEmpty else {
            throw TrustDocumentFetchFailure(.unavailable, "\(url.absoluteString) has no host.")
        }
        let candidates: [IPAddress]
        let literal = IPAddress(host)
        if let literal {
            candidates = [literal]
        } else {
            candidates = try await Resolver.addresses(of: host, url: url)
        }
        guard let allowed = candidates.first(where: { policy.refusal(host: host, address: $0) == nil }) else {
            let first = candidates[0]
            let kind = policy.refusal(host: host, address: first) ?? .reserved
            throw TrustDocumentFetchFailure(
                .addressNotAllowed,
                "\(url.absoluteString) is not fetched: "
                    + FetchAddressPolicy.refusalMessage(kind, address: first, host: host))
        }
        return (literal == nil ? host : nil, allowed)
    }

    private static func get(
        _ url: URL, maximumSize: Int, accept: String, deadline: NIODeadline, timeout: TimeInterval, client: HTTPClient
    ) async throws -> FetchedTrustDocument {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        request.headers.add(name: "Accept", value: accept)
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, deadline: deadline)
        } catch {
            throw failure(error, url: url, timeout: timeout)
        }
        let status = Int(response.status.code)
        guard (200..<300).contains(status) else {
            let hint = (300..<400).contains(status) ? " (redirects are not followed)" : ""
            throw TrustDocumentFetchFailure(
                .unavailable, "Fetching \(url.absoluteString) answered HTTP \(status)\(hint).",
                retryable: status >= 500 || status == 429 || status == 404)
        }
        if let declared = response.headers.first(name: "Content-Length").flatMap(Int64.init), declared > Int64(maximumSize) {
            throw TrustDocumentFetchFailure(
                .tooLarge, "The document at \(url.absoluteString) is \(declared) bytes; the limit is \(maximumSize).")
        }
        var body: [UInt8] = []
        do {
            for try await chunk in response.body {
                guard body.count + chunk.readableBytes <= maximumSize else {
                    throw TrustDocumentFetchFailure(.tooLarge, "The document at \(url.absoluteString) exceeds the limit of \(maximumSize) bytes.")
                }
                body.append(contentsOf: chunk.readableBytesView)
            }
        } catch let failure as TrustDocumentFetchFailure {
            throw failure
        } catch {
            throw Self.failure(error, url: url, timeout: timeout)
        }
        let cacheControl = response.headers[canonicalForm: "Cache-Control"].joined(separator: ",")
        return FetchedTrustDocument(body: body, maxAge: cacheControl.isEmpty ? nil : maxAge(cacheControl: cacheControl))
    }

    /// A transport error as a fetch failure: the deadline, or an unreachable server.
    private static func failure(_ error: any Error, url: URL, timeout: TimeInterval) -> any Error {
        if error is CancellationError { return error }
        if let client = error as? HTTPClientError {
            if client == .deadlineExceeded || client == .readTimeout || client == .connectTimeout || client == .writeTimeout {
                return deadlineFailure(url, timeout)
            }
            if client == .cancelled { return CancellationError() }
        }
        return TrustDocumentFetchFailure(
            .unavailable,
            "\(url.absoluteString) could not be fetched: the server could not be reached or the connection failed.",
            retryable: true)
    }
}

/// The one HTTP client of the process for outbound fetches: on NIO's shared event loops, redirects
/// not followed, no decompression, connections kept briefly. It lives as long as the process (a
/// global is never deinitialized), so it is never shut down, like `HTTPClient.shared`.
enum OutboundHTTPClient {
    static let shared = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)

    /// The configuration of ``shared`` and of the one-fetch clients that pin a resolved address.
    static var configuration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        configuration.connectionPool = .init(idleTimeout: .seconds(30))
        // A refused connection fails the fetch at once ("could not be reached"), as before, instead of
        // being retried with back-off until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        // Each fetch's own deadline bounds connecting too (a fetch may be given more than AHC's default).
        configuration.timeout = .init(connect: .seconds(600), read: nil)
        return configuration
    }
}

/// One resolution of a host name with the system resolver (`getaddrinfo`, as AsyncHTTPClient would
/// use). The call blocks, so it runs on a thread of its own; the caller's wait ends at once when its
/// task is cancelled (the fetch deadline), leaving the thread to finish on its own.
enum Resolver {
    /// The waiting caller, resumed once: by the resolution or by cancellation, whichever comes first.
    final class Waiter: Sendable {
        let continuation = Mutex<CheckedContinuation<[IPAddress]?, any Error>?>(nil)
    }

    static func addresses(of host: String, url: URL) async throws -> [IPAddress] {
        let once = Waiter()
        let found: [IPAddress]? = try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                once.continuation.withLock { $0 = continuation }
                Thread.detachNewThread {
                    let addresses = blockingResolve(host)
                    once.continuation.withLock { $0.take() }?.resume(returning: addresses)
                }
            }
        } onCancel: {
            once.continuation.withLock { $0.take() }?.resume(throwing: CancellationError())
        }
        guard let found, !found.isEmpty else {
            throw TrustDocumentFetchFailure(
                .unavailable, "\(url.absoluteString) could not be fetched: its host name does not resolve.", retryable: true)
        }
        return found
    }

    /// The addresses `getaddrinfo` gives for `host` (TCP), in its order, without repeats; nil when it fails.
    static func blockingResolve(_ host: String) -> [IPAddress]? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            var bytes: [UInt8]?
            if let socketAddress = current.pointee.ai_addr {
                switch Int32(current.pointee.ai_family) {
                case AF_INET:
                    bytes = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                    }
                case AF_INET6:
                    bytes = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                        withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                    }
                default: break
                }
            }
            if let bytes, let address = IPAddress(bytes: bytes), !addresses.contains(address) { addresses.append(address) }
            entry = current.pointee.ai_next
        }
        return addresses
    }
}

/// The addresses a host name resolves to, for checks of a configuration (`serve --check`): one
/// blocking `getaddrinfo`, as a fetch would make it. An IP literal is its own address.
public enum HostAddresses {
    /// The addresses of `host` (a name or an IP literal), without repeats; nil when it does not resolve.
    public static func resolve(_ host: String) -> [IPAddress]? {
        if let literal = IPAddressRange(host), literal.prefixLength == literal.network.bytes.count * 8 { return [literal.network] }
        return Resolver.blockingResolve(host)
    }
}
