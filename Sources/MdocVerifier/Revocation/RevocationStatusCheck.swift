import VerificationCore

/// `mdoc.revocation.status`: the list says the document is not revoked (or suspended).
struct RevocationStatusCheck: RevocationStepCheck {
    var id: CheckID { .mdocRevocationStatus }

    func decide(_ state: RevocationCheckState) -> CheckOutcome {
        let document = state.document, evaluation = state.evaluation, failure = state.failure, policy = state.policy
        guard document.msoStatus != nil else {
            if policy.requireStatusEntry {
                return .failed(.statusMissing, "The MSO carries no status entry, and the policy requires one.")
            }
            return .notApplicable("The MSO carries no status entry, so revocation cannot be checked for this document.")
        }
        if let evaluation, case .revoked(let reason, let message) = evaluation.answer {
            return .failed(reason, message, details: RevocationCheckState.details(evaluation))
        }
        if let failure {
            switch policy.undetermined {
            case .error:
                return CheckOutcome(
                    status: .skipped, reason: .prerequisiteFailed,
                    message: "Not evaluated because mdoc.revocation.list did not pass: revocation is undetermined.",
                    details: ["prerequisite": CheckID.mdocRevocationList.rawValue])
            case .warning:
                return CheckOutcome(
                    status: .skipped, reason: .revocationUndetermined,
                    message:
                        "Revocation could not be decided (\(failure.reason)); the policy reports this as a warning. The document is not known to be valid or revoked."
                )
            }
        }
        guard let evaluation, case .notRevoked = evaluation.answer else {
            // Never reached with a consulted list; never "not revoked" without one.
            return RevocationCheckState.undeterminedOutcome(
                RevocationFailure(.listUnavailable, "The revocation list was not consulted."), policy: policy, details: [:])
        }
        return .passed(
            "The document is not revoked: \(evaluation.lists.map { "\($0.mechanism) at \($0.uri)" }.joined(separator: " and ")) says so.",
            details: RevocationCheckState.details(evaluation))
    }
}
