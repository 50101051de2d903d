import Crypto
import VerificationCore
import WalletEncoding
import WalletJSON

/// `googlepay.decryption`: `signedMessage` is `{encryptedMessage, ephemeralPublicKey, tag}`; for each
/// merchant key in turn, ECDH with the ephemeral key and HKDF-SHA256 give an AES-256 key and an
/// HMAC-SHA256 key; the first key whose HMAC verifies the tag (compared in constant time, before
/// anything is decrypted) decrypts with AES-256-CTR and a zero IV. Runs only after the signature
/// checks passed, so nothing unauthenticated is ever decrypted.
struct DecryptionCheck: VerificationCheck {
    let id = CheckID.googlePayDecryption
    let prerequisites: [CheckID]
    let keyRing: GooglePayMerchantKeyRing

    init(keyRing: GooglePayMerchantKeyRing, policy: GooglePayPolicy) {
        self.keyRing = keyRing
        self.prerequisites =
            [.googlePayTokenStructure]
            + policy.requiredOnly([.googlePayIntermediateKeySignature, .googlePayIntermediateKeyExpiration, .googlePayMessageSignature])
    }

    func evaluate(_ state: inout GooglePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let token = state.token else { return .notEvaluated(because: .googlePayTokenStructure) }
        let object: StrictJSON.Object
        do {
            guard let parsed = try StrictJSON.parse(Array(token.signedMessage.utf8)).object else {
                return .failed(.malformedSignedMessage, "signedMessage is not a JSON object")
            }
            object = parsed
        } catch {
            return .failed(.malformedSignedMessage, "signedMessage is not valid JSON (\(error.message) at byte \(error.offset))")
        }
        func bytes(_ name: String) -> [UInt8]? {
            object[name]?.string.flatMap { Base64.decodeStrict($0) }
        }
        guard let ciphertext = bytes("encryptedMessage") else {
            return .failed(.malformedSignedMessage, "signedMessage.encryptedMessage is absent or not base64")
        }
        guard let ephemeralBytes = bytes("ephemeralPublicKey") else {
            return .failed(.malformedSignedMessage, "signedMessage.ephemeralPublicKey is absent or not base64")
        }
        guard let tag = bytes("tag") else {
            return .failed(.malformedSignedMessage, "signedMessage.tag is absent or not base64")
        }
        guard ephemeralBytes.count == 65, ephemeralBytes[0] == 0x04,
            let ephemeral = try? P256.KeyAgreement.PublicKey(x963Representation: ephemeralBytes)
        else {
            return .failed(.ephemeralKeyInvalid, "signedMessage.ephemeralPublicKey is not an uncompressed P-256 point (65 bytes, 0x04 first)")
        }
        guard !keyRing.keys.isEmpty else {
            return .failed(.noMerchantKey, "No merchant key is configured: the token cannot be decrypted")
        }
        for key in keyRing.keys {
            guard let derived = try? GooglePayCrypto.derivedKeys(ephemeralPublicKey: ephemeralBytes, ephemeral: ephemeral, privateKey: key.privateKey)
            else { continue }
            guard GooglePayCrypto.tagIsValid(tag, ciphertext: ciphertext, macKey: derived.mac) else { continue }
            let plaintext = try GooglePayCrypto.aesCTR(ciphertext, key: derived.encryption)
            state.plaintext = plaintext
            state.merchantKey = key
            let (count, publicKey) = (plaintext.count, key.publicKeyBase64)
            return .passed(
                "The tag verifies with merchant key \(publicKey); decrypted \(count) bytes with ECDH P-256 + HKDF-SHA256 + AES-256-CTR",
                details: ["merchantPublicKey": publicKey])
        }
        return .failed(
            .tagMismatch,
            "The tag verifies with none of the \(keyRing.keys.count) merchant key(s): the token was encrypted for another key "
                + "(one not registered with Google for this environment) or signedMessage was altered; nothing was decrypted")
    }
}
