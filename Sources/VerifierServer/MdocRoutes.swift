import Crypto
import Foundation
import Hummingbird
import Mdoc
import MdocVerifier
import VerificationCore
import VerificationReceipts
import WalletEncoding
import WalletIdentity

/// ISO/IEC 18013-5 terminal input: `POST /v1/mdoc/verify`. It changes no store (no nonce of this
/// service is consumed), so it takes no Idempotency-Key; it is rate-limited and runs in a slot.
struct MdocRoutes: Sendable {
    /// The shared request handling, with the configuration of the request being answered.
    let api: APIRoutes
    var services: VerifierServices { api.services }

    /// The flow's routes, under /v1/mdoc.
    static func collection(_ api: APIRoutes) -> RouteCollection<VerifierRequestContext> {
        let routes = RouteCollection(context: VerifierRequestContext.self)
        routes.post("verify") { request, context in
            let request = try await api.bufferedBody(request, context)
            try api.admitVerification(context)
            return try await api.inSlot(context) { try await MdocRoutes(api: api.current()).verify(request, context) }
        }
        return routes
    }

    /// ISO/IEC 18013-5 terminal input as it comes (ProximityReader's raw data, an ISO reader): the
    /// DeviceResponse, the SessionTranscript and, for deviceMac, the reader's ephemeral key — the same
    /// checks and report as `mdoc verify` (ISO strict policy; the passport rules by docType).
    func verify(_ request: Request, _ context: VerifierRequestContext) async throws -> Response {
        let object = try await api.jsonObject(request)
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
        let result = await verifier.verify(
            deviceResponse: responseBytes, transcript: transcript, readerKey: readerKey, context: .at(time),
            explainDeviceFailures: services.settings.explainDeviceFailures)
        // A deviceMac response cannot be decided without the reader's key: when that is all that keeps the
        // verdict open, it is a request to complete (400), not an outage to retry (the check is an error,
        // which would answer 503). A response rejected anyway gets its report.
        if readerKey == nil, result.report.verdict == .indeterminate,
            result.report.checks.contains(where: { $0.id == .mdocDeviceAuthentication && $0.reason == .readerKeyRequired })
        {
            throw Problem.badRequest(
                "/readerKey: missing; the DeviceResponse is authenticated with deviceMac, which is checked with the reader's ephemeral private key (EReaderKey) the session used"
            )
        }
        services.metrics.record(flow: "mdoc", report: result.report, duration: ContinuousClock.now - start)
        return await api.verificationResponse(result.jsonBytes(), report: result.report, context: context) {
            .mdoc(result, submission: responseBytes)
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
        policy.maxDocuments = settings.maxDocuments
        let mdocVerifier = MdocVerifier(sharing: identity.verifier.mdocVerifier, policy: policy)
        return MdocFlowVerifier(mdocVerifier: mdocVerifier, revocation: revocation ?? identity.verifier.revocation)
    }
}
