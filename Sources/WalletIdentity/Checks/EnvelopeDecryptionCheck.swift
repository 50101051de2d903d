import Crypto
import Foundation
import Mdoc
import MdocVerifier
import VerificationCore
import WalletCBOR

/// `identity.envelope.decryption`: HPKE (DHKEM P-256, HKDF-SHA256, AES-128-GCM, base mode) opens the
/// data with the selected key, pkEm and the session transcript as info.
struct EnvelopeDecryptionCheck: VerificationCheck {
    private static let requires: [CheckID] = [.identityEnvelopeRecipientKey, .identityEnvelopeTranscript]
    var id: CheckID { .identityEnvelopeDecryption }
    var prerequisites: [CheckID] { Self.requires }

    func evaluate(_ state: inout IdentityEnvelopeState, context: VerificationContext) async throws -> CheckOutcome {
        guard let envelope = state.envelope, let key = state.key, let transcript = state.transcript else {
            return .notEvaluated(because: .identityEnvelopeTranscript)
        }
        do {
            // HPKE.Recipient.open is mutating: the recipient is a var.
            var recipient = try HPKE.Recipient(
                privateKey: key.privateKey, ciphersuite: AppleIdentityVerifier.ciphersuite, info: Data(transcript.encodedBytes),
                encapsulatedKey: Data(envelope.pkEm))
            state.plaintext = [UInt8](try recipient.open(envelope.data, authenticating: Data()))
        } catch {
            return .failed(
                .decryptionFailed,
                "HPKE (DHKEM P-256, HKDF-SHA256, AES-128-GCM) could not open the data: the ciphertext or pkEm was altered, or another key or transcript was used."
            )
        }
        // The message captures the key's label, not the key.
        let label = key.label
        return .passed("HPKE opened the response with key \(label).")
    }
}
