import ApplePayVerifier
import Foundation
import Testing
import WalletVerifierCommands
import WalletVerifierTestSupport

private let seatgeek = "applepay/seatgeek-2014-ec/"
private let processout = "applepay/processout-signature-only/"
private let seatgeekPlaintext =
    #"{"applicationPrimaryAccountNumber":"4109370251004320","applicationExpirationDate":"200731","currencyCode":"840","transactionAmount":100,"deviceManufacturerIdentifier":"040010030273","paymentDataType":"3DSecure","paymentData":{"onlinePaymentCryptogram":"Af9x/QwAA/DjmU65oyc1MAABAAA=","eciIndicator":"5"}}"#

/// `wallet-verifier applepay decrypt`, run in-process.
@Suite struct ApplePayCommandTests {
    func seatgeekArguments(at: String? = "2014-10-27T19:52:43Z") -> [String] {
        var arguments = [
            "applepay", "decrypt",
            "--token", TestVectors.path(seatgeek + "token.json"),
            "--merchant-cert", TestVectors.path(seatgeek + "certificate.pem"),
            "--merchant-key", TestVectors.path(seatgeek + "private_key.pem"),
        ]
        if let at { arguments += ["--at", at] }
        return arguments
    }

    @Test func seatgeekTextMasksTheAccountNumber() async {
        let result = await WalletVerifierCommand.runCapturing(seatgeekArguments())
        #expect(result.code == 0)
        #expect(result.stdout.contains("verdict: accepted"))
        #expect(result.stdout.contains("PASS  applepay.signature.chain"))
        #expect(result.stdout.contains("••••4320"))
        #expect(result.stdout.contains("eciIndicator"))
        #expect(!result.stdout.contains("4109370251004320"))
        #expect(!result.stdout.contains("Af9x/QwAA/DjmU65oyc1MAABAAA="))
        #expect(result.stderr.isEmpty)
    }

    @Test func seatgeekJSONCarriesThePaymentExactlyAsDecrypted() async throws {
        let result = await WalletVerifierCommand.runCapturing(seatgeekArguments() + ["--format", "json"])
        #expect(result.code == 0)
        #expect(result.stdout.contains("\"payment\":" + seatgeekPlaintext))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["verdict"] as? String == "accepted")
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.count == 16)
        #expect(checks.allSatisfy { ["passed", "skipped"].contains($0["status"] as? String) })
        let payment = try #require(object["payment"] as? [String: Any])
        #expect(payment["applicationPrimaryAccountNumber"] as? String == "4109370251004320")
        #expect((object["token"] as? [String: Any])?["signingTime"] as? String == "2014-10-27T19:51:43Z")
    }

    /// The card block shared with Google Pay: the DPAN, the expiry read from YYMMDD, the 3-D Secure fields.
    @Test func seatgeekJSONCarriesTheSharedCardBlock() async throws {
        let result = await WalletVerifierCommand.runCapturing(seatgeekArguments() + ["--format", "json"])
        #expect(result.code == 0)
        #expect(
            result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix(
                #","card":{"wallet":"applepay","number":"4109370251004320","expiryMonth":7,"expiryYear":2020,"paymentDataType":"3DSecure","cryptogram":"Af9x/QwAA/DjmU65oyc1MAABAAA=","eci":"5"}}"#
            ), "\(result.stdout.suffix(300))")
        let rejected = await WalletVerifierCommand.runCapturing(seatgeekArguments(at: nil) + ["--format", "json"])
        #expect(!rejected.stdout.contains("\"card\""))
    }

    /// Today the Apple leaf has expired: rejected, two distinct failures, no payment.
    @Test func seatgeekAtTheCurrentTimeIsRejected() async throws {
        let result = await WalletVerifierCommand.runCapturing(seatgeekArguments(at: nil) + ["--format", "json"])
        #expect(result.code == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(object["verdict"] as? String == "rejected")
        #expect(object["payment"] == nil)
        let checks = try #require(object["checks"] as? [[String: Any]])
        let failed = checks.filter { $0["status"] as? String == "failed" }.compactMap { $0["id"] as? String }
        #expect(failed == ["applepay.signature.certificateValidity", "applepay.signingTime"])
        #expect(!result.stdout.contains("4109370251004320"))
    }

    @Test func maxAgeWidensTheWindow() async {
        let late = seatgeekArguments(at: "2014-10-27T20:01:43Z")
        #expect(await WalletVerifierCommand.runCapturing(late).code == 1)
        #expect(await WalletVerifierCommand.runCapturing(late + ["--max-age", "900"]).code == 0)
    }

    @Test(arguments: [
        ("token-rsa.json", "2017-02-01T21:57:53Z", "+J/p5vUX3+9EE3I/Ds2WioXIFl7klj082vuSQ3vygV0="),
        ("token-ec.json", "2017-02-01T18:46:06Z", "hErQTIkV+XDB8kVuVvYI+1PUv/iIJPuFg2QF/+z1NIo="),
    ])
    func processoutTokensHaveNoMatchingKey(file: String, at: String, hash: String) async {
        let result = await WalletVerifierCommand.runCapturing([
            "applepay", "decrypt", "--token", TestVectors.path(processout + file),
            "--merchant-cert", TestVectors.path(seatgeek + "certificate.pem"),
            "--merchant-key", TestVectors.path(seatgeek + "private_key.pem"), "--at", at,
        ])
        #expect(result.code == 1)
        #expect(result.stdout.contains("FAIL  applepay.keySelection"))
        #expect(result.stdout.contains("No configured merchant key matches publicKeyHash \(hash)"))
        #expect(result.stdout.contains("PASS  applepay.signature.signer"))
        #expect(!result.stdout.contains("payment:"))
    }

    @Test func expectationsFromTheCommandLine() async {
        let good = await WalletVerifierCommand.runCapturing(seatgeekArguments() + ["--expect-currency", "840", "--expect-amount", "100"])
        #expect(good.code == 0)
        #expect(good.stdout.contains("PASS  applepay.expect.amount"))
        let wrong = await WalletVerifierCommand.runCapturing(seatgeekArguments() + ["--expect-amount", "101"])
        #expect(wrong.code == 1)
        #expect(wrong.stdout.contains("The token's transactionAmount is 100, expected 101 (minor units of 840)"))
        // The amount is in minor units: a decimal amount is a usage error that says so.
        let decimal = await WalletVerifierCommand.runCapturing(seatgeekArguments() + ["--expect-amount", "1.00"])
        #expect(decimal.code == 2)
        #expect(decimal.stderr.contains("minor units"))
        let currency = await WalletVerifierCommand.runCapturing(seatgeekArguments() + ["--expect-currency", "978"])
        #expect(currency.code == 1)
        let applicationData = await WalletVerifierCommand.runCapturing(seatgeekArguments() + ["--expect-application-data", "00ff"])
        #expect(applicationData.code == 1)
        #expect(applicationData.stdout.contains("applicationDataMissing"))
    }

    /// Seed 004, step 6: the command verifies without expectations, and says so in the report
    /// (`expectationsMissing`); with the currency and the amount the warning is gone.
    @Test func missingExpectationsAreAWarning() async throws {
        let bare = await WalletVerifierCommand.runCapturing(seatgeekArguments())
        #expect(bare.code == 0)
        #expect(bare.stdout.contains("WARNING  No expected currencyCode, transactionAmount was given"), "\(bare.stdout)")
        #expect(bare.stdout.contains("(expectationsMissing)"))
        let json = await WalletVerifierCommand.runCapturing(seatgeekArguments() + ["--expect-currency", "840", "--format", "json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let warnings = try #require(object["warnings"] as? [[String: Any]])
        #expect(warnings.map { $0["code"] as? String } == ["expectationsMissing"])
        #expect((warnings.first?["message"] as? String)?.contains("No expected transactionAmount was given") == true)
        let full = await WalletVerifierCommand.runCapturing(seatgeekArguments() + ["--expect-currency", "840", "--expect-amount", "100"])
        #expect(!full.stdout.contains("expectationsMissing"), "\(full.stdout)")
    }

    /// The payment request's applicationData itself (base64), hashed by the verifier: a fixture token
    /// bound to an order is accepted for that order's data and rejected for another's.
    @Test func applicationDataAsTheOriginalData() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pki = ApplePayFixturePKI.standard
        let merchant = try ApplePayFixtureMerchant.ec()
        var builder = ApplePayTokenBuilder(pki: pki, merchant: merchant)
        builder.applicationData = ApplePayTokenBuilder.applicationDataHash(#"{"order":"42"}"#)
        let token = try builder.build()
        func write(_ name: String, _ text: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            return url.path
        }
        let arguments = [
            "applepay", "decrypt", "--token", try write("token.json", String(decoding: token.json(), as: UTF8.self)),
            "--merchant-cert", try write("ec.pem", merchant.certificatePEM), "--merchant-key",
            try write("ec-key.pem", merchant.ecParametersAndKeyPEM),
            "--root", try write("root.pem", try ApplePayFixturePKI.pem(pki.root)), "--at", RFC3339(builder.signingTime.addingTimeInterval(20)),
            "--expect-currency", "840", "--expect-amount", "1999",
        ]
        let order42 = Data(#"{"order":"42"}"#.utf8).base64EncodedString()
        let good = await WalletVerifierCommand.runCapturing(arguments + ["--expect-application-data-base64", order42])
        #expect(good.code == 0, "\(good.stdout)")
        #expect(good.stdout.contains("PASS  applepay.expect.applicationData"))
        #expect(!good.stdout.contains("expectationsMissing"))
        let other = await WalletVerifierCommand.runCapturing(
            arguments + ["--expect-application-data-base64", Data(#"{"order":"43"}"#.utf8).base64EncodedString()])
        #expect(other.code == 1)
        #expect(other.stdout.contains("applicationDataMismatch"))
        // Without any applicationData expectation, the token's applicationData is named in the warning.
        let unchecked = await WalletVerifierCommand.runCapturing(arguments)
        #expect(unchecked.code == 0)
        #expect(unchecked.stdout.contains("No expected applicationData was given"), "\(unchecked.stdout)")
        // Both forms: both must match.
        let both = await WalletVerifierCommand.runCapturing(
            arguments + ["--expect-application-data-base64", order42, "--expect-application-data", String(repeating: "ab", count: 32)])
        #expect(both.code == 1)
        #expect(both.stdout.contains("applicationDataMismatch"))
    }

    @Test func usageErrorsExitWithTwo() async throws {
        let token = TestVectors.path(seatgeek + "token.json")
        let cert = TestVectors.path(seatgeek + "certificate.pem")
        let key = TestVectors.path(seatgeek + "private_key.pem")
        let cases: [[String]] = [
            ["--token", token, "--merchant-cert", cert],
            ["--token", token, "--merchant-cert", cert, "--merchant-cert", cert, "--merchant-key", key],
            ["--token", token],
            ["--token", "/nonexistent/token.json", "--merchant-cert", cert, "--merchant-key", key],
            ["--token", token, "--merchant-cert", cert, "--merchant-key", "/nonexistent/key.pem"],
            ["--token", token, "--merchant-cert", cert, "--merchant-key", key, "--at", "yesterday"],
            ["--token", token, "--merchant-cert", cert, "--merchant-key", key, "--expect-currency", "USD"],
            ["--token", token, "--merchant-cert", cert, "--merchant-key", key, "--expect-amount", "ten"],
            ["--token", token, "--merchant-cert", cert, "--merchant-key", key, "--expect-application-data", "xyz"],
            ["--token", token, "--merchant-cert", cert, "--merchant-key", key, "--expect-application-data-base64", "not base64!"],
            ["--token", token, "--merchant-cert", cert, "--merchant-key", key, "--max-age", "-1"],
            ["--token", token, "--merchant-cert", cert, "--merchant-key", key, "--format", "xml"],
            ["--token", token, "--merchant-cert", cert, "--merchant-key", key, "--merchant-id", "merchant.com.other"],
            ["--token", token, "--merchant-cert", key, "--merchant-key", cert],
        ]
        for arguments in cases {
            let result = await WalletVerifierCommand.runCapturing(["applepay", "decrypt"] + arguments)
            #expect(result.code == 2, "\(arguments)")
            #expect(!result.stderr.isEmpty, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
    }

    @Test func pkcs12KeyGetsConversionAdvice() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let p12 = directory.appendingPathComponent("merchant.p12")
        // The PKCS#12 file from the library tests (throwaway key).
        let der = try #require(Data(base64Encoded: MerchantKeyFiles.pkcs12Base64, options: .ignoreUnknownCharacters))
        try der.write(to: p12)
        let result = await WalletVerifierCommand.runCapturing([
            "applepay", "decrypt", "--token", TestVectors.path(seatgeek + "token.json"),
            "--merchant-cert", TestVectors.path(seatgeek + "certificate.pem"), "--merchant-key", p12.path,
        ])
        #expect(result.code == 2)
        #expect(result.stderr.contains("openssl pkcs12 -in f.p12 -nocerts -nodes -out key.pem"))
    }

    @Test func unreadableTokenContentIsARejection() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("token.json")
        try Data("this is not JSON".utf8).write(to: file)
        let result = await WalletVerifierCommand.runCapturing([
            "applepay", "decrypt", "--token", file.path,
            "--merchant-cert", TestVectors.path(seatgeek + "certificate.pem"),
            "--merchant-key", TestVectors.path(seatgeek + "private_key.pem"), "--at", "2014-10-27T19:52:43Z",
        ])
        #expect(result.code == 1)
        #expect(result.stdout.contains("FAIL  applepay.token.structure"))
        #expect(result.stdout.contains("malformedJSON"))
    }

    /// Fixture tokens with the fixture root: RSA_v1, and two key pairs (rotation) in one call.
    @Test func fixtureTokensWithTwoKeyPairsAndACustomRoot() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pki = ApplePayFixturePKI.standard
        let ec = try ApplePayFixtureMerchant.ec()
        let rsa = try ApplePayFixtureMerchant.rsa()
        let signingTime = ApplePayFixturePKI.epoch.addingTimeInterval(7200)
        func write(_ name: String, _ text: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data(text.utf8).write(to: url)
            return url.path
        }
        let root = try write("root.pem", try ApplePayFixturePKI.pem(pki.root))
        let pairs = [
            "--merchant-cert", try write("ec.pem", ec.certificatePEM), "--merchant-key", try write("ec-key.pem", ec.ecParametersAndKeyPEM),
            "--merchant-cert", try write("rsa.pem", rsa.certificatePEM), "--merchant-key", try write("rsa-key.pem", rsa.pkcs8KeyPEM),
        ]
        let at = RFC3339(signingTime.addingTimeInterval(20))
        for merchant in [ec, rsa] {
            let token = try ApplePayTokenBuilder(pki: pki, merchant: merchant, signingTime: signingTime).build()
            let tokenPath = try write(
                "token-\(merchant.publicKeyHash.prefix(4).filter(\.isLetter)).json",
                String(decoding: token.json(asPKPaymentToken: true), as: UTF8.self))
            let result = await WalletVerifierCommand.runCapturing(
                ["applepay", "decrypt", "--token", tokenPath] + pairs + ["--root", root, "--at", at, "--format", "json"])
            #expect(result.code == 0, "\(result.stdout)")
            #expect(result.stdout.contains("\"payment\":" + String(decoding: token.plaintext, as: UTF8.self)))
            #expect(result.stdout.contains("customTrustAnchor"))
            // Without --root the fixture chain is not Apple's.
            let untrusted = await WalletVerifierCommand.runCapturing(["applepay", "decrypt", "--token", tokenPath] + pairs + ["--at", at])
            #expect(untrusted.code == 1)
            #expect(untrusted.stdout.contains("FAIL  applepay.signature.chain"))
        }
    }

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("applepay-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func RFC3339(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }
}
