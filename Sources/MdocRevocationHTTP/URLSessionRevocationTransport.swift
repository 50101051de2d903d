import Foundation
import MdocVerifier
import VerificationCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Fetches revocation lists with URLSession: one GET, no cookies, no URL cache (the
/// ``RevocationListCache`` decides freshness), redirects not followed, a time-out, and the body
/// capped at the caller's maximum while it arrives.
public struct URLSessionRevocationTransport: RevocationListTransport {
    /// Seconds to wait for the server.
    public var timeout: TimeInterval

    /// Creates a transport that waits `timeout` seconds for the server (three times that for the whole response).
    public init(timeout: TimeInterval = 10) {
        self.timeout = timeout
    }

    /// Fetches `url` with one GET and returns the body (see ``RevocationListTransport/fetch(_:maximumSize:)``).
    public func fetch(_ url: URL, maximumSize: Int) async throws -> [UInt8] {
        let collector = ResponseCollector(url: url, maximumSize: maximumSize)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout * 3
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpCookieStorage = nil
        let session = URLSession(configuration: configuration, delegate: collector, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        request.setValue("application/statuslist+cwt, application/identifierlist+cwt, application/cwt", forHTTPHeaderField: "Accept")
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[UInt8], any Error>) in
            collector.start(continuation)
            session.dataTask(with: request).resume()
        }
    }
}

/// Collects one response body and resumes the caller exactly once.
private final class ResponseCollector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private let url: URL
    private let maximumSize: Int
    private var body: [UInt8] = []
    private var failure: RevocationFailure?
    private var continuation: CheckedContinuation<[UInt8], any Error>?

    init(url: URL, maximumSize: Int) {
        self.url = url
        self.maximumSize = maximumSize
    }

    func start(_ continuation: CheckedContinuation<[UInt8], any Error>) {
        lock.withLock { self.continuation = continuation }
    }

    private func fail(_ failure: RevocationFailure) {
        lock.withLock { if self.failure == nil { self.failure = failure } }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            fail(RevocationFailure(.listUnavailable, "The revocation list server did not answer with HTTP.", retryable: true))
            completionHandler(.cancel)
            return
        }
        guard (200..<300).contains(http.statusCode) else {
            let hint = (300..<400).contains(http.statusCode) ? " (redirects are not followed)" : ""
            fail(
                RevocationFailure(
                    .listUnavailable, "Fetching the revocation list from \(url.absoluteString) answered HTTP \(http.statusCode)\(hint).",
                    retryable: http.statusCode >= 500 || http.statusCode == 429 || http.statusCode == 404))
            completionHandler(.cancel)
            return
        }
        if http.expectedContentLength > Int64(maximumSize) {
            fail(
                RevocationFailure(
                    .listTooLarge, "The revocation list at \(url.absoluteString) is \(http.expectedContentLength) bytes; the limit is \(maximumSize)."
                ))
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let tooLarge = lock.withLock { () -> Bool in
            body.append(contentsOf: data)
            return body.count > maximumSize
        }
        if tooLarge {
            fail(RevocationFailure(.listTooLarge, "The revocation list at \(url.absoluteString) exceeds the limit of \(maximumSize) bytes."))
            dataTask.cancel()
        }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, failure, body) = lock.withLock { () -> (CheckedContinuation<[UInt8], any Error>?, RevocationFailure?, [UInt8]) in
            let pending = self.continuation
            self.continuation = nil
            return (pending, self.failure, self.body)
        }
        guard let continuation else { return }
        if let failure {
            continuation.resume(throwing: failure)
        } else if error != nil {
            continuation.resume(
                throwing: RevocationFailure(
                    .listUnavailable,
                    "The revocation list could not be fetched from \(url.absoluteString): the server could not be reached or the connection failed.",
                    retryable: true))
        } else {
            continuation.resume(returning: body)
        }
    }
}
