import Crypto
import Mdoc
import VerificationCore
import WalletEncoding
import WalletJOSE
import WalletJSON

/// An OpenID4VP 1.0 request for the W3C Digital Credentials API (Appendix A) asking for mdocs
/// (Appendix B.2) with an encrypted response (§8.3):
/// `{"response_type": "vp_token", "response_mode": "dc_api.jwt", "nonce", "dcql_query", "client_metadata":
/// {"jwks": {"keys": [{…, "kid", "use": "enc", "alg": "ECDH-ES"}]}, "encrypted_response_enc_values_supported",
/// "vp_formats_supported": {"mso_mdoc": {…}}}}`, plus `client_id` and `expected_origins` when signed.
public struct OpenID4VPRequest: Sendable {
    /// The DC API protocol identifier.
    public let `protocol`: OpenID4VPProtocol
    /// The request object (JSON): the `data` member itself when unsigned, the JWS payload when signed.
    public let requestObject: [UInt8]
    /// The DC API `data` member (JSON): the request object, or `{"request": "<JWS>"}` when signed.
    public let data: String
    /// The DCQL query inside the request.
    public let dcqlQuery: DCQLQuery
    /// What the request session keeps for the response.
    public let session: OpenID4VPSession

    /// The encrypted response's `enc` values offered (`encrypted_response_enc_values_supported`).
    public static let encValuesSupported: [JWEContentEncryption] = [.a128gcm, .a256gcm]
    /// `vp_formats_supported.mso_mdoc.issuerauth_alg_values`: ES256, ES384, ES512 (-7, -35, -36) and ESP256 (-9).
    public static let issuerAuthAlgValues = [-7, -35, -36, -9]
    /// `vp_formats_supported.mso_mdoc.deviceauth_alg_values`: device signatures only (the DC API gives no
    /// key agreement for a deviceMac): ES256, ES384, ES512 and ESP256.
    public static let deviceAuthAlgValues = [-7, -35, -36, -9]

    /// Builds the request for `requests` (one credential query per docType) from `origin` (the page's
    /// web origin, as browsers serialize it), encrypted responses going to `recipientPublicKey`
    /// under `keyID` (by default the key's RFC 7638 thumbprint). `nonce` defaults to base64url of 32
    /// fresh random bytes; a given one must be 22 to 512 base64url characters. With `signer`, the request
    /// is signed (`openid4vp-v1-signed`, with `client_id` and `expected_origins`), otherwise unsigned.
    /// Throws ``WebRequestError`` for an invalid request, origin, nonce or key id.
    public init(
        requests: [WebDocumentRequest], origin: String, recipientPublicKey: P256.KeyAgreement.PublicKey, keyID: String? = nil,
        nonce: String? = nil, signer: OpenID4VPRequestSigner? = nil
    ) throws(WebRequestError) {
        try self.init(
            requests: requests, origin: origin, recipientPublicKey: recipientPublicKey, keyID: keyID, nonce: nonce, signer: signer, requestKeyID: nil)
    }

    /// Builds the request as ``init(requests:origin:recipientPublicKey:keyID:nonce:signer:)`` with an
    /// encryption key of its own: the key ``OpenID4VPRequestKey`` derives from `webKey` and
    /// `requestKeyID` (the service passes the request id), named by its thumbprint. The session records
    /// `requestKeyID`, so the response is decrypted with the key derived again from the configured
    /// web keys: an answer opens under this request alone.
    public init(
        requests: [WebDocumentRequest], origin: String, webKey: P256.KeyAgreement.PrivateKey, requestKeyID: String, nonce: String? = nil,
        signer: OpenID4VPRequestSigner? = nil
    ) throws(WebRequestError) {
        guard !requestKeyID.isEmpty, requestKeyID.utf8.count <= 256 else {
            throw WebRequestError("the request key identifier must be 1 to 256 bytes")
        }
        let key = OpenID4VPRequestKey.derive(from: webKey, identifier: requestKeyID)
        try self.init(
            requests: requests, origin: origin, recipientPublicKey: key.publicKey, keyID: nil, nonce: nonce, signer: signer,
            requestKeyID: requestKeyID)
    }

    private init(
        requests: [WebDocumentRequest], origin: String, recipientPublicKey: P256.KeyAgreement.PublicKey, keyID: String?, nonce: String?,
        signer: OpenID4VPRequestSigner?, requestKeyID: String?
    ) throws(WebRequestError) {
        let origin = try WebOrigin.parse(origin)
        let dcql = try DCQLQuery(requests: requests)
        let nonce = nonce ?? Self.freshNonce()
        guard (22...512).contains(nonce.utf8.count), nonce.utf8.allSatisfy({ Base64.isURLAlphabet($0) }) else {
            throw WebRequestError("the nonce must be 22 to 512 base64url characters (at least 16 random bytes)")
        }
        let thumbprint = JWK(publicKey: recipientPublicKey).thumbprint
        let keyID = keyID ?? Base64.encodeURL(thumbprint)
        guard WebDocumentRequest.isName(keyID) else { throw WebRequestError("the key id must be 1 to 256 visible characters") }
        let jwk = JWK(publicKey: recipientPublicKey, keyID: keyID, use: "enc", algorithm: "ECDH-ES")

        var writer = JSONWriter(capacity: 2048)
        writer.raw("{")
        if let signer {
            writer.key("client_id")
            writer.string(signer.clientID)
            writer.raw(",")
            writer.key("expected_origins")
            writer.raw("[")
            writer.string(origin)
            writer.raw("],")
        }
        writer.key("response_type")
        writer.string("vp_token")
        writer.raw(",")
        writer.key("response_mode")
        writer.string("dc_api.jwt")
        writer.raw(",")
        writer.key("nonce")
        writer.string(nonce)
        writer.raw(",")
        writer.key("dcql_query")
        dcql.write(to: &writer)
        writer.raw(",")
        writer.key("client_metadata")
        writer.raw("{")
        writer.key("jwks")
        writer.raw("{")
        writer.key("keys")
        writer.raw("[")
        jwk.write(to: &writer)
        writer.raw("]},")
        writer.key("encrypted_response_enc_values_supported")
        writer.raw("[" + Self.encValuesSupported.map { "\"\($0.rawValue)\"" }.joined(separator: ",") + "],")
        writer.key("vp_formats_supported")
        writer.raw("{")
        writer.key("mso_mdoc")
        writer.raw("{")
        writer.key("issuerauth_alg_values")
        writer.raw("[" + Self.issuerAuthAlgValues.map(String.init).joined(separator: ",") + "],")
        writer.key("deviceauth_alg_values")
        writer.raw("[" + Self.deviceAuthAlgValues.map(String.init).joined(separator: ",") + "]")
        writer.raw("}}}}")
        let requestObject = writer.bytes

        if let signer {
            let jws = try signer.sign(requestObject: requestObject)
            var data = JSONWriter(capacity: jws.utf8.count + 16)
            data.raw("{")
            data.key("request")
            data.string(jws)
            data.raw("}")
            self.data = data.text
            self.protocol = .signed
        } else {
            self.data = String(decoding: requestObject, as: UTF8.self)
            self.protocol = .unsigned
        }
        self.requestObject = requestObject
        self.dcqlQuery = dcql
        var credentials: [String: WebDocumentRequest] = [:]
        for query in dcql.credentials { credentials[query.id] = query.request }
        self.session = OpenID4VPSession(
            protocol: self.protocol, nonce: nonce, origin: origin, jwkThumbprint: Base64.encodeURL(thumbprint), keyID: keyID,
            clientID: signer?.clientID, credentials: credentials, requestKeyID: requestKeyID)
    }

    /// base64url of 32 bytes from the system CSPRNG.
    public static func freshNonce() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64.encodeURL((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// One entry of the DC API's `digital.requests`: `{"protocol": "openid4vp-v1-…", "data": …}`.
    public var digitalCredentialsRequest: String {
        "{\"protocol\":\"\(self.protocol.rawValue)\",\"data\":\(data)}"
    }

    /// The session transcript the wallet signs: ``SessionTranscript/openID4VPDigitalCredentials(origin:nonce:jwkThumbprint:)``.
    public var sessionTranscript: SessionTranscript { session.sessionTranscript }
}

extension OpenID4VPRequest: CustomStringConvertible {
    /// The protocol, origin, key id and credential ids; never the nonce (which is in the data).
    public var description: String { "OpenID4VPRequest(\(session))" }
}

extension OpenID4VPSession: CustomStringConvertible {
    /// The session transcript of responses to this request:
    /// `[null, null, ["OpenID4VPDCAPIHandover", SHA-256(CBOR([origin, nonce, jwkThumbprint]))]]`.
    public var sessionTranscript: SessionTranscript {
        .openID4VPDigitalCredentials(origin: origin, nonce: nonce, jwkThumbprint: Base64.decodeURL(jwkThumbprint) ?? [])
    }

    /// The protocol, origin, key id and credential ids; never the nonce.
    public var description: String {
        "OpenID4VPSession(\(self.protocol.rawValue), \(origin), kid \(keyID), credentials \(credentials.keys.sorted().joined(separator: ",")))"
    }
}
