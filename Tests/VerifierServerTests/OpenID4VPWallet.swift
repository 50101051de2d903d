import Crypto
import Foundation
import Mdoc
import Testing
import WalletEncoding
import WalletJOSE
import WalletVerifierTestSupport

/// A wallet's side of OpenID4VP over the DC API, for the service tests: reads the OpenID4VP request
/// of a `POST /v1/web/requests` answer (the unsigned `data`, or the signed JWS's payload), signs a
/// DeviceResponse for its transcript and encrypts `{"vp_token": {id: [DeviceResponse]}}` to the
/// request's key (JWE, ECDH-ES).
enum OpenID4VPWallet {
    /// The OpenID4VP entry of a created request's argument.
    struct Request {
        /// `openid4vp-v1-signed` or `openid4vp-v1-unsigned`.
        var protocolName: String
        /// The request object (the unsigned `data`, or the JWS payload).
        var object: [String: Any]
        /// The JWS, when signed.
        var jws: String?

        var nonce: String { object["nonce"] as? String ?? "" }
        var jwk: [String: Any] {
            (((object["client_metadata"] as? [String: Any])?["jwks"] as? [String: Any])?["keys"] as? [[String: Any]])?.first ?? [:]
        }
        var credentialIDs: [String] {
            ((object["dcql_query"] as? [String: Any])?["credentials"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
        }

        /// RFC 7638: SHA-256 of `{"crv","kty","x","y"}` in that order, without whitespace.
        var jwkThumbprint: [UInt8] {
            let text = #"{"crv":"P-256","kty":"EC","x":"\#(jwk["x"] as? String ?? "")","y":"\#(jwk["y"] as? String ?? "")"}"#
            return Array(SHA256.hash(data: Data(text.utf8)))
        }

        /// The encryption key of `client_metadata.jwks`.
        func recipientKey() throws -> P256.KeyAgreement.PublicKey {
            let x = try #require((jwk["x"] as? String).flatMap(Base64.decodeURL))
            let y = try #require((jwk["y"] as? String).flatMap(Base64.decodeURL))
            return try P256.KeyAgreement.PublicKey(x963Representation: [0x04] + x + y)
        }
    }

    /// The OpenID4VP request of a created request (nil when it offers none).
    static func request(_ created: [String: Any]) throws -> Request? {
        let argument = try #require(created["navigatorCredentialsGetArgument"] as? [String: Any])
        let requests = try #require((argument["digital"] as? [String: Any])?["requests"] as? [[String: Any]])
        guard let entry = requests.first(where: { ($0["protocol"] as? String)?.hasPrefix("openid4vp-v1-") == true }) else { return nil }
        let name = try #require(entry["protocol"] as? String)
        let data = try #require(entry["data"] as? [String: Any])
        if name == "openid4vp-v1-signed" {
            let jws = try #require(data["request"] as? String)
            let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
            try #require(parts.count == 3)
            let payload = try #require(Base64.decodeURL(String(parts[1])))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
            return Request(protocolName: name, object: object, jws: jws)
        }
        return Request(protocolName: name, object: data, jws: nil)
    }

    /// The Annex C encryption info of a created request (nil when it offers no Annex C).
    static func encryptionInfo(_ created: [String: Any]) -> String? {
        let argument = created["navigatorCredentialsGetArgument"] as? [String: Any]
        let requests = (argument?["digital"] as? [String: Any])?["requests"] as? [[String: Any]] ?? []
        return (requests.first { $0["protocol"] as? String == "org-iso-mdoc" }?["data"] as? [String: Any])?["encryptionInfo"] as? String
    }

    /// The credential a page receives: `{"protocol", "data": {"response": JWE}}` for `mdoc`'s
    /// DeviceResponse signed for the transcript of `origin`, the request's nonce and key (each can be
    /// overridden to make a wrong answer, as can the whole transcript the device signs).
    static func credential(
        for request: Request, origin: String, mdoc: MdocFixture, pki: MdocPKI, nonce: String? = nil, credentialID: String? = nil,
        encryptTo: P256.KeyAgreement.PublicKey? = nil, keyID: String? = nil, encryption: JWEContentEncryption = .a128gcm, presentations: Int = 1,
        transcript signed: SessionTranscript? = nil
    ) throws -> [String: Any] {
        let transcript =
            signed
            ?? SessionTranscript.openID4VPDigitalCredentials(origin: origin, nonce: nonce ?? request.nonce, jwkThumbprint: request.jwkThumbprint)
        var encoded: [String] = []
        for _ in 0..<presentations {
            encoded.append(Base64.encodeURL(try mdoc.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)))
        }
        let first = try #require(request.credentialIDs.first)
        let id = credentialID ?? first
        let payload = try JSONSerialization.data(withJSONObject: ["vp_token": [id: encoded]])
        let jwe = try JWE.encrypt(
            Array(payload), to: try encryptTo ?? request.recipientKey(), encryption: encryption, keyID: keyID ?? (request.jwk["kid"] as? String))
        return ["protocol": request.protocolName, "data": ["response": jwe]]
    }
}
