import Foundation
import Testing
import WalletVerifierCommands
import WalletVerifierTestSupport

private let sample = "mdoc/apple-verify-with-wallet-sample/sample/"
private let nonce = "964c3e56a06061fa213fce2ba73217a6d359c2e65d44ec6b5b94f9c57eeeb3c045906344c7032e2609eb60533c35a98a75d0d2444ef9057c55cbb2d05d672a25"

@Suite struct IdentityVerifyCommandTests {
    func arguments(merchantID: String = "PassKit_Identity_Test_Merchant_ID", at: String = "2022-04-01T00:00:00Z") -> [String] {
        [
            "identity", "verify", "--envelope", TestVectors.path(sample + "hpke_envelope.cbor"),
            "--merchant-key", TestVectors.path(sample + "merchant_encryption.key"),
            "--nonce", nonce, "--merchant-id", merchantID, "--team-id", "PassKit_Identity_Test_Team_ID",
            "--trust", TestVectors.path(sample + "issuer_root.crt"), "--at", at,
        ]
    }

    @Test func appleSampleIsAccepted() async throws {
        let result = await WalletVerifierCommand.runCapturing(arguments() + ["--format", "json"])
        #expect(result.code == 0, "\(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["verdict"] as? String == "accepted")
        let documents = try #require(object["documents"] as? [[String: Any]])
        let elements = try #require(documents.first?["elements"] as? [String: [String: Any]])
        #expect(elements["org.iso.18013.5.1"]?["given_name"] as? String == "Jane")
        #expect(elements["org.iso.18013.5.1"]?["birth_date"] as? String == "1976-04-01")
    }

    @Test func wrongMerchantIsRejected() async {
        let result = await WalletVerifierCommand.runCapturing(arguments(merchantID: "other"))
        #expect(result.code == 1)
        #expect(result.stdout.contains("infoHashMismatch"))
    }

    @Test func requestFileAddsClaimsAndBadRequestIsAUsageError() async throws {
        let request = FileManager.default.temporaryDirectory.appendingPathComponent("req-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: request) }
        try Data(#"{"document": "driversLicense", "elements": [{"element": "age", "atLeast": 200, "intentToStore": "willNotStore"}]}"#.utf8).write(
            to: request)
        let bad = await WalletVerifierCommand.runCapturing(arguments() + ["--request", request.path])
        #expect(bad.code == 2)
        #expect(bad.stderr.contains("outside 1...125"))
        try Data(#"{"document": "driversLicense", "elements": [{"element": "age", "atLeast": 21, "intentToStore": "willNotStore"}]}"#.utf8).write(
            to: request)
        let result = await WalletVerifierCommand.runCapturing(arguments() + ["--request", request.path, "--format", "json"])
        // The sample discloses far more than age, so the request check fails and claims are withheld.
        #expect(result.code == 1)
        #expect(result.stdout.contains("unrequestedElement"))
        #expect(!result.stdout.contains("\"claims\""))
    }

    @Test func developerPolicyIsMarkedTestOnly() async {
        let result = await WalletVerifierCommand.runCapturing(arguments() + ["--policy", "developer"])
        #expect(result.code == 0)
        #expect(result.stdout.contains("TEST ONLY"))
    }

    @Test func usageErrors() async {
        #expect(await WalletVerifierCommand.runCapturing(arguments() + ["--policy", "lenient"]).code == 2)
        var noNonce = arguments()
        noNonce[noNonce.firstIndex(of: nonce)!] = "zz"
        #expect(await WalletVerifierCommand.runCapturing(noNonce).code == 2)
        #expect(await WalletVerifierCommand.runCapturing(["identity", "verify", "--envelope", "x"]).code == 2)
    }
}
