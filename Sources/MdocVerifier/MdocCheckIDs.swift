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
    /// `mdoc.valueDigests`: a received IssuerSignedItem has no digest in the MSO's valueDigests
    /// (`details.missing`): the element was not issued with this MSO; reject the response.
    public static let digestMissing: ReasonCode = "digestMissing"
    /// `mdoc.valueDigests`: two received IssuerSignedItems carry the same digestID
    /// (`details.duplicated`): the issuer-signed data is malformed; reject the response.
    public static let duplicateDigestID: ReasonCode = "duplicateDigestID"
    /// `mdoc.device.authentication`: a deviceMac in a flow that cannot carry one.
    public static let deviceMacNotAllowed: ReasonCode = "deviceMacNotAllowed"
    /// `mdoc.issuingCountry.element`: issuing_country differs from the IACA's countryName.
    public static let issuingCountryMismatch: ReasonCode = "issuingCountryMismatch"
}

// MARK: - The physical document (Checks/DocumentExpiryCheck.swift)

extension CheckID {
    /// A disclosed `expiry_date` of the physical document is not before the verification time
    /// (advisory unless the request sets `requireUnexpired`). Run by the in-app and web flows,
    /// for every document (``MdocPresentationVerifier``).
    public static let identityDocumentExpiry: CheckID = "identity.document.expiry"
}

extension ReasonCode {
    /// `identity.document.expiry`: the disclosed expiry_date is before the verification day.
    public static let documentExpired: ReasonCode = "documentExpired"
    /// `identity.document.expiry`: the request requires an unexpired document and no expiry_date was disclosed.
    public static let expiryNotDisclosed: ReasonCode = "expiryNotDisclosed"
}

// MARK: - Passports (photo ID) (Checks/PhotoIDDocTypeCheck.swift, Checks/PhotoIDElementsCheck.swift)

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
    static let responseStructure: [CheckID] = [.mdocResponseStructure]
    static let documentStructure: [CheckID] = [.mdocDocumentStructure]
    static let documentStructureAndSignature: [CheckID] = [.mdocDocumentStructure, .mdocIssuerSignature]
    static let msoStructure: [CheckID] = [.mdocMSOStructure]
    static let issuerChain: [CheckID] = [.mdocIssuerChain]
    static let issuerChainAndDigests: [CheckID] = [.mdocIssuerChain, .mdocValueDigests]
}

extension ReasonCode {
    // Reasons returned by this module's checks (docs/checks.md lists them by check).
    /// `mdoc.revocation.list`: the list's uri names (or its host resolves to) an address that is not fetched from: private, link-local,
    /// unique-local, loopback by name only, unspecified, multicast, broadcast or reserved (the message names the class and the address). An
    /// operator who publishes lists on such a network allows it with `serve --fetch-allow`.
    public static let addressNotAllowed: ReasonCode = "addressNotAllowed"
    /// A warning (`mdoc.issuer.certificateProfile`): the issuer's certificates break Annex B rules that this policy (Apple's in-app)
    /// reports instead of failing; the message lists them. Acceptable for Apple's test issuer, not for production issuers.
    public static let certificateProfileWarning: ReasonCode = "certificateProfileWarning"
    /// `mdoc.issuer.country`, `mdoc.issuingCountry.element` (skipped, with a warning): countryName is missing in the document signer or
    /// IACA and the policy does not require it (Apple's test issuer has none).
    public static let countryNameAbsent: ReasonCode = "countryNameAbsent"
    /// `mdoc.issuer.country`: a countryName is not an officially assigned ISO 3166-1 alpha-2 code: the issuer's certificates are malformed;
    /// reject the document.
    public static let countryNameInvalid: ReasonCode = "countryNameInvalid"
    /// `mdoc.issuer.country`: the document signer's countryName differs from the IACA's: the signer was not issued by that country's
    /// authority; reject the document.
    public static let countryNameMismatch: ReasonCode = "countryNameMismatch"
    /// `mdoc.issuer.country`, `mdoc.issuingCountry.element`: countryName is missing in the document signer or IACA, and the policy requires
    /// it (ISO strict, passports): the issuer's certificates do not follow ISO/IEC 18013-5.
    public static let countryNameMissing: ReasonCode = "countryNameMissing"
    /// `mdoc.device.authentication`: the device authenticated an attached DeviceAuthentication that is not the one of this session
    /// transcript: the response was made for another session; reject it.
    public static let deviceAuthenticationMismatch: ReasonCode = "deviceAuthenticationMismatch"
    /// `mdoc.device.authentication`: the deviceMac does not verify with the key agreed from the reader key and the device key: the response
    /// was altered, or the reader key is not this session's.
    public static let deviceMacInvalid: ReasonCode = "deviceMacInvalid"
    /// `mdoc.device.authentication`: the device signature does not verify with the MSO's deviceKey over DeviceAuthentication: the response
    /// was altered or made for another session transcript; reject it.
    public static let deviceSignatureInvalid: ReasonCode = "deviceSignatureInvalid"
    /// `mdoc.device.authentication`: the document has no deviceSigned part, so it is not bound to the holder's device (a copied document);
    /// reject it.
    public static let deviceSignedMissing: ReasonCode = "deviceSignedMissing"
    /// `mdoc.docType`: the MSO was issued for another docType than the document claims: the document was relabelled; reject it.
    public static let docTypeMismatch: ReasonCode = "docTypeMismatch"
    /// `mdoc.docType`, `mdoc.response.structure`: the document's docType is not one the policy or the request accepts: ask for an
    /// accepted document type. Failing `mdoc.response.structure`, nothing of the response was verified.
    public static let docTypeNotAccepted: ReasonCode = "docTypeNotAccepted"
    /// `mdoc.response.structure`: the DeviceResponse holds more documents than its request asked for (one per requested docType) or
    /// than the policy verifies (``MdocVerificationPolicy/maxDocuments``); nothing of it was verified: send what was asked for.
    public static let tooManyDocuments: ReasonCode = "tooManyDocuments"
    /// `mdoc.issuer.signature`: the issuer signature is all zero bytes, the shape of mock data (such as ProximityReader returns under
    /// a developer integrator profile): test data, never a real document.
    public static let testDataSignature: ReasonCode = "testDataSignature"
    /// `mdoc.validity`: the MSO's validUntil is before the verification time (beyond the clock skew): the wallet must refresh the
    /// credential.
    public static let expired: ReasonCode = "expired"
    /// `mdoc.validity`: the MSO's signed, validFrom and validUntil are out of order, or it was signed outside its document signer's
    /// validity: the issuer's data is malformed; reject it.
    public static let inconsistentValidity: ReasonCode = "inconsistentValidity"
    /// `mdoc.revocation.status`: the document's status-list index lies outside the list: the list or the MSO is wrong, so the status cannot
    /// be read.
    public static let indexOutOfRange: ReasonCode = "indexOutOfRange"
    /// `mdoc.device.authentication`: the MSO's deviceKey is not a usable COSE key: the document cannot be bound to a device; reject it.
    public static let invalidDeviceKey: ReasonCode = "invalidDeviceKey"
    /// `photoid.elements`: a photo ID element has the wrong type or form (the message names it): the issuer's data is malformed; do not use
    /// that element.
    public static let invalidElement: ReasonCode = "invalidElement"
    /// `mdoc.response.structure`, `mdoc.mso.version`: a version is not of the form major.minor: the data is malformed.
    public static let invalidVersion: ReasonCode = "invalidVersion"
    /// `mdoc.device.authentication`: ECDH between the reader key and the device key failed, so the deviceMac cannot be checked: the keys
    /// are on different curves or invalid.
    public static let keyAgreementFailed: ReasonCode = "keyAgreementFailed"
    /// `mdoc.revocation.list`: the revocation list's exp is before the verification time: the issuer must publish a fresh list (fetched
    /// again on the next verification).
    public static let listExpired: ReasonCode = "listExpired"
    /// `mdoc.revocation.list`: the revocation list's iat or nbf is after the verification time: check the verifier's clock, or the list is
    /// not yet in force.
    public static let listNotYetValid: ReasonCode = "listNotYetValid"
    /// `mdoc.revocation.list`: the revocation list is older than the policy's maximum age, or has no iat to judge its age by: fetch a fresh
    /// list.
    public static let listStale: ReasonCode = "listStale"
    /// `mdoc.revocation.list`: the revocation list (or its decompressed status list) exceeds the size limit: it is refused rather than read
    /// without bound.
    public static let listTooLarge: ReasonCode = "listTooLarge"
    /// `mdoc.revocation.list` (error, retryable): the revocation list could not be obtained (no answer, an HTTP error, a time-out): try
    /// again later, or give the list as a file.
    public static let listUnavailable: ReasonCode = "listUnavailable"
    /// `mdoc.revocation.list`: the revocation list is not a well-formed CWT of the kind the MSO names: the list is damaged or is not a
    /// revocation list.
    public static let malformedList: ReasonCode = "malformedList"
    /// `mdoc.revocation.list`: the MSO's status entry does not have the shape of an identifier_list or status_list reference: the issuer's
    /// data is malformed.
    public static let malformedStatus: ReasonCode = "malformedStatus"
    /// A signature carries no usable x5chain (the MSO, a VICAL, a revocation list, a reader signature): its signer cannot be identified;
    /// reject it.
    public static let missingCertificateChain: ReasonCode = "missingCertificateChain"
    /// `mdoc.mso.structure`: issuerAuth carries no MSO payload: the document is not issuer-signed; reject it.
    public static let msoMissing: ReasonCode = "msoMissing"
    /// `mdoc.response.structure`: the DeviceResponse holds no documents (the message lists any document errors the wallet returned): the
    /// holder declined or the wallet had no matching document; let them retry.
    public static let noDocuments: ReasonCode = "noDocuments"
    /// No trusted root is configured for this docType or signer (an IACA, a reader root): configure the issuer's root (`--trust`, a VICAL)
    /// if it is to be trusted.
    public static let noTrustAnchor: ReasonCode = "noTrustAnchor"
    /// `mdoc.validity`: the MSO's validFrom is after the verification time (beyond the clock skew): check the verifier's clock; the
    /// credential is not yet in force.
    public static let notYetValid: ReasonCode = "notYetValid"
    /// `mdoc.issuer.certificateProfile`, `reader.auth.profile`: a certificate breaks its ISO/IEC 18013-5 Annex B profile (the message lists
    /// the rules): the issuer's or reader's certificates must be reissued.
    public static let profileViolation: ReasonCode = "profileViolation"
    /// `mdoc.device.authentication` (error): the response is authenticated with deviceMac, which needs the reader's ephemeral private key
    /// (EReaderKey): pass it, or the response cannot be checked.
    public static let readerKeyRequired: ReasonCode = "readerKeyRequired"
    /// `mdoc.response.structure`: the DeviceResponse status is not 0 (OK): the holder's device reported an error; let the person retry.
    public static let responseStatus: ReasonCode = "responseStatus"
    /// `mdoc.revocation.status` (skipped, under a best-effort policy): the revocation status could not be decided because the list did not
    /// pass; the verdict does not depend on it. Fix the list source to have it checked.
    public static let revocationUndetermined: ReasonCode = "revocationUndetermined"
    /// `mdoc.revocation.status`: the issuer revoked the document: reject it.
    public static let revoked: ReasonCode = "revoked"
    /// `mdoc.issuer.chain`: the chain ends at a root trusted for any docType, while a passport must chain to a root trusted for its own
    /// docType (a VICAL entry or a docType-scoped root): configure the root for that docType.
    public static let rootNotScopedForDocType: ReasonCode = "rootNotScopedForDocType"
    /// `mdoc.validity`: the MSO was signed outside its document signer certificate's validity: an MSO dated before its signer existed (or
    /// after it expired) is refused.
    public static let signedOutsideSignerValidity: ReasonCode = "signedOutsideSignerValidity"
    /// `mdoc.revocation.list`: a certificate of the revocation list's x5chain expired before the verification time: the issuer must sign
    /// its lists with a current signer.
    public static let signerCertificateExpired: ReasonCode = "signerCertificateExpired"
    /// `mdoc.revocation.list`: a certificate of the revocation list's x5chain is not yet valid at the verification time: check the
    /// verifier's clock.
    public static let signerCertificateNotYetValid: ReasonCode = "signerCertificateNotYetValid"
    /// `vical.chain`: the VICAL signer breaks the VICAL-signer profile (extended key usage 1.0.18013.5.1.8, key usage, not a CA): the VICAL
    /// is not trusted.
    public static let signerProfileViolation: ReasonCode = "signerProfileViolation"
    /// `mdoc.revocation.status`: the MSO carries no status entry while the policy requires one: the document cannot be shown to be
    /// unrevoked.
    public static let statusMissing: ReasonCode = "statusMissing"
    /// `mdoc.revocation.status`: the document's status-list entry holds a value this verifier does not interpret (not 0 valid, 1 revoked or
    /// 2 suspended): its status is unknown.
    public static let statusValueUnknown: ReasonCode = "statusValueUnknown"
    /// `mdoc.revocation.status`: the issuer suspended the document (status-list value 2): reject it for now; it may be reinstated.
    public static let suspended: ReasonCode = "suspended"
    /// `mdoc.device.keyAuthorizations`: the device signed an element the MSO's keyAuthorizations do not allow: reject the response.
    public static let unauthorizedDeviceSignedElement: ReasonCode = "unauthorizedDeviceSignedElement"
    /// `photoid.docType`, `identity.request.elements`, `web.request.elements`: the response holds another docType than the request asked
    /// for (or a document that did not decode): let the person retry with the requested document.
    public static let unexpectedDocType: ReasonCode = "unexpectedDocType"
    /// `mdoc.device.authentication`: the deviceKey's curve cannot be used for the deviceMac's key agreement: the response cannot be
    /// checked.
    public static let unsupportedDeviceKey: ReasonCode = "unsupportedDeviceKey"
    /// A signer's key (document signer, VICAL signer) is not an EC key on P-256, P-384 or P-521 (or Ed25519): its signature cannot be
    /// checked; reject it.
    public static let unsupportedKey: ReasonCode = "unsupportedKey"
    /// `mdoc.revocation.list`: the MSO's revocation list uri is not fetched (only https, or http to a loopback address): give the list as a
    /// file, or the issuer must publish it over https.
    public static let unsupportedURI: ReasonCode = "unsupportedURI"
    /// `mdoc.issuer.chain`: the document signer does not chain to a trusted IACA root valid at the verification time: add the issuer's root
    /// (`--trust`, a VICAL) if you trust it.
    public static let untrustedIssuer: ReasonCode = "untrustedIssuer"
    /// `mdoc.revocation.list`: the revocation list's signer does not chain to the document's trusted root (or the certificate the MSO
    /// names, or a pinned key): the list is not trusted.
    public static let untrustedSigner: ReasonCode = "untrustedSigner"
    /// `mdoc.revocation.list`: the list's sub claim is missing or names another uri than the MSO's: it is not the list for this document.
    public static let uriMismatch: ReasonCode = "uriMismatch"
    /// `mdoc.mso.version`: the MSO version is above the DeviceResponse's: the issuer's data cannot be read under this response version;
    /// reject it.
    public static let versionAboveResponse: ReasonCode = "versionAboveResponse"
    /// A warning (VICAL loading): an entry's certificate does not parse, so it is left out; the other entries are trusted.
    public static let vicalEntrySkipped: ReasonCode = "vicalEntrySkipped"
    /// `vical.validity`: the VICAL's date is after the verification time: check the verifier's clock.
    public static let vicalNotYetValid: ReasonCode = "vicalNotYetValid"
    /// `vical.validity`: the verification time is after the VICAL's nextUpdate: fetch the current VICAL (a warning instead under
    /// `allowOutdated`).
    public static let vicalOutdated: ReasonCode = "vicalOutdated"
    /// An x5chain (VICAL, revocation list, reader signature) holds more certificates than are read (at most 4): path building stays
    /// bounded; the signer must send a shorter chain.
    public static let chainTooLong: ReasonCode = "chainTooLong"
    /// A certificate of an x5chain does not parse as X.509: the chain is damaged; reject it.
    public static let invalidCertificate: ReasonCode = "invalidCertificate"
}
