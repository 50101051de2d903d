import VerificationCore

extension CheckID {
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
}

extension ReasonCode {
    // Reasons returned by this module's checks (docs/checks.md lists them by check).
    /// `web.envelope.encryptionInfo`: the request's EncryptionInfo does not decode: it is not the one this verifier issued.
    public static let malformedEncryptionInfo: ReasonCode = "malformedEncryptionInfo"
    /// `replay.nonce` (error, web request sessions): no web recipient key is configured, so no Annex C response can be opened: configure
    /// one.
    public static let noRecipientKey: ReasonCode = "noRecipientKey"
    /// `web.envelope.encryptionInfo`: the request's EncryptionInfo names another recipient key than the configured one: the request was
    /// issued by another verifier or with a retired key.
    public static let recipientKeyMismatch: ReasonCode = "recipientKeyMismatch"
    /// `reader.auth.signature`: the reader certificate's key is neither P-256 nor P-384: the reader signature cannot be checked.
    public static let unsupportedReaderKey: ReasonCode = "unsupportedReaderKey"
}
