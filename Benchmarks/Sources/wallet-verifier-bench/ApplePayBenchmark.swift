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
            let built = try (0..<512).map { _ in try ApplePayTokenBuilder(pki: pki, merchant: merchant, signingTime: signingTime).build() }
            let tokens = built.map { $0.json() }
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

            // The same tokens' cryptography, with the merchant and leaf keys already parsed, cycling
            // through the same distinct tokens as the full verification: repeating one signature and one
            // ephemeral key would let the variable-time parts of ECDSA verification and of ECDH run
            // faster than on the inputs a verification sees (by 4–6 µs on this machine).
            let zeroIV = try AES.GCM.Nonce(data: [UInt8](repeating: 0, count: 16))
            let boxes = try built.map { token in
                let data = [UInt8](Data(base64Encoded: token.data)!)
                return try AES.GCM.SealedBox(nonce: zeroIV, ciphertext: data.dropLast(16), tag: data.suffix(16))
            }
            // Messages the size of Apple's signed attributes (contentType, signingTime, messageDigest), one per token.
            let signedAttributes = built.indices.map { index in
                [UInt8](repeating: 0x31, count: 75) + Array(SHA256.hash(data: Array("\(name) \(index)".utf8)))
            }
            var next = 0
            func advance() -> Int {
                defer { next = (next + 1) % built.count }
                return next
            }
            switch merchant.key {
            case .ec(let merchantKey):
                let leafKey = pki.keys.ecLeaf.publicKey
                let signatures = try signedAttributes.map { try pki.keys.ecLeaf.signature(for: $0) }
                let ephemerals = built.map { [UInt8](Data(base64Encoded: $0.header["ephemeralPublicKey"]!)!) }
                let partyV = Array(SHA256.hash(data: Array(merchant.merchantIdentifier.utf8)))
                try await measurePair(
                    full: "full verification + decryption", floor: "crypto floor: P-256 verify + ECDH + KDF + AES-256-GCM",
                    seconds: seconds * 2, target: 0.85, full: full
                ) {
                    let index = advance()
                    precondition(leafKey.isValidSignature(signatures[index], for: signedAttributes[index]))
                    let shared = try merchantKey.sharedSecretFromKeyAgreement(
                        with: try P256.KeyAgreement.PublicKey(derRepresentation: ephemerals[index]))
                    let key = ApplePayDecryption.deriveSymmetricKey(sharedSecret: shared, merchantIdentifierHash: partyV)
                    _ = try AES.GCM.open(boxes[index], using: key)
                }
            case .rsa(let merchantKey):
                let leafKey = pki.keys.rsaLeaf.publicKey
                let signatures = try signedAttributes.map { try pki.keys.rsaLeaf.signature(for: $0, padding: .insecurePKCS1v1_5) }
                let wrapped = built.map { [UInt8](Data(base64Encoded: $0.header["wrappedKey"]!)!) }
                try await measurePair(
                    full: "full verification + decryption", floor: "crypto floor: RSA verify + RSA-OAEP unwrap + AES-128-GCM",
                    seconds: seconds * 2, target: 0.9, full: full
                ) {
                    let index = advance()
                    precondition(leafKey.isValidSignature(signatures[index], for: signedAttributes[index], padding: .insecurePKCS1v1_5))
                    let key = try merchantKey.decrypt(wrapped[index], padding: .PKCS1_OAEP_SHA256)
                    _ = try AES.GCM.open(boxes[index], using: SymmetricKey(data: key))
                }
            }
        }
    }
}
