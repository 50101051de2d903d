/// PassKit's identity elements (`PKIdentityElement`) and the mdoc data elements each one maps to.
///
/// The JSON names are PassKit's. `age` with `atLeast` is PassKit's `age(atLeast:)`; its
/// `age_over_NN` answers are matched separately (see ``RequestMatching``).
public enum IdentityElement: String, Sendable, Hashable, Codable, CaseIterable {
    case givenName, familyName, portrait, address, dateOfBirth, age, documentNumber, issuingAuthority
    case documentIssueDate, documentExpirationDate, drivingPrivileges, documentDHSComplianceStatus, sex
    case height, weight, eyeColor, hairColor, organDonorStatus, veteranStatus, dhsTemporaryLawfulStatus, nationality

    /// Reads a PassKit element name; any other text fails with a message that lists the names and,
    /// for a near miss (`given_name`, `GivenName`), the one meant. The text itself is not repeated.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let name = try container.decode(String.self)
        guard let element = IdentityElement(rawValue: name) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: Self.unknownNameMessage(name))
        }
        self = element
    }

    /// What to say of a name that is not a PassKit element name.
    static func unknownNameMessage(_ name: String) -> String {
        func folded(_ text: String) -> String { text.lowercased().filter { $0.isLetter || $0.isNumber } }
        let meant = allCases.first { folded($0.rawValue) == folded(name) }
        return "not a PassKit element name" + (meant.map { " (did you mean \($0.rawValue)?)" } ?? "") + "; the elements are "
            + allCases.map(\.rawValue).joined(separator: ", ")
    }

    /// ISO/IEC 18013-5's mDL namespace.
    public static let isoNameSpace = "org.iso.18013.5.1"
    /// AAMVA's mDL extension namespace.
    public static let aamvaNameSpace = "org.iso.18013.5.1.aamva"
    /// ISO/IEC 23220-2's generic namespace: the photo ID (Apple's Digital ID from a passport) and
    /// the ISO part of Japan's My Number Card.
    public static let photoIDNameSpace = "org.iso.23220.1"
    /// The Japanese namespace of the My Number Card (`org.iso.23220.1.jp.mnc`).
    public static let japanNameSpace = "org.iso.23220.1.jp"

    /// The data-element layout a response's docType follows.
    public enum Profile: Sendable, Hashable, CaseIterable {
        /// ISO/IEC 18013-5 `org.iso.18013.5.1.mDL`: the ISO namespace plus AAMVA's.
        case mobileDrivingLicence
        /// ISO/IEC 23220 `org.iso.23220.photoid.1`.
        case photoID
        /// Japan's My Number Card, `org.iso.23220.1.jp.mnc`: ISO 23220 plus the JP namespace.
        case japanMyNumberCard

        /// The mdoc docType string of this layout.
        public var docType: String {
            switch self {
            case .mobileDrivingLicence: return "org.iso.18013.5.1.mDL"
            case .photoID: return "org.iso.23220.photoid.1"
            case .japanMyNumberCard: return "org.iso.23220.1.jp.mnc"
            }
        }

        /// The layout of the given docType; nil for a docType this package does not map.
        public init?(docType: String) {
            guard let profile = Self.allCases.first(where: { $0.docType == docType }) else { return nil }
            self = profile
        }

        /// The namespace holding age_over_NN, age_in_years and birth_date.
        public var ageNameSpace: String {
            self == .mobileDrivingLicence ? IdentityElement.isoNameSpace : IdentityElement.photoIDNameSpace
        }
    }

    /// The (namespace, identifier) pairs a response of the given docType may carry for this element
    /// when the app used this descriptor. Empty when the element cannot be requested that way.
    public func identifiers(for document: IdentityRequestDescriptor.DocumentKind, docType: String) -> [(nameSpace: String, identifier: String)] {
        guard let profile = Profile(docType: docType), document.profiles.contains(profile) else { return [] }
        return identifiers(for: document, profile: profile)
    }

    /// Every (namespace, identifier) pair any docType of the descriptor may carry for this element.
    public func identifiers(for document: IdentityRequestDescriptor.DocumentKind) -> [(nameSpace: String, identifier: String)] {
        document.profiles.flatMap { identifiers(for: document, profile: $0) }
    }

    func identifiers(for document: IdentityRequestDescriptor.DocumentKind, profile: Profile) -> [(nameSpace: String, identifier: String)] {
        switch profile {
        case .mobileDrivingLicence:
            // Driving privileges only on a driver's licence; a national ID in mDL form has none.
            if self == .drivingPrivileges && document != .driversLicense { return [] }
            return mobileDrivingLicence
        case .photoID: return photoID
        case .japanMyNumberCard: return japanMyNumberCard
        }
    }

    /// Apple's `PKIdentityDriversLicenseDescriptor` table (ISO and AAMVA namespaces), completed with
    /// the ISO 18013-5 and AAMVA identifiers of the elements added since.
    private var mobileDrivingLicence: [(nameSpace: String, identifier: String)] {
        let iso = Self.isoNameSpace, aamva = Self.aamvaNameSpace
        switch self {
        case .givenName:
            return [(iso, "given_name"), (aamva, "given_name_truncation"), (aamva, "aka_given_name"), (aamva, "name_suffix"), (aamva, "aka_suffix")]
        case .familyName: return [(iso, "family_name"), (aamva, "family_name_truncation"), (aamva, "aka_family_name")]
        case .portrait: return [(iso, "portrait")]
        case .address:
            return [
                (iso, "resident_address"), (iso, "resident_city"), (iso, "resident_state"), (iso, "resident_postal_code"), (iso, "resident_country"),
            ]
        case .dateOfBirth: return [(iso, "birth_date")]
        case .age: return [(iso, "age_in_years")]
        case .documentNumber: return [(iso, "document_number")]
        case .issuingAuthority:
            return [(iso, "issuing_authority"), (iso, "issuing_jurisdiction"), (iso, "issuing_country"), (iso, "un_distinguishing_sign")]
        // ISO 18013-5 names it issue_date; Apple's table writes document_issue_date. Both are accepted.
        case .documentIssueDate: return [(iso, "issue_date"), (iso, "document_issue_date")]
        case .documentExpirationDate: return [(iso, "expiry_date")]
        case .drivingPrivileges: return [(iso, "driving_privileges"), (aamva, "domestic_driving_privileges")]
        case .documentDHSComplianceStatus: return [(aamva, "DHS_compliance")]
        case .dhsTemporaryLawfulStatus: return [(aamva, "DHS_temporary_lawful_status")]
        case .sex: return [(iso, "sex")]
        case .height: return [(iso, "height")]
        case .weight: return [(iso, "weight"), (aamva, "weight_range")]
        case .eyeColor: return [(iso, "eye_colour")]
        case .hairColor: return [(iso, "hair_colour")]
        case .organDonorStatus: return [(aamva, "organ_donor")]
        case .veteranStatus: return [(aamva, "veteran")]
        case .nationality: return [(iso, "nationality")]
        }
    }

    /// Apple's `PKIdentityPhotoIDDescriptor` table (ISO 23220-1 namespace), with the Latin-1 and
    /// integer variants the seed's element list also names.
    private var photoID: [(nameSpace: String, identifier: String)] {
        let ns = Self.photoIDNameSpace
        switch self {
        case .givenName: return [(ns, "given_name_unicode"), (ns, "given_name_latin1")]
        case .familyName: return [(ns, "family_name_unicode"), (ns, "family_name_latin1")]
        case .portrait: return [(ns, "portrait"), (ns, "portrait_capture_date")]
        case .address:
            return [
                (ns, "resident_address_unicode"), (ns, "resident_city_unicode"), (ns, "resident_city_latin1"), (ns, "resident_postal_code"),
                (ns, "resident_country"),
            ]
        case .dateOfBirth: return [(ns, "birth_date")]
        case .age: return [(ns, "age_in_years"), (ns, "age_birth_year")]
        case .documentNumber: return [(ns, "document_number")]
        case .issuingAuthority:
            return [(ns, "issuing_authority_unicode"), (ns, "issuing_authority_latin1"), (ns, "issuing_subdivision"), (ns, "issuing_country")]
        case .documentIssueDate: return [(ns, "issue_date")]
        case .documentExpirationDate: return [(ns, "expiry_date")]
        case .sex: return [(ns, "sex"), (ns, "sex_unicode")]
        case .nationality: return [(ns, "nationality")]
        case .drivingPrivileges, .documentDHSComplianceStatus, .dhsTemporaryLawfulStatus, .height, .weight, .eyeColor, .hairColor, .organDonorStatus,
            .veteranStatus:
            return []
        }
    }

    /// Apple's `PKIdentityNationalIDCardDescriptor` table for Japan: names, portrait and address in
    /// the JP namespace; dates, age and sex in ISO 23220's.
    private var japanMyNumberCard: [(nameSpace: String, identifier: String)] {
        let iso = Self.photoIDNameSpace, jp = Self.japanNameSpace
        switch self {
        case .givenName, .familyName: return [(jp, "full_name_unicode"), (iso, self == .givenName ? "given_name_unicode" : "family_name_unicode")]
        case .portrait: return [(jp, "portrait"), (iso, "portrait")]
        case .address:
            return [(jp, "resident_address_unicode"), (iso, "resident_address_unicode"), (iso, "resident_postal_code"), (iso, "resident_country")]
        case .dateOfBirth: return [(iso, "birth_date")]
        case .age: return [(iso, "age_in_years"), (iso, "age_birth_year")]
        case .documentNumber: return [(iso, "document_number")]
        case .issuingAuthority: return [(iso, "issuing_authority_unicode"), (iso, "issuing_subdivision"), (iso, "issuing_country")]
        case .documentIssueDate: return [(iso, "issue_date")]
        case .documentExpirationDate: return [(iso, "expiry_date")]
        case .sex: return [(iso, "sex")]
        case .nationality: return [(iso, "nationality")]
        case .drivingPrivileges, .documentDHSComplianceStatus, .dhsTemporaryLawfulStatus, .height, .weight, .eyeColor, .hairColor, .organDonorStatus,
            .veteranStatus:
            return []
        }
    }

    /// The namespace holding age_over_NN, age_in_years and birth_date for a response's docType.
    public static func ageNameSpace(docType: String) -> String {
        (Profile(docType: docType) ?? .mobileDrivingLicence).ageNameSpace
    }
}
