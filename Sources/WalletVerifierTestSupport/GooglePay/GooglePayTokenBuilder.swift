import Crypto
import CryptoExtras
import Foundation
import GooglePayVerifier
import WalletEncoding
import WalletJSON

/// Keys that stand in for Google's and the merchant's in tests: a root signing key, an
/// intermediate signing key and a merchant encryption key, all P-256 and made fresh.
public struct GooglePayFixtureKeys: Sendable {
    /// Stands in for Google's root signing key.
    public let root: P256.Signing.PrivateKey
    /// Stands in for Google's intermediate signing key (signed by ``root``).
    public let intermediate: P256.Signing.PrivateKey
    /// The merchant's encryption key.
    public let merchant: P256.KeyAgreement.PrivateKey

    /// Fresh keys.
    public init() {
        self.init(root: P256.Signing.PrivateKey(), intermediate: P256.Signing.PrivateKey(), merchant: P256.KeyAgreement.PrivateKey())
    }

    /// These keys.
    public init(root: P256.Signing.PrivateKey, intermediate: P256.Signing.PrivateKey, merchant: P256.KeyAgreement.PrivateKey) {
        self.root = root
        self.intermediate = intermediate
        self.merchant = merchant
    }

    /// Google's key-list JSON with ``root`` as its one key of `protocolVersion`, expiring at
    /// `expiration` (no `keyExpiration` when nil).
    public func rootKeyListJSON(expiration: Date?, protocolVersion: String = "ECv2") -> [UInt8] {
        GooglePayTokenBuilder.keyListJSON([(root.publicKey, protocolVersion, expiration)])
    }

    /// The merchant key ring of ``merchant``.
    public var keyRing: GooglePayMerchantKeyRing {
        GooglePayMerchantKeyRing([GooglePayMerchantKey(privateKey: merchant)])
    }
}

/// Builds ECv2 payment tokens as Google does (signed intermediate key, signed message, ECIES
/// encryption with HKDF-SHA256, AES-256-CTR and HMAC-SHA256), with every field settable so that
/// each failure of the verifier has a token that shows it.
public struct GooglePayTokenBuilder: Sendable {
    /// The keys it signs and encrypts with.
    public var keys: GooglePayFixtureKeys
    /// The key whose public half the message is encrypted for (``GooglePayFixtureKeys/merchant`` unless changed).
    public var encryptFor: P256.KeyAgreement.PublicKey
    /// The recipient id signed with the message.
    public var recipientId = "merchant:12345678901234567890"
    /// `protocolVersion` as written in the token.
    public var protocolVersion = "ECv2"
    /// The protocol version the two signatures are computed with.
    public var signedProtocolVersion = "ECv2"
    /// `signedKey.keyExpiration`.
    public var intermediateExpiration: Date
    /// Signs the intermediate key with this key instead of ``GooglePayFixtureKeys/root``.
    public var intermediateSigner: P256.Signing.PrivateKey?
    /// `messageExpiration`.
    public var messageExpiration: Date
    /// `messageId`.
    public var messageId = "fixture-message-0001"
    /// `paymentMethod`.
    public var paymentMethod = "CARD"
    /// `paymentMethodDetails.authMethod`.
    public var authMethod = "PAN_ONLY"
    /// `paymentMethodDetails.pan`.
    public var pan = "4111111111111111"
    /// `paymentMethodDetails.expirationMonth`.
    public var expirationMonth = 12
    /// `paymentMethodDetails.expirationYear`.
    public var expirationYear = 2030
    /// `paymentMethodDetails.cryptogram` (written for CRYPTOGRAM_3DS only).
    public var cryptogram = "AgAAAAAABk4DWZ4C28yUQAAAAAA="
    /// `paymentMethodDetails.eciIndicator` (written for CRYPTOGRAM_3DS only, when set).
    public var eciIndicator: String? = "05"
    /// The message encrypted instead of the one the fields above make.
    public var plaintextOverride: [UInt8]?
    /// Changes made after signing or encrypting, each to show one failure.
    public var tamper: Set<Tamper> = []

    /// A change made after signing or encrypting.
    public enum Tamper: Sendable, Hashable {
        /// One bit of the tag flipped before signedMessage is signed: the signature verifies, the
        /// tag does not.
        case tag
        /// A space appended to `signedMessage` after it was signed.
        case signedMessage
        /// One byte of the intermediate key's signature flipped.
        case intermediateSignature
        /// One byte of the message signature flipped.
        case messageSignature
    }

    /// A builder whose token is valid at `time`: the intermediate key expires a day later, the
    /// message an hour later.
    public init(keys: GooglePayFixtureKeys = GooglePayFixtureKeys(), validAt time: Date) {
        self.keys = keys
        self.encryptFor = keys.merchant.publicKey
        self.intermediateExpiration = time.addingTimeInterval(86_400)
        self.messageExpiration = time.addingTimeInterval(3600)
    }

    /// A built token: its JSON and the plaintext it carries.
    public struct Token: Sendable {
        /// The `PaymentMethodToken` JSON.
        public let json: [UInt8]
        /// The decrypted message, as encrypted.
        public let plaintext: [UInt8]
        /// `signedMessage`, as placed in the token.
        public let signedMessage: String
        /// `intermediateSigningKey.signedKey`, as placed in the token.
        public let signedKey: String
    }

    /// The message JSON the fields make.
    public var plaintext: [UInt8] {
        if let plaintextOverride { return plaintextOverride }
        var details = JSONWriter(capacity: 256)
        details.raw("{")
        details.key("expirationYear")
        details.raw(String(expirationYear))
        details.raw(",")
        details.key("expirationMonth")
        details.raw(String(expirationMonth))
        details.raw(",")
        details.key("pan")
        details.string(pan)
        details.raw(",")
        details.key("authMethod")
        details.string(authMethod)
        if authMethod == "CRYPTOGRAM_3DS" {
            details.raw(",")
            details.key("cryptogram")
            details.string(cryptogram)
            if let eciIndicator {
                details.raw(",")
                details.key("eciIndicator")
                details.string(eciIndicator)
            }
        }
        details.raw("}")
        var writer = JSONWriter(capacity: 512)
        writer.raw("{")
        writer.key("messageExpiration")
        writer.string(Self.milliseconds(messageExpiration))
        writer.raw(",")
        writer.key("messageId")
        writer.string(messageId)
        writer.raw(",")
        writer.key("paymentMethod")
        writer.string(paymentMethod)
        writer.raw(",")
        writer.key("paymentMethodDetails")
        writer.raw(bytes: details.bytes)
        writer.raw("}")
        return writer.bytes
    }

    /// Signs and encrypts. Throws only if swift-crypto does.
    public func build() throws -> Token {
        let plaintext = self.plaintext
        // The signed key.
        var keyWriter = JSONWriter(capacity: 256)
        keyWriter.raw("{")
        keyWriter.key("keyValue")
        keyWriter.string(Base64.encode(keys.intermediate.publicKey.derRepresentation))
        keyWriter.raw(",")
        keyWriter.key("keyExpiration")
        keyWriter.string(Self.milliseconds(intermediateExpiration))
        keyWriter.raw("}")
        let signedKey = keyWriter.text
        let keySigner = intermediateSigner ?? keys.root
        var keySignature = Array(try keySigner.signature(for: Self.lengthValue(["Google", signedProtocolVersion, signedKey])).derRepresentation)
        if tamper.contains(.intermediateSignature) { keySignature[keySignature.count / 2] ^= 0x01 }

        // The encrypted message.
        let ephemeral = P256.KeyAgreement.PrivateKey()
        let ephemeralBytes = Array(ephemeral.publicKey.x963Representation)
        let shared = try ephemeral.sharedSecretFromKeyAgreement(with: encryptFor)
        var ikm = ephemeralBytes
        shared.withUnsafeBytes { ikm.append(contentsOf: $0) }
        let derived = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: ikm), salt: [UInt8](repeating: 0, count: 32), info: Array("Google".utf8), outputByteCount: 64)
        let keyBytes = derived.withUnsafeBytes { Array($0) }
        let nonce = try AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16))
        let ciphertext = Array(try AES._CTR.encrypt(plaintext, using: SymmetricKey(data: keyBytes[0..<32]), nonce: nonce))
        var tag = Array(HMAC<SHA256>.authenticationCode(for: ciphertext, using: SymmetricKey(data: keyBytes[32..<64])))
        if tamper.contains(.tag) { tag[0] ^= 0x01 }
        var messageWriter = JSONWriter(capacity: 256 + ciphertext.count * 2)
        messageWriter.raw("{")
        messageWriter.key("encryptedMessage")
        messageWriter.string(Base64.encode(ciphertext))
        messageWriter.raw(",")
        messageWriter.key("ephemeralPublicKey")
        messageWriter.string(Base64.encode(ephemeralBytes))
        messageWriter.raw(",")
        messageWriter.key("tag")
        messageWriter.string(Base64.encode(tag))
        messageWriter.raw("}")
        var signedMessage = messageWriter.text
        var signature = Array(
            try keys.intermediate.signature(for: Self.lengthValue(["Google", recipientId, signedProtocolVersion, signedMessage])).derRepresentation)
        if tamper.contains(.messageSignature) { signature[signature.count / 2] ^= 0x01 }
        if tamper.contains(.signedMessage) { signedMessage += " " }

        var token = JSONWriter(capacity: 1024 + signedMessage.utf8.count * 2)
        token.raw("{")
        token.key("signature")
        token.string(Base64.encode(signature))
        token.raw(",")
        token.key("intermediateSigningKey")
        token.raw("{")
        token.key("signedKey")
        token.string(signedKey)
        token.raw(",")
        token.key("signatures")
        token.raw("[")
        token.string(Base64.encode(keySignature))
        token.raw("]}")
        token.raw(",")
        token.key("protocolVersion")
        token.string(protocolVersion)
        token.raw(",")
        token.key("signedMessage")
        token.string(signedMessage)
        token.raw("}")
        return Token(json: token.bytes, plaintext: plaintext, signedMessage: signedMessage, signedKey: signedKey)
    }

    /// Google's key-list JSON of these keys.
    public static func keyListJSON(_ keys: [(key: P256.Signing.PublicKey, protocolVersion: String, expiration: Date?)]) -> [UInt8] {
        var writer = JSONWriter(capacity: 256 * keys.count + 16)
        writer.raw("{")
        writer.key("keys")
        writer.raw("[")
        for (index, entry) in keys.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.raw("{")
            writer.key("keyValue")
            writer.string(Base64.encode(entry.key.derRepresentation))
            writer.raw(",")
            writer.key("protocolVersion")
            writer.string(entry.protocolVersion)
            if let expiration = entry.expiration {
                writer.raw(",")
                writer.key("keyExpiration")
                writer.string(milliseconds(expiration))
            }
            writer.raw("}")
        }
        writer.raw("]}")
        return writer.bytes
    }

    /// Milliseconds since the epoch, as Google writes times.
    public static func milliseconds(_ date: Date) -> String {
        String(Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }

    /// Each part's length in 4 bytes, little-endian, then its UTF-8 bytes.
    static func lengthValue(_ parts: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        for part in parts {
            let count = UInt32(part.utf8.count)
            withUnsafeBytes(of: count.littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: part.utf8)
        }
        return bytes
    }
}
