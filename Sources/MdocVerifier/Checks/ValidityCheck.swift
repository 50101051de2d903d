import Foundation
import Mdoc
import VerificationCore
import WalletCBOR
import WalletEncoding
import X509

/// `mdoc.validity` (ISO 18013-5 §9.1.2.4): signed ≤ validFrom ≤ time ≤ validUntil, at the caller's
/// verification time, with the policy's clock-skew allowance on both ends of the window; and the MSO
/// was signed while its document signer certificate was valid (notBefore ≤ signed ≤ notAfter, no
/// skew: both dates come from the issuer), so an MSO dated before its signer existed is refused.
struct ValidityCheck: VerificationCheck {
    var id: CheckID { .mdocValidity }
    var prerequisites: [CheckID] { MdocPrerequisites.msoStructure }

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        guard let mso = state.mso else { return .notEvaluated(because: .mdocMSOStructure) }
        let v = mso.validityInfo
        let time = context.time
        // The policy's allowance, or the caller's (VerificationContext.clockSkew) when larger.
        let skew = Double(max(state.policy.clockSkew, context.clockSkew).components.seconds)
        return Self.outcome(v, signer: Self.documentSigner(state), time: time, skew: skew)
    }

    /// The first rule the window breaks, in order, with the dates written for its message; a pass
    /// when it breaks none, whose dates are written only when the report is read.
    static func outcome(
        _ v: MobileSecurityObject.ValidityInfo, signer: ValidatedChainCache.ParsedCertificate?, time: Date, skew: Double
    ) -> CheckOutcome {
        if v.validFrom < v.signed {
            let details = Self.details(v, time: time, skew: skew)
            return .failed(
                .inconsistentValidity, "The MSO is valid from \(details["validFrom"]!), before it was signed (\(details["signed"]!)).",
                details: details)
        }
        if let signer, signer.notValidBefore > v.signed || signer.notValidAfter < v.signed {
            var details = Self.details(v, time: time, skew: skew)
            details["signerNotBefore"] = RFC3339.formatWholeSeconds(signer.notValidBefore)
            details["signerNotAfter"] = RFC3339.formatWholeSeconds(signer.notValidAfter)
            return .failed(
                .signedOutsideSignerValidity,
                "The MSO was signed at \(details["signed"]!), outside its document signer certificate's validity (\(details["signerNotBefore"]!) to \(details["signerNotAfter"]!)); ISO 18013-5 §9.1.2.4 requires the signing time within it.",
                details: details)
        }
        if v.validUntil < v.validFrom {
            let details = Self.details(v, time: time, skew: skew)
            return .failed(
                .inconsistentValidity, "The MSO validity ends (\(details["validUntil"]!)) before it starts (\(details["validFrom"]!)).",
                details: details)
        }
        if time.addingTimeInterval(skew) < v.validFrom {
            let details = Self.details(v, time: time, skew: skew)
            return .failed(
                .notYetValid,
                "The MSO is not valid before \(details["validFrom"]!); the verification time is \(details["time"]!) (clock skew allowed: \(Int(skew)) s).",
                details: details)
        }
        if time.addingTimeInterval(-skew) > v.validUntil {
            let details = Self.details(v, time: time, skew: skew)
            return .failed(
                .expired,
                "The MSO expired at \(details["validUntil"]!); the verification time is \(details["time"]!) (clock skew allowed: \(Int(skew)) s). The holder must refresh the credential.",
                details: details)
        }
        return .passed {
            let details = Self.details(v, time: time, skew: skew)
            return ("The MSO is valid from \(details["validFrom"]!) until \(details["validUntil"]!).", details)
        }
    }

    /// The report's details: the MSO's three dates, the verification time and the clock skew allowed.
    static func details(_ v: MobileSecurityObject.ValidityInfo, time: Date, skew: Double) -> [String: String] {
        [
            "signed": RFC3339.formatWholeSeconds(v.signed), "validFrom": RFC3339.formatWholeSeconds(v.validFrom),
            "validUntil": RFC3339.formatWholeSeconds(v.validUntil), "time": RFC3339.formatWholeSeconds(time), "clockSkewSeconds": String(Int(skew)),
        ]
    }

    /// The first x5chain certificate, when the document structure parsed it.
    static func documentSigner(_ state: DocumentState) -> ValidatedChainCache.ParsedCertificate? {
        guard case .success(let list)? = state.certificates else { return nil }
        return list.first
    }
}
