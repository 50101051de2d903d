import Crypto
import VerificationCore
import WalletCOSE
import X509

/// `mdoc.issuer.signature` (ISO 18013-5 §9.1.2.4): the issuerAuth COSE_Sign1 verifies with the
/// document signer's key from x5chain, over the MSO bytes as received.
struct IssuerSignatureCheck: VerificationCheck {
    var id: CheckID { .mdocIssuerSignature }
    var prerequisites: [CheckID] { [.mdocDocumentStructure] }

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        guard let document = state.document, let certificates = state.certificates else {
            return .failed(.malformedInput, "The document did not decode.")
        }
        let signer: Certificate
        switch certificates {
        case .failure(let failure): return .failed(failure.reasonCode, failure.checkMessage)
        case .success(let list):
            guard let first = list.first else { return .failed("missingCertificateChain", "x5chain is empty.") }
            signer = first
        }
        let key: COSEPublicKey
        if let k = P256.Signing.PublicKey(signer.publicKey) { key = .p256(k) }
        else if let k = P384.Signing.PublicKey(signer.publicKey) { key = .p384(k) }
        else if let k = P521.Signing.PublicKey(signer.publicKey) { key = .p521(k) }
        else { return .failed("unsupportedKey", "The document signer key is not an EC key on P-256, P-384 or P-521.") }
        let sign1 = document.issuerSigned.issuerAuth
        let algorithm: COSEAlgorithm
        do {
            algorithm = try sign1.algorithm
            guard try sign1.isValidSignature(key: key) else {
                return .failed("signatureInvalid", "The issuer signature (\(algorithm)) does not verify with the document signer key: the MSO or its protected header was altered, or x5chain holds another certificate.",
                               details: ["signer": signer.subjectSummary])
            }
        } catch {
            return .failed(ReasonCode(error.code.rawValue), "The issuer signature cannot be verified: \(error.message).")
        }
        return .passed("The issuer signature (\(algorithm)) verifies with the document signer key.",
                       details: ["signer": signer.subjectSummary, "algorithm": algorithm.description])
    }
}
