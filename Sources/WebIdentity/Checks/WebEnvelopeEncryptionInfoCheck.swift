import Crypto
import VerificationCore

/// `web.envelope.encryptionInfo`: the request's EncryptionInfo decodes and names this verifier's
/// recipient key. Request sessions make it depend on `replay.nonce`.
struct WebEnvelopeEncryptionInfoCheck: VerificationCheck {
    let prerequisites: [CheckID]
    var id: CheckID { .webEnvelopeEncryptionInfo }

    func evaluate(_ state: inout WebEnvelopeState, context: VerificationContext) async throws -> CheckOutcome {
        let info: DCAPIEncryptionInfo
        do { info = try DCAPIEncryptionInfo(base64URL: state.encryptionInfo) } catch {
            return .failed(.malformedEncryptionInfo, "The request's encryption info is unusable: \(error).")
        }
        let recipientKey = state.recipientKey.publicKey
        guard info.recipientPublicKey.x963Representation == recipientKey.x963Representation else {
            return .failed(
                .recipientKeyMismatch,
                "The request's encryption info names another recipient key than the one configured here (configured \(WebRecipientKey.thumbprint(recipientKey).prefix(16))…)."
            )
        }
        let nonceSize = info.nonce.count
        return .passed("The encryption info names the configured recipient key and a \(nonceSize)-byte nonce.")
    }
}
