import Crypto
import CryptoExtras
import Foundation
import GooglePayVerifier
import VerificationCore
import WalletVerifierTestSupport

/// Whole Google Pay token verifications (every check, replay store included) next to the token's
/// cryptography alone: two ECDSA P-256 verifications (the root key over the intermediate key, the
/// intermediate key over the message), one ECDH, HKDF-SHA256, the HMAC-SHA256 tag and AES-256-CTR.
/// The root key list and the merchant key are parsed once, as in a server.
enum GooglePayBenchmark {
    static func run(seconds: Double) async throws {
        let keys = GooglePayFixtureKeys()
        let time = Date(timeIntervalSince1970: 1_780_000_000)
        let rootKeys = try GooglePayRootKeys.parse(keys.rootKeyListJSON(expiration: time.addingTimeInterval(86_400)))
        let ring = GooglePayMerchantKeyRing([GooglePayMerchantKey(privateKey: keys.merchant)])
        let context = VerificationContext(time: time)
        print("googlepay: ECv2 CRYPTOGRAM_3DS token, every check, in-memory replay store")

        // Distinct messageIds, each verified as a first use; each token has its own signatures and ephemeral key.
        let built = try (0..<512).map { index in
            var builder = GooglePayTokenBuilder(keys: keys, validAt: time)
            builder.messageId = "bench-message-\(index)"
            builder.authMethod = "CRYPTOGRAM_3DS"
            return try builder.build()
        }
        func makeVerifier() -> GooglePayTokenVerifier {
            GooglePayTokenVerifier(
                rootKeys: rootKeys, keyRing: ring, recipient: .merchant("12345678901234567890"), replayStore: InMemoryReplayStore())
        }
        var verifier = makeVerifier()
        var index = 0
        let full: () async throws -> Void = {
            if index == built.count {
                index = 0
                verifier = makeVerifier()
            }
            defer { index += 1 }
            let result = await verifier.verify(built[index].json, context: context)
            if result.verdict != .accepted { fatalError("benchmark token rejected: \(result.report.failures.map(\.message))") }
        }
        try await full()
        index = 0
        verifier = makeVerifier()

        // The same tokens' pieces, taken out of their JSON ahead of time: what the floor computes on.
        struct Pieces {
            let keySignature: P256.Signing.ECDSASignature
            let signedKeyBytes: [UInt8]
            let signature: P256.Signing.ECDSASignature
            let signedMessageBytes: [UInt8]
            let ephemeral: [UInt8]
            let ciphertext: [UInt8]
            let tag: [UInt8]
        }
        func lengthValue(_ parts: [String]) -> [UInt8] {
            parts.flatMap { part in withUnsafeBytes(of: UInt32(part.utf8.count).littleEndian, Array.init) + Array(part.utf8) }
        }
        let pieces = try built.map { token -> Pieces in
            let object = try JSONSerialization.jsonObject(with: Data(token.json)) as! [String: Any]
            let intermediate = object["intermediateSigningKey"] as! [String: Any]
            let message = try JSONSerialization.jsonObject(with: Data(token.signedMessage.utf8)) as! [String: String]
            func base64(_ text: String?) -> [UInt8] { [UInt8](Data(base64Encoded: text!)!) }
            return Pieces(
                keySignature: try .init(derRepresentation: base64((intermediate["signatures"] as! [String])[0])),
                signedKeyBytes: lengthValue(["Google", "ECv2", token.signedKey]),
                signature: try .init(derRepresentation: base64(object["signature"] as? String)),
                signedMessageBytes: lengthValue(["Google", "merchant:12345678901234567890", "ECv2", token.signedMessage]),
                ephemeral: base64(message["ephemeralPublicKey"]), ciphertext: base64(message["encryptedMessage"]), tag: base64(message["tag"]))
        }
        let rootKey = keys.root.publicKey
        let intermediateKey = keys.intermediate.publicKey
        let zeroNonce = try AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16))
        var next = 0
        try await measurePair(
            full: "full verification + decryption", floor: "crypto floor: 2 × P-256 verify + ECDH + HKDF + HMAC + AES-256-CTR",
            seconds: seconds * 2, target: 0.85, full: full
        ) {
            let piece = pieces[next]
            next = (next + 1) % pieces.count
            precondition(rootKey.isValidSignature(piece.keySignature, for: piece.signedKeyBytes))
            precondition(intermediateKey.isValidSignature(piece.signature, for: piece.signedMessageBytes))
            let shared = try keys.merchant.sharedSecretFromKeyAgreement(with: try P256.KeyAgreement.PublicKey(x963Representation: piece.ephemeral))
            var ikm = piece.ephemeral
            shared.withUnsafeBytes { ikm.append(contentsOf: $0) }
            let derived = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: ikm), salt: [UInt8](repeating: 0, count: 32), info: Array("Google".utf8), outputByteCount: 64)
            let bytes = derived.withUnsafeBytes { Array($0) }
            precondition(
                HMAC<SHA256>.isValidAuthenticationCode(piece.tag, authenticating: piece.ciphertext, using: SymmetricKey(data: bytes[32..<64])))
            _ = try AES._CTR.encrypt(piece.ciphertext, using: SymmetricKey(data: bytes[0..<32]), nonce: zeroNonce)
        }
    }
}
