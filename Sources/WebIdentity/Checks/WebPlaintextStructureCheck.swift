import Mdoc
import VerificationCore

/// `web.plaintext.structure`: the plaintext is a DeviceResponse. Request sessions make it depend on
/// `replay.nonce` as well: a response whose request was not consumed by this submission is not read.
struct WebPlaintextStructureCheck: VerificationCheck {
    let prerequisites: [CheckID]
    var id: CheckID { .webPlaintextStructure }

    func evaluate(_ state: inout WebEnvelopeState, context: VerificationContext) async throws -> CheckOutcome {
        guard let plaintext = state.plaintext else { return .notEvaluated(because: .webEnvelopeDecryption) }
        do {
            state.deviceResponse = try DeviceResponse(cborBytes: plaintext)
        } catch {
            return .failed(ReasonCode(error.code.rawValue), "The decrypted data is not a DeviceResponse: \(error.message).")
        }
        let size = plaintext.count
        return .passed("The plaintext is a DeviceResponse (\(size) bytes).")
    }
}
