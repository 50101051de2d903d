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

// MARK: - The physical document (DocumentExpiry.swift)

extension CheckID {
    /// A disclosed `expiry_date` of the physical document is not before the verification time
    /// (advisory unless the request sets `requireUnexpired`). Run by the in-app and web flows.
    public static let identityDocumentExpiry: CheckID = "identity.document.expiry"
}

extension ReasonCode {
    /// `identity.document.expiry`: the disclosed expiry_date is before the verification day.
    public static let documentExpired: ReasonCode = "documentExpired"
    /// `identity.document.expiry`: the request requires an unexpired document and no expiry_date was disclosed.
    public static let expiryNotDisclosed: ReasonCode = "expiryNotDisclosed"
}

// MARK: - Passports (photo ID) (PhotoID/PassportVerifier.swift)

extension CheckID {
    /// Every document in the response is a photo ID (`org.iso.23220.photoid.1`). When it fails, the
    /// caller can ask the person to retry or fall back to another verification method.
    public static let photoIDDocType: CheckID = "photoid.docType"
    /// The known `org.iso.23220.1` elements have the types ISO/IEC 23220-2 and Apple give them.
    public static let photoIDElements: CheckID = "photoid.elements"
}

// MARK: - MSO revocation (Revocation/RevocationPolicy.swift)

extension CheckID {
    /// The revocation list the MSO `status` points to was obtained, is a well-formed CWT of the
    /// right kind for that uri, is signed by a certificate chaining to the document's trusted root
    /// (or a pinned key), and is current at the verification time.
    public static let mdocRevocationList: CheckID = "mdoc.revocation.list"
    /// The document is not revoked (identifier absent from the identifier list; status-list entry 0).
    public static let mdocRevocationStatus: CheckID = "mdoc.revocation.status"
}

extension ReasonCode {
    /// A warning: the MSO names a revocation list and no revocation source was configured.
    public static let revocationNotChecked: ReasonCode = "revocationNotChecked"
    /// Both revocation checks, skipped: revocation checking is turned off (`serve --revocation off`).
    public static let revocationDisabled: ReasonCode = "disabled"
}

// MARK: - VICAL trust lists (TrustLists/VICALLoader.swift)

extension CheckID {
    /// The VICAL is a COSE_Sign1 whose payload has the Annex C shape.
    public static let vicalStructure: CheckID = "vical.structure"
    /// The COSE_Sign1 verifies with the key of the first x5chain certificate, over the payload as received.
    public static let vicalSignature: CheckID = "vical.signature"
    /// The signer's x5chain leads to a configured VICAL anchor; every certificate valid at the verification time.
    public static let vicalChain: CheckID = "vical.chain"
    /// date ≤ verification time ≤ nextUpdate (with the allowed clock skew).
    public static let vicalValidity: CheckID = "vical.validity"
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

extension ReasonCode {
    // Reasons returned by this module's checks (docs/checks.md lists them by check).
    /// For example: "Certificate…"
    public static let certificateExpired: ReasonCode = "certificateExpired"
    /// For example: "Certificate…"
    public static let certificateNotYetValid: ReasonCode = "certificateNotYetValid"
    /// For example: "The issuer's certificates break Annex B rules this policy reports as warnings:…"
    public static let certificateProfileWarning: ReasonCode = "certificateProfileWarning"
    /// Reason `countryNameAbsent` (docs/checks.md).
    public static let countryNameAbsent: ReasonCode = "countryNameAbsent"
    /// For example: "The…"
    public static let countryNameInvalid: ReasonCode = "countryNameInvalid"
    /// For example: "The document signer's countryName…"
    public static let countryNameMismatch: ReasonCode = "countryNameMismatch"
    /// For example: "No validated chain."
    public static let countryNameMissing: ReasonCode = "countryNameMissing"
    /// For example: "HPKE (DHKEM P-256, HKDF-SHA256, AES-128-GCM) could not open the data:…"
    public static let decryptionFailed: ReasonCode = "decryptionFailed"
    /// For example: "The device authenticated an attached DeviceAuthentication that differs from the expected one:…"
    public static let deviceAuthenticationMismatch: ReasonCode = "deviceAuthenticationMismatch"
    /// For example: "The device MAC does not verify:…"
    public static let deviceMacInvalid: ReasonCode = "deviceMacInvalid"
    /// For example: "The device signature does not verify over DeviceAuthentication:…"
    public static let deviceSignatureInvalid: ReasonCode = "deviceSignatureInvalid"
    /// For example: "The document has no deviceSigned part, so it cannot be bound to the holder's device."
    public static let deviceSignedMissing: ReasonCode = "deviceSignedMissing"
    /// For example: "The MSO was issued for…"
    public static let docTypeMismatch: ReasonCode = "docTypeMismatch"
    /// For example: "The document type…"
    public static let docTypeNotAccepted: ReasonCode = "docTypeNotAccepted"
    /// For example: "The MSO expired at…"
    public static let expired: ReasonCode = "expired"
    /// For example: "The MSO is valid from…"
    public static let inconsistentValidity: ReasonCode = "inconsistentValidity"
    /// For example: "The document's status-list index is outside the list at…"
    public static let indexOutOfRange: ReasonCode = "indexOutOfRange"
    /// For example: "The MSO's device key cannot be used:…"
    public static let invalidDeviceKey: ReasonCode = "invalidDeviceKey"
    /// For example: "Photo ID elements have the wrong type or form:…"
    public static let invalidElement: ReasonCode = "invalidElement"
    /// For example: "The DeviceResponse version \"…"
    public static let invalidVersion: ReasonCode = "invalidVersion"
    /// For example: "ECDH with the device key failed."
    public static let keyAgreementFailed: ReasonCode = "keyAgreementFailed"
    /// For example: "The revocation list expired at…"
    public static let listExpired: ReasonCode = "listExpired"
    /// For example: "The revocation list was issued at…"
    public static let listNotYetValid: ReasonCode = "listNotYetValid"
    /// For example: "The revocation list has no iat, so its age cannot be judged (the policy accepts lists up to…"
    public static let listStale: ReasonCode = "listStale"
    /// For example: "The revocation list at…"
    public static let listTooLarge: ReasonCode = "listTooLarge"
    /// For example: "The revocation list server did not answer with HTTP."
    public static let listUnavailable: ReasonCode = "listUnavailable"
    /// For example: "The revocation list is not well-formed CBOR…"
    public static let malformedList: ReasonCode = "malformedList"
    /// For example: "The MSO status entry is a…"
    public static let malformedStatus: ReasonCode = "malformedStatus"
    /// For example: "The response is not an Annex C EncryptedResponse:…"
    public static let malformedStructure: ReasonCode = "malformedStructure"
    /// For example: "The VICAL has no x5chain."
    public static let missingCertificateChain: ReasonCode = "missingCertificateChain"
    /// Reason `msoMissing` (docs/checks.md).
    public static let msoMissing: ReasonCode = "msoMissing"
    /// For example: "No document to compare with the request."
    public static let noDocument: ReasonCode = "noDocument"
    /// For example: "The DeviceResponse holds no documents…"
    public static let noDocuments: ReasonCode = "noDocuments"
    /// For example: "No trusted IACA root is configured for…"
    public static let noTrustAnchor: ReasonCode = "noTrustAnchor"
    /// For example: "The MSO is not valid before…"
    public static let notYetValid: ReasonCode = "notYetValid"
    /// For example: "No validated chain of a document signer and an IACA."
    public static let profileViolation: ReasonCode = "profileViolation"
    /// For example: "The response is authenticated with deviceMac, which cannot be checked without the reader's ephemeral…"
    public static let readerKeyRequired: ReasonCode = "readerKeyRequired"
    /// For example: "The DeviceResponse status is…"
    public static let responseStatus: ReasonCode = "responseStatus"
    /// Reason `revocationUndetermined` (docs/checks.md).
    public static let revocationUndetermined: ReasonCode = "revocationUndetermined"
    /// Reason `revoked` (docs/checks.md).
    public static let revoked: ReasonCode = "revoked"
    /// For example: "The document signer … chains to …, a root trusted for any docType; a org.iso.23220.photoid.1 document (passport) must chain to a root trusted for its docType…"
    public static let rootNotScopedForDocType: ReasonCode = "rootNotScopedForDocType"
    /// For example: "The MSO was signed at…, outside its document signer certificate's validity…"
    public static let signedOutsideSignerValidity: ReasonCode = "signedOutsideSignerValidity"
    /// For example: "The revocation list's signature does not verify with any pinned key."
    public static let signatureInvalid: ReasonCode = "signatureInvalid"
    /// For example: "Certificate…"
    public static let signerCertificateExpired: ReasonCode = "signerCertificateExpired"
    /// For example: "Certificate…"
    public static let signerCertificateNotYetValid: ReasonCode = "signerCertificateNotYetValid"
    /// For example: "The VICAL signer…"
    public static let signerProfileViolation: ReasonCode = "signerProfileViolation"
    /// For example: "The MSO carries no status entry, and the policy requires one."
    public static let statusMissing: ReasonCode = "statusMissing"
    /// For example: "The document's status-list entry at…"
    public static let statusValueUnknown: ReasonCode = "statusValueUnknown"
    /// Reason `suspended` (docs/checks.md).
    public static let suspended: ReasonCode = "suspended"
    /// For example: "The device signed…"
    public static let unauthorizedDeviceSignedElement: ReasonCode = "unauthorizedDeviceSignedElement"
    /// For example: "The response is a…"
    public static let unexpectedDocType: ReasonCode = "unexpectedDocType"
    /// For example: "The response carries elements that were not requested:…"
    public static let unrequestedElement: ReasonCode = "unrequestedElement"
    /// Reason `unsupportedDeviceKey` (docs/checks.md).
    public static let unsupportedDeviceKey: ReasonCode = "unsupportedDeviceKey"
    /// For example: "The MSO digest algorithm \"…"
    public static let unsupportedDigestAlgorithm: ReasonCode = "unsupportedDigestAlgorithm"
    /// For example: "The document signer key is not an EC key on P-256, P-384 or P-521."
    public static let unsupportedKey: ReasonCode = "unsupportedKey"
    /// For example: "The revocation list uri…"
    public static let unsupportedURI: ReasonCode = "unsupportedURI"
    /// For example: "The DeviceResponse version…"
    public static let unsupportedVersion: ReasonCode = "unsupportedVersion"
    /// For example: "The document signer…"
    public static let untrustedIssuer: ReasonCode = "untrustedIssuer"
    /// For example: "The revocation list is signed by another certificate than the one the MSO names for it."
    public static let untrustedSigner: ReasonCode = "untrustedSigner"
    /// For example: "The revocation list has no sub claim, so it cannot be matched to…"
    public static let uriMismatch: ReasonCode = "uriMismatch"
    /// For example: "The MSO version…"
    public static let versionAboveResponse: ReasonCode = "versionAboveResponse"
    /// For example: "VICAL entry…"
    public static let vicalEntrySkipped: ReasonCode = "vicalEntrySkipped"
    /// For example: "The VICAL is dated…"
    public static let vicalNotYetValid: ReasonCode = "vicalNotYetValid"
    /// Reason `vicalOutdated` (docs/checks.md).
    public static let vicalOutdated: ReasonCode = "vicalOutdated"
    /// For example: "The VICAL's x5chain holds…"
    public static let chainTooLong: ReasonCode = "chainTooLong"
    /// For example: "Certificate…"
    public static let invalidCertificate: ReasonCode = "invalidCertificate"
}
