import VerificationCore
import X509

/// `mdoc.issuer.country` (ISO 18013-5 Annex B): countryName is present in the document signer and the
/// IACA, is an ISO 3166-1 alpha-2 code, and is the same in both. When the policy does not require it
/// (Apple's in-app test issuer has none), a missing countryName is reported as a warning and the
/// check is skipped, but an invalid or mismatching one still fails.
struct IssuingCountryCheck: VerificationCheck {
    var id: CheckID { .mdocIssuerCountry }
    var prerequisites: [CheckID] { MdocPrerequisites.issuerChain }

    static func countryName(_ name: DistinguishedName) -> String? {
        for rdn in name {
            for attribute in rdn where attribute.type == .RDNAttributeType.countryName {
                return String(describing: attribute.value)
            }
        }
        return nil
    }

    static func isAlpha2(_ code: String) -> Bool {
        code.utf8.count == 2 && code.utf8.allSatisfy { (65...90).contains($0) }
    }

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        guard let entry = state.chain, !entry.chain.isEmpty else {
            return .failed("countryNameMissing", "No validated chain.")
        }
        let (dsCountry, iacaCountry) = entry.countryNames
        if entry.pinned {
            return pinned(dsCountry, policy: state.policy)
        }
        var missing: [String] = []
        if dsCountry == nil { missing.append("the document signer") }
        if iacaCountry == nil { missing.append("the IACA") }
        if !missing.isEmpty {
            let message = "countryName is missing in \(missing.joined(separator: " and ")); ISO 18013-5 requires an ISO 3166-1 alpha-2 country in both."
            if state.policy.requireCountryName {
                return .failed("countryNameMissing", message)
            }
            return CheckOutcome(status: .skipped, reason: "countryNameAbsent", message: message + " The policy reports this as a warning.")
        }
        for (who, code) in [("document signer", dsCountry!), ("IACA", iacaCountry!)] where !Self.isAlpha2(code) {
            return .failed("countryNameInvalid", "The \(who)'s countryName \"\(code)\" is not an ISO 3166-1 alpha-2 code.")
        }
        guard dsCountry == iacaCountry else {
            return .failed("countryNameMismatch", "The document signer's countryName \(dsCountry!) differs from the IACA's \(iacaCountry!).")
        }
        return .passed("The issuing country is \(dsCountry!) in both the document signer and the IACA.", details: ["country": dsCountry!])
    }

    /// A document signer trusted directly (pinned in the trust store): its own countryName is checked;
    /// there is no IACA to compare it with, and the message says so.
    private func pinned(_ country: String?, policy: MdocVerificationPolicy) -> CheckOutcome {
        guard let country else {
            let message = "countryName is missing in the pinned document signer; ISO 18013-5 requires an ISO 3166-1 alpha-2 country."
            if policy.requireCountryName {
                return .failed("countryNameMissing", message)
            }
            return CheckOutcome(status: .skipped, reason: "countryNameAbsent", message: message + " The policy reports this as a warning.")
        }
        guard Self.isAlpha2(country) else {
            return .failed("countryNameInvalid", "The document signer's countryName \"\(country)\" is not an ISO 3166-1 alpha-2 code.")
        }
        return .passed("The issuing country is \(country) in the pinned document signer (no IACA was involved, so there was none to compare it with).",
                       details: ["country": country])
    }
}
