import Foundation
import VerificationCore
import WalletEncoding

/// What the two `mdoc.revocation.*` checks of one document read: the document, the policy, and the
/// lists' evaluation (or why revocation could not be decided). With revocation turned off, both checks
/// record ``fixedOutcome``.
struct RevocationCheckState {
    /// The document whose MSO status entry is checked.
    let document: VerifiedDocument
    /// What an undecided answer means, and whether a status entry is required.
    let policy: RevocationPolicy
    /// What the lists said, when they were consulted.
    var evaluation: RevocationEvaluation?
    /// Why revocation could not be decided, when it could not.
    var failure: RevocationFailure?
    /// The outcome both checks record instead of evaluating (revocation turned off).
    var fixedOutcome: CheckOutcome?

    init(
        document: VerifiedDocument, policy: RevocationPolicy, evaluation: RevocationEvaluation? = nil, failure: RevocationFailure? = nil,
        fixedOutcome: CheckOutcome? = nil
    ) {
        self.document = document
        self.policy = policy
        self.evaluation = evaluation
        self.failure = failure
        self.fixedOutcome = fixedOutcome
    }

    /// An undecided answer under the policy: an error (the verdict is indeterminate) or a skip with a warning.
    static func undeterminedOutcome(_ failure: RevocationFailure, policy: RevocationPolicy, details: [String: String]) -> CheckOutcome {
        switch policy.undetermined {
        case .error:
            return .error(failure.reason, failure.message + " Revocation is undetermined.", retryable: failure.retryable, details: details)
        case .warning:
            return CheckOutcome(
                status: .skipped, reason: failure.reason,
                message: failure.message + " Revocation is undetermined; the policy reports this as a warning.", details: details)
        }
    }

    /// The lists' mechanisms, URIs, sources, signers and times, for both checks' details.
    static func details(_ evaluation: RevocationEvaluation?) -> [String: String] {
        guard let evaluation else { return [:] }
        func joined(_ values: [String?]) -> String? {
            let present = values.compactMap { $0 }
            return present.isEmpty ? nil : present.joined(separator: "; ")
        }
        var details: [String: String] = [:]
        details["mechanism"] = joined(evaluation.lists.map(\.mechanism))
        details["uri"] = joined(evaluation.lists.map(\.uri))
        details["source"] = joined(evaluation.lists.map(\.origin))
        details["signer"] = joined(evaluation.lists.map { $0.signer?.signer })
        details["root"] = joined(evaluation.lists.map { $0.signer?.root })
        details["issuedAt"] = joined(evaluation.lists.map { $0.issuedAt.map(RFC3339.format) })
        details["expiresAt"] = joined(evaluation.lists.map { $0.expiresAt.map(RFC3339.format) })
        return details
    }
}

/// One of the two `mdoc.revocation.*` checks: both depend on ``RevocationChecker/prerequisites`` and
/// both record ``RevocationCheckState/fixedOutcome``, when there is one, instead of deciding.
protocol RevocationStepCheck: VerificationCheck where State == RevocationCheckState {
    /// The outcome for a document whose revocation was looked up (or could not be).
    func decide(_ state: RevocationCheckState) -> CheckOutcome
}

extension RevocationStepCheck {
    /// ``RevocationChecker/prerequisites``.
    var prerequisites: [CheckID] { RevocationChecker.prerequisites }

    /// The fixed outcome, or the check's decision.
    func evaluate(_ state: inout RevocationCheckState, context: VerificationContext) async throws -> CheckOutcome {
        state.fixedOutcome ?? decide(state)
    }
}
