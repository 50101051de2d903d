import MdocVerifier
import VerificationCore
import X509

/// `reader.auth.profile`: the leaf follows the reader-authentication certificate profile of
/// ISO/IEC 18013-5 Annex B (EKU 1.0.18013.5.1.6, digitalSignature, not a CA, ...).
struct ReaderAuthProfileCheck: VerificationCheck {
    var id: CheckID { .readerAuthProfile }
    var prerequisites: [CheckID] { [.readerAuthSignature] }

    func evaluate(_ state: inout ReaderSignatureState, context: VerificationContext) async throws -> CheckOutcome {
        guard let leaf = state.chain.first else { return .notEvaluated(because: .readerAuthSignature) }
        let problems = ReaderCertificateProfile.violations(leaf, at: context.time)
        guard problems.isEmpty else {
            return .failed(
                .profileViolation,
                "The reader certificate \(leaf.subject) does not follow the reader-authentication profile of ISO/IEC 18013-5 Annex B: \(problems.joined(separator: "; "))."
            )
        }
        return .passed(
            "The reader certificate follows the ISO/IEC 18013-5 Annex B reader-authentication profile (EKU 1.0.18013.5.1.6, digitalSignature, not a CA)."
        )
    }
}
