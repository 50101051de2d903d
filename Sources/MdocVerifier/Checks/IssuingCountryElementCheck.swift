import Mdoc
import VerificationCore
import WalletCBOR

/// `mdoc.issuingCountry.element`: a disclosed `issuing_country` element (ISO 18013-5 mDL and ISO
/// 23220 photo ID alike) equals the IACA's countryName. Apple's "Verifying Wallet identity requests"
/// says of issuing_country: "This value is the same as the IACA's". For a document signer pinned in
/// the trust store there is no IACA, and the signer's own countryName is compared instead.
///
/// Runs after the value digests, so the compared value is one the issuer signed. A missing
/// countryName fails under a policy that requires it (ISO strict, passports) and is skipped with a
/// warning otherwise (Apple's in-app test issuer has none), like `mdoc.issuer.country`.
struct IssuingCountryElementCheck: VerificationCheck {
    var id: CheckID { .mdocIssuingCountryElement }
    var prerequisites: [CheckID] { MdocPrerequisites.issuerChainAndDigests }

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        guard let document = state.document, let entry = state.chain else {
            return .notEvaluated(because: .mdocIssuerChain)
        }
        let elements = document.issuerSigned.elements
        let disclosed = elements.elements.first { $0.identifier == "issuing_country" }.map {
            (nameSpace: elements.nameSpaces[$0.nameSpace], value: $0.value)
        }
        guard let disclosed else {
            return .notApplicable("The response discloses no issuing_country.")
        }
        // Written only into a message (a passing check's is written when the report is read).
        let nameSpace = disclosed.nameSpace
        var source: String { "\(nameSpace)/issuing_country" }
        guard let country = disclosed.value.stringValue else {
            return .failed(.issuingCountryMismatch, "\(source) is not a text string, so it cannot name the issuing country.")
        }
        let holder = entry.pinned ? "pinned document signer" : "IACA"
        guard let certificateCountry = entry.pinned ? entry.countryNames.documentSigner : entry.countryNames.iaca else {
            let message = "\(source) is disclosed but the \(holder) has no countryName to compare it with."
            if state.policy.requireCountryName {
                return .failed(.countryNameMissing, message)
            }
            return CheckOutcome(status: .skipped, reason: .countryNameAbsent, message: message + " The policy reports this as a warning.")
                .warning(.countryNameAbsent, message + " The policy reports this as a warning.")
        }
        guard country == certificateCountry else {
            return .failed(
                .issuingCountryMismatch,
                "\(source) is \(TextSafety.quoted(country)) but the \(holder)'s countryName is \(certificateCountry): the document claims another issuing country than the authority that issued it.",
                details: ["element": country, "certificate": certificateCountry])
        }
        return .passed { ("\(nameSpace)/issuing_country is \(certificateCountry), the \(holder)'s countryName.", ["country": certificateCountry]) }
    }
}

/// Quoting a value from the input in a message, bounded so a long value cannot flood the report.
enum TextSafety {
    static func quoted(_ text: String) -> String {
        let shown = text.count > 16 ? String(text.prefix(16)) + "…" : text
        return "\"" + shown + "\""
    }
}
