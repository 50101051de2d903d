import Crypto
import Foundation
import NIOFoundationEssentialsCompat
import Testing
import VerificationReceipts
import WalletVerifierTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A receipt key rotated by SIGHUP in a running `serve`: new receipts carry the new `kid`, and the
/// published key set still verifies the receipts signed before.
@Suite struct ReceiptRotationProcessTests {
    @Test func aNewReceiptKeyBySIGHUPKeepsEarlierReceiptsVerifiable() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let files = try ReceiptRouteTests.KeyFiles(fixture, certificate: false)
        let data = fixture.directory.appendingPathComponent("data").path
        let config = fixture.directory.appendingPathComponent("config.json")
        func configure(key: String, previous: [String]) throws {
            try JSONSerialization.data(withJSONObject: ["receiptKey": key, "receiptPreviousKeys": previous]).write(to: config)
        }
        try configure(key: files.keyPath, previous: [])
        let instance = try await ServiceInstance(
            arguments: ["--store", "sqlite", "--data-dir", data, "--config", config.path] + fixture.serveArguments)
        defer { instance.stop() }
        func receipt() async throws -> String {
            let (_, answer) = try await instance.post(
                "/v1/mdoc/verify", body: Data(buffer: try KeptReceiptRouteTests.mdocBody(fixture, accepted: true)))
            return try #require(answer["receipt"] as? String, "\(answer)")
        }
        func keyID(_ jws: String) throws -> String {
            let header = try #require(jws.split(separator: ".").first.flatMap { Data(base64URL: String($0)) })
            return try #require((try JSONSerialization.jsonObject(with: header) as? [String: Any])?["kid"] as? String)
        }
        func jwks() async throws -> [UInt8] { Array(try JSONSerialization.data(withJSONObject: try await instance.getJSON("/v1/receipts/jwks"))) }
        func reload(_ count: Int) async throws {
            instance.signal(SIGHUP)
            #expect(
                try await ServiceInstance.waitFor { instance.log.components(separatedBy: "reload: done").count > count },
                "\(instance.log.suffix(2000))")
        }
        let before = try await receipt()
        #expect(try keyID(before) == ReceiptKeys.thumbprint(files.key.publicKey))

        // A new key; the old one named as previous; SIGHUP.
        let rotated = try ReceiptRouteTests.KeyFiles(fixture, name: "rotated", certificate: false)
        try configure(key: rotated.keyPath, previous: [files.keyPath])
        try await reload(1)
        let after = try await receipt()
        #expect(try keyID(after) == ReceiptKeys.thumbprint(rotated.key.publicKey))
        #expect(try keyID(after) != keyID(before))
        #expect(try ReceiptVerifier.verify(before, jwks: try await jwks()).keyID == keyID(before))
        #expect(try ReceiptVerifier.verify(after, jwks: try await jwks()).keyID == keyID(after))

        // The previous key withdrawn (say it leaked): SIGHUP, and its receipts stop verifying at once.
        try configure(key: rotated.keyPath, previous: [])
        try await reload(2)
        let withdrawn = try await jwks()
        #expect(throws: ReceiptVerificationError.self) { try ReceiptVerifier.verify(before, jwks: withdrawn) }
        #expect(try ReceiptVerifier.verify(after, jwks: try await jwks()).keyID == keyID(after))
    }
}

extension Data {
    /// base64url without padding, decoded (nil when it is not).
    fileprivate init?(base64URL text: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        self.init(base64Encoded: base64)
    }
}
