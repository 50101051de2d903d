import Crypto
import Foundation
import MdocVerifier
import SDJWTVerifier
import SwiftASN1
import VerificationCore
import WalletVerifierTestSupport
import X509

/// Whole SD-JWT VC verifications (every check: parsing, the issuer header and signature, the chain
/// to the root trusted for the PID type, six disclosures, validity, type, the Key Binding JWT) next
/// to the presentation's cryptography alone: the issuer's ES256 signature, the root's signature over
/// the issuer certificate, the holder's ES256 signature, and the SHA-256 of each disclosure and of
/// the presentation (`sd_hash`).
enum SDJWTBenchmark {
    /// Unpadded base64url, decoded.
    static func base64URL(_ text: Substring) -> Data {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)!
    }

    static func run(seconds: Double) async throws {
        let now = Date(timeIntervalSince1970: 1_780_000_000)
        let fixture = try SDJWTFixture(now: now)
        let presentation = try SDJWTFixture.presentation(try fixture.parts(now: now))
        let verifier = SDJWTVCVerifier(trustStore: IACATrustStore(certificates: [fixture.root], docTypes: [SDJWTFixture.vct]))
        let expectations = SDJWTExpectations(vcts: [SDJWTFixture.vct], audience: SDJWTFixture.audience, nonce: SDJWTFixture.nonce)
        let context = VerificationContext(time: now, clockSkew: .seconds(60))
        print("sdjwt: a PID-like SD-JWT VC, six disclosures, x5c chain to a scoped root, Key Binding JWT (\(presentation.utf8.count) bytes)")
        let full: () async throws -> Void = {
            let result = await verifier.verify(presentation, expectations: expectations, context: context)
            if result.report.verdict != .accepted { fatalError("benchmark presentation rejected: \(result.report.failures.map(\.message))") }
        }
        try await full()

        // The reference implementation's presentation (Benchmarks/Reference/sdjwt_reference.py DIR), when given.
        if let directory = ProcessInfo.processInfo.environment["WALLET_VERIFIER_BENCH_SDJWT_DIR"] {
            try await reference(directory, seconds: seconds)
        }

        // The floor's inputs, taken apart ahead of time.
        let parts = presentation.split(separator: "~", omittingEmptySubsequences: false)
        let jwt = parts[0].split(separator: ".")
        let kb = parts[parts.count - 1].split(separator: ".")
        let issuerInput = Array("\(jwt[0]).\(jwt[1])".utf8)
        let issuerSignature = try P256.Signing.ECDSASignature(rawRepresentation: base64URL(jwt[2]))
        let kbInput = Array("\(kb[0]).\(kb[1])".utf8)
        let kbSignature = try P256.Signing.ECDSASignature(rawRepresentation: base64URL(kb[2]))
        let disclosures = parts.dropFirst().dropLast().map { Array($0.utf8) }
        let hashed = Array(presentation[...presentation.lastIndex(of: "~")!].utf8)
        let issuerKey = fixture.issuerKey.publicKey
        let holderKey = fixture.holderKey.publicKey
        let leaf = fixture.issuerCertificate
        let rootKey = fixture.root.publicKey
        try await measurePair(
            full: "full verification (every check)", floor: "crypto floor: 3 × P-256 verify + 7 × SHA-256", seconds: seconds * 2, target: 0.85,
            full: full
        ) {
            precondition(issuerKey.isValidSignature(issuerSignature, for: issuerInput))
            precondition(rootKey.isValidSignature(leaf.signature, for: leaf))
            precondition(holderKey.isValidSignature(kbSignature, for: kbInput))
            for disclosure in disclosures { _ = SHA256.hash(data: disclosure) }
            _ = SHA256.hash(data: hashed)
        }
    }

    /// Full verifications of the presentation PyPI sd-jwt issued and presented into `directory`.
    static func reference(_ directory: String, seconds: Double) async throws {
        func file(_ name: String) throws -> String { try String(contentsOfFile: directory + "/" + name, encoding: .utf8) }
        let params = try JSONSerialization.jsonObject(with: Data(try file("params.json").utf8)) as! [String: String]
        let root = try Certificate(pemEncoded: try file("root.pem"))
        let presentation = try file("presentation.txt").trimmingCharacters(in: .whitespacesAndNewlines)
        let vct = params["vct"] ?? ""
        let verifier = SDJWTVCVerifier(trustStore: IACATrustStore(certificates: [root], docTypes: [vct]))
        let expectations = SDJWTExpectations(vcts: [vct], audience: params["aud"], nonce: params["nonce"])
        let context = VerificationContext(time: Date(), clockSkew: .seconds(60))
        let result = await verifier.verify(presentation, expectations: expectations, context: context)
        if result.report.verdict != .accepted { fatalError("the reference presentation was rejected: \(result.report.failures.map(\.message))") }
        _ = await measure("the PyPI sd-jwt presentation of \(directory) (\(presentation.utf8.count) bytes)", seconds: seconds) {
            _ = await verifier.verify(presentation, expectations: expectations, context: context)
        }
    }
}
