import ApplePayVerifier
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import VerificationCore

/// `Idempotency-Key` on the POSTs that change the store (IETF draft "The Idempotency-Key HTTP Header
/// Field"): a submission retried with its key — after a timeout, a crash of this instance, a load
/// balancer's retry — gets its answer instead of a replay rejection.
///
/// - The key: 16 to 255 visible ASCII characters (a structured-field string in quotes is taken too);
///   400 otherwise. It is scoped to the API credential that sent it (when `--api-token-file` is set),
///   or else to the client's address; without a token, the key is a secret of its client.
/// - The store records digests only: of the scoped key, and of the request (method, path, body). A
///   request creation's answer (request id, nonce, expiry: nothing personal) is kept for its retries;
///   a verification keeps nothing and is verified again on a retry, its replay check passing as
///   `idempotentRetry` because the one-time value it consumed carries the same digests. A
///   verification that consumed no one-time value (a rejection before the nonce, junk) keeps no record.
/// - The same key with another request: 422. An attempt with the key still running (or one whose
///   process died, until its lease of ``lease`` runs out): 409 with Retry-After.
/// - The retry window (`--idempotency-window`) never extends what the verification allows: a token
///   still fails its signing-time window and a request still expires.
struct IdempotentSubmissions: Sendable {
    enum Kind: Sendable {
        /// Request creation: the 201 answer is stored and given again.
        case creation
        /// Verification: checked again on every retry.
        case verification
    }

    static let header = HTTPField.Name("Idempotency-Key")!
    static let replayedHeader = HTTPField.Name("Idempotent-Replayed")!
    /// How long an attempt holds its key before a retry may take over (an attempt whose process died).
    static let lease: TimeInterval = 10

    let services: VerifierServices

    func run(
        _ request: Request, _ context: VerifierRequestContext, kind: Kind, route: String,
        _ handler: (Request, VerifierRequestContext) async throws -> Response
    ) async throws -> Response {
        guard let field = request.headers[Self.header] else { return try await handler(request, context) }
        let key = try Self.parseKey(field)
        var request = request
        let body = try await request.collectBody(upTo: services.settings.bodyLimit)
        let now = services.clock.now()
        let tag = IdempotencyTag(
            key: Self.keyDigest(key, scope: scope(request, context)),
            body: Self.requestDigest(method: request.method.rawValue, path: request.uri.path, body: body),
            retryUntil: now.addingTimeInterval(TimeInterval(services.settings.idempotencyWindow)))
        let start: IdempotencyStart
        do {
            start = try await services.store.beginIdempotentRequest(tag, now: now, leaseUntil: now.addingTimeInterval(Self.lease))
        } catch {
            throw Problem.unavailable("the request store does not answer")
        }
        switch start {
        case .conflict:
            services.metrics.idempotencyConflict(route: route, kind: "other-request")
            throw Problem(
                status: .unprocessableContent, type: "idempotency-key-reused", title: "Idempotency-Key used for another request",
                detail:
                    "Idempotency-Key: this key came with another request (body, path or method) within the retry window; send a fresh key with every new submission"
            )
        case .inProgress(let leaseUntil):
            services.metrics.idempotencyConflict(route: route, kind: "in-progress")
            throw Problem(
                status: .conflict, type: "idempotency-in-progress", title: "A request with this Idempotency-Key is being processed",
                detail:
                    "Idempotency-Key: the first attempt with this key has not been answered yet; retry after Retry-After with the same key and body",
                retryAfter: max(1, Int(leaseUntil.timeIntervalSince(now).rounded(.up))))
        case .completed(let result?, _) where kind == .creation:
            services.metrics.idempotentRetry(route: route)
            var response = jsonResponse(String(decoding: result, as: UTF8.self), status: .created)
            response.headers[Self.replayedHeader] = "true"
            return response
        case .completed, .proceed:
            if case .proceed(nil) = start {} else { services.metrics.idempotentRetry(route: route) }
        }
        var tagged = context
        tagged.idempotency = tag
        let response: Response
        let consumed = OneTimeValueConsumed()
        do {
            response = try await OneTimeValueConsumed.$current.withValue(consumed) { try await handler(request, tagged) }
        } catch {
            try? await services.store.abandonIdempotentRequest(key: tag.key)
            throw error
        }
        switch (kind, response.status) {
        case (.creation, .created):
            // The answer is kept for retries: read it once, store it, send the same bytes.
            let bytes = try await Self.bytes(of: response)
            try? await services.store.finishIdempotentRequest(key: tag.key, result: bytes)
            var kept = response
            kept.body = .init(byteBuffer: ByteBuffer(bytes: bytes))
            return kept
        case (.verification, .ok) where consumed.value:
            // The answer consumed a nonce or recorded a transaction: a retry with the key must be
            // recognised as this submission, so the record stays for the window.
            try? await services.store.finishIdempotentRequest(key: tag.key, result: nil)
            return response
        default:
            // No answer worth keeping (unreadable, indeterminate, or a verdict that consumed no
            // one-time value, such as junk): a retry is processed anew at once, and junk submitted
            // with fresh keys leaves no rows behind.
            try? await services.store.abandonIdempotentRequest(key: tag.key)
            return response
        }
    }

    /// 16 to 255 visible ASCII characters, bare or as a structured-field string ("…", without `"` or
    /// `\` inside): the OpenAPI document's pattern, exactly.
    static func parseKey(_ field: String) throws -> String {
        let key = field.trimmingCharacters(in: .whitespaces)
        func valid(_ text: Substring, excluding: Set<UInt8> = []) -> Bool {
            (16...255).contains(text.utf8.count) && text.utf8.allSatisfy { (0x21...0x7e).contains($0) && !excluding.contains($0) }
        }
        if key.hasPrefix("\""), key.hasSuffix("\""), key.utf8.count >= 2,
            case let inner = key.dropFirst().dropLast(), valid(inner, excluding: [UInt8(ascii: "\""), UInt8(ascii: "\\")])
        {
            return String(inner)
        }
        guard valid(Substring(key)) else { throw invalidKey }
        return key
    }

    static var invalidKey: Problem {
        Problem.badRequest(
            "Idempotency-Key: must be 16 to 255 visible ASCII characters; send a fresh random value (such as a UUID) with every new submission")
    }

    /// Whose key this is: the API credential when the API takes a token; otherwise the client's
    /// address (``ClientKey``), so another client that learns a key and a body cannot fetch the answer.
    func scope(_ request: Request, _ context: VerifierRequestContext) -> String {
        services.apiToken != nil ? Self.credential(request) : Self.clientScope(context.clientKey)
    }

    /// The scope of a key sent without an API token: the client (``ClientKey``).
    static func clientScope(_ client: String) -> String { "client " + client }

    /// The API credential the request carried (the bearer token, when the API takes one), or "".
    static func credential(_ request: Request) -> String {
        guard let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") else { return "" }
        return String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }

    /// SHA-256("idempotency-key" 0 ‖ SHA-256(credential) ‖ key): the key within its caller's scope.
    static func keyDigest(_ key: String, scope credential: String) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Array("idempotency-key\u{0}".utf8))
        hasher.update(data: Array(SHA256.hash(data: Array(credential.utf8))))
        hasher.update(data: Array(key.utf8))
        return Array(hasher.finalize())
    }

    /// SHA-256("idempotency-request" 0 ‖ method 0 ‖ path 0 ‖ body): the request, as received.
    static func requestDigest(method: String, path: String, body: ByteBuffer) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Array("idempotency-request\u{0}\(method)\u{0}\(path)\u{0}".utf8))
        hasher.update(data: Array(body.readableBytesView))
        return Array(hasher.finalize())
    }

    /// A response body's bytes (the service's own answers, a few hundred bytes).
    static func bytes(of response: Response) async throws -> [UInt8] {
        let collector = BodyCollector()
        try await response.body.write(CollectingWriter(collector: collector))
        return collector.bytes
    }
}

private final class BodyCollector: @unchecked Sendable {
    var bytes: [UInt8] = []
}

private struct CollectingWriter: ResponseBodyWriter {
    let collector: BodyCollector
    mutating func write(_ buffer: ByteBuffer) async throws { collector.bytes += buffer.readableBytesView }
    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// Set by a verification whose report consumed a one-time value (`replay.nonce` or
/// `replay.transactionId` passed), for ``IdempotentSubmissions`` to keep its record.
final class OneTimeValueConsumed: Sendable {
    private let flag = Mutex(false)
    @TaskLocal static var current: OneTimeValueConsumed?

    var value: Bool { flag.withLock { $0 } }

    /// Marks the current submission when `report` consumed a nonce or recorded a transaction.
    static func note(_ report: VerificationReport) {
        guard let current else { return }
        let consumed = report.checks.contains { ($0.id == .replayNonce || $0.id == .replayTransactionId) && $0.status == .passed }
        if consumed { current.flag.withLock { $0 = true } }
    }
}
