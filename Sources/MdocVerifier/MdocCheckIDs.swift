import VerificationCore

/// Stable identifiers of the mdoc checks (ISO/IEC 18013-5 §9.1.2, §9.1.3, §9.3). Per-document checks
/// carry the scope `document[i]`.
extension CheckID {
    /// Response version ≥ 1.0, documents non-empty, status 0.
    public static let mdocResponseStructure: CheckID = "mdoc.response.structure"
    /// The document (IssuerSigned, items, DeviceSigned) decodes.
    public static let mdocDocumentStructure: CheckID = "mdoc.document.structure"
    /// COSE_Sign1 over the MSO verifies with the document signer key from x5chain.
    public static let mdocIssuerSignature: CheckID = "mdoc.issuer.signature"
    /// x5chain leads to a trusted IACA root; every certificate valid at the verification time.
    public static let mdocIssuerChain: CheckID = "mdoc.issuer.chain"
    /// ISO 18013-5 Annex B Table B.3 profile of the DS and the IACA.
    public static let mdocIssuerCertificateProfile: CheckID = "mdoc.issuer.certificateProfile"
    /// countryName present in DS and IACA, ISO 3166-1 alpha-2, equal in both.
    public static let mdocIssuerCountry: CheckID = "mdoc.issuer.country"
    /// The MSO decodes.
    public static let mdocMSOStructure: CheckID = "mdoc.mso.structure"
    /// MSO version ≥ 1.0 and not above the response's.
    public static let mdocMSOVersion: CheckID = "mdoc.mso.version"
    /// Every received IssuerSignedItem's digest matches valueDigests.
    public static let mdocValueDigests: CheckID = "mdoc.valueDigests"
    /// The MSO's docType equals the document's.
    public static let mdocDocType: CheckID = "mdoc.docType"
    /// signed ≤ validFrom ≤ time ≤ validUntil (with the allowed clock skew).
    public static let mdocValidity: CheckID = "mdoc.validity"
    /// deviceSignature or deviceMac over DeviceAuthentication.
    public static let mdocDeviceAuthentication: CheckID = "mdoc.device.authentication"
    /// Device-signed elements are allowed by the MSO's keyAuthorizations.
    public static let mdocDeviceKeyAuthorizations: CheckID = "mdoc.device.keyAuthorizations"
    /// A disclosed issuing_country equals the IACA's countryName.
    public static let mdocIssuingCountryElement: CheckID = "mdoc.issuingCountry.element"
}

extension ReasonCode {
    /// `mdoc.device.authentication`: a deviceMac in a flow that cannot carry one.
    public static let deviceMacNotAllowed: ReasonCode = "deviceMacNotAllowed"
    /// `mdoc.issuingCountry.element`: issuing_country differs from the IACA's countryName.
    public static let issuingCountryMismatch: ReasonCode = "issuingCountryMismatch"
}

/// The prerequisite lists of the per-document checks, built once (a check's `prerequisites` is read
/// on every run; an array literal there would allocate each time).
enum MdocPrerequisites {
    static let documentStructure: [CheckID] = [.mdocDocumentStructure]
    static let documentStructureAndSignature: [CheckID] = [.mdocDocumentStructure, .mdocIssuerSignature]
    static let msoStructure: [CheckID] = [.mdocMSOStructure]
    static let issuerChain: [CheckID] = [.mdocIssuerChain]
    static let issuerChainAndDigests: [CheckID] = [.mdocIssuerChain, .mdocValueDigests]
}
