import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization
import VerificationCore

/// What every route collection shares: reading a body whole under its deadline, the admission
/// limits (rates, outstanding sessions, verification slots), the Idempotency-Key, problem answers.
extension APIRoutes {
    /// A POST that changes the store: its Idempotency-Key first (``IdempotentSubmissions``), then what
    /// its kind needs — a request creation is admitted (rate and outstanding sessions), a verification
    /// waits for a slot.
    ///
    /// The body is read first, whole and under the body deadline (408 after it), before anything
    /// counts against a limit that others share: a client that sends its body slowly holds a
    /// connection, never a verification slot.
    func storePost(
        _ path: RouterPath, _ kind: IdempotentSubmissions.Kind, route: String, _ idempotent: IdempotentSubmissions,
        on router: some RouterMethods<VerifierRequestContext>,
        _ handler: @escaping @Sendable (Request, VerifierRequestContext) async throws -> Response
    ) {
        router.post(path) { request, context in
            let request = try await bufferedBody(request, context)
            if kind == .verification { try admitVerification(context) }
            return try await idempotent.run(request, context, kind: kind, route: route) { request, context in
                switch kind {
                case .creation:
                    return try await admitCreation(context) { try await handler(request, context) }
                case .verification:
                    return try await inSlot(context) { try await handler(request, context) }
                }
            }
        }
    }

    /// The request with its body read whole (at most the body limit: 413) within the body deadline
    /// (`--body-timeout`: 408, and the connection is closed).
    func bufferedBody(_ request: Request, _ context: VerifierRequestContext) async throws -> Request {
        let limit = services.settings.bodyLimit
        let body = request.body
        // The body is read by one task, which a timer on the channel's event loop cancels at the
        // deadline (one task and a timer, where a task group of a reader and a sleeper cost two tasks
        // on every request). A read cut short by the timer, or by this request's own cancellation,
        // is never used as a body: the flag and the cancellation check below decide first.
        let reading = Task { try await body.collect(upTo: limit) }
        let timedOut = DeadlineFlag()
        let timer = context.eventLoop.scheduleTask(in: .seconds(Int64(services.settings.bodyTimeout))) {
            timedOut.set()
            reading.cancel()
        }
        var buffer: ByteBuffer?
        do {
            buffer = try await withTaskCancellationHandler {
                try await reading.value
            } onCancel: {
                reading.cancel()
            }
        } catch is NIOTooManyBytesError {
            timer.cancel()
            throw Problem.tooLarge(limit: limit)
        } catch {
            // Cancelled by the timer (below: 408), or by this request's cancellation (rethrown).
            buffer = nil
            if !timedOut.isSet {
                timer.cancel()
                throw error
            }
        }
        timer.cancel()
        try Task.checkCancellation()
        if timedOut.isSet { buffer = nil }
        guard let buffer else {
            services.metrics.requestRejected(reason: "body-timeout")
            throw Problem(
                status: .requestTimeout, type: "body-timeout", title: "The request body did not arrive in time",
                detail: "the body must arrive within \(services.settings.bodyTimeout) s of the request head (--body-timeout); send it at once")
        }
        var buffered = request
        buffered.body = .init(buffer: buffer)
        return buffered
    }

    /// A 429 for a client past its rate or its share of a limit, with Retry-After; counted in the
    /// metrics under `reason`.
    func refusal(reason: String, type: String, title: String, retryAfter: Int, detail: String) -> Problem {
        services.metrics.requestRejected(reason: reason)
        return Problem(status: .tooManyRequests, type: type, title: title, detail: detail, retryAfter: retryAfter)
    }

    /// A verification POST: the client's verification rate (429, `--verify-rate`).
    func admitVerification(_ context: VerifierRequestContext) throws {
        if let wait = admission.takeVerificationToken(client: context.clientKey) {
            throw refusal(
                reason: "rate-limited", type: "rate-limited", title: "Too many requests", retryAfter: wait,
                detail: "this client submits verifications faster than \(services.settings.verifyRate) a minute (--verify-rate); retry in \(wait) s")
        }
    }

    /// Request creation: the client's rate (429), the cap on outstanding sessions (503) and the
    /// client's share of them (429); then `create`. A creation that fails gives the
    /// client's share back.
    func admitCreation(_ context: VerifierRequestContext, _ create: () async throws -> Response) async throws -> Response {
        try await admitCreation(context)
        let response: Response
        do {
            response = try await create()
        } catch {
            admission.returnClientSession(client: context.clientKey)
            throw error
        }
        if response.status != .created { admission.returnClientSession(client: context.clientKey) }
        return response
    }

    /// Request creation's limits, in order: the client's rate, the cap, the client's share of it.
    func admitCreation(_ context: VerifierRequestContext) async throws {
        if let wait = admission.takeCreationToken(client: context.clientKey) {
            throw refusal(
                reason: "rate-limited", type: "rate-limited", title: "Too many requests", retryAfter: wait,
                detail: "this client creates requests faster than \(services.settings.requestRate) a minute; retry in \(wait) s")
        }
        let allowed: Bool
        do {
            allowed = try await admission.mayCreateSession { try await services.store.outstandingNonceCount(now: services.clock.now()) }
        } catch {
            throw Problem.unavailable("the request store does not answer")
        }
        guard allowed else {
            throw Problem.unavailable(
                "\(services.settings.maxOutstandingRequests) request sessions are outstanding, the most this server keeps; retry when some are answered or expire",
                retryAfter: 30)
        }
        guard admission.takeClientSession(client: context.clientKey) else {
            admission.uncountSession()
            throw refusal(
                reason: "client-sessions", type: "too-many-outstanding-requests", title: "Too many outstanding requests from this client",
                retryAfter: 30,
                detail:
                    "this client has \(services.settings.clientOutstandingCap) request sessions outstanding, its share (--max-client-outstanding-requests); retry when some are answered or expire"
            )
        }
    }

    /// A verification in one of the limited slots: 503 with Retry-After when none frees up in time,
    /// 429 when this client's own share of the slots stayed full.
    func inSlot(_ context: VerifierRequestContext, _ body: () async throws -> Response) async throws -> Response {
        switch try await admission.withVerificationSlotOrRefusal(client: context.clientKey, body) {
        case .success(let response):
            return response
        case .failure(.busy):
            services.metrics.requestRejected(reason: "busy")
            throw Problem.unavailable("every verification slot is busy; retry shortly", retryAfter: 1)
        case .failure(.clientBusy):
            throw refusal(
                reason: "client-busy", type: "too-many-verifications", title: "Too many verifications from this client", retryAfter: 1,
                detail:
                    "this client already has \(services.settings.clientVerificationCap) verifications running, its share of the slots (--max-client-verifications); retry when one is answered"
            )
        }
    }

    /// Reads a JSON object body (415 for another or a missing media type, 413 past the limit, 400 for
    /// anything but one strict JSON object).
    func jsonObject(_ request: Request) async throws -> JSONBody {
        let mediaType = request.headers[.contentType].flatMap(Self.mediaType)
        guard mediaType == "application/json" else {
            throw Problem(
                status: .unsupportedMediaType, type: "unsupported-media-type", title: "Unsupported media type",
                detail: mediaType == nil ? "send the body as application/json (Content-Type is missing)" : "send application/json, not \(mediaType!)")
        }
        let buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: services.settings.bodyLimit) } catch is NIOTooManyBytesError {
            throw Problem.tooLarge(limit: services.settings.bodyLimit)
        }
        return try JSONBody(bytes: Array(buffer: buffer))
    }

    /// The media type of a Content-Type value: its first non-empty part before a `;`, without
    /// surrounding whitespace (Unicode Zs and tab), lowercased; nil when there is none. A value of
    /// ASCII that does not start with `;`, as every client sends, is read byte by byte; any other
    /// goes through Foundation.
    static func mediaType(_ contentType: String) -> String? {
        var contentType = contentType
        let ascii = contentType.withUTF8 { bytes -> String? in
            guard let first = bytes.first, first != UInt8(ascii: ";"), bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            var start = 0
            var stop = end
            while start < stop, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
            while stop > start, bytes[stop - 1] == 0x20 || bytes[stop - 1] == 0x09 { stop -= 1 }
            return String(decoding: bytes[start..<stop].map { (0x41...0x5A).contains($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
        }
        if let ascii { return ascii }
        return contentType.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces).lowercased()
    }

    func reportResponse(_ json: [UInt8], report: VerificationReport) -> Response {
        OneTimeValueConsumed.note(report)
        RequestRecord.note(report)
        var response = Response(
            status: report.verdict == .indeterminate ? .serviceUnavailable : .ok, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: json)))
        if report.verdict == .indeterminate { response.headers[.retryAfter] = "1" }
        return response
    }
}

func jsonResponse(_ json: String, status: HTTPResponse.Status = .ok) -> Response {
    Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
}

/// Whether a deadline's timer fired: set on the event loop, read by the task that waited.
final class DeadlineFlag: Sendable {
    private let fired = Mutex(false)

    func set() { fired.withLock { $0 = true } }

    var isSet: Bool { fired.withLock { $0 } }
}
