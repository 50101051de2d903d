import ApplePayVerifier
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Mdoc
import MdocVerifier
import NIOCore
import VerificationCore
import VerifierPresentation
import WalletEncoding
import WalletIdentity
import WalletJSON
import WebIdentity

/// The HTTP API. Verification answers are 200 for accepted and rejected (a rejection is an answer),
/// 503 for indeterminate (a store is down; retry), 400/413/415 problem+json for requests that cannot
/// be read. The JSON of a verification is exactly what the CLI prints for the same input.
struct APIRoutes: Sendable {
    let live: LiveServices
    /// The configuration of the request being answered (``current()`` takes it when a request starts).
    private(set) var services: VerifierServices
    let admission: RequestAdmission
    /// Path → the methods it takes ("GET, HEAD"), filled once all routes are registered.
    let knownPaths = KnownPaths()

    init(live: LiveServices) {
        self.live = live
        let services = live.current
        self.services = services
        self.admission = RequestAdmission(settings: services.settings)
    }

    /// These routes with the configuration current now: a request keeps it to the end, whatever a
    /// reload does meanwhile.
    func current() -> APIRoutes {
        var routes = self
        routes.services = live.current
        return routes
    }

    func register(on router: Router<VerifierRequestContext>) {
        // A path that is not written the one way the routes are (an empty or dot segment, an encoded
        // slash) is a 404 before any route or middleware sees it: the router would otherwise match
        // `//v1/trust` as `/v1/trust`.
        router.add(middleware: CanonicalPathMiddleware(metrics: services.metrics))
        router.add(middleware: NotFoundProblemMiddleware(knownPaths: knownPaths, metrics: services.metrics))
        registerOpen(on: router)
        // Every /v1 route sits in one group; the API token is checked by that group's middleware,
        // that is on the route that matched, never on the raw path.
        let v1 = router.group("v1")
        if let token = services.apiToken {
            v1.add(middleware: APITokenMiddleware(token: token, metrics: services.metrics))
        }
        registerV1(on: v1)
    }

    /// The routes without a token: health, readiness, metrics and the OpenAPI document.
    func registerOpen(on router: Router<VerifierRequestContext>) {
        getAndHead("healthz", on: router) { _, _ in jsonResponse(#"{"status":"ok"}"#) }
        getAndHead("readyz", on: router) { _, _ -> Response in
            do {
                try await services.store.ping()
                return jsonResponse(#"{"status":"ready"}"#)
            } catch {
                return Problem.unavailable("the replay store does not answer").response()
            }
        }
        getAndHead("metrics", on: router) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: services.metrics.text())))
        }
        getAndHead("openapi.yaml", on: router) { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.text)))
        }
    }

    /// The /v1 routes, registered on their group (behind the API token when one is configured).
    func registerV1(on router: RouterGroup<VerifierRequestContext>) {
        // What the service trusts right now.
        getAndHead("trust", on: router) { _, _ in jsonResponse(await TrustView.json(live.current)) }
        // Idempotency-Key (IdempotentSubmissions) on every POST that changes the store.
        let idempotent = IdempotentSubmissions(services: services)
        storePost("identity/requests", .creation, route: "identity-requests", idempotent, on: router) {
            try await current().createIdentityRequest($0, $1)
        }
        storePost("identity/verify", .verification, route: "identity-verify", idempotent, on: router) {
            try await current().verifyIdentity($0, $1)
        }
        storePost("applepay/decrypt", .verification, route: "applepay-decrypt", idempotent, on: router) {
            try await current().decryptApplePay($0, $1)
        }
        storePost("web/requests", .creation, route: "web-requests", idempotent, on: router) { try await current().createWebRequest($0, $1) }
        storePost("web/verify", .verification, route: "web-verify", idempotent, on: router) { try await current().verifyWeb($0, $1) }
        router.post("mdoc/verify") { request, context in
            try await handle {
                let request = try await bufferedBody(request)
                try admitVerification(context)
                return try await inSlot(context) { try await current().verifyMdoc(request, context) }
            }
        }
    }

    /// A POST that changes the store: its Idempotency-Key first (``IdempotentSubmissions``), then what
    /// its kind needs — a request creation is admitted (rate and outstanding sessions), a verification
    /// waits for a slot.
    ///
    /// The body is read first, whole and under the body deadline (408 after it), before anything
    /// counts against a limit that others share: a client that sends its body slowly holds a
    /// connection, never a verification slot.
    func storePost(
        _ path: RouterPath, _ kind: IdempotentSubmissions.Kind, route: String, _ idempotent: IdempotentSubmissions,
        on router: RouterGroup<VerifierRequestContext>,
        _ handler: @escaping @Sendable (Request, VerifierRequestContext) async throws -> Response
    ) {
        router.post(path) { request, context in
            try await handle {
                let request = try await bufferedBody(request)
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
    }

    /// The request with its body read whole (at most the body limit: 413) within the body deadline
    /// (`--body-timeout`: 408, and the connection is closed).
    func bufferedBody(_ request: Request) async throws -> Request {
        let limit = services.settings.bodyLimit
        let deadline = Duration.seconds(services.settings.bodyTimeout)
        let body = request.body
        let buffer: ByteBuffer? = try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await body.collect(upTo: limit) }
            group.addTask {
                try await Task.sleep(for: deadline)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
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

    /// A GET route and its HEAD (RFC 9110 §9.3.2: the same answer without the body).
    func getAndHead(
        _ path: RouterPath, on router: some RouterMethods<VerifierRequestContext>,
        _ handler: @escaping @Sendable (Request, VerifierRequestContext) async throws -> Response
    ) {
        router.get(path, use: handler)
        router.head(path) { request, context in
            var response = try await handler(request, context)
            response.body = .init()
            return response
        }
    }

    /// Another method on a path the router serves — any method, also ones HTTPTypes has no name for,
    /// such as QUERY — is a 405 naming the allowed ones, not a 404. Derived from the routes already
    /// registered, so call it after all of them; the answer comes from ``NotFoundProblemMiddleware``.
    func registerMethodNotAllowed(on router: Router<VerifierRequestContext>) {
        var allowed: [String: String] = [:]
        for routes in Dictionary(grouping: router.routes, by: { $0.path.description }).values {
            let path = routes[0].path.description
            allowed[path.hasPrefix("/") ? path : "/" + path] = Set(routes.map(\.method.rawValue)).sorted().joined(separator: ", ")
        }
        knownPaths.set(allowed)
    }

    /// Turns a ``Problem`` into its response; anything else unexpected is a 500 without details.
    func handle(_ body: () async throws -> Response) async throws -> Response {
        do {
            return try await body()
        } catch let problem as Problem {
            services.metrics.requestRejected(reason: problem.type)
            return problem.response()
        } catch let error as HTTPError where error.status == .contentTooLarge {
            return tooLarge()
        } catch is NIOTooManyBytesError {
            return tooLarge()
        }
    }

    func tooLarge() -> Response {
        services.metrics.requestRejected(reason: "too-large")
        return Problem(
            status: .contentTooLarge, type: "too-large", title: "The request body is too large",
            detail: "request bodies are limited to \(services.settings.bodyLimit) bytes"
        ).response()
    }

    /// A verification POST: the client's verification rate (429, `--verify-rate`).
    func admitVerification(_ context: VerifierRequestContext) throws {
        if let wait = admission.takeVerificationToken(client: context.clientKey) {
            services.metrics.requestRejected(reason: "rate-limited")
            var problem = Problem(
                status: .tooManyRequests, type: "rate-limited", title: "Too many requests",
                detail: "this client submits verifications faster than \(services.settings.verifyRate) a minute (--verify-rate); retry in \(wait) s")
            problem.retryAfter = wait
            throw problem
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
            services.metrics.requestRejected(reason: "rate-limited")
            var problem = Problem(
                status: .tooManyRequests, type: "rate-limited", title: "Too many requests",
                detail: "this client creates requests faster than \(services.settings.requestRate) a minute; retry in \(wait) s")
            problem.retryAfter = wait
            throw problem
        }
        let allowed: Bool
        do {
            allowed = try await admission.mayCreateSession { try await services.store.outstandingNonceCount(now: services.clock.now()) }
        } catch {
            throw Problem.unavailable("the request store does not answer")
        }
        guard allowed else {
            var problem = Problem.unavailable(
                "\(services.settings.maxOutstandingRequests) request sessions are outstanding, the most this server keeps; retry when some are answered or expire"
            )
            problem.retryAfter = 30
            throw problem
        }
        guard admission.takeClientSession(client: context.clientKey) else {
            admission.uncountSession()
            services.metrics.requestRejected(reason: "client-sessions")
            var problem = Problem(
                status: .tooManyRequests, type: "too-many-outstanding-requests", title: "Too many outstanding requests from this client",
                detail:
                    "this client has \(services.settings.clientOutstandingCap) request sessions outstanding, its share (--max-client-outstanding-requests); retry when some are answered or expire"
            )
            problem.retryAfter = 30
            throw problem
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
            var problem = Problem.unavailable("every verification slot is busy; retry shortly")
            problem.retryAfter = 1
            throw problem
        case .failure(.clientBusy):
            services.metrics.requestRejected(reason: "client-busy")
            var problem = Problem(
                status: .tooManyRequests, type: "too-many-verifications", title: "Too many verifications from this client",
                detail:
                    "this client already has \(services.settings.clientVerificationCap) verifications running, its share of the slots (--max-client-verifications); retry when one is answered"
            )
            problem.retryAfter = 1
            throw problem
        }
    }

    /// Reads a JSON object body (415 for another or a missing media type, 413 past the limit, 400 for
    /// anything but one strict JSON object).
    func jsonObject(_ request: Request) async throws -> JSONBody {
        let mediaType = request.headers[.contentType]?.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard mediaType == "application/json" else {
            throw Problem(
                status: .unsupportedMediaType, type: "unsupported-media-type", title: "Unsupported media type",
                detail: mediaType == nil ? "send the body as application/json (Content-Type is missing)" : "send application/json, not \(mediaType!)")
        }
        let buffer = try await request.body.collect(upTo: services.settings.bodyLimit)
        return try JSONBody(bytes: Array(buffer: buffer))
    }

    func createIdentityRequest(_ request: Request, _ context: VerifierRequestContext) async throws -> Response {
        let object = try await jsonObject(request)
        guard let descriptorJSON = object.raw("descriptor") else { throw Problem.badRequest("/descriptor: missing") }
        let descriptor: IdentityRequestDescriptor
        do {
            descriptor = try IdentityRequestDescriptor.decode(json: Data(descriptorJSON))
        } catch {
            throw Problem.badRequest("/descriptor: \(error)")
        }
        let binding = try object.optionalString("sessionBinding")
        let merchantID = try object.optionalString("merchantId") ?? services.identity.verifier.merchantID
        guard services.identity.merchants.contains(where: { $0.merchantID == merchantID }) else {
            throw Problem.badRequest("/merchantId: \(merchantID) is not a merchant identifier this server is configured for (--merchant-id)")
        }
        let created: IdentityRequestSessions.Created
        do {
            created = try await services.identity.create(
                descriptor: descriptor, sessionBinding: binding, merchantID: merchantID, now: services.clock.now())
        } catch is OperationalError {
            throw Problem.unavailable("the request could not be stored")
        } catch {
            throw Problem.badRequest("/descriptor: \(error)")
        }
        var body = JSONWriter(capacity: 256)
        body.sortedStringObject([
            "requestId": created.requestID,
            "nonce": Base64.encode(created.nonce),
            "merchantId": merchantID,
            "expiresAt": RFC3339.format(created.expiresAt),
        ])
        return jsonResponse(body.text, status: .created)
    }

    func verifyIdentity(_ request: Request, _ context: VerifierRequestContext) async throws -> Response {
        let object = try await jsonObject(request)
        guard let requestID = try object.optionalString("requestId"), !requestID.isEmpty else { throw Problem.badRequest("/requestId: missing") }
        guard let encoded = try object.optionalString("encryptedData") else {
            throw Problem.badRequest("/encryptedData: missing (base64 of PKIdentityDocument.encryptedData)")
        }
        guard let data = Base64.decodeLenient(encoded), !data.isEmpty else { throw Problem.badRequest("/encryptedData: not base64") }
        let binding = try object.optionalString("sessionBinding")
        let start = ContinuousClock.now
        let result = await services.identity.verify(
            requestID: requestID, encryptedData: data,
            sessionBinding: binding, context: VerificationContext(time: services.clock.now(), idempotency: context.idempotency))
        services.metrics.record(flow: "identity", report: result.report, duration: ContinuousClock.now - start)
        return reportResponse(IdentityOutput.json(result), report: result.report)
    }

    func decryptApplePay(_ request: Request, _ context: VerifierRequestContext) async throws -> Response {
        guard let verifier = services.applePay else {
            throw Problem.unavailable("Apple Pay is not configured on this server (--applepay-cert/--applepay-key)")
        }
        let object = try await jsonObject(request)
        // The token goes to the verifier as the bytes received, never re-serialized. Exactly one of the
        // two forms: with both, which one was meant is a guess.
        if object.value("token") != nil, object.value("paymentData") != nil {
            throw Problem.badRequest("/token, /paymentData: send exactly one of them, not both")
        }
        let name = object.value("token") != nil ? "token" : "paymentData"
        guard let value = object.value(name) else {
            throw Problem.badRequest("/token or /paymentData: send {\"token\": PKPaymentToken} or {\"paymentData\": {...}}")
        }
        guard value.object != nil, let tokenData = object.raw(name) else {
            throw Problem.badRequest("/\(name): must be a JSON object")
        }
        var expectations = ApplePayExpectations.none
        if let expectValue = object.value("expect") {
            guard let expect = expectValue.object else { throw Problem.badRequest("/expect: must be an object") }
            if let currency = expect["currency"] {
                guard let text = currency.string else { throw Problem.badRequest("/expect/currency: must be a string") }
                expectations.currencyCode = text
            }
            if let amount = expect["amount"] {
                guard let text = amount.number ?? amount.string, let value = ApplePayExpectations.minorUnits(text) else {
                    throw Problem.badRequest(
                        "/expect/amount: must be the amount in the currency's minor units, as tokens carry it: a whole number (1999 for 19.99 USD)")
                }
                expectations.transactionAmount = value
            }
            if let applicationData = expect["applicationData"] {
                guard let text = applicationData.string else { throw Problem.badRequest("/expect/applicationData: must be a string") }
                expectations.applicationData = text
            }
            // The payment request's applicationData itself, hashed here as Apple does (SHA-256). Its own
            // member: 64 hex digits are also base64, so one member could not tell the two forms apart.
            // Sent with applicationData, both must match.
            if let original = expect["applicationDataBase64"] {
                guard let text = original.string, text.utf8.count >= 2,
                    text.utf8.allSatisfy({ Base64.isURLAlphabet($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "=") }
                    ),
                    let bytes = Base64.decodeLenient(text)
                else {
                    throw Problem.badRequest(
                        "/expect/applicationDataBase64: must be base64 of the payment request's applicationData (the verifier hashes it with SHA-256)"
                    )
                }
                expectations.originalApplicationData = bytes
            }
        }
        // Seed 004, step 6: a payment is checked against its currency and amount. Without them any amount
        // in any currency would be accepted, so they are required unless the operator chose otherwise.
        if services.settings.applePayExpectations == .required {
            let missing = [("currency", expectations.currencyCode), ("amount", expectations.transactionAmount.map { "\($0)" })].filter { $0.1 == nil }
            if let first = missing.first {
                throw Problem.badRequest(
                    "/expect/\(first.0): missing; a payment is verified against the currency and the amount charged "
                        + "(\"expect\": {\"currency\": \"840\", \"amount\": 1999}, the amount in minor units); "
                        + "a server started with --applepay-expectations optional accepts tokens without them, with an expectationsMissing warning")
            }
        }
        let start = ContinuousClock.now
        let context = VerificationContext(
            time: services.clock.now(), clockSkew: .seconds(services.settings.clockSkew), idempotency: context.idempotency)
        // The body was parsed once, strictly; the token's part of that parse is handed over with its bytes.
        let result = await verifier.verify(Array(tokenData), parsed: value.object, context: context, expectations: expectations)
        services.metrics.record(flow: "applepay", report: result.report, duration: ContinuousClock.now - start)
        return reportResponse(ApplePayOutput.json(result), report: result.report)
    }

    /// The web endpoints need configured origins: without one a request could be bound to any origin
    /// a caller names, voiding Annex C's origin binding.
    func requireWebOrigins() throws {
        guard !services.webOrigins.isEmpty else {
            throw Problem.unavailable(
                "Verify with Wallet on the Web is not configured on this server: start it with --web-origin https://your.site (repeatable)")
        }
    }

    func createWebRequest(_ request: Request, _ context: VerifierRequestContext) async throws -> Response {
        try requireWebOrigins()
        let object = try await jsonObject(request)
        guard let docType = try object.optionalString("docType"), !docType.isEmpty else { throw Problem.badRequest("/docType: missing") }
        guard WebDocumentRequest.isName(docType) else {
            throw Problem.badRequest("/docType: 1 to 256 characters without whitespace or control characters")
        }
        guard let given = try object.optionalString("origin") else {
            throw Problem.badRequest("/origin: missing; it must be the page's origin, such as https://example.com")
        }
        let origin: String
        do { origin = try WebOrigin.parse(given) } catch { throw Problem.badRequest("/origin: \(error)") }
        guard services.webOrigins.contains(origin) else {
            throw Problem.badRequest("/origin: \(origin) is not an origin this server is configured for (--web-origin)")
        }
        let names = object.value("elements")?.array?.compactMap(\.string) ?? []
        guard !names.isEmpty, names.count == object.value("elements")?.array?.count else {
            throw Problem.badRequest("/elements: must list NAMESPACE/IDENTIFIER[:retain] strings")
        }
        var elements: [WebDocumentRequest.Element] = []
        for (index, name) in names.enumerated() {
            do {
                let element = try WebDocumentRequest.Element(argument: name)
                guard WebDocumentRequest.isName(element.nameSpace), WebDocumentRequest.isName(element.identifier) else {
                    throw WebRequestError("namespace and identifier must be 1 to 256 characters without whitespace or control characters")
                }
                elements.append(element)
            } catch {
                throw Problem.badRequest("/elements/\(index): \(error)")
            }
        }
        let created: WebRequestSessions.Created
        do {
            created = try await services.web.create(
                request: WebDocumentRequest(docType: docType, elements: elements), origin: origin,
                recipientPublicKey: services.webKeys[0].publicKey, now: services.clock.now(),
                readerAuth: services.readerAuth, readerAuthAll: services.settings.readerAuthAll)
        } catch is OperationalError {
            throw Problem.unavailable("the request could not be stored")
        } catch {
            // What is left to refuse here is the element list as a whole (an element requested twice).
            throw Problem.badRequest("/elements: \(error)")
        }
        let json =
            #"{"requestId":"\#(created.requestID)","expiresAt":"\#(RFC3339.format(created.expiresAt))","navigatorCredentialsGetArgument":\#(created.presentation.navigatorCredentialsGetArgument)}"#
        return jsonResponse(json, status: .created)
    }

    func verifyWeb(_ request: Request, _ context: VerifierRequestContext) async throws -> Response {
        try requireWebOrigins()
        let object = try await jsonObject(request)
        guard let requestID = try object.optionalString("requestId"), !requestID.isEmpty else { throw Problem.badRequest("/requestId: missing") }
        // Exactly one of the two forms, each exactly as the document describes it.
        let credential = object.value("credential"), response = object.value("response")
        let responseBytes: [UInt8]
        switch (credential, response) {
        case (.some, .some):
            throw Problem.badRequest("/credential, /response: send exactly one of them, not both")
        case (.some(let credential), nil):
            guard let fields = credential.object else {
                throw Problem.badRequest("/credential: must be the object navigator.credentials.get returned")
            }
            guard fields["protocol"]?.string == "org-iso-mdoc" else { throw Problem.badRequest("/credential/protocol: must be \"org-iso-mdoc\"") }
            guard let text = fields["data"]?.object?["response"]?.string,
                text.utf8.allSatisfy({ Base64.isURLAlphabet($0) || $0 == UInt8(ascii: "=") }),
                let bytes = Base64.decodeLenient(text), !bytes.isEmpty
            else {
                throw Problem.badRequest("/credential/data/response: missing or not base64url")
            }
            guard let raw = object.raw("credential"), let decoded = try? DCAPIEncryptedResponse.responseBytes(fromSubmission: Array(raw)) else {
                throw Problem.badRequest("/credential: not an org-iso-mdoc response")
            }
            responseBytes = decoded
        case (nil, .some(let response)):
            guard let text = response.string, let bytes = Base64.decodeLenient(text), !bytes.isEmpty else {
                throw Problem.badRequest("/response: must be the base64url EncryptedResponse")
            }
            responseBytes = bytes
        case (nil, nil):
            throw Problem.badRequest(
                "/credential or /response: send \"credential\" (what navigator.credentials.get returned) or \"response\" (base64url)")
        }
        let start = ContinuousClock.now
        let result = await services.web.verify(
            requestID: requestID, response: responseBytes, recipientKeys: services.webKeys,
            context: VerificationContext(time: services.clock.now(), idempotency: context.idempotency))
        services.metrics.record(flow: "web", report: result.report, duration: ContinuousClock.now - start)
        return reportResponse(
            IdentityOutput.json(MdocVerificationResult(report: result.report, documents: result.documentsRegardlessOfVerdict)), report: result.report)
    }

    /// ISO/IEC 18013-5 terminal input as it comes (ProximityReader's raw data, an ISO reader): the
    /// DeviceResponse, the SessionTranscript and, for deviceMac, the reader's ephemeral key — the same
    /// checks and report as `mdoc verify` (ISO strict policy; the passport rules by docType).
    func verifyMdoc(_ request: Request, _ context: VerifierRequestContext) async throws -> Response {
        let object = try await jsonObject(request)
        guard let responseText = try object.optionalString("deviceResponse"), let responseBytes = Base64.decodeLenient(responseText),
            !responseBytes.isEmpty
        else {
            throw Problem.badRequest("/deviceResponse: missing or not base64")
        }
        guard let transcriptText = try object.optionalString("sessionTranscript"), let transcriptBytes = Base64.decodeLenient(transcriptText),
            let transcript = try? SessionTranscript(bytes: transcriptBytes)
        else {
            throw Problem.badRequest("/sessionTranscript: missing, not base64, or not a SessionTranscript (the array or its tag-24 wrapping)")
        }
        var readerKey: P256.KeyAgreement.PrivateKey?
        if let keyText = try object.optionalString("readerKey") {
            do { readerKey = try ReaderKeyAgreementKey.load(base64: keyText, name: "readerKey") } catch {
                throw Problem.badRequest(
                    "/readerKey: the reader's ephemeral P-256 private key as base64 of a PEM file, a private JWK, its 32-byte scalar, its 97-byte X9.63 form or a COSE_Key"
                )
            }
        }
        let time = services.clock.now()
        let start = ContinuousClock.now
        let verifier = services.mdocFlowVerifier()
        let result = await verifier.verify(deviceResponse: responseBytes, transcript: transcript, readerKey: readerKey, context: .at(time))
        services.metrics.record(flow: "mdoc", report: result.report, duration: ContinuousClock.now - start)
        return reportResponse(IdentityOutput.json(result), report: result.report)
    }

    func reportResponse(_ json: String, report: VerificationReport) -> Response {
        OneTimeValueConsumed.note(report)
        var response = jsonResponse(json, status: report.verdict == .indeterminate ? .serviceUnavailable : .ok)
        if report.verdict == .indeterminate { response.headers[.retryAfter] = "1" }
        return response
    }
}

func jsonResponse(_ json: String, status: HTTPResponse.Status = .ok) -> Response {
    Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
}

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

    static func isCanonical(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        if path == "/" { return true }
        let lower = path.lowercased()
        for encoded in ["%2f", "%5c", "%2e", "%00"] where lower.contains(encoded) { return false }
        if path.contains("\\") { return false }
        for segment in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty || segment == "." || segment == ".." { return false }
        }
        return true
    }
}

/// The paths the router serves and the methods each takes, set once before the server starts.
final class KnownPaths: @unchecked Sendable {
    private let lock = NSLock()
    private var allowed: [String: String] = [:]

    func set(_ allowed: [String: String]) {
        lock.withLock { self.allowed = allowed }
    }

    func methods(for path: String) -> String? {
        lock.withLock { allowed[path] }
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

extension VerifierServices {
    /// The one composition of ISO/IEC 18013-5 terminal input (`POST /v1/mdoc/verify` and the page's
    /// mdoc form): ISO strict policy with the configured clock skew, the passport rules by docType,
    /// VICAL roots and the configured revocation checks.
    func mdocFlowVerifier() -> MdocFlowVerifier {
        var policy = MdocVerificationPolicy.iso18013Strict
        policy.clockSkew = .seconds(settings.clockSkew)
        let mdocVerifier = MdocVerifier(sharing: identity.verifier.mdocVerifier, policy: policy)
        return MdocFlowVerifier(mdocVerifier: mdocVerifier, revocation: revocation ?? identity.verifier.revocation)
    }
}
