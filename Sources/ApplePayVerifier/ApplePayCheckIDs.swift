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
    /// The token, its `paymentData` or one of their members is not valid JSON or not of the JSON type expected.
    public static let malformedJSON: ReasonCode = "malformedJSON"
    /// A member the token or its header needs is absent.
    public static let missingField: ReasonCode = "missingField"
    /// A base64 field does not decode, or `data` or `header.publicKeyHash` decodes to the wrong length.
    public static let invalidBase64: ReasonCode = "invalidBase64"
    /// `header.transactionId` or `header.applicationData` is not hex text.
    public static let invalidHex: ReasonCode = "invalidHex"
    /// The header carries the other version's key: `wrappedKey` in EC_v1, `ephemeralPublicKey` in RSA_v1.
    public static let unexpectedField: ReasonCode = "unexpectedField"
    /// The token is larger than ``ApplePayToken/maximumInputSize``.
    public static let inputTooLarge: ReasonCode = "inputTooLarge"

    // applepay.signature.cms
    /// `signature` is not a readable CMS SignedData, or it holds too many or unreadable certificates.
    public static let malformedCMS: ReasonCode = "malformedCMS"
    /// The signature's ContentInfo has a content type other than id-signedData.
    public static let notSignedData: ReasonCode = "notSignedData"
    /// The SignedData carries its content; Apple Pay signatures are detached.
    public static let notDetached: ReasonCode = "notDetached"
    /// The SignedData has no signer or more than one.
    public static let unexpectedSignerCount: ReasonCode = "unexpectedSignerCount"
    /// The SignedData holds no certificates, or none that matches the signer identifier.
    public static let signerCertificateNotFound: ReasonCode = "signerCertificateNotFound"

    // applepay.signature.markerOIDs
    /// The leaf certificate lacks the Apple Pay marker extension 1.2.840.113635.100.6.29.
    public static let missingLeafMarkerOID: ReasonCode = "missingLeafMarkerOID"
    /// The intermediate certificate lacks the marker extension 1.2.840.113635.100.6.2.14.
    public static let missingIntermediateMarkerOID: ReasonCode = "missingIntermediateMarkerOID"
    /// No certificate in the SignedData issued the leaf.
    public static let intermediateNotFound: ReasonCode = "intermediateNotFound"

    // applepay.signature.certificateValidity: certificateExpired, certificateNotYetValid (shared:
    // VerificationCore's SharedCheckIDs.swift). applepay.token.structure's unsupportedVersion,
    // applepay.signature.messageDigest's unsupportedDigestAlgorithm and applepay.signature.signer's
    // signatureInvalid are shared too.

    // applepay.signature.chain
    /// No valid chain leads from the leaf through an intermediate to the trust anchor.
    public static let untrustedChain: ReasonCode = "untrustedChain"

    // applepay.signature.contentType / messageDigest / signingTime
    /// The SignerInfo has no signed attributes.
    public static let missingSignedAttributes: ReasonCode = "missingSignedAttributes"
    /// A signed attribute a check needs (content type, message digest, signing time) is absent.
    public static let missingAttribute: ReasonCode = "missingAttribute"
    /// A signed attribute that must appear once appears more than once.
    public static let duplicateAttribute: ReasonCode = "duplicateAttribute"
    /// A signed attribute does not have exactly one value, or its value is not of the type required.
    public static let malformedAttribute: ReasonCode = "malformedAttribute"
    /// The content-type attribute is not id-data, or differs from the encapsulated content type.
    public static let contentTypeMismatch: ReasonCode = "contentTypeMismatch"
    // digestMismatch (the message-digest attribute is not SHA-256 of the signed token fields) is
    // shared with mdoc.valueDigests: VerificationCore's SharedCheckIDs.swift.

    // applepay.signature.signer
    /// The signature algorithm is not the one the token version calls for.
    public static let unsupportedSignatureAlgorithm: ReasonCode = "unsupportedSignatureAlgorithm"
    /// The CMSAlgorithmProtection attribute (RFC 6211) cannot be read or names other algorithms than the signer's.
    public static let algorithmProtectionMismatch: ReasonCode = "algorithmProtectionMismatch"

    // applepay.signingTime
    /// The token was signed longer ago than ``ApplePayPolicy/maximumSigningAge``.
    public static let signingTimeTooOld: ReasonCode = "signingTimeTooOld"
    /// The signing time lies after the verification time by more than the allowed clock skew.
    public static let signingTimeInFuture: ReasonCode = "signingTimeInFuture"

    // applepay.keySelection (keyTypeMismatch is shared with applepay.signature.signer)
    /// No configured merchant key has the token's `header.publicKeyHash`.
    public static let noMatchingMerchantKey: ReasonCode = "noMatchingMerchantKey"
    /// The merchant key, or the leaf's signing key, is not of the type the token version needs.
    public static let keyTypeMismatch: ReasonCode = "keyTypeMismatch"

    // applepay.decryption
    /// `header.ephemeralPublicKey` is not a P-256 public key, or ECDH with it fails.
    public static let invalidEphemeralPublicKey: ReasonCode = "invalidEphemeralPublicKey"
    /// RSA-OAEP with the merchant key cannot unwrap `header.wrappedKey`.
    public static let keyUnwrapFailed: ReasonCode = "keyUnwrapFailed"
    /// The unwrapped RSA_v1 key is not 16 bytes (AES-128).
    public static let unsupportedKeyLength: ReasonCode = "unsupportedKeyLength"
    /// `data` is shorter than the 16-byte GCM tag.
    public static let ciphertextTooShort: ReasonCode = "ciphertextTooShort"
    /// AES-GCM rejects the data: another merchant key or merchant id, or altered data.
    public static let authenticationFailed: ReasonCode = "authenticationFailed"

    // applepay.paymentData
    /// The decrypted bytes are not a JSON object, or a required member is absent or of the wrong type.
    public static let malformedPaymentData: ReasonCode = "malformedPaymentData"
    /// A decrypted field does not have the shape Apple documents (expiration date, currency code, data type).
    public static let paymentDataFieldInvalid: ReasonCode = "paymentDataFieldInvalid"

    // applepay.expect.*
    /// The decrypted `currencyCode` differs from the expected one.
    public static let currencyMismatch: ReasonCode = "currencyMismatch"
    /// The decrypted `transactionAmount` differs from the expected one.
    public static let amountMismatch: ReasonCode = "amountMismatch"
    /// `header.applicationData` differs from the expected value, or the expected value is not hex.
    public static let applicationDataMismatch: ReasonCode = "applicationDataMismatch"
    /// An applicationData was expected but the token has none.
    public static let applicationDataMissing: ReasonCode = "applicationDataMissing"

    // replay.transactionId
    /// The transaction identifier was accepted before: the token is a replay.
    public static let replayed: ReasonCode = "replayed"
}

extension ReasonCode {
    // Reasons returned by this module's checks (docs/checks.md lists them by check).
    /// A warning: a root other than Apple Root CA - G3 is configured; for tests only, never in production.
    public static let customTrustAnchor: ReasonCode = "customTrustAnchor"
    /// Warning `expectationsMissing`: the token was verified without an expected currency, amount or
    /// (for a token that carries one) applicationData (docs/applepay.md).
    public static let expectationsMissing: ReasonCode = "expectationsMissing"
    /// A warning: the unsigned PKPaymentToken transactionIdentifier differs from the signed header.transactionId: trust only the signed
    /// one.
    public static let transactionIdentifierMismatch: ReasonCode = "transactionIdentifierMismatch"
}
