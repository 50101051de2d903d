#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Fetches trust documents — revocation lists, VICALs, IACA roots by URL, Google Pay root keys —
/// from their URL: the one network seam of every verifier. The HTTP implementation is
/// `HTTPTrustDocumentTransport` (module `TrustDocuments`): one deadline over the whole fetch, the
/// body capped while it arrives, no redirects, the address policy. Implementations throw
/// ``TrustDocumentFetchFailure`` when a document cannot be obtained.
public protocol TrustDocumentTransport: Sendable {
    /// The response body of a GET to `url`. Throws ``TrustDocumentFetchFailure``: `unavailable`
    /// (retryable unless the server refused) when the server cannot be reached, answers an error
    /// status or does not finish in time, and `tooLarge` when the body exceeds `maximumSize`.
    func fetch(_ url: URL, maximumSize: Int) async throws -> [UInt8]

    /// The body of a GET to `url` asking for `accept`, with the response's `Cache-Control: max-age`
    /// (for documents refreshed as their server says). By default ``fetch(_:maximumSize:)`` with no max-age.
    func fetchDocument(_ url: URL, maximumSize: Int, accept: String) async throws -> FetchedTrustDocument
}

extension TrustDocumentTransport {
    /// ``fetch(_:maximumSize:)``, with no max-age.
    public func fetchDocument(_ url: URL, maximumSize: Int, accept: String) async throws -> FetchedTrustDocument {
        FetchedTrustDocument(body: try await fetch(url, maximumSize: maximumSize), maxAge: nil)
    }
}

/// A fetched trust document: its body as received and what the response said about caching.
public struct FetchedTrustDocument: Sendable {
    /// The response body, exactly as received.
    public let body: [UInt8]
    /// `Cache-Control: max-age` in seconds, when the response gives one (and not `no-store` or `no-cache`).
    public let maxAge: Int?

    /// A body and its max-age.
    public init(body: [UInt8], maxAge: Int?) {
        self.body = body
        self.maxAge = maxAge
    }
}

/// Why a trust document could not be fetched: what kind of failure, a message for people that names
/// the URL (never a document's content), and whether trying again later may help.
public struct TrustDocumentFetchFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of fetch failure.
    public enum Kind: String, Sendable, Hashable {
        /// The server could not be reached, answered an error status, or did not finish in time.
        case unavailable
        /// The body is larger than the caller's maximum.
        case tooLarge
        /// The host is, or resolves to, an address the fetch address policy refuses.
        case addressNotAllowed
        /// The URL is not one that is fetched (https, or http to a loopback address).
        case unsupportedURL
    }

    /// What kind of failure.
    public let kind: Kind
    /// Explanation for people.
    public let message: String
    /// Whether trying again later may help.
    public let retryable: Bool

    /// A failure of `kind`; not retryable unless `retryable` says so.
    public init(_ kind: Kind, _ message: String, retryable: Bool = false) {
        self.kind = kind
        self.message = message
        self.retryable = retryable
    }

    /// The message.
    public var description: String { message }

    /// The URL of `uri` when it is one that is fetched: `https`, or `http` to a loopback address
    /// (127.0.0.0/8, ::1, localhost: traffic that never leaves the machine, which is how tests serve
    /// documents), with a host and no user information; nil otherwise.
    public static func fetchableURL(_ uri: String) -> URL? {
        guard let url = URL(string: uri), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
            url.user == nil, url.password == nil
        else { return nil }
        if scheme == "https" { return url }
        if scheme == "http" && LoopbackHost.isLoopback(host) { return url }
        return nil
    }

    /// Whether a configured source names a URL (http or https) rather than a file.
    public static func isURL(_ source: String) -> Bool {
        let lower = source.lowercased()
        return lower.hasPrefix("https://") || lower.hasPrefix("http://")
    }
}
