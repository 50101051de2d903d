import Crypto
import Mdoc
import VerificationCore

/// What the Annex C envelope checks read and leave for each other: the caller's inputs, then the
/// envelope, the plaintext and the DeviceResponse, each set by the check that establishes it.
struct WebEnvelopeState {
    /// The EncryptedResponse as received.
    let response: [UInt8]
    /// The request's EncryptionInfo, base64url as sent to the browser.
    let encryptionInfo: String
    /// The origin the browser reported.
    let origin: String
    /// The configured recipient key.
    let recipientKey: P256.KeyAgreement.PrivateKey
    /// The dcapi session transcript of the encryption info and the origin.
    let transcript: SessionTranscript
    /// Set by `web.envelope.structure`.
    var envelope: DCAPIEncryptedResponse?
    /// Set by `web.envelope.decryption`.
    var plaintext: [UInt8]?
    /// Set by `web.plaintext.structure`.
    var deviceResponse: DeviceResponse?
}
