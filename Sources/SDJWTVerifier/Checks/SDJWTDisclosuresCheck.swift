import VerificationCore
import WalletJSON

/// `sdjwt.disclosures`: every disclosure is referenced by exactly one digest (`_sd_alg`, sha-256 by
/// default) of the signed payload or of another disclosure, no digest appears twice, no disclosure
/// names `_sd` or `...` or a claim already present; the claims are rebuilt.
struct SDJWTDisclosuresCheck: VerificationCheck {
    var id: CheckID { .sdjwtDisclosures }
    var prerequisites: [CheckID] { [.sdjwtIssuerSignature] }

    func evaluate(_ state: inout SDJWTState, context: VerificationContext) async throws -> CheckOutcome {
        guard let presentation = state.presentation else { return .notEvaluated(because: .sdjwtStructure) }
        let processed = try SDJWTDisclosureProcessor(payload: presentation.issuerJWT.payload, disclosures: presentation.disclosures)
        state.claims = processed.claims
        state.disclosedPaths = processed.disclosedPaths
        let names = processed.disclosedPaths.map { $0.joined(separator: ".") }
        return .passed(
            "\(presentation.disclosures.count) disclosure(s), each referenced once by a digest of the signed payload: \(names.isEmpty ? "none" : names.joined(separator: ", ")).",
            details: ["disclosed": names.joined(separator: ",")])
    }
}
