import Crypto
import Foundation
import Mdoc
import VerificationCore
import WalletCBOR

/// `web.envelope.decryption`: HPKE (DHKEM P-256, HKDF-SHA256, AES-128-GCM, base mode) opens the
/// cipher text with info = the dcapi session transcript and empty aad.
struct WebEnvelopeDecryptionCheck: VerificationCheck {
    static let ciphersuite = HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_128)

    var id: CheckID { .webEnvelopeDecryption }
    var prerequisites: [CheckID] { [.webEnvelopeStructure, .webEnvelopeEncryptionInfo] }

    func evaluate(_ state: inout WebEnvelopeState, context: VerificationContext) async throws -> CheckOutcome {
        guard let envelope = state.envelope else { return .notEvaluated(because: .webEnvelopeStructure) }
        let origin = state.origin
        do {
            var recipient = try HPKE.Recipient(
                privateKey: state.recipientKey, ciphersuite: Self.ciphersuite, info: Data(state.transcript.encodedBytes),
                encapsulatedKey: Data(envelope.enc))
            state.plaintext = [UInt8](try recipient.open(envelope.cipherText, authenticating: Data()))
        } catch {
            return .failed(
                .decryptionFailed,
                "HPKE (DHKEM P-256, HKDF-SHA256, AES-128-GCM) could not open the response: the cipher text or enc was altered, or the wallet used another origin or encryption info than \(origin) and this request's.",
                details: ["origin": origin])
        }
        return .passed { ("HPKE opened the response with the session transcript for origin \(origin).", ["origin": origin]) }
    }
}
