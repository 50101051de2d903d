import Crypto
import Mdoc
import VerificationCore
import WalletCOSE
import X509

/// `mdoc.issuer.signature` (ISO 18013-5 §9.1.2.4): the issuerAuth COSE_Sign1 verifies with the
/// document signer's key from x5chain, over the MSO bytes as received.
struct IssuerSignatureCheck: VerificationCheck {
    var id: CheckID { .mdocIssuerSignature }
    var prerequisites: [CheckID] { MdocPrerequisites.documentStructure }

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        guard let document = state.document, let certificates = state.certificates else {
            return .notEvaluated(because: .mdocDocumentStructure)
        }
        if case .failure(let failure) = certificates { return .failed(failure.reasonCode, failure.checkMessage) }
        guard let signer = state.signer else { return .failed(.missingCertificateChain, "x5chain is empty.") }
        guard let key = signer.key else {
            return .failed(.unsupportedKey, "The document signer key is not an EC key on P-256, P-384 or P-521.")
        }
        let algorithm: COSEAlgorithm
        do {
            // Read where it is: a copy of the COSE_Sign1 would retain each of its parts.
            algorithm = try document.issuerSigned.issuerAuth.algorithm
            guard try document.issuerSigned.issuerAuth.isValidSignature(key: key) else {
                let signature = document.issuerSigned.issuerAuth.signature
                if !signature.isEmpty, signature.allSatisfy({ $0 == 0 }) {
                    return .failed(
                        .testDataSignature,
                        "The issuer signature is all zero bytes: no issuer signed this document. This is test data (mock data such as ProximityReader returns under a developer integrator profile), never a real document.",
                        details: ["signer": signer.subject])
                }
                return .failed(
                    .signatureInvalid,
                    "The issuer signature (\(algorithm)) does not verify with the document signer key: the MSO or its protected header was altered, or x5chain holds another certificate.",
                    details: ["signer": signer.subject])
            }
        } catch {
            return .failed(ReasonCode(error.code.rawValue), "The issuer signature cannot be verified: \(error.message).")
        }
        let subject = signer.subject
        return .passed {
            ("The issuer signature (\(algorithm)) verifies with the document signer key.", ["signer": subject, "algorithm": algorithm.description])
        }
    }
}
