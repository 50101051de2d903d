import Foundation
import Mdoc
import MdocVerifier
import WalletCBOR

/// The verified answers to an identity request, typed, each with the intent to store the app
/// declared. Personal data: `description` is redacted; use only for an accepted verdict.
public struct IdentityClaims: Sendable, CustomStringConvertible {
    /// One requested element and the mdoc values that answered it.
    public struct Claim: Sendable {
        /// The requested element.
        public let element: IdentityElement
        /// The mdoc elements that answered it: "namespace/identifier" → value.
        public let values: [(source: String, value: ElementValue)]
        /// The intent to store the app declared for this element.
        public let intentToStore: IdentityRequestDescriptor.IntentToStore
    }

    /// The answer to an `age(atLeast:)` request.
    public struct AgeClaim: Sendable {
        /// The minimum age asked for, in years.
        public let atLeast: Int
        /// nil when the response did not decide it.
        public let value: Bool?
        /// age_over_NN, age_in_years, birth_date, age_birth_year, or birth_date+age_birth_year (an
        /// approximate birth year settled by age_birth_year); "none" when undecided.
        public let source: String
        /// The intent to store the app declared for the age request.
        public let intentToStore: IdentityRequestDescriptor.IntentToStore
    }

    /// The answers to the requested elements other than `age(atLeast:)`, in request order; an unanswered one has no values.
    public let claims: [Claim]
    /// The answer to `age(atLeast:)`; nil when the request did not ask for it.
    public let ageAtLeast: AgeClaim?

    init(document: VerifiedDocument, request: IdentityRequestDescriptor, at time: Date) {
        var claims: [Claim] = []
        var ageClaim: AgeClaim?
        for requested in request.elements {
            if let minimum = requested.atLeast {
                let answer = RequestMatching.age(
                    document: document, nameSpace: IdentityElement.ageNameSpace(docType: document.docType), minimum: minimum, at: time)
                ageClaim = AgeClaim(atLeast: minimum, value: answer.value, source: answer.source, intentToStore: requested.intentToStore)
                continue
            }
            var values: [(String, ElementValue)] = []
            for pair in requested.element.identifiers(for: request.document, docType: document.docType) {
                if let value = document.element(pair.nameSpace, pair.identifier) { values.append(("\(pair.nameSpace)/\(pair.identifier)", value)) }
            }
            claims.append(
                Claim(element: requested.element, values: values.map { (source: $0.0, value: $0.1) }, intentToStore: requested.intentToStore))
        }
        self.claims = claims
        self.ageAtLeast = ageClaim
    }

    /// The answer to the given element; nil when the request did not ask for it.
    public func claim(_ element: IdentityElement) -> Claim? { claims.first { $0.element == element } }

    /// The first value answering `givenName`; nil when absent.
    public var givenName: String? { claim(.givenName)?.values.first?.value.stringValue }
    /// The first value answering `familyName`; nil when absent.
    public var familyName: String? { claim(.familyName)?.values.first?.value.stringValue }
    /// The date of birth: ISO 18013-5's full-date, or the `birth_date` inside ISO 23220's birth_date map.
    /// When ``dateOfBirthApproximateMask`` is set, some of its digits are not known.
    public var dateOfBirth: CBORFullDate? { claim(.dateOfBirth)?.values.first.flatMap { BirthDate.fullDate($0.value) } }
    /// ISO/IEC 23220-2's `approximate_mask` of the date of birth, as sent: 8 characters '0'/'1' over
    /// the digits YYYYMMDD, '1' where the digit is approximate; nil when the date is exact.
    public var dateOfBirthApproximateMask: String? { claim(.dateOfBirth)?.values.first.flatMap { BirthDate.approximateMask($0.value) } }
    /// JPEG bytes.
    public var portrait: [UInt8]? { claim(.portrait)?.values.first?.value.bytesValue }
    /// The first value answering `documentNumber`; nil when absent.
    public var documentNumber: String? { claim(.documentNumber)?.values.first?.value.stringValue }
    /// ISO/IEC 5218: 0 not known, 1 male, 2 female, 9 not applicable.
    public var sex: Int? { firstInteger(.sex) }
    /// Centimetres (ISO 18013-5 height).
    public var heightCentimetres: Int? { firstInteger(.height) }
    /// Kilograms (ISO 18013-5 weight); AAMVA's weight_range stays in ``claim(_:)``.
    public var weightKilograms: Int? {
        claim(.weight)?.values.first { $0.source.hasSuffix("/weight") }?.value.integerValue.map(Int.init)
    }
    /// ISO/IEC 18013-5's colour words (e.g. "brown", "blue").
    public var eyeColor: String? { claim(.eyeColor)?.values.first?.value.stringValue }
    /// ISO/IEC 18013-5's colour words; nil when absent.
    public var hairColor: String? { claim(.hairColor)?.values.first?.value.stringValue }
    /// ISO 3166-1 alpha-2.
    public var nationality: String? { claim(.nationality)?.values.first?.value.stringValue }
    /// AAMVA's organ_donor (1 = donor).
    public var organDonor: Bool? { Self.flag(claim(.organDonorStatus)) }
    /// AAMVA's veteran (1 = veteran).
    public var veteran: Bool? { Self.flag(claim(.veteranStatus)) }
    /// AAMVA's DHS_temporary_lawful_status (1 = temporary lawful status).
    public var dhsTemporaryLawfulStatus: Bool? { Self.flag(claim(.dhsTemporaryLawfulStatus)) }
    /// AAMVA's DHS_compliance: "F" fully compliant, "N" non-compliant.
    public var dhsCompliance: String? { claim(.documentDHSComplianceStatus)?.values.first?.value.stringValue }

    /// The first integer among the values that answered `element`.
    private func firstInteger(_ element: IdentityElement) -> Int? {
        claim(element)?.values.lazy.compactMap { $0.value.integerValue.map(Int.init) }.first
    }

    /// AAMVA encodes yes/no elements as the integer 1 (or 0); a CBOR bool is taken as is.
    static func flag(_ claim: Claim?) -> Bool? {
        guard let value = claim?.values.first?.value else { return nil }
        if let bool = value.boolValue { return bool }
        switch value.integerValue {
        case 1: return true
        case 0: return false
        default: return nil
        }
    }

    /// A redacted summary giving only the number of claims.
    public var description: String { "IdentityClaims(\(claims.count) claims, values redacted)" }

    /// `{"givenName": {"value": ..., "intentToStore": ...}, "ageAtLeast": {"age": 21, "value": true, "source": "age_over_21", ...}}`.
    public var json: String {
        var members: [String] = []
        for claim in claims {
            let value: String
            switch claim.values.count {
            case 0: value = "null"
            // A date of birth is a date, whether ISO 18013-5 (full-date) or ISO 23220 (a map) sent it.
            case 1 where claim.element == .dateOfBirth && BirthDate.fullDate(claim.values[0].value) != nil:
                value = JSONText.quote(BirthDate.fullDate(claim.values[0].value)!.description)
            case 1: value = claim.values[0].value.json
            default:
                value =
                    "{"
                    + claim.values.map { JSONText.quote(String($0.source.split(separator: "/").last ?? "")) + ":" + $0.value.json }.joined(
                        separator: ",") + "}"
            }
            // An approximate date of birth keeps its mask (ISO/IEC 23220-2 approximate_mask).
            var mask = ""
            if claim.element == .dateOfBirth, claim.values.count == 1, let approximate = BirthDate.approximateMask(claim.values[0].value) {
                mask = ",\"approximateMask\":" + JSONText.quote(approximate)
            }
            members.append(
                JSONText.quote(claim.element.rawValue) + ":{\"value\":\(value)\(mask),\"intentToStore\":\(claim.intentToStore.json)}")
        }
        if let age = ageAtLeast {
            let value = age.value.map { $0 ? "true" : "false" } ?? "null"
            members.append(
                "\"ageAtLeast\":{\"age\":\(age.atLeast),\"value\":\(value),\"source\":\(JSONText.quote(age.source)),\"intentToStore\":\(age.intentToStore.json)}"
            )
        }
        return "{" + members.joined(separator: ",") + "}"
    }
}
