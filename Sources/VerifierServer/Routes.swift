import ApplePayVerifier
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Crypto
import MdocVerifier
import VerificationCore
import VerifierPresentation
import WalletIdentity
import WebIdentity

/// The HTTP API. Verification answers are 200 for accepted and rejected (a rejection is an answer),
/// 503 for indeterminate (a store is down; retry), 400/413/415 problem+json for requests that cannot
/// be read. The JSON of a verification is exactly what the CLI prints for the same input.
struct APIRoutes: Sendable {
    let services: VerifierServices

    func register(on router: Router<BasicRequestContext>) {
        router.get("healthz") { _, _ in jsonResponse(#"{"status":"ok"}"#) }
        router.get("readyz") { _, _ -> Response in
            do {
                try await services.store.ping()
                return jsonResponse(#"{"status":"ready"}"#)
            } catch {
                return Problem.unavailable("the replay store does not answer").response()
            }
        }
        router.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"], body: .init(byteBuffer: ByteBuffer(string: services.metrics.text())))
        }
        router.get("openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.text)))
        }
        router.post("v1/identity/requests") { request, context in try await handle { try await createIdentityRequest(request, context) } }
        router.post("v1/identity/verify") { request, context in try await handle { try await verifyIdentity(request, context) } }
        router.post("v1/applepay/decrypt") { request, context in try await handle { try await decryptApplePay(request, context) } }
        router.post("v1/web/requests") { request, context in try await handle { try await createWebRequest(request, context) } }
        router.post("v1/web/verify") { request, context in try await handle { try await verifyWeb(request, context) } }
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
        return Problem(status: .contentTooLarge, type: "too-large", title: "The request body is too large",
                       detail: "request bodies are limited to \(services.settings.bodyLimit) bytes").response()
    }

    /// Reads a JSON object body (415 for another media type, 413 past the limit, 400 for non-JSON).
    func jsonObject(_ request: Request) async throws -> [String: Any] {
        if let type = request.headers[.contentType], !type.lowercased().hasPrefix("application/json") {
            throw Problem(status: .unsupportedMediaType, type: "unsupported-media-type", title: "Unsupported media type",
                          detail: "send application/json")
        }
        let buffer = try await request.body.collect(upTo: services.settings.bodyLimit)
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any] else {
            throw Problem.badRequest("the body is not a JSON object")
        }
        return object
    }

    func createIdentityRequest(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let object = try await jsonObject(request)
        guard let descriptorObject = object["descriptor"] else { throw Problem.badRequest("missing \"descriptor\"") }
        let descriptor: IdentityRequestDescriptor
        do {
            descriptor = try IdentityRequestDescriptor.decode(json: try JSONSerialization.data(withJSONObject: descriptorObject))
        } catch {
            throw Problem.badRequest("descriptor: \(error)")
        }
        let binding = object["sessionBinding"] as? String
        let created: IdentityRequestSessions.Created
        do {
            created = try await services.identity.create(descriptor: descriptor, sessionBinding: binding, now: services.clock.now())
        } catch is OperationalError {
            throw Problem.unavailable("the request could not be stored")
        } catch {
            throw Problem.badRequest("descriptor: \(error)")
        }
        let body: [String: Any] = [
            "requestId": created.requestID,
            "nonce": Data(created.nonce).base64EncodedString(),
            "merchantId": services.identity.verifier.merchantID,
            "expiresAt": RFC3339Time.format(created.expiresAt),
        ]
        let data = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys, .withoutEscapingSlashes])
        return jsonResponse(String(decoding: data, as: UTF8.self), status: .created)
    }

    func verifyIdentity(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let object = try await jsonObject(request)
        guard let requestID = object["requestId"] as? String, !requestID.isEmpty else { throw Problem.badRequest("missing \"requestId\"") }
        guard let encoded = object["encryptedData"] as? String else { throw Problem.badRequest("missing \"encryptedData\" (base64)") }
        guard let data = Base64Input.decode(encoded), !data.isEmpty else { throw Problem.badRequest("\"encryptedData\" is not base64") }
        let start = ContinuousClock.now
        let result = await services.identity.verify(requestID: requestID, encryptedData: data,
                                                    sessionBinding: object["sessionBinding"] as? String, at: services.clock.now())
        services.metrics.record(flow: "identity", report: result.report, duration: ContinuousClock.now - start)
        return reportResponse(IdentityOutput.json(result), report: result.report)
    }

    func decryptApplePay(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        guard let verifier = services.applePay else {
            throw Problem.unavailable("Apple Pay is not configured on this server (--applepay-cert/--applepay-key)")
        }
        let object = try await jsonObject(request)
        let token: Any
        if let whole = object["token"] { token = whole } else if let paymentData = object["paymentData"] { token = paymentData } else {
            throw Problem.badRequest("send {\"token\": PKPaymentToken} or {\"paymentData\": {...}}")
        }
        guard JSONSerialization.isValidJSONObject(token), let tokenData = try? JSONSerialization.data(withJSONObject: token) else {
            throw Problem.badRequest("the token must be a JSON object")
        }
        var expectations = ApplePayExpectations.none
        if let expect = object["expect"] as? [String: Any] {
            if let currency = expect["currency"] as? String { expectations.currencyCode = currency }
            if let amount = expect["amount"] {
                guard let number = (amount as? NSNumber).map({ Decimal(string: $0.stringValue) }) ?? (amount as? String).map({ Decimal(string: $0) }), let value = number else {
                    throw Problem.badRequest("expect.amount must be a number")
                }
                expectations.transactionAmount = value
            }
            if let applicationData = expect["applicationData"] as? String { expectations.applicationData = applicationData }
        }
        let start = ContinuousClock.now
        let context = VerificationContext(time: services.clock.now(), clockSkew: .seconds(services.settings.clockSkew))
        let result = await verifier.verify([UInt8](tokenData), context: context, expectations: expectations)
        services.metrics.record(flow: "applepay", report: result.report, duration: ContinuousClock.now - start)
        return reportResponse(ApplePayOutput.json(result), report: result.report)
    }

    /// The key web responses are encrypted to: the first configured identity key.
    var webKey: P256.KeyAgreement.PrivateKey { services.identity.verifier.keyRing.keys[0].privateKey }

    func createWebRequest(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let object = try await jsonObject(request)
        guard let docType = object["docType"] as? String, !docType.isEmpty else { throw Problem.badRequest("missing \"docType\"") }
        guard let origin = object["origin"] as? String, origin.hasPrefix("http://") || origin.hasPrefix("https://") else {
            throw Problem.badRequest("\"origin\" must be the page's origin, such as https://example.com")
        }
        guard let names = object["elements"] as? [String], !names.isEmpty else {
            throw Problem.badRequest("\"elements\" must list NAMESPACE/IDENTIFIER[:retain] strings")
        }
        let elements: [WebDocumentRequest.Element]
        do { elements = try names.map { (name) throws(WebRequestError) in try WebDocumentRequest.Element(argument: name) } } catch {
            throw Problem.badRequest("elements: \(error)")
        }
        let created: WebRequestSessions.Created
        do {
            created = try await services.web.create(request: WebDocumentRequest(docType: docType, elements: elements), origin: origin,
                                                    recipientPublicKey: webKey.publicKey, now: services.clock.now())
        } catch is OperationalError {
            throw Problem.unavailable("the request could not be stored")
        } catch {
            throw Problem.badRequest("\(error)")
        }
        let json = #"{"requestId":"\#(created.requestID)","expiresAt":"\#(RFC3339Time.format(created.expiresAt))","navigatorCredentialsGetArgument":\#(created.presentation.navigatorCredentialsGetArgument)}"#
        return jsonResponse(json, status: .created)
    }

    func verifyWeb(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let object = try await jsonObject(request)
        guard let requestID = object["requestId"] as? String, !requestID.isEmpty else { throw Problem.badRequest("missing \"requestId\"") }
        let responseBytes: [UInt8]
        if let credential = object["credential"], JSONSerialization.isValidJSONObject(credential) {
            guard let bytes = try? DCAPIEncryptedResponse.responseBytes(fromSubmission: [UInt8](try JSONSerialization.data(withJSONObject: credential))) else {
                throw Problem.badRequest("\"credential\" is not an org-iso-mdoc response")
            }
            responseBytes = bytes
        } else if let text = object["response"] as? String, let bytes = Base64Input.decode(text), !bytes.isEmpty {
            responseBytes = bytes
        } else {
            throw Problem.badRequest("send \"credential\" (what navigator.credentials.get returned) or \"response\" (base64url)")
        }
        let start = ContinuousClock.now
        let result = await services.web.verify(requestID: requestID, response: responseBytes, recipientKey: webKey, at: services.clock.now())
        services.metrics.record(flow: "web", report: result.report, duration: ContinuousClock.now - start)
        return reportResponse(IdentityOutput.json(MdocVerificationResult(report: result.report, documents: result.documents)), report: result.report)
    }

    func reportResponse(_ json: String, report: VerificationReport) -> Response {
        var response = jsonResponse(json, status: report.verdict == .indeterminate ? .serviceUnavailable : .ok)
        if report.verdict == .indeterminate { response.headers[.retryAfter] = "1" }
        return response
    }
}

func jsonResponse(_ json: String, status: HTTPResponse.Status = .ok) -> Response {
    Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
}

/// Base64 or base64url, padded or not.
enum Base64Input {
    static func decode(_ text: String) -> [UInt8]? {
        var cleaned = text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        let remainder = cleaned.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { cleaned += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: cleaned).map { [UInt8]($0) }
    }
}
