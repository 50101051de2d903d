import MdocVerifier
import VerificationCore

/// What a web answer (Annex C or OpenID4VP) has shown of its link to the request it was submitted
/// with, read from the mdoc checks a composition recorded. Both web protocols publish their
/// encryption key in the request, so opening proves nothing about who sealed the answer:
/// - only an answer whose every device signature verified over this request's session transcript
///   is reported in full; until then nothing it says (docType, elements, issuer, dates, list
///   addresses) is reported (``withholdPlaintext(_:from:warningsFrom:bound:)``);
/// - only an answer that could be accepted as far as its origin goes — every issuer chain and issuer
///   signature passed (or the policy does not require them) and every device signature verified —
///   uses the request up (``mayUseRequest(_:from:bound:)``), so junk sealed to the public key, or a document
///   from an issuer nobody trusts signed over the public transcript, cannot burn a request.
enum ResponseBinding {
    /// The checks reported as recorded when the answer is not bound: the ones that say whether it
    /// could be (structure and the device signature), none of which reports an element, an issuer or a date.
    static let shownUnbound: Set<CheckID> = [.mdocResponseStructure, .mdocDocumentStructure, .mdocMSOStructure, .mdocDeviceAuthentication]
    /// Structure checks whose pass message names the docType: shown without it when the answer is not bound.
    static let neutralWhenPassed: Set<CheckID> = [.mdocDocumentStructure, .mdocMSOStructure]

    /// Whether at least one `mdoc.device.authentication` was recorded from `start` on, and every one passed.
    static func deviceBound(_ runner: CheckRunner, from start: Int) -> Bool {
        var signatures = 0
        for index in max(start, 0)..<runner.results.count where runner.results[index].id == .mdocDeviceAuthentication {
            guard runner.results[index].status == .passed else { return false }
            signatures += 1
        }
        return signatures > 0
    }

    /// Whether the answer may use its request up: it is device-bound (`bound`, as
    /// ``deviceBound(_:from:)`` found it), and every issuer signature and issuer chain recorded from
    /// `start` on passed or is not required by the policy (a test policy).
    static func mayUseRequest(_ runner: CheckRunner, from start: Int, bound: Bool) -> Bool {
        guard bound else { return false }
        var issuerChecks = 0
        for index in max(start, 0)..<runner.results.count {
            let result = runner.results[index]
            guard result.id == .mdocIssuerSignature || result.id == .mdocIssuerChain else { continue }
            issuerChecks += 1
            if result.status != .passed && result.requirement == .required { return false }
        }
        return issuerChecks > 0
    }

    /// The `replay.nonce` outcome when an answer that opened did not show it could be accepted.
    static func notConsumed(transcript: String) -> CheckOutcome {
        CheckOutcome(
            status: .skipped, reason: .prerequisiteFailed,
            message:
                "Not consumed: the answer opened, but it did not show that it could be accepted (an issuer chain to a trusted IACA, a valid issuer signature, and a device signature over \(transcript)), so the request stays open for the answer that does.",
            details: ["prerequisite": CheckID.mdocDeviceAuthentication.rawValue])
    }

    /// The message of a check withheld because the answer is not bound to the request.
    static let withheldMessage =
        "Not shown: no device signature verified over this request's session transcript, so nothing this answer says (docType, elements, issuer, dates) is reported. A wallet's answer to this request carries one; this answer was made for another request, altered, or forged."

    /// Unless the answer is device-bound (`bound`, as ``deviceBound(_:from:)`` found it), replaces every result recorded from
    /// `start` on by a skipped one (prerequisite `mdoc.device.authentication`), except the
    /// structure checks and the device signature, whose pass messages lose the docType; removes the
    /// warnings recorded from `warningsFrom` on. Returns whether the answer was bound.
    @discardableResult
    static func withholdPlaintext(_ runner: inout CheckRunner, from start: Int, warningsFrom: Int, bound: Bool) -> Bool {
        if bound { return true }
        runner.amendResults(from: start) { result in
            if shownUnbound.contains(result.id) {
                guard result.status == .passed, neutralWhenPassed.contains(result.id) else { return }
                result = CheckResult(
                    id: result.id, status: .passed, reason: result.reason,
                    message: "It decodes (what it holds is not shown until a device signature verifies over this request's session transcript).",
                    requirement: result.requirement, scope: result.scope)
                return
            }
            result = CheckResult(
                id: result.id, status: .skipped, reason: .prerequisiteFailed, message: withheldMessage, requirement: result.requirement,
                scope: result.scope, details: ["prerequisite": CheckID.mdocDeviceAuthentication.rawValue])
        }
        runner.removeWarnings(from: warningsFrom)
        return false
    }
}
