import VerificationCore

extension CheckID {
    /// (request sessions) the request was issued here, is unexpired, and its nonce is used once.
    public static let webNonce: CheckID = "replay.nonce"
    /// The response is `["dcapi", {"enc": bstr, "cipherText": bstr}]`.
    public static let webEnvelopeStructure: CheckID = "web.envelope.structure"
    /// The request's EncryptionInfo decodes and names this verifier's recipient key.
    public static let webEnvelopeEncryptionInfo: CheckID = "web.envelope.encryptionInfo"
    /// HPKE (P-256, HKDF-SHA256, AES-128-GCM) opens the cipher text with info = the dcapi session transcript.
    public static let webEnvelopeDecryption: CheckID = "web.envelope.decryption"
    /// The plaintext is a DeviceResponse.
    public static let webPlaintextStructure: CheckID = "web.plaintext.structure"
    /// (with a request) the docType is the requested one and every returned element was requested.
    public static let webRequestElements: CheckID = "web.request.elements"
}

extension CheckID {
    /// The DeviceRequest decodes and carries reader authentication (readerAuth or readerAuthAll).
    public static let readerRequestStructure: CheckID = "reader.request.structure"
    /// A DocRequest's ItemsRequest (inside its tag-24 item) decodes: docType and nameSpaces.
    public static let readerRequestItems: CheckID = "reader.request.items"
    /// The COSE_Sign1 verifies with the leaf certificate's key over ReaderAuthentication(All)Bytes.
    public static let readerAuthSignature: CheckID = "reader.auth.signature"
    /// The x5chain chains to a trusted reader root (or the leaf is pinned), valid at the verification time.
    public static let readerAuthChain: CheckID = "reader.auth.chain"
    /// The leaf follows the reader-authentication certificate profile of ISO/IEC 18013-5 Annex B.
    public static let readerAuthProfile: CheckID = "reader.auth.profile"
}

extension ReasonCode {
    /// A DocRequest carries no readerAuth and the request has no readerAuthAll.
    public static let readerAuthMissing: ReasonCode = "readerAuthMissing"
    /// A reader signature does not verify over the ReaderAuthentication(All)Bytes of the request.
    public static let readerSignatureInvalid: ReasonCode = "readerSignatureInvalid"
    /// The reader certificate does not chain to a trusted reader root.
    public static let untrustedReader: ReasonCode = "untrustedReader"
    /// The reader certificate breaks the ISO/IEC 18013-5 Annex B reader-authentication profile.
    public static let readerProfileViolation: ReasonCode = "profileViolation"
    /// The DeviceRequest version is not 1.x, or is 1.0 while carrying 1.1 fields (readerAuthAll, deviceRequestInfo).
    public static let unsupportedRequestVersion: ReasonCode = "unsupportedVersion"
}

extension ReasonCode {
    // Reasons returned by this module's checks (docs/checks.md lists them by check).
    /// For example: "The request's encryption info is unusable:…"
    public static let malformedEncryptionInfo: ReasonCode = "malformedEncryptionInfo"
    /// For example: "No web recipient key is configured."
    public static let noRecipientKey: ReasonCode = "noRecipientKey"
    /// For example: "The request's encryption info names another recipient key than the one configured here (configured…"
    public static let recipientKeyMismatch: ReasonCode = "recipientKeyMismatch"
    /// For example: "The reader certificate's key is neither P-256 nor P-384."
    public static let unsupportedReaderKey: ReasonCode = "unsupportedReaderKey"
}
