import Crypto
import CryptoExtras
import Foundation
import SwiftASN1
import X509

/// A payment token as JSON fields, so tests can alter any of them after building.
public struct ApplePayFixtureToken: @unchecked Sendable {
    /// The token version: "EC_v1" or "RSA_v1" unless a test changed it.
    public var version: String
    /// base64.
    public var data: String
    /// base64.
    public var signature: String
    /// `ephemeralPublicKey` or `wrappedKey`, `publicKeyHash`, `transactionId`, `applicationData`.
    public var header: [String: String]
    /// The plaintext that was encrypted.
    public var plaintext: [UInt8]
    /// Extra or replaced top-level members (e.g. `"header": 5`), applied last.
    public var overrides: [String: Any] = [:]
    /// Members removed from the JSON after everything else.
    public var removedMembers: Set<String> = []

    /// The header's hex transactionId; empty when the header has none.
    public var transactionId: String { header["transactionId"] ?? "" }

    /// The paymentData JSON object.
    public func paymentDataObject() -> [String: Any] {
        var object: [String: Any] = ["version": version, "data": data, "signature": signature, "header": header]
        for (key, value) in overrides { object[key] = value }
        for key in removedMembers { object.removeValue(forKey: key) }
        return object
    }

    /// `paymentData` JSON, or a whole PKPaymentToken.
    public func json(asPKPaymentToken: Bool = false) -> [UInt8] {
        var object = paymentDataObject()
        if asPKPaymentToken {
            object = [
                "paymentData": object,
                "paymentMethod": ["displayName": "Visa 0492", "network": "Visa", "type": "debit"],
                "transactionIdentifier": transactionId.uppercased(),
            ]
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return [UInt8](data)
    }

    /// Flips one bit in a base64 field (top level: data, signature; header: ephemeralPublicKey,
    /// wrappedKey) keeping it valid base64 of the same length.
    public mutating func flipBit(inBase64Field field: String, byteOffset: Int? = nil) {
        func flip(_ text: String) -> String {
            guard var bytes = Data(base64Encoded: text).map({ [UInt8]($0) }), !bytes.isEmpty else { return text }
            let index = min(byteOffset ?? bytes.count / 2, bytes.count - 1)
            bytes[index] ^= 0x01
            return Data(bytes).base64EncodedString()
        }
        switch field {
        case "data": data = flip(data)
        case "signature": signature = flip(signature)
        default: if let value = header[field] { header[field] = flip(value) }
        }
    }

    /// Changes one hex digit of a hex header field (transactionId, applicationData).
    public mutating func alterHexField(_ field: String) {
        guard var value = header[field], let first = value.first else { return }
        value.removeFirst()
        header[field] = (first == "0" ? "1" : "0") + value
    }
}

/// Makes EC_v1 and RSA_v1 tokens signed by a fixture PKI and encrypted for a fixture merchant.
public struct ApplePayTokenBuilder {
    /// A payment data JSON payload of the shape Apple's tokens decrypt to, with test card values; the default plaintext.
    public static let samplePaymentJSON =
        #"{"applicationPrimaryAccountNumber":"4111111111111111","applicationExpirationDate":"281231","currencyCode":"840","transactionAmount":1999,"cardholderName":"Jane Fixture","deviceManufacturerIdentifier":"040010030273","paymentDataType":"3DSecure","paymentData":{"onlinePaymentCryptogram":"AM8lJ8PaVr5bAAeoLxMCAoABFA==","eciIndicator":"7"}}"#

    /// The PKI whose leaf signs the token.
    public var pki: ApplePayFixturePKI
    /// The merchant the token is encrypted for.
    public var merchant: ApplePayFixtureMerchant
    /// The bytes to encrypt: ``samplePaymentJSON`` by default.
    public var plaintext: [UInt8] = Array(samplePaymentJSON.utf8)
    /// The transaction id bytes (hex in the header); 32 random bytes by default.
    public var transactionId: [UInt8]
    /// The applicationData bytes (hex in the header, and signed); nil leaves the field out.
    public var applicationData: [UInt8]?
    /// The CMS signingTime.
    public var signingTime: Date
    /// Overrides the version string in the JSON (default from the merchant's key type).
    public var version: String?
    /// Encrypt with this merchant id instead of the merchant's (decryption then fails).
    public var kdfMerchantIdentifier: String?
    /// Put this publicKeyHash in the header instead of the merchant certificate's.
    public var publicKeyHashOverride: String?
    /// Changes to the CMS encoding.
    public var cms: (inout ApplePayCMSBuilder) -> Void = { _ in }

    /// A builder for `merchant`, signing an hour after ``ApplePayFixturePKI/epoch`` by default with a random transaction id.
    public init(
        pki: ApplePayFixturePKI = .standard, merchant: ApplePayFixtureMerchant, signingTime: Date = ApplePayFixturePKI.epoch.addingTimeInterval(3600)
    ) {
        self.pki = pki
        self.merchant = merchant
        self.signingTime = signingTime
        var random = SystemRandomNumberGenerator()
        self.transactionId = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// Encrypts ``plaintext`` for the merchant (EC_v1 or RSA_v1 by its key type) and signs the result.
    /// Throws when encryption or signing fails.
    public func build() throws -> ApplePayFixtureToken {
        let merchantIdHash = Array(SHA256.hash(data: Array((kdfMerchantIdentifier ?? merchant.merchantIdentifier).utf8)))
        let zeroIV = try AES.GCM.Nonce(data: [UInt8](repeating: 0, count: 16))
        var header: [String: String] = [:]
        let keyPart: [UInt8]
        let ciphertext: [UInt8]
        let defaultVersion: String
        let signerKey: ApplePayCMSBuilder.SignerKey
        let leaf: Certificate

        switch merchant.key {
        case .ec(let merchantKey):
            let ephemeral = P256.KeyAgreement.PrivateKey()
            let shared = try ephemeral.sharedSecretFromKeyAgreement(with: merchantKey.publicKey)
            // NIST SP 800-56A concatenation KDF, one SHA-256 round (written out here, independently
            // of the verifier's implementation).
            var kdfInput: [UInt8] = [0, 0, 0, 1]
            shared.withUnsafeBytes { kdfInput += $0 }
            kdfInput += [0x0D] + Array("id-aes256-GCM".utf8) + Array("Apple".utf8) + merchantIdHash
            let key = SymmetricKey(data: SHA256.hash(data: kdfInput))
            let sealed = try AES.GCM.seal(plaintext, using: key, nonce: zeroIV)
            ciphertext = Array(sealed.ciphertext) + Array(sealed.tag)
            keyPart = Array(ephemeral.publicKey.derRepresentation)
            header["ephemeralPublicKey"] = Data(keyPart).base64EncodedString()
            defaultVersion = "EC_v1"
            signerKey = .p256(pki.keys.ecLeaf)
            leaf = pki.ecLeaf
        case .rsa(let merchantKey):
            let aesKey = SymmetricKey(size: .bits128)
            let rawKey = aesKey.withUnsafeBytes { [UInt8]($0) }
            let wrapped = try merchantKey.publicKey.encrypt(rawKey, padding: .PKCS1_OAEP_SHA256)
            let sealed = try AES.GCM.seal(plaintext, using: aesKey, nonce: zeroIV)
            ciphertext = Array(sealed.ciphertext) + Array(sealed.tag)
            keyPart = Array(wrapped)
            header["wrappedKey"] = Data(keyPart).base64EncodedString()
            defaultVersion = "RSA_v1"
            signerKey = .rsa(pki.keys.rsaLeaf)
            leaf = pki.rsaLeaf
        }

        header["publicKeyHash"] = publicKeyHashOverride ?? merchant.publicKeyHash
        header["transactionId"] = transactionId.map { String(format: "%02x", $0) }.joined()
        if let applicationData {
            header["applicationData"] = applicationData.map { String(format: "%02x", $0) }.joined()
        }

        let signedContent = keyPart + ciphertext + transactionId + (applicationData ?? [])
        var cmsBuilder = ApplePayCMSBuilder(leaf: leaf, intermediate: pki.intermediate, signerKey: signerKey, signingTime: signingTime)
        cms(&cmsBuilder)
        let signature = try cmsBuilder.build(content: signedContent)

        return ApplePayFixtureToken(
            version: version ?? defaultVersion,
            data: Data(ciphertext).base64EncodedString(),
            signature: Data(signature).base64EncodedString(),
            header: header,
            plaintext: plaintext
        )
    }

    /// Signs the token's current fields again (after a test changed them), so that hostile content
    /// reaches the checks after the signature: an invalid ephemeral key, a short `data`, ...
    /// Fields that are not valid base64 or hex are signed as empty.
    public func resign(_ token: inout ApplePayFixtureToken) throws {
        func base64(_ text: String?) -> [UInt8] { text.flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } ?? [] }
        func hex(_ text: String?) -> [UInt8] {
            guard let text, text.count % 2 == 0 else { return [] }
            var out: [UInt8] = []
            var index = text.startIndex
            while index < text.endIndex {
                let next = text.index(index, offsetBy: 2)
                guard let byte = UInt8(text[index..<next], radix: 16) else { return [] }
                out.append(byte)
                index = next
            }
            return out
        }
        let keyPart = base64(token.header["ephemeralPublicKey"] ?? token.header["wrappedKey"])
        let content = keyPart + base64(token.data) + hex(token.header["transactionId"]) + hex(token.header["applicationData"])
        let isRSA: Bool
        if case .rsa = merchant.key { isRSA = true } else { isRSA = false }
        var cmsBuilder = ApplePayCMSBuilder(
            leaf: isRSA ? pki.rsaLeaf : pki.ecLeaf,
            intermediate: pki.intermediate,
            signerKey: isRSA ? .rsa(pki.keys.rsaLeaf) : .p256(pki.keys.ecLeaf),
            signingTime: signingTime
        )
        cms(&cmsBuilder)
        token.signature = Data(try cmsBuilder.build(content: content)).base64EncodedString()
    }

    /// Encrypts `plaintext` like ``build()`` but returns only the ciphertext ‖ tag for the EC
    /// merchant and a given ephemeral key (for tests that assemble tokens by hand).
    public static func kdf(sharedSecret: [UInt8], merchantIdentifier: String) -> SymmetricKey {
        let kdfInput: [UInt8] =
            [0, 0, 0, 1] + sharedSecret + [0x0D] + Array("id-aes256-GCM".utf8) + Array("Apple".utf8)
            + Array(SHA256.hash(data: Array(merchantIdentifier.utf8)))
        return SymmetricKey(data: SHA256.hash(data: kdfInput))
    }

    /// SHA-256 of `text`, as applicationData in a token (Apple hashes the request's applicationData).
    public static func applicationDataHash(_ text: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(text.utf8)))
    }
}
