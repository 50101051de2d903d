import Foundation
import Hummingbird
import VerificationCore
import VerificationReceipts
import WalletEncoding
import WalletIdentity
import WalletJSON

/// Verify with Wallet in apps: `POST /v1/identity/requests` creates a request session (its nonce goes
/// into the app's request), `POST /v1/identity/verify` verifies the encrypted response against it.
struct IdentityRoutes: Sendable {
    /// The shared request handling, with the configuration of the request being answered.
    let api: APIRoutes
    var services: VerifierServices { api.services }

    /// The flow's routes, under /v1/identity.
    static func collection(_ api: APIRoutes, _ idempotent: IdempotentSubmissions) -> RouteCollection<VerifierRequestContext> {
        let routes = RouteCollection(context: VerifierRequestContext.self)
        api.storePost("requests", .creation, route: "identity-requests", idempotent, on: routes) {
            try await IdentityRoutes(api: api.current()).configured().createRequest($0, $1)
        }
        api.storePost("verify", .verification, route: "identity-verify", idempotent, on: routes) {
            try await IdentityRoutes(api: api.current()).configured().verify($0, $1)
        }
        return routes
    }

    /// These routes, or a 501 (not configured) with `--identity off`.
    func configured() throws -> IdentityRoutes {
        guard services.settings.identityFlow else {
            services.metrics.requestRejected(reason: "not-configured")
            throw Problem.notConfigured(
                "Verify with Wallet in apps is off on this server (--identity off): start it with --identity on and --identity-key FILE --merchant-id ID --team-id ID"
            )
        }
        return self
    }

    func createRequest(_ request: Request, _ context: VerifierRequestContext) async throws -> Response {
        let object = try await api.jsonObject(request)
        guard let descriptorJSON = object.raw("descriptor") else { throw Problem.badRequest("/descriptor: missing") }
        let limits = services.identity.limits
        if let count = object.value("descriptor")?.object?["elements"]?.array?.count, count > limits.maxElements {
            throw Problem.badRequest(
                "/descriptor/elements: \(count) elements; a request may ask for at most \(limits.maxElements) (serve --max-request-elements)")
        }
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
        } catch let error as DescriptorError where error.code == .requestTooLarge {
            // Past the element cap (checked above), what makes a session large is its binding.
            throw Problem.badRequest("\(binding == nil ? "/descriptor" : "/sessionBinding"): \(error.message) (serve --max-request-session-bytes)")
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

    func verify(_ request: Request, _ context: VerifierRequestContext) async throws -> Response {
        let object = try await api.jsonObject(request)
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
        return await api.verificationResponse(result.jsonBytes(), report: result.report, context: context) {
            .identity(result, submission: data, requestID: requestID)
        }
    }
}
