/// The check ids and reason codes more than one flow module reports. Each module declares only its
/// own beside its checks (`MdocCheckIDs.swift`, `IdentityCheckIDs.swift`, `WebCheckIDs.swift`,
/// `ApplePayCheckIDs.swift`); what two modules share is declared here, once, so that a program
/// importing both sees one name. docs/checks.md and docs/applepay.md list them by check.
extension CheckID {
    /// (request sessions, in-app and web) the request was issued here, is unexpired, was created for
    /// this session, and its nonce is used once — by the first response that opens for it.
    public static let replayNonce: CheckID = "replay.nonce"
}

extension ReasonCode {
    /// A certificate of the chain (a signer, an intermediate or the root) expired before the
    /// verification time: the signer must renew it, or the verification time is wrong.
    public static let certificateExpired: ReasonCode = "certificateExpired"
    /// A certificate of the chain is not yet valid at the verification time: check the verifier's
    /// clock, or the issuer used a certificate too early.
    public static let certificateNotYetValid: ReasonCode = "certificateNotYetValid"
    /// A signature does not verify with the key it names, over the bytes as received: the data was
    /// altered, or was signed by another key than the one it carries.
    public static let signatureInvalid: ReasonCode = "signatureInvalid"
    /// A digest computed over the data as received differs from the signed one (`details` names
    /// which): the data was altered after it was signed. Never accept it.
    public static let digestMismatch: ReasonCode = "digestMismatch"
    /// The digest algorithm the data names is not one this check accepts (the message says which
    /// are); the issuer or signer must use one of them.
    public static let unsupportedDigestAlgorithm: ReasonCode = "unsupportedDigestAlgorithm"
    /// The structure's version is not one this verifier reads (the message says which are): the
    /// sender must use a supported version.
    public static let unsupportedVersion: ReasonCode = "unsupportedVersion"
    /// The encrypted response does not open with the configured key and this request's session
    /// transcript: it was altered, encrypted for another key, or answers another request (origin,
    /// nonce, merchant). Ask the person to retry from this request.
    public static let decryptionFailed: ReasonCode = "decryptionFailed"
    /// The data does not have the shape its specification gives it (the message says which part):
    /// it was damaged, or is not what this endpoint expects.
    public static let malformedStructure: ReasonCode = "malformedStructure"
    /// A request check found no decoded document to compare with the request (every document
    /// failed to decode): see the `mdoc.document.structure` results.
    public static let noDocument: ReasonCode = "noDocument"
    /// The response discloses elements the request did not ask for (`details.unrequested` names
    /// them): a wallet must return only what was requested, so the response is rejected.
    public static let unrequestedElement: ReasonCode = "unrequestedElement"
}
