import Crypto
import Foundation
import Hummingbird
import Mdoc
import MdocVerifier
import VerificationCore
import VerificationReceipts
import WalletEncoding
import WalletJSON
import WebIdentity

/// Verify with Wallet on the Web (ISO/IEC 18013-7 Annex C and OpenID4VP 1.0 over the Digital
/// Credentials API): `POST /v1/web/requests` creates a request session for one of the configured
/// origins (the argument of `navigator.credentials.get`, one request per offered protocol),
/// `POST /v1/web/verify` verifies the encrypted response of whichever protocol answered against it.
struct WebRoutes: Sendable {
    /// The shared request handling, with the configuration of the request being answered.
    let api: APIRoutes
    var services: VerifierServices { api.services }

    /// The flow's routes, under /v1/web.
    static func collection(_ api: APIRoutes, _ idempotent: IdempotentSubmissions) -> RouteCollection<VerifierRequestContext> {
        let routes = RouteCollection(context: VerifierRequestContext.self)
        api.storePost("requests", .creation, route: "web-requests", idempotent, on: routes) {
            try await WebRoutes(api: api.current()).createRequest($0, $1)
        }
        api.storePost("verify", .verification, route: "web-verify", idempotent, on: routes) {
            try await WebRoutes(api: api.current()).verify($0, $1)
        }
        return routes
    }

    /// The web endpoints need configured origins: without one a request could be bound to any origin
    /// a caller names, voiding Annex C's origin binding.
    func requireWebOrigins() throws {
        guard !services.webOrigins.isEmpty else {
            throw Problem.notConfigured(
                "Verify with Wallet on the Web is not configured on this server: start it with --web-origin https://your.site (repeatable)")
        }
    }

    func createRequest(_ request: Request, _ context: VerifierRequestContext) async throws -> Response {
        try requireWebOrigins()
        let object = try await api.jsonObject(request)
        guard let docType = try object.optionalString("docType"), !docType.isEmpty else { throw Problem.badRequest("/docType: missing") }
        guard WebDocumentRequest.isIdentifier(docType) else {
            throw Problem.badRequest("/docType: must be an ISO/IEC 18013-5 data identifier, \(DataIdentifier.rule)")
        }
        if let allowed = services.webDocTypes, !allowed.docTypes.contains(docType) {
            throw Problem.badRequest(
                "/docType: this service creates requests for \(allowed.docTypes.sorted().joined(separator: ", ")) only (\(allowed.source))")
        }
        guard let given = try object.optionalString("origin") else {
            throw Problem.badRequest("/origin: missing; it must be the page's origin, such as https://example.com")
        }
        let origin: String
        do { origin = try WebOrigin.parse(given) } catch { throw Problem.badRequest("/origin: \(error)") }
        guard services.webOrigins.contains(origin) else {
            throw Problem.badRequest("/origin: \(origin) is not an origin this server is configured for (--web-origin)")
        }
        let limits = services.web.limits
        let listed = object.value("elements")?.array ?? []
        guard listed.count <= limits.maxElements else {
            throw Problem.badRequest(
                "/elements: \(listed.count) elements; a request may ask for at most \(limits.maxElements) (serve --max-request-elements)")
        }
        let names = listed.compactMap(\.string)
        guard !names.isEmpty, names.count == listed.count else {
            throw Problem.badRequest("/elements: must list NAMESPACE/IDENTIFIER[:retain] strings")
        }
        var elements: [WebDocumentRequest.Element] = []
        for (index, name) in names.enumerated() {
            do {
                let element = try WebDocumentRequest.Element(argument: name)
                guard WebDocumentRequest.isIdentifier(element.nameSpace), WebDocumentRequest.isIdentifier(element.identifier) else {
                    throw WebRequestError("the namespace and the identifier must each be an ISO/IEC 18013-5 data identifier, \(DataIdentifier.rule)")
                }
                elements.append(element)
            } catch {
                throw Problem.badRequest("/elements/\(index): \(error)")
            }
        }
        let protocols = try webProtocols(object)
        let created: WebRequestSessions.Created
        do {
            created = try await services.web.create(
                request: WebDocumentRequest(docType: docType, elements: elements), origin: origin,
                recipientPublicKey: services.webKeys[0].publicKey, now: services.clock.now(),
                readerAuth: services.readerAuth, readerAuthAll: services.settings.readerAuthAll, protocols: protocols,
                requestSigner: openID4VPRequestSigner, recipientPrivateKey: services.webKeys[0])
        } catch is OperationalError {
            throw Problem.unavailable("the request could not be stored")
        } catch let error as WebRequestError where error.code == .requestTooLarge {
            throw Problem.badRequest("/elements: \(error.message) (serve --max-request-session-bytes)")
        } catch {
            // What is left to refuse here is the element list as a whole (an element requested twice).
            throw Problem.badRequest("/elements: \(error)")
        }
        let json =
            #"{"requestId":"\#(created.requestID)","expiresAt":"\#(RFC3339.format(created.expiresAt))","navigatorCredentialsGetArgument":\#(created.navigatorCredentialsGetArgument),"protocols":[\#(created.protocols.map { "\"\($0.rawValue)\"" }.joined(separator: ","))]}"#
        return jsonResponse(json, status: .created)
    }

    func verify(_ request: Request, _ context: VerifierRequestContext) async throws -> Response {
        try requireWebOrigins()
        let object = try await api.jsonObject(request)
        guard let requestID = try object.optionalString("requestId"), !requestID.isEmpty else { throw Problem.badRequest("/requestId: missing") }
        // Exactly one of the two forms, each exactly as the document describes it.
        let credential = object.value("credential"), response = object.value("response")
        let submitted: WebCredential
        // What the receipt's submission digest covers: the credential as received, or the response's bytes.
        let submission: [UInt8]
        switch (credential, response) {
        case (.some, .some):
            throw Problem.badRequest("/credential, /response: send exactly one of them, not both")
        case (.some(let credential), nil):
            let raw = object.raw("credential")
            submitted = try webCredential(credential, raw: raw)
            submission = raw.map { Array($0) } ?? []
        case (nil, .some(let response)):
            guard let text = response.string, let bytes = Base64.decodeLenient(text), !bytes.isEmpty else {
                throw Problem.badRequest("/response: must be the base64url EncryptedResponse")
            }
            submitted = .annexC(bytes)
            submission = bytes
        case (nil, nil):
            throw Problem.badRequest(
                "/credential or /response: send \"credential\" (what navigator.credentials.get returned) or \"response\" (base64url)")
        }
        let start = ContinuousClock.now
        let result = await services.web.verify(
            requestID: requestID, credential: submitted, recipientKeys: services.webKeys,
            context: VerificationContext(time: services.clock.now(), idempotency: context.idempotency))
        services.metrics.record(flow: "web", report: result.report, duration: ContinuousClock.now - start)
        return await api.verificationResponse(
            MdocVerificationResult(report: result.report, documents: result.documentsRegardlessOfVerdict).jsonBytes(), report: result.report,
            context: context
        ) {
            .web(result, submission: submission, requestID: requestID, protocol: submitted.protocol.rawValue)
        }
    }
}
