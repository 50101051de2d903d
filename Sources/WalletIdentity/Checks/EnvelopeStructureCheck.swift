import MdocVerifier
import VerificationCore
import WalletCBOR

/// `identity.envelope.structure`: encryptedData is an APPLE-HPKE-v1 envelope in HPKE base mode with
/// 32-byte pkRHash and infoHash.
struct EnvelopeStructureCheck: VerificationCheck {
    var id: CheckID { .identityEnvelopeStructure }
    var prerequisites: [CheckID] { [] }

    func evaluate(_ state: inout IdentityEnvelopeState, context: VerificationContext) async throws -> CheckOutcome {
        // The usual envelope is read in place; anything else (and every error) the generic way.
        let decoded: AppleHPKEEnvelope
        if let read = AppleHPKEEnvelope.read(state.encryptedData) {
            decoded = read
        } else {
            do {
                decoded = try AppleHPKEEnvelope(cbor: try CBORDecoder.decode(state.encryptedData))
            } catch {
                return .failed(
                    ReasonCode(error.code.rawValue),
                    "encryptedData is not an APPLE-HPKE-v1 envelope: \(error.message.isEmpty ? error.code.rawValue : error.message).")
            }
        }
        guard decoded.algorithm == AppleHPKEEnvelope.algorithmName else {
            return .failed(.unsupportedAlgorithm, "The envelope algorithm is \"\(decoded.algorithm)\", not \"APPLE-HPKE-v1\".")
        }
        guard decoded.mode == 0 else { return .failed(.unsupportedMode, "The envelope HPKE mode is \(decoded.mode), not 0 (base).") }
        guard decoded.pkRHash.count == 32, decoded.infoHash.count == 32 else {
            return .failed(.malformedStructure, "pkRHash and infoHash must be 32-byte SHA-256 values.")
        }
        state.envelope = decoded
        return .passed("APPLE-HPKE-v1 envelope, HPKE base mode.")
    }
}
