import VerificationCore

extension CheckID {
    /// OpenID4VP over the DC API: the submission holds a compact JWE (`ECDH-ES`, `A128GCM`/`A256GCM`,
    /// P-256 `epk`, the request's `kid`) that decrypts with the request's key, and its payload's `vp_token`
    /// maps credential ids to non-empty lists of base64url DeviceResponses.
    public static let webOpenID4VPResponse: CheckID = "web.openid4vp.response"
    /// Every `vp_token` credential id is one the DCQL query asked for, every credential query is answered
    /// with exactly one presentation,
    /// and each presentation decodes as a DeviceResponse of its query's docType.
    public static let webOpenID4VPCredentials: CheckID = "web.openid4vp.credentials"
}

extension ReasonCode {
    // Reasons returned by the OpenID4VP checks (docs/checks.md lists them by check).
    /// The submission is not `{"response": JWE}`, the credential JSON around it, or a compact JWE.
    public static let malformedResponse: ReasonCode = "malformedResponse"
    /// The wallet answered with an OpenID4VP error (`{"error": …}`) instead of a response.
    public static let walletError: ReasonCode = "walletError"
    /// The JWE uses another `alg` than `ECDH-ES`.
    public static let jweUnsupportedAlgorithm: ReasonCode = "unsupportedAlgorithm"
    /// The JWE uses another `enc` than `A128GCM` or `A256GCM`.
    public static let unsupportedEncryption: ReasonCode = "unsupportedEncryption"
    /// The JWE uses `zip`, `crit` or an encrypted key.
    public static let unsupportedHeader: ReasonCode = "unsupportedHeader"
    /// The JWE `epk` is not a P-256 public key.
    public static let invalidEphemeralKey: ReasonCode = "invalidEphemeralKey"
    /// The JWE names another `kid` than the request offered (or none).
    public static let unknownKeyID: ReasonCode = "unknownKeyID"
    /// The decrypted payload is not a JSON object with a `vp_token` of the mdoc shape.
    public static let malformedVPToken: ReasonCode = "malformedVPToken"
    /// A `vp_token` credential id was not asked for by the DCQL query.
    public static let unrequestedCredential: ReasonCode = "unrequestedCredential"
    /// A credential query of the request has no presentation in the `vp_token`.
    public static let missingCredential: ReasonCode = "missingCredential"
    /// A credential query was answered with several presentations; the request asked for one each
    /// (DCQL `multiple` false): the wallet must return one.
    public static let tooManyPresentations: ReasonCode = "tooManyPresentations"
    /// A presentation does not decode as a DeviceResponse.
    public static let malformedPresentation: ReasonCode = "malformedPresentation"
    /// A DeviceResponse holds another docType than its credential query asked for.
    public static let wrongDocType: ReasonCode = "wrongDocType"
}
