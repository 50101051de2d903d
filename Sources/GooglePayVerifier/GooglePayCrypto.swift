import Crypto
import CryptoExtras
import Foundation

/// The ECv2 primitives, as Google's "Payment data cryptography for merchants" gives them.
enum GooglePayCrypto {
    /// The sender id every signed string starts with.
    static let senderId = "Google"

    /// The length-value encoding of the signed strings: each part's UTF-8 bytes, as received,
    /// preceded by its length in 4 bytes, little-endian.
    static func lengthValue(_ parts: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(parts.reduce(0) { $0 + 4 + $1.utf8.count })
        for part in parts {
            let count = UInt32(truncatingIfNeeded: part.utf8.count)
            bytes.append(contentsOf: [UInt8(count & 0xFF), UInt8((count >> 8) & 0xFF), UInt8((count >> 16) & 0xFF), UInt8(count >> 24)])
            bytes.append(contentsOf: part.utf8)
        }
        return bytes
    }

    /// What the root keys sign: `"Google" ‖ "ECv2" ‖ signedKey`.
    static func signedKeyBytes(protocolVersion: String, signedKey: String) -> [UInt8] {
        lengthValue([senderId, protocolVersion, signedKey])
    }

    /// What the intermediate key signs: `"Google" ‖ recipientId ‖ "ECv2" ‖ signedMessage`.
    static func signedMessageBytes(recipientId: String, protocolVersion: String, signedMessage: String) -> [UInt8] {
        lengthValue([senderId, recipientId, protocolVersion, signedMessage])
    }

    /// Whether `signature` (DER ECDSA, SHA-256) verifies over `data` with `key`; false for a
    /// signature that is not DER.
    static func verify(_ signature: [UInt8], over data: [UInt8], with key: P256.Signing.PublicKey) -> Bool {
        guard let parsed = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
        return key.isValidSignature(parsed, for: data)
    }

    /// The two keys ECIES-KEM derives: HKDF-SHA256 over `ephemeralPublicKey ‖ sharedSecret`, salt
    /// 32 zero bytes, info "Google", 64 bytes: the AES-256-CTR key, then the HMAC-SHA256 key.
    static func derivedKeys(
        ephemeralPublicKey: [UInt8], ephemeral: P256.KeyAgreement.PublicKey, privateKey: P256.KeyAgreement.PrivateKey
    ) throws -> (encryption: SymmetricKey, mac: SymmetricKey) {
        let shared = try privateKey.sharedSecretFromKeyAgreement(with: ephemeral)
        var ikm = ephemeralPublicKey
        shared.withUnsafeBytes { ikm.append(contentsOf: $0) }
        let derived = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: ikm), salt: [UInt8](repeating: 0, count: 32), info: Array(senderId.utf8),
            outputByteCount: 64)
        let bytes = derived.withUnsafeBytes { Array($0) }
        return (SymmetricKey(data: bytes[0..<32]), SymmetricKey(data: bytes[32..<64]))
    }

    /// Whether `tag` is HMAC-SHA256 of `ciphertext` under `macKey`, compared in constant time.
    static func tagIsValid(_ tag: [UInt8], ciphertext: [UInt8], macKey: SymmetricKey) -> Bool {
        // swift-crypto compares authentication codes in constant time.
        HMAC<SHA256>.isValidAuthenticationCode(tag, authenticating: ciphertext, using: macKey)
    }

    /// AES-256-CTR with a zero IV (a 128-bit counter starting at 0), no padding: swift-crypto's
    /// `AES._CTR` from CryptoExtras. Encryption and decryption are the same operation.
    static func aesCTR(_ input: [UInt8], key: SymmetricKey) throws -> [UInt8] {
        let nonce = try AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16))
        return Array(try AES._CTR.encrypt(input, using: key, nonce: nonce))
    }
}
