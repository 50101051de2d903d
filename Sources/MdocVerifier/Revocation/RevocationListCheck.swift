import VerificationCore

/// `mdoc.revocation.list`: the revocation list the MSO names (identifier or status list) was fetched or
/// found, is signed by a trusted list signer and is current at the verification time.
struct RevocationListCheck: RevocationStepCheck {
    var id: CheckID { .mdocRevocationList }

    func decide(_ state: RevocationCheckState) -> CheckOutcome {
        let document = state.document, evaluation = state.evaluation, failure = state.failure, policy = state.policy
        guard document.msoStatus != nil else {
            return .notApplicable("The MSO carries no status entry: the issuer publishes no revocation list for this document.")
        }
        if let failure { return RevocationCheckState.undeterminedOutcome(failure, policy: policy, details: RevocationCheckState.details(evaluation)) }
        guard let evaluation else {
            return RevocationCheckState.undeterminedOutcome(
                RevocationFailure(.listUnavailable, "The revocation list was not consulted."), policy: policy, details: [:])
        }
        let kinds = evaluation.lists.map { "\($0.mechanism) from \($0.origin ?? "?"), signed by \($0.signer?.signer ?? "?")" }.joined(separator: "; ")
        return .passed(
            "The revocation list (\(kinds)) is signed by a trusted signer and current at the verification time.",
            details: RevocationCheckState.details(evaluation))
    }
}
