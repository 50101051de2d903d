import VerificationCore

/// The checks of the Apple Pay payment-token flow, in the order they run.
///
/// Identifiers are a public contract (reports, metrics, integrators' code); see `docs/applepay.md`.
extension CheckID {
    /// The token is JSON with a known `version` and every header field it needs, each decodable.
    public static let applePayTokenStructure: CheckID = "applepay.token.structure"
    /// `signature` is a detached CMS SignedData with one signer whose certificate is included.
    public static let applePaySignatureCMS: CheckID = "applepay.signature.cms"
    /// The leaf carries 1.2.840.113635.100.6.29 and its issuing intermediate 1.2.840.113635.100.6.2.14.
    public static let applePaySignatureMarkerOIDs: CheckID = "applepay.signature.markerOIDs"
    /// The leaf, the intermediate and the root are each valid at the verification time.
    public static let applePaySignatureCertificateValidity: CheckID = "applepay.signature.certificateValidity"
    /// leaf → intermediate → trust anchor (Apple Root CA - G3), validated by swift-certificates' `Verifier`.
    public static let applePaySignatureChain: CheckID = "applepay.signature.chain"
    /// The content-type signed attribute is id-data and matches the encapsulated content type.
    public static let applePaySignatureContentType: CheckID = "applepay.signature.contentType"
    /// The message-digest signed attribute is SHA-256 of the signed token fields.
    public static let applePaySignatureMessageDigest: CheckID = "applepay.signature.messageDigest"
    /// The leaf key signed the signed attributes (ECDSA P-256/SHA-256 for EC_v1, RSA PKCS#1 v1.5/SHA-256 for RSA_v1).
    public static let applePaySignatureSigner: CheckID = "applepay.signature.signer"
    /// The CMS signing time lies within the allowed window around the verification time.
    public static let applePaySigningTime: CheckID = "applepay.signingTime"
    /// `header.publicKeyHash` names a configured merchant key of the right type.
    public static let applePayKeySelection: CheckID = "applepay.keySelection"
    /// The payment data decrypts (EC_v1: ECDH + KDF + AES-256-GCM; RSA_v1: RSA-OAEP + AES-128-GCM).
    public static let applePayDecryption: CheckID = "applepay.decryption"
    /// The decrypted payment data is a JSON object with the fields Apple documents.
    public static let applePayPaymentData: CheckID = "applepay.paymentData"
    /// The decrypted `currencyCode` equals the caller's expectation.
    public static let applePayExpectCurrency: CheckID = "applepay.expect.currency"
    /// The decrypted `transactionAmount` equals the caller's expectation.
    public static let applePayExpectAmount: CheckID = "applepay.expect.amount"
    /// The signed `header.applicationData` equals the caller's expectation.
    public static let applePayExpectApplicationData: CheckID = "applepay.expect.applicationData"
    /// The transaction identifier has not been accepted before (through a ``ReplayStore``).
    public static let replayTransactionId: CheckID = "replay.transactionId"

    /// Every Apple Pay check, in report order.
    public static let applePayChecks: [CheckID] = [
        .applePayTokenStructure, .applePaySignatureCMS, .applePaySignatureMarkerOIDs,
        .applePaySignatureCertificateValidity, .applePaySignatureChain, .applePaySignatureContentType,
        .applePaySignatureMessageDigest, .applePaySignatureSigner, .applePaySigningTime,
        .applePayKeySelection, .applePayDecryption, .applePayPaymentData, .applePayExpectCurrency,
        .applePayExpectAmount, .applePayExpectApplicationData, .replayTransactionId,
    ]
}

/// Reason codes the Apple Pay checks produce (besides the shared ones such as `ok`).
extension ReasonCode {
    // applepay.token.structure
    public static let malformedJSON: ReasonCode = "malformedJSON"
    public static let missingField: ReasonCode = "missingField"
    public static let invalidBase64: ReasonCode = "invalidBase64"
    public static let invalidHex: ReasonCode = "invalidHex"
    public static let unsupportedVersion: ReasonCode = "unsupportedVersion"
    public static let unexpectedField: ReasonCode = "unexpectedField"
    public static let inputTooLarge: ReasonCode = "inputTooLarge"

    // applepay.signature.cms
    public static let malformedCMS: ReasonCode = "malformedCMS"
    public static let notSignedData: ReasonCode = "notSignedData"
    public static let notDetached: ReasonCode = "notDetached"
    public static let unexpectedSignerCount: ReasonCode = "unexpectedSignerCount"
    public static let signerCertificateNotFound: ReasonCode = "signerCertificateNotFound"

    // applepay.signature.markerOIDs
    public static let missingLeafMarkerOID: ReasonCode = "missingLeafMarkerOID"
    public static let missingIntermediateMarkerOID: ReasonCode = "missingIntermediateMarkerOID"
    public static let intermediateNotFound: ReasonCode = "intermediateNotFound"

    // applepay.signature.certificateValidity
    public static let certificateExpired: ReasonCode = "certificateExpired"
    public static let certificateNotYetValid: ReasonCode = "certificateNotYetValid"

    // applepay.signature.chain
    public static let untrustedChain: ReasonCode = "untrustedChain"

    // applepay.signature.contentType / messageDigest / signingTime
    public static let missingSignedAttributes: ReasonCode = "missingSignedAttributes"
    public static let missingAttribute: ReasonCode = "missingAttribute"
    public static let duplicateAttribute: ReasonCode = "duplicateAttribute"
    public static let malformedAttribute: ReasonCode = "malformedAttribute"
    public static let contentTypeMismatch: ReasonCode = "contentTypeMismatch"
    public static let unsupportedDigestAlgorithm: ReasonCode = "unsupportedDigestAlgorithm"
    public static let digestMismatch: ReasonCode = "digestMismatch"

    // applepay.signature.signer
    public static let unsupportedSignatureAlgorithm: ReasonCode = "unsupportedSignatureAlgorithm"
    public static let signatureInvalid: ReasonCode = "signatureInvalid"
    public static let algorithmProtectionMismatch: ReasonCode = "algorithmProtectionMismatch"

    // applepay.signingTime
    public static let signingTimeTooOld: ReasonCode = "signingTimeTooOld"
    public static let signingTimeInFuture: ReasonCode = "signingTimeInFuture"

    // applepay.keySelection (keyTypeMismatch is shared with applepay.signature.signer)
    public static let noMatchingMerchantKey: ReasonCode = "noMatchingMerchantKey"
    public static let keyTypeMismatch: ReasonCode = "keyTypeMismatch"

    // applepay.decryption
    public static let invalidEphemeralPublicKey: ReasonCode = "invalidEphemeralPublicKey"
    public static let keyUnwrapFailed: ReasonCode = "keyUnwrapFailed"
    public static let unsupportedKeyLength: ReasonCode = "unsupportedKeyLength"
    public static let ciphertextTooShort: ReasonCode = "ciphertextTooShort"
    public static let authenticationFailed: ReasonCode = "authenticationFailed"

    // applepay.paymentData
    public static let malformedPaymentData: ReasonCode = "malformedPaymentData"
    public static let paymentDataFieldInvalid: ReasonCode = "paymentDataFieldInvalid"

    // applepay.expect.*
    public static let currencyMismatch: ReasonCode = "currencyMismatch"
    public static let amountMismatch: ReasonCode = "amountMismatch"
    public static let applicationDataMismatch: ReasonCode = "applicationDataMismatch"
    public static let applicationDataMissing: ReasonCode = "applicationDataMissing"

    // replay.transactionId
    public static let replayed: ReasonCode = "replayed"
}
