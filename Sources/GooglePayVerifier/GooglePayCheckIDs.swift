import VerificationCore

/// The checks of the Google Pay payment-token flow (protocolVersion ECv2), in the order they run.
///
/// Identifiers are a public contract (reports, metrics, integrators' code); see `docs/googlepay.md`.
extension CheckID {
    /// The token is strict JSON with `protocolVersion` ECv2, `signature`, `intermediateSigningKey`
    /// (`signedKey`, `signatures`) and `signedMessage`, each of the right type, size and encoding.
    public static let googlePayTokenStructure: CheckID = "googlepay.token.structure"
    /// One of `intermediateSigningKey.signatures` verifies with an unexpired ECv2 root signing key.
    public static let googlePayIntermediateKeySignature: CheckID = "googlepay.intermediateKey.signature"
    /// `signedKey` holds a P-256 key whose `keyExpiration` lies after the verification time.
    public static let googlePayIntermediateKeyExpiration: CheckID = "googlepay.intermediateKey.expiration"
    /// `signature` verifies with the intermediate key over the signed message for this recipient.
    public static let googlePayMessageSignature: CheckID = "googlepay.message.signature"
    /// The signed message's tag verifies with a merchant key, and the message decrypts.
    public static let googlePayDecryption: CheckID = "googlepay.decryption"
    /// The decrypted message is a JSON object with the fields Google documents for a card.
    public static let googlePayMessageContent: CheckID = "googlepay.message.content"
    /// The message's `messageExpiration` lies after the verification time.
    public static let googlePayMessageExpiration: CheckID = "googlepay.message.expiration"
    /// The message's `messageId` has not been accepted before (through a ``ReplayStore``).
    public static let googlePayReplayMessageId: CheckID = "googlepay.replay.messageId"

    /// Every Google Pay check, in report order.
    public static let googlePayChecks: [CheckID] = [
        .googlePayTokenStructure, .googlePayIntermediateKeySignature, .googlePayIntermediateKeyExpiration,
        .googlePayMessageSignature, .googlePayDecryption, .googlePayMessageContent, .googlePayMessageExpiration,
        .googlePayReplayMessageId,
    ]
}

/// Reason codes the Google Pay checks produce (besides shared ones such as `ok`,
/// `unsupportedVersion` and `signatureInvalid`).
extension ReasonCode {
    // googlepay.token.structure (and unsupportedVersion, shared)
    /// The token is not strict JSON, not an object, or a member is not of the JSON type expected.
    public static let malformedToken: ReasonCode = "malformedToken"
    /// A member the token needs is absent.
    public static let missingTokenField: ReasonCode = "missingTokenField"
    /// A base64 member of the token does not decode (standard alphabet, padded).
    public static let invalidTokenEncoding: ReasonCode = "invalidTokenEncoding"
    /// The token or one of its members is larger than the verifier accepts.
    public static let tokenFieldTooLarge: ReasonCode = "tokenFieldTooLarge"

    // googlepay.intermediateKey.signature (and signatureInvalid, shared)
    /// No root signing key of the list is for ECv2 and unexpired at the verification time.
    public static let noUsableRootKey: ReasonCode = "noUsableRootKey"

    // googlepay.intermediateKey.expiration
    /// `signedKey` is not JSON with a `keyValue` (a P-256 key) and a `keyExpiration` (milliseconds).
    public static let malformedSignedKey: ReasonCode = "malformedSignedKey"
    /// The intermediate signing key's `keyExpiration` is not after the verification time.
    public static let intermediateKeyExpired: ReasonCode = "intermediateKeyExpired"

    // googlepay.decryption
    /// `signedMessage` is not JSON with `encryptedMessage`, `ephemeralPublicKey` and `tag` in base64.
    public static let malformedSignedMessage: ReasonCode = "malformedSignedMessage"
    /// `ephemeralPublicKey` is not an uncompressed P-256 point.
    public static let ephemeralKeyInvalid: ReasonCode = "ephemeralKeyInvalid"
    /// No merchant key is configured, so nothing can be decrypted.
    public static let noMerchantKey: ReasonCode = "noMerchantKey"
    /// The tag does not verify with any configured merchant key: another key, or altered data.
    public static let tagMismatch: ReasonCode = "tagMismatch"

    // googlepay.message.content
    /// The decrypted message is not a JSON object, or a field is absent or of the wrong type.
    public static let malformedMessage: ReasonCode = "malformedMessage"
    /// `paymentMethod` is not CARD.
    public static let unsupportedPaymentMethod: ReasonCode = "unsupportedPaymentMethod"
    /// `paymentMethodDetails.authMethod` is neither PAN_ONLY nor CRYPTOGRAM_3DS.
    public static let unsupportedAuthMethod: ReasonCode = "unsupportedAuthMethod"
    /// A card field does not have the shape Google documents (account number, month, year, cryptogram).
    public static let cardFieldInvalid: ReasonCode = "cardFieldInvalid"

    // googlepay.message.expiration
    /// `messageExpiration` is not after the verification time.
    public static let messageExpired: ReasonCode = "messageExpired"

    // googlepay.replay.messageId
    /// The `messageId` was accepted before: the token is a replay.
    public static let messageIdReplayed: ReasonCode = "messageIdReplayed"
}
