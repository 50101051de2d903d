import Crypto
import CryptoExtras
import Foundation
import VerificationCore

/// Why the payment data could not be decrypted. Recorded as a failed `applepay.decryption` check.
typealias DecryptionError = CheckFailure

/// The symmetric-key recovery and AES-GCM steps of Apple's "Payment Token Format Reference".
public enum ApplePayDecryption {
    /// AlgorithmID of the KDF: the length byte 0x0D followed by "id-aes256-GCM".
    static let algorithmID: [UInt8] = [0x0D] + Array("id-aes256-GCM".utf8)
    /// PartyUInfo of the KDF.
    static let partyUInfo: [UInt8] = Array("Apple".utf8)
    /// Apple's IV: 16 zero bytes (GCM derives its counter block differently for 12-byte IVs, so a
    /// 12-byte nonce does not open Apple's data).
    static let zeroIV = [UInt8](repeating: 0, count: 16)
    static let zeroNonce: AES.GCM.Nonce? = try? AES.GCM.Nonce(data: zeroIV)

    /// NIST SP 800-56A §5.8.1 concatenation KDF with SHA-256 and a single round (32 bytes):
    /// SHA-256(00000001 ‖ Z ‖ AlgorithmID ‖ PartyUInfo ‖ PartyVInfo).
    public static func deriveSymmetricKey<Z: ContiguousBytes>(sharedSecret: Z, merchantIdentifierHash: [UInt8]) -> SymmetricKey {
        var hasher = SHA256()
        hasher.update(data: [0x00, 0x00, 0x00, 0x01])
        sharedSecret.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        hasher.update(data: algorithmID)
        hasher.update(data: partyUInfo)
        hasher.update(data: merchantIdentifierHash)
        return SymmetricKey(data: hasher.finalize())
    }

    /// EC_v1: ECDH with the ephemeral key, the KDF above, AES-256-GCM.
    static func decryptEC(data: [UInt8], ephemeralPublicKey: [UInt8], privateKey: P256.KeyAgreement.PrivateKey, merchantIdentifierHash: [UInt8])
        throws(DecryptionError) -> [UInt8]
    {
        let ephemeral: P256.KeyAgreement.PublicKey
        do {
            ephemeral = try ephemeralKey(ephemeralPublicKey)
        } catch {
            throw DecryptionError(
                .invalidEphemeralPublicKey, "header.ephemeralPublicKey is not a P-256 SubjectPublicKeyInfo (\(ephemeralPublicKey.count) bytes)")
        }
        let shared: SharedSecret
        do {
            shared = try privateKey.sharedSecretFromKeyAgreement(with: ephemeral)
        } catch {
            throw DecryptionError(.invalidEphemeralPublicKey, "ECDH with header.ephemeralPublicKey failed")
        }
        let key = deriveSymmetricKey(sharedSecret: shared, merchantIdentifierHash: merchantIdentifierHash)
        return try open(data, key: key, what: "AES-256-GCM")
    }

    /// The DER of a P-256 SubjectPublicKeyInfo with an uncompressed point, up to the point:
    /// SEQUENCE { SEQUENCE { id-ecPublicKey, prime256v1 }, BIT STRING (65 bytes, no unused bits) }.
    static let p256SPKIPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01,
        0x07, 0x03, 0x42, 0x00,
    ]

    /// The ephemeral key from its SubjectPublicKeyInfo. The DER every EC_v1 token carries (the
    /// prefix above and a 65-byte uncompressed point) goes straight to the point's validation,
    /// without an ASN.1 parse of bytes known in advance; anything else is parsed as before.
    static func ephemeralKey(_ der: [UInt8]) throws -> P256.KeyAgreement.PublicKey {
        if der.count == p256SPKIPrefix.count + 65, der.starts(with: p256SPKIPrefix), der[p256SPKIPrefix.count] == 0x04 {
            return try P256.KeyAgreement.PublicKey(x963Representation: der[p256SPKIPrefix.count...])
        }
        return try P256.KeyAgreement.PublicKey(derRepresentation: der)
    }

    /// RSA_v1: RSA-OAEP (SHA-256, MGF1-SHA-256) unwraps an AES-128 key, then AES-128-GCM.
    static func decryptRSA(data: [UInt8], wrappedKey: [UInt8], privateKey: _RSA.Encryption.PrivateKey) throws(DecryptionError) -> [UInt8] {
        let unwrapped: Data
        do {
            unwrapped = try privateKey.decrypt(wrappedKey, padding: .PKCS1_OAEP_SHA256)
        } catch {
            throw DecryptionError(
                .keyUnwrapFailed, "header.wrappedKey could not be unwrapped with the merchant RSA key (RSA-OAEP, SHA-256, MGF1-SHA-256)")
        }
        guard unwrapped.count == 16 else {
            throw DecryptionError(.unsupportedKeyLength, "The unwrapped key is \(unwrapped.count) bytes; RSA_v1 uses AES-128 (16 bytes)")
        }
        return try open(data, key: SymmetricKey(data: unwrapped), what: "AES-128-GCM")
    }

    /// AES-GCM with a 16-byte zero IV, no associated data; the last 16 bytes of `data` are the tag.
    static func open(_ data: [UInt8], key: SymmetricKey, what: String) throws(DecryptionError) -> [UInt8] {
        guard data.count >= 16 else {
            throw DecryptionError(.ciphertextTooShort, "data is \(data.count) bytes, shorter than the 16-byte GCM tag")
        }
        do {
            guard let nonce = zeroNonce else { throw DecryptionError(.authenticationFailed, "AES-GCM is unavailable") }
            let box = try AES.GCM.SealedBox(nonce: nonce, ciphertext: data[..<(data.count - 16)], tag: data[(data.count - 16)...])
            return [UInt8](try AES.GCM.open(box, using: key))
        } catch {
            throw DecryptionError(
                .authenticationFailed,
                "\(what) authentication failed: the data was not encrypted for this merchant key and merchant id, or it was altered")
        }
    }
}
