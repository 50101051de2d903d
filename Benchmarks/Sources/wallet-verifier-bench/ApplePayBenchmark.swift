import ApplePayVerifier
import Crypto
import CryptoExtras
import Foundation
import VerificationCore
import WalletVerifierTestSupport

/// Whole Apple Pay token verifications (every check, replay store included) next to the token's
/// cryptography alone: for EC_v1 one P-256 verify + ECDH + KDF + AES-256-GCM, for RSA_v1 one RSA
/// verify + RSA-OAEP unwrap + AES-128-GCM. Keys are parsed once and the chain to the root is
/// validated once (cache), as in a server.
enum ApplePayBenchmark {
    static func run(seconds: Double) async throws {
        let pki = ApplePayFixturePKI.standard
        let anchor = try pki.trustAnchor()
        let ec = try ApplePayFixtureMerchant.ec()
        let rsa = try ApplePayFixtureMerchant.rsa()
        let ring = try MerchantKeyRing([ec.merchantKey(), rsa.merchantKey()])
        let cache = ApplePayChainCache()
        let signingTime = ApplePayFixturePKI.epoch.addingTimeInterval(3600)
        let context = VerificationContext(time: signingTime.addingTimeInterval(30))

        // APPLEPAY_BENCH=EC_v1 or RSA_v1 runs one of the two (for profiling).
        let only = ProcessInfo.processInfo.environment["APPLEPAY_BENCH"]
        for (name, merchant) in [("EC_v1", ec), ("RSA_v1", rsa)] where only == nil || only == name {
            print("applepay: \(name) token (\(merchant.publicKeyHash.prefix(8))…), every check, in-memory replay store")
            // Distinct transaction ids, each verified as a first use.
            let tokens = try (0..<512).map { _ in try ApplePayTokenBuilder(pki: pki, merchant: merchant, signingTime: signingTime).build().json() }
            var cycle = try FirstUseTokens(tokens) {
                try ApplePayTokenVerifier(keyRing: ring, replayStore: InMemoryReplayStore(), trustAnchor: anchor, chainCache: cache)
            }
            let first = try await cycle.verifyNext(context: context)
            guard first.verdict == .accepted else {
                print("  setup failed: \(first.report.failures.map(\.message))")
                continue
            }
            try cycle.restart()
            let full: () async throws -> Void = {
                let result = try await cycle.verifyNext(context: context)
                if result.verdict != .accepted { fatalError("benchmark token rejected: \(result.report.failures.map(\.message))") }
            }

            // The same token's cryptography, with keys already parsed.
            let token = try ApplePayTokenBuilder(pki: pki, merchant: merchant, signingTime: signingTime).build()
            let data = [UInt8](Data(base64Encoded: token.data)!)
            let zeroIV = try AES.GCM.Nonce(data: [UInt8](repeating: 0, count: 16))
            let box = try AES.GCM.SealedBox(nonce: zeroIV, ciphertext: data.dropLast(16), tag: data.suffix(16))
            // A message the size of Apple's signed attributes (contentType, signingTime, messageDigest).
            let signedAttributes = [UInt8](repeating: 0x31, count: 107)
            switch merchant.key {
            case .ec(let merchantKey):
                let leafKey = pki.keys.ecLeaf.publicKey
                let signature = try pki.keys.ecLeaf.signature(for: signedAttributes)
                let ephemeral = [UInt8](Data(base64Encoded: token.header["ephemeralPublicKey"]!)!)
                let partyV = Array(SHA256.hash(data: Array(merchant.merchantIdentifier.utf8)))
                try await measurePair(
                    full: "full verification + decryption", floor: "crypto floor: P-256 verify + ECDH + KDF + AES-256-GCM",
                    seconds: seconds * 2, target: 0.7, full: full
                ) {
                    precondition(leafKey.isValidSignature(signature, for: signedAttributes))
                    let shared = try merchantKey.sharedSecretFromKeyAgreement(with: try P256.KeyAgreement.PublicKey(derRepresentation: ephemeral))
                    let key = ApplePayDecryption.deriveSymmetricKey(sharedSecret: shared, merchantIdentifierHash: partyV)
                    _ = try AES.GCM.open(box, using: key)
                }
            case .rsa(let merchantKey):
                let leafKey = pki.keys.rsaLeaf.publicKey
                let signature = try pki.keys.rsaLeaf.signature(for: signedAttributes, padding: .insecurePKCS1v1_5)
                let wrapped = [UInt8](Data(base64Encoded: token.header["wrappedKey"]!)!)
                try await measurePair(
                    full: "full verification + decryption", floor: "crypto floor: RSA verify + RSA-OAEP unwrap + AES-128-GCM",
                    seconds: seconds * 2, target: 0.7, full: full
                ) {
                    precondition(leafKey.isValidSignature(signature, for: signedAttributes, padding: .insecurePKCS1v1_5))
                    let key = try merchantKey.decrypt(wrapped, padding: .PKCS1_OAEP_SHA256)
                    _ = try AES.GCM.open(box, using: SymmetricKey(data: key))
                }
            }
        }
    }
}
