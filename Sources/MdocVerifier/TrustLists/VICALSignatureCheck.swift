import Foundation
import SwiftASN1
import VerificationCore
import WalletCOSE
import WalletEncoding
import X509

/// `vical.signature`: the COSE_Sign1 verifies with the key of the first x5chain certificate, over the
/// payload as received.
struct VICALSignatureCheck: VerificationCheck {
    private static let requires: [CheckID] = [.vicalStructure]
    var id: CheckID { .vicalSignature }
    var prerequisites: [CheckID] { Self.requires }

    func evaluate(_ state: inout VICALState, context: VerificationContext) async throws -> CheckOutcome {
        guard let vical = state.vical else { return .notEvaluated(because: .vicalStructure) }
        if let problem = state.chainProblem { return .failed(problem.reason, problem.message) }
        guard let leaf = state.certificates.first, let key = COSEPublicKey(certificate: leaf) else {
            return .failed(.unsupportedKey, "The VICAL signer's key is not an EC key on P-256, P-384 or P-521.")
        }
        do {
            guard try vical.sign1.isValidSignature(key: key) else {
                return .failed(
                    .signatureInvalid,
                    "The VICAL's signature does not verify with the key of \(leaf.subject): it was altered or signed by another key.")
            }
        } catch {
            return .failed(ReasonCode(error.code.rawValue), "The VICAL's signature cannot be verified: \(error.message).")
        }
        return .passed("The VICAL is signed by \(leaf.subject).", details: ["signer": leaf.subject.description])
    }
}
