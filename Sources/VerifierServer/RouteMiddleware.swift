import Foundation
import HTTPTypes
import Hummingbird

/// `--api-token-file`: every /v1 request carries `Authorization: Bearer <token>` (compared in
/// constant time), or gets a 401 problem; /healthz, /readyz, /metrics and /openapi.yaml stay open.
/// It is the middleware of the /v1 route group, so it runs for every request that matched a /v1
/// route, whatever the raw path looked like.
struct APITokenMiddleware: RouterMiddleware {
    typealias Context = VerifierRequestContext
    let token: String
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var presented = ""
        if let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") {
            presented = String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        }
        guard WebPageAccess.constantTimeEqual(presented, token) else {
            metrics.requestRejected(reason: "unauthorized")
            var response = Problem(
                status: .unauthorized, type: "unauthorized", title: "Unauthorized",
                detail: "send Authorization: Bearer with the token of --api-token-file"
            ).response()
            response.headers[.wwwAuthenticate] = "Bearer"
            return response
        }
        return try await next(request, context)
    }
}

/// Counts every ``Problem`` a /v1 route throws in `wallet_verifier_unreadable_requests_total` by
/// its type, and passes it on: the router answers it (``Problem/response(from:context:)``).
struct ProblemMetricsMiddleware: RouterMiddleware {
    typealias Context = VerifierRequestContext
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            metrics.requestRejected(reason: problem.type)
            throw problem
        }
    }
}

/// A path is answered only as the routes write it: `/` and segments that are neither empty nor `.`
/// or `..`, with no encoded `/`, `\\` or `.` (`%2F`, `%5C`, `%2E`). Anything else is a 404 problem
/// before routing, so no two spellings of one route exist for a middleware to tell apart.
struct CanonicalPathMiddleware: RouterMiddleware {
    typealias Context = VerifierRequestContext
    let metrics: ServerMetrics?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.isCanonical(request.uri.path) else {
            metrics?.requestRejected(reason: "not-found")
            return Problem(
                status: .notFound, type: "not-found", title: "Not found",
                detail: "no such path: paths have no empty or dot segments, encoded slashes or a trailing slash; see /openapi.yaml"
            ).response()
        }
        return try await next(request, context)
    }

    /// One pass over the UTF-8 bytes (every request goes through here): a segment starts after each
    /// `/` and may not be empty, `.` or `..`; `\\` and the escapes above (either case) end it early.
    static func isCanonical(_ path: String) -> Bool {
        var path = path
        return path.withUTF8 { bytes in
            guard let first = bytes.first, first == UInt8(ascii: "/") else { return false }
            if bytes.count == 1 { return true }
            var segmentStart = 1
            var index = 1
            while index <= bytes.count {
                let byte = index < bytes.count ? bytes[index] : UInt8(ascii: "/")
                switch byte {
                case UInt8(ascii: "/"):
                    let length = index - segmentStart
                    if length == 0 { return false }
                    if length <= 2, bytes[segmentStart] == UInt8(ascii: "."), length == 1 || bytes[segmentStart + 1] == UInt8(ascii: ".") {
                        return false
                    }
                    segmentStart = index + 1
                case UInt8(ascii: "\\"):
                    return false
                case UInt8(ascii: "%"):
                    guard index + 2 < bytes.count else { break }
                    let high = bytes[index + 1], low = bytes[index + 2] | 0x20
                    // %2F, %5C, %2E and %00, in either case.
                    if (high == UInt8(ascii: "2") && (low == UInt8(ascii: "f") || low == UInt8(ascii: "e")))
                        || (high == UInt8(ascii: "5") && low == UInt8(ascii: "c"))
                        || (high == UInt8(ascii: "0") && bytes[index + 2] == UInt8(ascii: "0"))
                    {
                        return false
                    }
                default:
                    break
                }
                index += 1
            }
            return true
        }
    }
}

/// The paths the router serves and the methods each takes, set once before the server starts.
final class KnownPaths: @unchecked Sendable {
    private let lock = NSLock()
    private var allowed: [String: String] = [:]

    func set(_ allowed: [String: String]) {
        lock.withLock { self.allowed = allowed }
    }

    /// The methods of `path`: a route written as it is, or a route with a parameter segment
    /// (`/v1/receipts/{jti}`, `/v1/receipts/:jti`) that the path's segment fills.
    func methods(for path: String) -> String? {
        lock.withLock {
            if let methods = allowed[path] { return methods }
            let segments = path.split(separator: "/", omittingEmptySubsequences: false)
            for (pattern, methods) in allowed where pattern.contains("{") || pattern.contains(":") {
                let parts = pattern.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count == segments.count else { continue }
                let matches = zip(parts, segments).allSatisfy { part, segment in
                    part == segment || ((part.hasPrefix("{") || part.hasPrefix(":")) && !segment.isEmpty)
                }
                if matches { return methods }
            }
            return nil
        }
    }
}

/// An unknown path is a 404 problem (RFC 9457), not an empty body; a known path asked with another
/// method is a 405 problem with `Allow` (RFC 9110 §15.5.6).
struct NotFoundProblemMiddleware: RouterMiddleware {
    typealias Context = VerifierRequestContext
    let knownPaths: KnownPaths
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            if let allow = knownPaths.methods(for: request.uri.path) {
                metrics.requestRejected(reason: "method-not-allowed")
                var response = Problem(
                    status: .methodNotAllowed, type: "method-not-allowed", title: "Method not allowed",
                    detail: "\(request.uri.path) takes \(allow)"
                ).response()
                response.headers[.allow] = allow
                return response
            }
            return Problem(status: .notFound, type: "not-found", title: "Not found", detail: "no such path; see /openapi.yaml").response()
        }
    }
}
