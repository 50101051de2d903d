import ApplePayVerifier
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import VerificationCore
import VerificationReceipts
import WalletEncoding
import WalletJSON

/// Apple Pay: `POST /v1/applepay/decrypt` verifies and decrypts a payment token against the
/// currency and amount the caller expects; `POST /v1/applepay/session` asks Apple's
/// merchant-validation server for the payment session of Apple Pay on the web.
struct ApplePayRoutes: Sendable {
    /// The shared request handling, with the configuration of the request being answered.
    let api: APIRoutes
    var services: VerifierServices { api.services }

    /// The flow's routes, under /v1/applepay.
    static func collection(_ api: APIRoutes, _ idempotent: IdempotentSubmissions) -> RouteCollection<VerifierRequestContext> {
        let routes = RouteCollection(context: VerifierRequestContext.self)
        api.storePost("decrypt", .verification, route: "applepay-decrypt", idempotent, on: routes) {
            try await ApplePayRoutes(api: api.current()).decrypt($0, $1)
        }
        // No store is changed (no Idempotency-Key); the client's verification rate bounds how often it
        // makes this server call Apple, and no slot is held while Apple answers.
        routes.post("session") { request, context in
            let request = try await api.bufferedBody(request, context)
            try api.admitVerification(context)
            return try await ApplePayRoutes(api: api.current()).session(request, context)
        }
        return routes
    }

    /// Merchant validation: the page's `validationURL` is checked against the allow-list before any
    /// connection, then Apple's session object is answered as the bytes received.
    func session(_ request: Request, _ context: VerifierRequestContext) async throws -> Response {
        // The body is read first: a request that cannot be read is a 400 on any server, configured or not.
        let object = try await api.jsonObject(request)
        guard let value = object.value("validationURL") else {
            throw Problem.badRequest("/validationURL: missing; send {\"validationURL\": event.validationURL} from onvalidatemerchant")
        }
        guard let text = value.string else { throw Problem.badRequest("/validationURL: must be a string") }
        guard let validator = services.applePaySessions else {
            throw Problem.notConfigured(
                "Apple Pay merchant validation is not configured on this server: start it with --applepay-identity-cert FILE --applepay-identity-key FILE --applepay-domain DOMAIN --applepay-display-name NAME (the Merchant Identity certificate and its key)"
            )
        }
        let target: ApplePayValidationTarget
        do {
            target = try ApplePayValidationTarget.parse(text, allowed: validator.allowedHosts)
        } catch {
            services.metrics.applePaySession(outcome: "url-refused")
            throw error
        }
        // Each session holds an outbound mTLS connection for up to --fetch-timeout: one client may
        // hold a few at once, the process a bounded number.
        guard let slot = services.merchantValidationSlots.take(client: context.clientKey) else {
            services.metrics.applePaySession(outcome: "busy")
            throw Problem(
                status: .tooManyRequests, type: "rate-limited", title: "Too many merchant validations at once",
                detail:
                    "this client has \(MerchantValidationSlots.perClient) merchant validations in progress (or the service \(MerchantValidationSlots.total)); try again when one has ended",
                retryAfter: 1)
        }
        defer { services.merchantValidationSlots.release(slot) }
        do {
            let session = try await validator.requestSession(target)
            services.metrics.applePaySession(outcome: "created")
            context.logger.info("applepay: merchant session created by \(target.host) (\(session.count) bytes)")
            return Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: session)))
        } catch let failure as ApplePayMerchantValidator.Failure {
            services.metrics.applePaySession(outcome: failure.outcome)
            context.logger.warning("applepay: merchant validation at \(target.host) failed: \(failure.detail)")
            throw Problem(
                status: .badGateway, type: "merchant-validation-failed", title: "Apple Pay merchant validation failed", detail: failure.detail)
        }
    }

    func decrypt(_ request: Request, _ context: VerifierRequestContext) async throws -> Response {
        guard let verifier = services.applePay else {
            throw Problem.notConfigured(
                "Apple Pay is not configured on this server: start it with --applepay-cert FILE --applepay-key FILE (the Payment Processing certificate and its key)"
            )
        }
        let object = try await api.jsonObject(request)
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
                // Tokens carry the ISO 4217 numeric code: "USD" would never match, so it is refused, not compared.
                guard text.utf8.count == 3, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                    throw Problem.badRequest(
                        "/expect/currency: must be the ISO 4217 numeric code, as tokens carry it (840 for USD, 978 for EUR, 826 for GBP), not an alphabetic code"
                    )
                }
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
            if let missing = expectations.currencyCode == nil ? "currency" : expectations.transactionAmount == nil ? "amount" : nil {
                throw Problem.badRequest(
                    "/expect/\(missing): missing; a payment is verified against the currency and the amount charged "
                        + "(\"expect\": {\"currency\": \"840\", \"amount\": 1999}, the amount in minor units); "
                        + "a server started with --applepay-expectations optional accepts tokens without them, with an expectationsMissing warning")
            }
        }
        let start = ContinuousClock.now
        let verification = VerificationContext(
            time: services.clock.now(), clockSkew: .seconds(services.settings.clockSkew), idempotency: context.idempotency)
        // The body was parsed once, strictly; the token's part of that parse is handed over with its bytes.
        let token = Array(tokenData)
        let result = await verifier.verify(token, parsed: value.object, context: verification, expectations: expectations)
        services.metrics.record(flow: "applepay", report: result.report, duration: ContinuousClock.now - start)
        return await api.verificationResponse(result.jsonBytes, report: result.report, context: context) {
            .applePay(result, submission: token, keyRing: verifier.keyRing, testRoot: !verifier.trustAnchor.isAppleRootCAG3)
        }
    }
}
