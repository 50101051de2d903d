import VerificationCore
import X509

/// `mdoc.issuer.country` (ISO 18013-5 Annex B): countryName is present in the document signer and the
/// IACA, is an officially assigned ISO 3166-1 alpha-2 code (``CountryCodes``), and is the same in both. When the policy does not require it
/// (Apple's in-app test issuer has none), a missing countryName is reported as a warning and the
/// check is skipped, but an invalid or mismatching one still fails. For a document signer pinned in
/// the trust store there is no IACA: its own countryName is checked the same way.
struct IssuerCountryCheck: VerificationCheck {
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

    /// An officially assigned ISO 3166-1 alpha-2 code (``CountryCodes``), not merely two capitals.
    static func isAlpha2(_ code: String) -> Bool {
        CountryCodes.isAssignedAlpha2(code)
    }

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        guard let entry = state.chain, !entry.chain.isEmpty else {
            return .failed(.countryNameMissing, "No validated chain.")
        }
        let (dsCountry, iacaCountry) = entry.countryNames
        // A document signer trusted directly (pinned in the trust store) has no IACA: only its own
        // countryName is checked, and the messages say so. The holders in order: the document
        // signer, then the IACA unless pinned (no array is built when both are present and valid).
        let dsName = entry.pinned ? "pinned document signer" : "document signer"
        let iacaChecked = !entry.pinned
        if dsCountry == nil || (iacaChecked && iacaCountry == nil) {
            var missing: [String] = []
            if dsCountry == nil { missing.append("the \(dsName)") }
            if iacaChecked, iacaCountry == nil { missing.append("the IACA") }
            let message =
                "countryName is missing in \(missing.joined(separator: " and ")); ISO 18013-5 requires an ISO 3166-1 alpha-2 country"
                + (entry.pinned ? "." : " in both.")
            if state.policy.requireCountryName {
                return .failed(.countryNameMissing, message)
            }
            return CheckOutcome(status: .skipped, reason: .countryNameAbsent, message: message + " The policy reports this as a warning.")
                .warning(.countryNameAbsent, message + " The policy reports this as a warning.")
        }
        func invalid(_ name: String, _ country: String) -> CheckOutcome {
            .failed(.countryNameInvalid, "The \(name)'s countryName \"\(country)\" is not an officially assigned ISO 3166-1 alpha-2 code.")
        }
        if !Self.isAlpha2(dsCountry!) { return invalid(dsName, dsCountry!) }
        if iacaChecked, !Self.isAlpha2(iacaCountry!) { return invalid("IACA", iacaCountry!) }
        if entry.pinned {
            return .passed(
                "The issuing country is \(dsCountry!) in the pinned document signer (no IACA was involved, so there was none to compare it with).",
                details: ["country": dsCountry!])
        }
        guard dsCountry == iacaCountry else {
            return .failed(.countryNameMismatch, "The document signer's countryName \(dsCountry!) differs from the IACA's \(iacaCountry!).")
        }
        let country = dsCountry!
        return .passed { ("The issuing country is \(country) in both the document signer and the IACA.", ["country": country]) }
    }
}
