import VerificationCore

extension CheckID {
    /// The envelope decodes, algorithm is APPLE-HPKE-v1, mode 0.
    public static let identityEnvelopeStructure: CheckID = "identity.envelope.structure"
    /// pkRHash selects one of the configured encryption keys.
    public static let identityEnvelopeRecipientKey: CheckID = "identity.envelope.recipientKey"
    /// SHA-256 of the session transcript built from nonce, merchant id, team id and pkRHash equals infoHash.
    public static let identityEnvelopeTranscript: CheckID = "identity.envelope.transcript"
    /// HPKE base-mode open succeeds.
    public static let identityEnvelopeDecryption: CheckID = "identity.envelope.decryption"
    /// The plaintext is {"identity": DeviceResponse} with exactly one document.
    public static let identityPlaintextStructure: CheckID = "identity.plaintext.structure"
    /// The request nonce is known, unexpired and used for the first time.
    public static let replayNonce: CheckID = "replay.nonce"
    /// Every returned element was requested, and the document type fits the request.
    public static let identityRequestElements: CheckID = "identity.request.elements"
    /// age(atLeast:) is answered (age_over_NN, or age_in_years / birth_date as PassKit falls back).
    public static let identityRequestAge: CheckID = "identity.request.age"
}

extension ReasonCode {
    /// `identity.request.age`: the response answers age(atLeast: N) with "no".
    public static let ageBelowMinimum: ReasonCode = "ageBelowMinimum"
}

extension ReasonCode {
    // Reasons returned by this module's checks (docs/checks.md lists them by check).
    /// Reason `ageNotAnswered` (docs/checks.md).
    public static let ageNotAnswered: ReasonCode = "ageNotAnswered"
    /// For example: "The DeviceResponse holds…"
    public static let documentCount: ReasonCode = "documentCount"
    /// For example: "SHA-256 of the session transcript does not equal the envelope's infoHash:…"
    public static let infoHashMismatch: ReasonCode = "infoHashMismatch"
    /// For example: "No configured identity encryption key matches pkRHash…"
    public static let noMatchingKey: ReasonCode = "noMatchingKey"
    /// For example: "The request was created for another session."
    public static let sessionMismatch: ReasonCode = "sessionMismatch"
    /// For example: "The envelope algorithm is \"…"
    public static let unsupportedAlgorithm: ReasonCode = "unsupportedAlgorithm"
    /// For example: "The envelope HPKE mode is…"
    public static let unsupportedMode: ReasonCode = "unsupportedMode"
}
