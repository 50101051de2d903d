import Mdoc
import VerificationCore
import WalletCBOR

/// `identity.plaintext.structure`: the decrypted data is `{"identity": DeviceResponse}` holding exactly
/// one document (Apple's flow returns one). Request sessions make it depend on `replay.nonce` as
/// well: a response whose nonce was not consumed by this submission is not read.
struct PlaintextStructureCheck: VerificationCheck {
    let prerequisites: [CheckID]
    var id: CheckID { .identityPlaintextStructure }

    func evaluate(_ state: inout IdentityEnvelopeState, context: VerificationContext) async throws -> CheckOutcome {
        guard let plaintext = state.plaintext else { return .notEvaluated(because: .identityEnvelopeDecryption) }
        do {
            let decoded = try AppleIdentityVerifier.deviceResponse(plaintext: plaintext)
            guard decoded.documentResults.count == 1 else {
                return .failed(
                    .documentCount, "The DeviceResponse holds \(decoded.documentResults.count) documents; Apple's flow returns exactly one.")
            }
            state.response = decoded
            return .passed("The plaintext is {\"identity\": DeviceResponse} with one document.")
        } catch let error as CBORError {
            return .failed(ReasonCode(error.code.rawValue), "The decrypted data is not {\"identity\": DeviceResponse}: \(error.message).")
        } catch let error as MdocDecodingError {
            return .failed(ReasonCode(error.code.rawValue), "The DeviceResponse could not be decoded: \(error.message).")
        }
    }
}
