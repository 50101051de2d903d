import Mdoc
import VerificationCore

/// What the in-app envelope checks read and leave for each other: the caller's inputs, then the
/// envelope, the selected key, the session transcript, the plaintext and the DeviceResponse, each set
/// by the check that establishes it.
struct IdentityEnvelopeState {
    /// `encryptedData` as received from PassKit.
    let encryptedData: [UInt8]
    /// The nonce the app passed to its PKIdentityRequest.
    let nonce: [UInt8]
    /// The merchant identifier of the transcript.
    let merchantID: String
    /// The team identifier of the transcript.
    let teamID: String
    /// The keys that may open the envelope.
    let keyRing: IdentityKeyRing
    /// Set by `identity.envelope.structure`.
    var envelope: AppleHPKEEnvelope?
    /// Set by `identity.envelope.recipientKey`.
    var key: IdentityKeyRing.Key?
    /// Set by `identity.envelope.transcript`.
    var transcript: SessionTranscript?
    /// Set by `identity.envelope.decryption`.
    var plaintext: [UInt8]?
    /// Set by `identity.plaintext.structure`.
    var response: DeviceResponse?
}
