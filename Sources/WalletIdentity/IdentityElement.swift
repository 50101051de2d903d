/// PassKit's identity elements (`PKIdentityElement`) and the mdoc data elements each one maps to.
public enum IdentityElement: String, Sendable, Hashable, Codable, CaseIterable {
    case givenName, familyName, portrait, address, dateOfBirth, age, documentNumber, issuingAuthority
    case documentIssueDate, documentExpirationDate, drivingPrivileges, documentDHSComplianceStatus, sex

    public static let isoNameSpace = "org.iso.18013.5.1"
    public static let aamvaNameSpace = "org.iso.18013.5.1.aamva"
    public static let photoIDNameSpace = "org.iso.23220.1"

    /// The (namespace, identifier) pairs a response may carry for this element. For `age`, the
    /// `age_over_NN` elements are matched separately (see ``IdentityRequestDescriptor``).
    public func identifiers(for document: IdentityRequestDescriptor.DocumentKind) -> [(nameSpace: String, identifier: String)] {
        switch document {
        case .driversLicense, .nationalIDCard:
            let iso = Self.isoNameSpace
            switch self {
            case .givenName: return [(iso, "given_name")]
            case .familyName: return [(iso, "family_name")]
            case .portrait: return [(iso, "portrait")]
            case .address: return [(iso, "resident_address"), (iso, "resident_city"), (iso, "resident_state"), (iso, "resident_postal_code"), (iso, "resident_country")]
            case .dateOfBirth: return [(iso, "birth_date")]
            case .age: return [(iso, "age_in_years")]
            case .documentNumber: return [(iso, "document_number")]
            case .issuingAuthority: return [(iso, "issuing_authority")]
            case .documentIssueDate: return [(iso, "issue_date")]
            case .documentExpirationDate: return [(iso, "expiry_date")]
            case .drivingPrivileges:
                return document == .driversLicense ? [(iso, "driving_privileges"), (Self.aamvaNameSpace, "domestic_driving_privileges")] : []
            case .documentDHSComplianceStatus:
                return document == .driversLicense ? [(Self.aamvaNameSpace, "DHS_compliance")] : []
            case .sex: return [(iso, "sex")]
            }
        case .photoID:
            let ns = Self.photoIDNameSpace
            switch self {
            case .givenName: return [(ns, "given_name_unicode"), (ns, "given_name_latin1")]
            case .familyName: return [(ns, "family_name_unicode"), (ns, "family_name_latin1")]
            case .portrait: return [(ns, "portrait"), (ns, "portrait_capture_date")]
            case .address: return []
            case .dateOfBirth: return [(ns, "birth_date")]
            case .age: return [(ns, "age_in_years"), (ns, "age_birth_year")]
            case .documentNumber: return [(ns, "document_number")]
            case .issuingAuthority: return [(ns, "issuing_authority_unicode"), (ns, "issuing_authority_latin1"), (ns, "issuing_country")]
            case .documentIssueDate: return [(ns, "issue_date")]
            case .documentExpirationDate: return [(ns, "expiry_date")]
            case .drivingPrivileges, .documentDHSComplianceStatus: return []
            case .sex: return [(ns, "sex")]
            }
        }
    }

    /// The namespace holding age_over_NN, age_in_years and birth_date for a document kind.
    public static func ageNameSpace(for document: IdentityRequestDescriptor.DocumentKind) -> String {
        document == .photoID ? photoIDNameSpace : isoNameSpace
    }
}
