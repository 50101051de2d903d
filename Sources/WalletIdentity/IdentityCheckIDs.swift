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
    /// `identity.request.age`: the response holds neither age_over_NN nor age_in_years or birth_date that decide age(atLeast: N): request
    /// the age element again, or treat the age as unknown.
    public static let ageNotAnswered: ReasonCode = "ageNotAnswered"
    /// `identity.plaintext.structure`: the DeviceResponse holds no document or more than one, where Apple's in-app flow returns exactly
    /// one: the response did not come from PassKit; reject it.
    public static let documentCount: ReasonCode = "documentCount"
    /// `identity.envelope.transcript`: SHA-256 of the session transcript (nonce, merchant id, team id, pkRHash) differs from the envelope's
    /// infoHash: the response answers another request or merchant, or the nonce given is not the one the app used.
    public static let infoHashMismatch: ReasonCode = "infoHashMismatch"
    /// `identity.envelope.recipientKey`: no configured identity encryption key has the envelope's pkRHash: the response was encrypted to a
    /// key this verifier does not hold (configure it, or the merchant setup differs).
    public static let noMatchingKey: ReasonCode = "noMatchingKey"
    /// `replay.nonce`: the request was created for another session than the one submitting the response: the response was carried over from
    /// another session; reject it.
    public static let sessionMismatch: ReasonCode = "sessionMismatch"
    /// `identity.envelope.structure`: the envelope names another algorithm than APPLE-HPKE-v1: it was not produced by Apple's in-app flow.
    public static let unsupportedAlgorithm: ReasonCode = "unsupportedAlgorithm"
    /// `identity.envelope.structure`: the envelope's HPKE mode is not 0 (base): it was not produced by Apple's in-app flow.
    public static let unsupportedMode: ReasonCode = "unsupportedMode"
}
