import Foundation
import GooglePayVerifier
import Hummingbird
import TrustDocuments
import VerificationCore
import VerificationReceipts
import WalletJSON

/// Google Pay: `POST /v1/googlepay/decrypt` verifies and decrypts a payment token (ECv2) for the
/// configured merchant.
struct GooglePayRoutes: Sendable {
    /// The shared request handling, with the configuration of the request being answered.
    let api: APIRoutes
    var services: VerifierServices { api.services }

    /// The flow's routes, under /v1/googlepay.
    static func collection(_ api: APIRoutes, _ idempotent: IdempotentSubmissions) -> RouteCollection<VerifierRequestContext> {
        let routes = RouteCollection(context: VerifierRequestContext.self)
        api.storePost("decrypt", .verification, route: "googlepay-decrypt", idempotent, on: routes) {
            try await GooglePayRoutes(api: api.current()).decrypt($0, $1)
        }
        return routes
    }

    func decrypt(_ request: Request, _ context: VerifierRequestContext) async throws -> Response {
        guard let configuration = services.googlePay else {
            throw Problem.notConfigured(
                "Google Pay is not configured on this server: start it with --googlepay-key FILE --googlepay-merchant-id ID --googlepay-root-keys FILE|URL"
            )
        }
        let object = try await api.jsonObject(request)
        guard let value = object.value("token") else {
            throw Problem.badRequest(
                "/token: missing; send {\"token\": PaymentMethodToken} with the token as an object, or as the string of paymentMethodData.tokenizationData.token"
            )
        }
        // The token goes to the verifier as the bytes received, never re-serialized: an object's bytes
        // as they were in the body, a string's value (the token JSON Google returned) as UTF-8.
        let token: [UInt8]
        if value.object != nil, let raw = object.raw("token") {
            token = Array(raw)
        } else if let text = value.string {
            guard !text.isEmpty else { throw Problem.badRequest("/token: must not be empty") }
            token = Array(text.utf8)
        } else {
            throw Problem.badRequest("/token: must be a JSON object or a string (paymentMethodData.tokenizationData.token)")
        }
        guard let verifier = configuration.verifier(at: services.clock.now()) else {
            let why = configuration.sourceStatus(at: services.clock.now()).problem ?? "they could not be loaded yet"
            throw Problem.unavailable(
                "Google's root signing keys from \(configuration.rootKeysSource) are not usable: \(why); retry later", retryAfter: 60)
        }
        let start = ContinuousClock.now
        let verification = VerificationContext(
            time: services.clock.now(), clockSkew: .seconds(services.settings.clockSkew), idempotency: context.idempotency)
        let result = await verifier.verify(token, context: verification)
        services.metrics.record(flow: "googlepay", report: result.report, duration: ContinuousClock.now - start)
        return await api.verificationResponse(result.jsonBytes, report: result.report, context: context) {
            .googlePay(result, submission: token, recipient: configuration.recipient)
        }
    }
}
