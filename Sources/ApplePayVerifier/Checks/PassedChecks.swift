import VerificationCore

/// Which of the verifier's checks passed so far, by their position in the order they run.
///
/// A check whose prerequisites are all among them is handed to the ``CheckRunner`` with its
/// prerequisite list already satisfied: the runner would find each of those prerequisites recorded
/// as passed and run the check, which is what happens, without searching the recorded results for
/// each one (that search, string comparisons over every result for every prerequisite, cost more
/// than several of the checks). A check with any prerequisite that did not pass (failed, skipped,
/// not applicable, disabled, or a check outside this list) goes to the runner with its whole list,
/// so every skip is recorded exactly as the runner records it.
struct PassedChecks {
    /// The ids in the order the verifier runs the checks; a check's position is its bit.
    static let order: [CheckID] = [
        .applePayTokenStructure, .applePaySignatureCMS, .applePaySignatureMarkerOIDs, .applePaySignatureCertificateValidity,
        .applePaySignatureChain, .applePaySignatureContentType, .applePaySignatureMessageDigest, .applePaySignatureSigner,
        .applePaySigningTime, .applePayKeySelection, .applePayDecryption, .applePayPaymentData, .applePayExpectCurrency,
        .applePayExpectAmount, .applePayExpectApplicationData, .replayTransactionId,
    ]

    /// The bits of `prerequisites`; nil when one of them is not in ``order``.
    static func mask(_ prerequisites: [CheckID]) -> UInt32? {
        var mask: UInt32 = 0
        for prerequisite in prerequisites {
            guard let position = order.firstIndex(of: prerequisite) else { return nil }
            mask |= 1 << UInt32(position)
        }
        return mask
    }

    private var passed: UInt32 = 0

    /// Runs `check` (at `position` in ``order``; `prerequisites` is ``mask(_:)`` of its list, nil
    /// to let the runner look them up) and remembers whether it passed.
    mutating func run<Check: VerificationCheck<ApplePayState>>(
        _ check: Check, at position: Int, prerequisites: UInt32?, runner: inout CheckRunner, state: inout ApplePayState
    ) async {
        let status: CheckStatus
        if let prerequisites, prerequisites & ~passed == 0 {
            status = await runner.run(PrerequisitesPassed(check: check), state: &state)
        } else {
            status = await runner.run(check, state: &state)
        }
        if status == .passed { passed |= 1 << UInt32(position) }
    }
}

/// A check whose prerequisites are known to have passed: the same id and evaluation, no list for
/// the runner to look up again.
private struct PrerequisitesPassed<Check: VerificationCheck<ApplePayState>>: VerificationCheck {
    let check: Check
    var id: CheckID { check.id }
    var prerequisites: [CheckID] { [] }

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        try await check.evaluate(&state, context: context)
    }
}
