/// The OpenID4VP protocols of the Digital Credentials API this verifier speaks (OpenID4VP 1.0 Appendix A.1).
public enum OpenID4VPProtocol: String, Sendable, Hashable, Codable, CaseIterable {
    /// The request object is the `data` member itself; the wallet's client identifier is `origin:<origin>`.
    case unsigned = "openid4vp-v1-unsigned"
    /// `data` is `{"request": <JWS>}`: a signed request object (JWS compact serialization).
    case signed = "openid4vp-v1-signed"
}

/// What a request session keeps of an OpenID4VP request, for the transcript and the checks of its
/// response: versioned, and small (no keys, no certificates). Records written by older versions
/// keep decoding: members added later are optional.
public struct OpenID4VPSession: Sendable, Hashable, Codable {
    /// The record's format; 1 for this version.
    public var version: Int
    /// The protocol the request was offered with.
    public var `protocol`: OpenID4VPProtocol
    /// The request's `nonce` (secret until answered: never shown in messages or descriptions).
    public var nonce: String
    /// The page's origin, as it goes into the transcript.
    public var origin: String
    /// The RFC 7638 SHA-256 thumbprint (base64url) of the encryption key offered in `client_metadata.jwks`.
    public var jwkThumbprint: String
    /// The `kid` of that key, which the response's JWE must name.
    public var keyID: String
    /// The signed request's `client_id` (`x509_san_dns:…`, `x509_hash:…`); nil for an unsigned request.
    public var clientID: String?
    /// What each credential query asked for, by credential query id.
    public var credentials: [String: WebDocumentRequest]
    /// The identifier the request's own encryption key was derived from (``OpenID4VPRequestKey``):
    /// the response is decrypted with the key derived from a configured web key and this identifier.
    /// Nil in records written before requests had keys of their own (version 1): their key is a
    /// configured web key itself.
    public var requestKeyID: String?

    /// The current record format: 2 for a request with a key of its own.
    public static let currentVersion = 2

    /// A record of the current version.
    public init(
        protocol: OpenID4VPProtocol, nonce: String, origin: String, jwkThumbprint: String, keyID: String, clientID: String?,
        credentials: [String: WebDocumentRequest], requestKeyID: String? = nil
    ) {
        // A record without a key of its own is written as version 1 was, so older readers keep reading it.
        self.version = requestKeyID == nil ? 1 : Self.currentVersion
        self.requestKeyID = requestKeyID
        self.protocol = `protocol`
        self.nonce = nonce
        self.origin = origin
        self.jwkThumbprint = jwkThumbprint
        self.keyID = keyID
        self.clientID = clientID
        self.credentials = credentials
    }

    enum CodingKeys: String, CodingKey {
        case version, `protocol`, nonce, origin, jwkThumbprint, keyID, clientID, credentials, requestKeyID
    }

    /// Decodes a record of any version so far (`version` absent means 1).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        version = try c.decodeIfPresent(Int.self, forKey: .version) ?? 1
        `protocol` = try c.decode(OpenID4VPProtocol.self, forKey: .protocol)
        nonce = try c.decode(String.self, forKey: .nonce)
        origin = try c.decode(String.self, forKey: .origin)
        jwkThumbprint = try c.decode(String.self, forKey: .jwkThumbprint)
        keyID = try c.decode(String.self, forKey: .keyID)
        clientID = try c.decodeIfPresent(String.self, forKey: .clientID)
        credentials = try c.decode([String: WebDocumentRequest].self, forKey: .credentials)
        requestKeyID = try c.decodeIfPresent(String.self, forKey: .requestKeyID)
    }

    /// Encodes every member, `version` included.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(version, forKey: .version)
        try c.encode(`protocol`, forKey: .protocol)
        try c.encode(nonce, forKey: .nonce)
        try c.encode(origin, forKey: .origin)
        try c.encode(jwkThumbprint, forKey: .jwkThumbprint)
        try c.encode(keyID, forKey: .keyID)
        try c.encodeIfPresent(clientID, forKey: .clientID)
        try c.encode(credentials, forKey: .credentials)
        try c.encodeIfPresent(requestKeyID, forKey: .requestKeyID)
    }
}
