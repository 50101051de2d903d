import Foundation
import Mdoc
import WalletCBOR

/// Apple's Digital ID from a passport: an ISO/IEC 23220-2 photo ID mdoc, docType
/// `org.iso.23220.photoid.1`, elements in the namespace `org.iso.23220.1`, as typed values.
///
/// Values are personal data: `description` is redacted. Use them only when the verification
/// report's verdict is accepted.
public struct PhotoIDDocument: Sendable, CustomStringConvertible {
    /// The ISO/IEC 23220-2 photo ID docType that Apple's passport Digital ID uses.
    public static let docType = "org.iso.23220.photoid.1"
    /// The namespace the photo ID elements read here are in.
    public static let nameSpace = "org.iso.23220.1"

    /// ISO/IEC 5218 codes.
    public enum Sex: Int, Sendable, Hashable {
        /// The four ISO/IEC 5218 codes: 0 not known, 1 male, 2 female, 9 not applicable.
        case notKnown = 0, male = 1, female = 2, notApplicable = 9
    }

    /// A date element: a full-date (tag 1004 or `YYYY-MM-DD` text) or a date-time (tag 0 / 1).
    public enum DateValue: Sendable, Hashable {
        /// A calendar date without a time.
        case fullDate(CBORFullDate)
        /// A date and time.
        case dateTime(CBORDateTime)
    }

    /// ISO/IEC 23220-2 birth date: Apple sends a nested structure
    /// `{"birth_date": full-date, ? "approximate_mask": tstr}`; a plain full-date is accepted too.
    public struct BirthDate: Sendable, Hashable {
        /// The birth date (the inner `birth_date` when nested).
        public let date: CBORFullDate
        /// Which digits of the date are approximate (23220-2), when sent.
        public let approximateMask: String?
        /// Whether the value arrived as the nested map.
        public let nested: Bool

        /// Creates a birth date; `nested` says whether it arrived as the map.
        public init(date: CBORFullDate, approximateMask: String? = nil, nested: Bool) {
            self.date = date
            self.approximateMask = approximateMask
            self.nested = nested
        }
    }

    /// `family_name_unicode`; nil when absent or not text.
    public var familyNameUnicode: String?
    /// `given_name_unicode`; nil when absent or not text.
    public var givenNameUnicode: String?
    /// `family_name_latin1`; nil when absent, not text or outside Latin-1.
    public var familyNameLatin1: String?
    /// `given_name_latin1`; nil when absent, not text or outside Latin-1.
    public var givenNameLatin1: String?
    /// `birth_date`, plain or nested; nil when absent or of the wrong form.
    public var birthDate: BirthDate?
    /// JPEG (ISO/IEC 18013-2 C.4.5).
    public var portrait: [UInt8]?
    /// `issue_date`: when the document was issued; nil when absent or not a date.
    public var issueDate: DateValue?
    /// `expiry_date`: when the document expires; nil when absent or not a date.
    public var expiryDate: DateValue?
    /// `issuing_authority_unicode`: who issued the document; nil when absent or not text.
    public var issuingAuthorityUnicode: String?
    /// `issuing_authority_latin1`; nil when absent, not text or outside Latin-1.
    public var issuingAuthorityLatin1: String?
    /// ISO 3166-1 alpha-2.
    public var issuingCountry: String?
    /// `age_in_years`: the holder's age in years (0...200); nil when absent or out of range.
    public var ageInYears: Int?
    /// age_over_NN → value.
    public var ageOver: [Int: Bool] = [:]
    /// `age_birth_year`: the holder's year of birth (0...9999); nil when absent or out of range.
    public var ageBirthYear: Int?
    /// `portrait_capture_date`: when the portrait was taken; nil when absent or not a date.
    public var portraitCaptureDate: DateValue?
    /// `sex`; nil when absent or not an ISO/IEC 5218 code.
    public var sex: Sex?
    /// ISO 3166-1 alpha-2.
    public var nationality: String?
    /// `document_number`; nil when absent or not text.
    public var documentNumber: String?

    /// Elements present with a value of the wrong type or form, by identifier (never the value).
    public private(set) var problems: [(identifier: String, problem: String)] = []

    /// The docType and how many elements are invalid; never a value.
    public var description: String {
        "PhotoIDDocument(\(Self.docType), values redacted\(problems.isEmpty ? "" : ", \(problems.count) invalid elements"))"
    }

    /// Creates a document with no elements.
    public init() {}

    /// Reads the typed elements of a verified document's `org.iso.23220.1` namespace. Unknown
    /// identifiers are ignored; known ones of the wrong type are listed in ``problems``.
    public init(document: VerifiedDocument) {
        let elements = document.issuerSigned.first { $0.name == Self.nameSpace }?.elements ?? []
        self.init(elements: elements)
    }

    /// Reads typed elements from `org.iso.23220.1` identifiers and values. Unknown identifiers are ignored;
    /// known ones of the wrong type are listed in ``problems``.
    public init(elements: [(identifier: String, value: ElementValue)]) {
        for (identifier, value) in elements { read(identifier, value) }
    }

    private mutating func problem(_ identifier: String, _ text: String) {
        problems.append((identifier, text))
    }

    private mutating func text(_ identifier: String, _ value: ElementValue, latin1: Bool = false) -> String? {
        guard let text = value.stringValue else {
            problem(identifier, "is not a text string")
            return nil
        }
        if latin1, !text.unicodeScalars.allSatisfy({ $0.value <= 0xff }) {
            problem(identifier, "holds characters outside Latin-1")
            return nil
        }
        return text
    }

    private mutating func alpha2(_ identifier: String, _ value: ElementValue) -> String? {
        guard let code = text(identifier, value) else { return nil }
        guard CountryCodes.isAssignedAlpha2(code) else {
            problem(identifier, "is not an officially assigned ISO 3166-1 alpha-2 code")
            return nil
        }
        return code
    }

    private mutating func unsigned(_ identifier: String, _ value: ElementValue, range: ClosedRange<Int64>) -> Int? {
        guard let number = value.integerValue, range.contains(number) else {
            problem(identifier, "is not an integer in \(range.lowerBound)...\(range.upperBound)")
            return nil
        }
        return Int(number)
    }

    static func fullDate(_ value: ElementValue) -> CBORFullDate? {
        switch value {
        case .fullDate(let date): return date
        case .text(let text):
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
                let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2])
            else { return nil }
            return CBORFullDate(year: y, month: m, day: d)
        default: return nil
        }
    }

    private mutating func date(_ identifier: String, _ value: ElementValue) -> DateValue? {
        if case .dateTime(let dateTime) = value { return .dateTime(dateTime) }
        if let date = Self.fullDate(value) { return .fullDate(date) }
        problem(identifier, "is not a full-date or a date-time")
        return nil
    }

    private mutating func read(_ identifier: String, _ value: ElementValue) {
        switch identifier {
        case "family_name_unicode": familyNameUnicode = text(identifier, value)
        case "given_name_unicode": givenNameUnicode = text(identifier, value)
        case "family_name_latin1": familyNameLatin1 = text(identifier, value, latin1: true)
        case "given_name_latin1": givenNameLatin1 = text(identifier, value, latin1: true)
        case "issuing_authority_unicode": issuingAuthorityUnicode = text(identifier, value)
        case "issuing_authority_latin1": issuingAuthorityLatin1 = text(identifier, value, latin1: true)
        case "issuing_country": issuingCountry = alpha2(identifier, value)
        case "nationality": nationality = alpha2(identifier, value)
        case "document_number": documentNumber = text(identifier, value)
        case "portrait":
            guard let bytes = value.bytesValue, !bytes.isEmpty else {
                problem(identifier, "is not a non-empty byte string")
                return
            }
            portrait = bytes
        case "issue_date": issueDate = date(identifier, value)
        case "expiry_date": expiryDate = date(identifier, value)
        case "portrait_capture_date": portraitCaptureDate = date(identifier, value)
        case "age_in_years": ageInYears = unsigned(identifier, value, range: 0...200)
        case "age_birth_year": ageBirthYear = unsigned(identifier, value, range: 0...9999)
        case "sex":
            guard let code = unsigned(identifier, value, range: 0...9) else { return }
            guard let sex = Sex(rawValue: code) else {
                problem(identifier, "is not an ISO/IEC 5218 code (0, 1, 2 or 9)")
                return
            }
            self.sex = sex
        case "birth_date":
            if let plain = Self.fullDate(value) {
                birthDate = BirthDate(date: plain, approximateMask: nil, nested: false)
                return
            }
            guard case .map(let entries) = value, let inner = entries.first(where: { $0.key == "birth_date" })?.value,
                let date = Self.fullDate(inner)
            else {
                problem(identifier, "is neither a full-date nor a map with a birth_date full-date")
                return
            }
            var mask: String?
            if let maskValue = entries.first(where: { $0.key == "approximate_mask" })?.value {
                guard let text = maskValue.stringValue else {
                    problem(identifier, "has an approximate_mask that is not text")
                    return
                }
                // ISO/IEC 23220-2: one '0' or '1' per digit of YYYYMMDD.
                guard text.utf8.count == 8, text.utf8.allSatisfy({ $0 == 0x30 || $0 == 0x31 }) else {
                    problem(identifier, "has an approximate_mask that is not 8 characters '0' or '1' (one per digit of YYYYMMDD)")
                    return
                }
                mask = text
            }
            birthDate = BirthDate(date: date, approximateMask: mask, nested: true)
        default:
            if identifier.hasPrefix("age_over_"), let age = Int(identifier.dropFirst("age_over_".count)), (0...199).contains(age) {
                guard let flag = value.boolValue else {
                    problem(identifier, "is not a boolean")
                    return
                }
                ageOver[age] = flag
            }
        }
    }
}
