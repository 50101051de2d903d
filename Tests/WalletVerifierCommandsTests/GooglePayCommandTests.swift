import Crypto
import Foundation
import Testing
import WalletVerifierCommands
import WalletVerifierTestSupport

/// The Google Pay vectors (a token Google's test environment issued, its merchant key, Google's
/// test and production root key lists), kept beside the library's tests.
private enum GooglePayVectors {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("GooglePayVerifierTests/Vectors")
    static func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
    static let token = path("r2d2-ecv2-tokenized-card.json")
    static let merchantKey = path("r2d2-merchant-private-key.pem")
    static let testRoots = path("r2d2-google-root-keys-test.json")
    static let productionRoots = path("r2d2-google-root-keys-production.json")
    static let merchantId = "12345678901234567890"
    /// The vector's time: before the message and the intermediate key expired.
    static let time = "2020-07-17T15:34:27Z"
    static let pan = "4895370012003478"
    static let cryptogram = "AgAAAAAABk4DWZ4C28yUQAAAAAA="
}

/// `wallet-verifier googlepay verify` and `googlepay decrypt`, run in-process on the real token.
@Suite struct GooglePayCommandTests {
    func arguments(
        _ command: String, token: String = GooglePayVectors.token, roots: String = GooglePayVectors.testRoots,
        merchantId: String = GooglePayVectors.merchantId, at: String? = GooglePayVectors.time, merchantKey: String? = GooglePayVectors.merchantKey
    ) -> [String] {
        var arguments = ["googlepay", command, "--token", token, "--merchant-id", merchantId, "--root-keys", roots]
        if let at { arguments += ["--at", at] }
        if command == "decrypt", let merchantKey { arguments += ["--merchant-key", merchantKey] }
        return arguments
    }

    func json(_ stdout: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
    }

    func failed(_ object: [String: Any]) -> [String] {
        ((object["checks"] as? [[String: Any]]) ?? []).filter { $0["status"] as? String == "failed" }.compactMap { $0["id"] as? String }
    }

    @Test func decryptAcceptsTheRealTokenWithTheSharedCardBlock() async throws {
        let result = await WalletVerifierCommand.runCapturing(arguments("decrypt") + ["--format", "json"])
        #expect(result.code == 0, "\(result.stdout) \(result.stderr)")
        let object = try json(result.stdout)
        #expect(object["verdict"] as? String == "accepted")
        #expect(object["flow"] as? String == "googlePay")
        let card = try #require(object["card"] as? [String: Any])
        #expect(card["wallet"] as? String == "googlepay")
        #expect(card["number"] as? String == GooglePayVectors.pan)
        #expect(card["expiryMonth"] as? Int == 12)
        #expect(card["expiryYear"] as? Int == 2025)
        #expect(card["authMethod"] as? String == "CRYPTOGRAM_3DS")
        #expect(card["cryptogram"] as? String == GooglePayVectors.cryptogram)
        #expect(card["eci"] as? String == "07")
        #expect(card["paymentDataType"] == nil)
        let payment = try #require(object["payment"] as? [String: Any])
        #expect(payment["paymentMethod"] as? String == "CARD")
        // The card block comes after the report's and the flow's own members.
        let text = result.stdout
        let paymentAt = try #require(text.range(of: "\"payment\":"))
        let cardAt = try #require(text.range(of: "\"card\":"))
        #expect(paymentAt.lowerBound < cardAt.lowerBound)
    }

    /// `--root-keys URL`, as `serve --googlepay-root-keys URL`: fetched once through the library's
    /// trust-document source (here from a loopback server); a list that cannot be had is unreadable input.
    @Test func rootKeysFromAURL() async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let list = [UInt8](try Data(contentsOf: URL(fileURLWithPath: GooglePayVectors.testRoots)))
        server.set("/keys.json", .init(body: list, headers: [("Cache-Control", "max-age=3600")]))
        for command in ["verify", "decrypt"] {
            let result = await WalletVerifierCommand.runCapturing(arguments(command, roots: server.url("/keys.json")))
            #expect(result.code == 0, "\(command): \(result.stdout) \(result.stderr)")
        }
        server.set("/empty.json", .init(body: Array(#"{"keys":[]}"#.utf8)))
        let empty = await WalletVerifierCommand.runCapturing(arguments("verify", roots: server.url("/empty.json")))
        #expect(empty.code == 2 && empty.stderr.contains("no ECv2 key usable now"), "\(empty.stderr)")
        let down = await WalletVerifierCommand.runCapturing(arguments("verify", roots: LocalHTTPServer.unreachableURL("/keys.json")))
        #expect(down.code == 2 && down.stderr.contains("could not be fetched"), "\(down.stderr)")
        #expect(server.requestedPaths.filter { $0 == "/keys.json" }.count == 2)
    }

    @Test func decryptTextMasksTheNumberAndHidesTheCryptogram() async {
        let result = await WalletVerifierCommand.runCapturing(arguments("decrypt"))
        #expect(result.code == 0)
        #expect(result.stdout.contains("verdict: accepted"))
        #expect(result.stdout.contains("PASS  googlepay.decryption"))
        #expect(result.stdout.contains("3478"))
        #expect(!result.stdout.contains(GooglePayVectors.pan))
        #expect(!result.stdout.contains(GooglePayVectors.cryptogram))
        #expect(result.stderr.isEmpty)
    }

    /// The page hands the token over as a JSON string; some integrations save Google's whole PaymentData.
    @Test(arguments: ["string", "paymentData"])
    func decryptReadsTheFormsAPageHandsOver(form: String) async throws {
        let token = String(decoding: try Data(contentsOf: URL(fileURLWithPath: GooglePayVectors.token)), as: UTF8.self)
        let quoted = String(decoding: try JSONSerialization.data(withJSONObject: [token], options: [.withoutEscapingSlashes]), as: UTF8.self)
            .dropFirst().dropLast()
        let contents =
            form == "string"
            ? String(quoted)
            : #"{"apiVersion":2,"apiVersionMinor":0,"paymentMethodData":{"type":"CARD","tokenizationData":{"type":"DIRECT","token":\#(quoted)}}}"#
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("googlepay-\(form)-\(UUID().uuidString).json")
        try Data(contents.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let result = await WalletVerifierCommand.runCapturing(arguments("decrypt", token: file.path) + ["--format", "json"])
        #expect(result.code == 0, "\(result.stdout)")
    }

    @Test func verifyChecksTheSignaturesWithoutDecrypting() async throws {
        let result = await WalletVerifierCommand.runCapturing(arguments("verify") + ["--format", "json"])
        #expect(result.code == 0, "\(result.stdout) \(result.stderr)")
        let object = try json(result.stdout)
        #expect(object["flow"] as? String == "googlePaySignatures")
        let ids = ((object["checks"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
        #expect(
            ids == [
                "googlepay.token.structure", "googlepay.intermediateKey.signature", "googlepay.intermediateKey.expiration",
                "googlepay.message.signature",
            ])
        #expect(object["payment"] == nil)
        #expect(object["card"] == nil)
        #expect(!result.stdout.contains(GooglePayVectors.pan))
    }

    @Test func productionRootKeysRejectATestToken() async throws {
        for command in ["verify", "decrypt"] {
            let result = await WalletVerifierCommand.runCapturing(arguments(command, roots: GooglePayVectors.productionRoots) + ["--format", "json"])
            #expect(result.code == 1)
            let object = try json(result.stdout)
            #expect(failed(object) == ["googlepay.intermediateKey.signature"], "\(command)")
            #expect(object["card"] == nil)
        }
    }

    @Test func anotherMerchantIdIsRejectedByTheMessageSignature() async throws {
        let result = await WalletVerifierCommand.runCapturing(arguments("decrypt", merchantId: "12345678901234567891") + ["--format", "json"])
        #expect(result.code == 1)
        #expect(failed(try json(result.stdout)) == ["googlepay.message.signature"])
    }

    @Test func expiriesAreCheckedAtTheGivenTime() async throws {
        // messageExpiration 1595616845229 ms; the intermediate key's 1595702501149 ms.
        let afterMessage = await WalletVerifierCommand.runCapturing(arguments("decrypt", at: "2020-07-24T18:54:06Z") + ["--format", "json"])
        #expect(afterMessage.code == 1)
        #expect(failed(try json(afterMessage.stdout)) == ["googlepay.message.expiration"])
        let afterKey = await WalletVerifierCommand.runCapturing(arguments("verify", at: "2020-07-25T18:41:42Z") + ["--format", "json"])
        #expect(afterKey.code == 1)
        #expect(failed(try json(afterKey.stdout)) == ["googlepay.intermediateKey.expiration"])
        // Today: both expired; the report names both, and nothing is decrypted for a reader to see.
        let today = await WalletVerifierCommand.runCapturing(arguments("decrypt", at: nil) + ["--format", "json"])
        #expect(today.code == 1)
        #expect(failed(try json(today.stdout)).contains("googlepay.intermediateKey.expiration"))
        #expect(!today.stdout.contains(GooglePayVectors.pan))
    }

    @Test func unreadableInputExitsTwoNamingTheOption() async throws {
        let notAList = FileManager.default.temporaryDirectory.appendingPathComponent("googlepay-roots-\(UUID().uuidString).json")
        try Data(#"{"keys": "none"}"#.utf8).write(to: notAList)
        defer { try? FileManager.default.removeItem(at: notAList) }
        let badRoots = await WalletVerifierCommand.runCapturing(arguments("verify", roots: notAList.path))
        #expect(badRoots.code == 2)
        #expect(badRoots.stderr.contains("--root-keys"))
        #expect(badRoots.stderr.contains("\"keys\" array"))

        let noKey = await WalletVerifierCommand.runCapturing(arguments("decrypt", merchantKey: nil))
        #expect(noKey.code == 2)
        #expect(noKey.stderr.contains("--merchant-key"))

        let wrongKey = await WalletVerifierCommand.runCapturing(
            arguments("decrypt", merchantKey: nil) + ["--merchant-key", GooglePayVectors.testRoots])
        #expect(wrongKey.code == 2)
        #expect(wrongKey.stderr.contains("--merchant-key"))
    }

    @Test func anotherMerchantKeyFailsTheTag() async throws {
        let key = GooglePayFixtureKeys()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("googlepay-key-\(UUID().uuidString).pem")
        try Data(key.merchant.pemRepresentation.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let arguments = arguments("decrypt", merchantKey: nil) + ["--merchant-key", file.path, "--format", "json"]
        let result = await WalletVerifierCommand.runCapturing(arguments)
        #expect(result.code == 1)
        #expect(failed(try json(result.stdout)) == ["googlepay.decryption"])
        // Both keys (rotation): the right one is found.
        let both = await WalletVerifierCommand.runCapturing(arguments + ["--merchant-key", GooglePayVectors.merchantKey])
        #expect(both.code == 0)
    }
}
