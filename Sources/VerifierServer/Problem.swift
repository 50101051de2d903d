import Foundation
import HTTPTypes
import Hummingbird
import WalletJSON

/// RFC 9457 problem details for requests that cannot be read (400, 404, 408, 413, 415, 429), for a flow the server is
/// not configured for (501) and for operational failures (503). Messages never echo request content.
///
/// A handler or middleware throws it; Hummingbird's router answers any `HTTPResponseError` with its
/// ``response(from:context:)``, so no route converts it by hand.
struct Problem: HTTPResponseError {
    let status: HTTPResponse.Status
    let type: String
    let title: String
    let detail: String
    /// Seconds for Retry-After (429 and 503 carry one; 503 defaults to 1).
    var retryAfter: Int?

    init(status: HTTPResponse.Status, type: String, title: String, detail: String, retryAfter: Int? = nil) {
        self.status = status
        self.type = type
        self.title = title
        self.detail = detail
        self.retryAfter = retryAfter
    }

    static func badRequest(_ detail: String) -> Problem {
        Problem(status: .badRequest, type: "invalid-request", title: "The request cannot be read", detail: detail)
    }

    static func unavailable(_ detail: String, retryAfter: Int? = nil) -> Problem {
        Problem(
            status: .serviceUnavailable, type: "unavailable", title: "A dependency is unavailable; try again", detail: detail,
            retryAfter: retryAfter)
    }

    /// A flow this server is not configured for (Apple Pay without keys, the web without origins): 501,
    /// with no Retry-After — retrying cannot help; `detail` names the flag that configures it.
    static func notConfigured(_ detail: String) -> Problem {
        Problem(status: .notImplemented, type: "not-configured", title: "This server is not configured for this flow", detail: detail)
    }

    /// A body past the limit (`--body-limit`).
    static func tooLarge(limit: Int) -> Problem {
        Problem(
            status: .contentTooLarge, type: "too-large", title: "The request body is too large",
            detail: "request bodies are limited to \(limit) bytes")
    }

    /// The problem+json answer: what the router sends for a thrown ``Problem``.
    func response(from request: Request, context: some RequestContext) -> Response {
        response()
    }

    func response() -> Response {
        var body = JSONWriter(capacity: 256)
        body.raw("{\"detail\":")
        body.string(detail)
        if let requestID = RequestID.current {
            body.raw(",\"requestId\":")
            body.string(requestID)
        }
        body.raw(",\"status\":\(status.code),\"title\":")
        body.string(title)
        body.raw(",\"type\":")
        body.string("urn:wallet-verifier:problem:\(type)")
        body.raw("}")
        var headers = HTTPFields()
        headers[.contentType] = "application/problem+json"
        if let retryAfter { headers[.retryAfter] = String(retryAfter) } else if status == .serviceUnavailable { headers[.retryAfter] = "1" }
        // A body that did not arrive in time leaves the connection mid-request: it is not reused.
        if status == .requestTimeout { headers[.connection] = "close" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body.bytes)))
    }
}
