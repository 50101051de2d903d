import Foundation
import WalletEncoding
import WalletJSON
import WebIdentity

/// The parts of the web endpoints that choose and read a protocol: `protocols` of
/// `POST /v1/web/requests`, and the credential of `POST /v1/web/verify` for either protocol.
extension WebRoutes {
    /// `/protocols`: absent (or null) means the deployment's default set; otherwise a non-empty array
    /// of distinct protocol identifiers, each one this deployment can offer.
    func webProtocols(_ object: JSONBody) throws(Problem) -> [WebRequestProtocol] {
        guard let value = object.value("protocols"), value != .null else { return services.defaultWebProtocols }
        guard let items = value.array, !items.isEmpty else {
            throw Problem.badRequest("/protocols: must list one or more of org-iso-mdoc, openid4vp-v1-signed, openid4vp-v1-unsigned")
        }
        var chosen: [WebRequestProtocol] = []
        for (index, item) in items.enumerated() {
            guard let name = item.string, let parsed = WebRequestProtocol(rawValue: name) else {
                throw Problem.badRequest("/protocols/\(index): must be org-iso-mdoc, openid4vp-v1-signed or openid4vp-v1-unsigned")
            }
            guard !chosen.contains(parsed) else { throw Problem.badRequest("/protocols/\(index): \(name) is named twice") }
            if parsed == .openID4VPSigned && services.requestSigning == nil {
                throw Problem.badRequest(
                    "/protocols/\(index): openid4vp-v1-signed needs a request-signing key on this server (serve --request-signing-key and --request-signing-cert, or --reader-key and --reader-cert)"
                )
            }
            chosen.append(parsed)
        }
        if chosen.contains(.openID4VPSigned) && chosen.contains(.openID4VPUnsigned) {
            throw Problem.badRequest(
                "/protocols: offer one of openid4vp-v1-signed and openid4vp-v1-unsigned, not both (a wallet could answer the unsigned one)")
        }
        return WebRequestProtocol.ordered(chosen)
    }

    /// The signer of OpenID4VP request objects, when one is configured.
    var openID4VPRequestSigner: OpenID4VPRequestSigner? { services.requestSigning?.requestSigner }

    /// `/credential` as `navigator.credentials.get` returned it, for either protocol:
    /// `{"protocol": "org-iso-mdoc", "data": {"response": base64url}}` or
    /// `{"protocol": "openid4vp-v1-signed" | "openid4vp-v1-unsigned", "data": {"response": JWE}}`.
    func webCredential(_ credential: StrictJSON.Value, raw: ArraySlice<UInt8>?) throws(Problem) -> WebCredential {
        guard let fields = credential.object else {
            throw Problem.badRequest("/credential: must be the object navigator.credentials.get returned")
        }
        guard let name = fields["protocol"]?.string, let answered = WebRequestProtocol(rawValue: name) else {
            throw Problem.badRequest("/credential/protocol: must be \"org-iso-mdoc\", \"openid4vp-v1-signed\" or \"openid4vp-v1-unsigned\"")
        }
        guard let text = fields["data"]?.object?["response"]?.string else {
            throw Problem.badRequest(
                answered == .annexC ? "/credential/data/response: missing or not base64url" : "/credential/data/response: missing; it must be the JWE"
            )
        }
        if answered == .annexC {
            // Exactly as before OpenID4VP: base64url, then the EncryptedResponse bytes of the whole credential.
            guard text.utf8.allSatisfy({ Base64.isURLAlphabet($0) || $0 == UInt8(ascii: "=") }), let bytes = Base64.decodeLenient(text),
                !bytes.isEmpty
            else {
                throw Problem.badRequest("/credential/data/response: missing or not base64url")
            }
            guard let raw, let decoded = try? DCAPIEncryptedResponse.responseBytes(fromSubmission: Array(raw)) else {
                throw Problem.badRequest("/credential: not an org-iso-mdoc response")
            }
            return .annexC(decoded)
        }
        do {
            return try WebCredential(protocol: name, response: text)
        } catch {
            throw Problem.badRequest("/credential/data/response: \(error)")
        }
    }
}
