import Foundation
import Testing
import WalletEncoding
import WalletVerifierTestSupport

/// `serve --log-format json` and `X-Request-Id` end to end: a real process answers an identity
/// verification and an Apple Pay decryption; every line it logs is one JSON object, the request's
/// line carries its id, flow, verdict and failed checks, and nothing of the submissions (element
/// values, the nonce, the PAN, the cryptogram, the token) reaches the log although the answers hold them.
@Suite struct RequestLogProcessTests {
    @Test func jsonLinesCarryTheRequestIdAndTheVerdictButNoPersonalData() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let token = "api-token-for-the-log-test-0123456789"
        let tokenPath = fixture.directory.appendingPathComponent("api-token").path
        try Data(token.utf8).write(to: URL(fileURLWithPath: tokenPath))
        let service = try await ServiceInstance(
            arguments: ["--store", "sqlite", "--data-dir", fixture.directory.appendingPathComponent("data").path, "--log-format", "json"]
                + ["--api-token-file", tokenPath] + fixture.serveArguments,
            environment: ["LOG_LEVEL": "info"])
        defer { service.stop() }
        let authorization = ["Authorization": "Bearer \(token)"]

        // The caller's id is kept and sent back.
        let descriptor = try JSONSerialization.jsonObject(with: Data(ServiceFixture.descriptorJSON.utf8))
        let created = try await service.postForHeaders(
            "/v1/identity/requests", body: try JSONSerialization.data(withJSONObject: ["descriptor": descriptor]),
            headers: authorization.merging(["X-Request-Id": "checkout-42"]) { $1 })
        #expect(created.status == 201)
        #expect(Self.header(created.headers, "X-Request-Id") == "checkout-42")
        let requestID = try #require(created.body["requestId"] as? String)
        let nonceText = try #require(created.body["nonce"] as? String)
        let nonce = [UInt8](try #require(Data(base64Encoded: nonceText)))
        let envelope = try fixture.identityResponse(nonce: nonce, fixture: DeploymentTests.currentFixture())
        let submission = try JSONSerialization.data(withJSONObject: ["requestId": requestID, "encryptedData": Data(envelope).base64EncodedString()])
        let verified = try await service.postForHeaders(
            "/v1/identity/verify", body: submission, headers: authorization.merging(["X-Request-Id": "verify-1"]) { $1 })
        #expect(verified.body["verdict"] as? String == "accepted", "\(verified.body)")
        // Positive control: the answer holds the element values the log must not.
        let answer = String(decoding: try JSONSerialization.data(withJSONObject: verified.body), as: UTF8.self)
        #expect(answer.contains("Mustermann") && answer.contains("Erika"), "\(answer)")
        // The same submission again: rejected by its spent nonce, with a generated id (the caller's has a space).
        let replayed = try await service.postForHeaders(
            "/v1/identity/verify", body: submission, headers: authorization.merging(["X-Request-Id": "has a space"]) { $1 })
        #expect(replayed.body["verdict"] as? String == "rejected")
        let generated = try #require(Self.header(replayed.headers, "X-Request-Id"))
        #expect(generated != "has a space" && generated.count == 32 && generated.allSatisfy(\.isHexDigit), "\(generated)")

        let applePayToken = try JSONSerialization.jsonObject(with: Data(try fixture.applePayToken(signedAt: Date())))
        let paid = try await service.postForHeaders(
            "/v1/applepay/decrypt",
            body: try JSONSerialization.data(withJSONObject: ["token": applePayToken, "expect": ["currency": "840", "amount": 1999]]),
            headers: authorization.merging(["X-Request-Id": String(repeating: "x", count: 65)]) { $1 })
        #expect(paid.body["verdict"] as? String == "accepted", "\(paid.body)")
        #expect(Self.header(paid.headers, "X-Request-Id")?.count == 32)

        // A problem names the id too; so does a refusal of the token middleware.
        let bad = try await service.postForHeaders(
            "/v1/identity/verify", body: Data("{".utf8), headers: authorization.merging(["X-Request-Id": "broken-1"]) { $1 })
        #expect(bad.status == 400)
        #expect(bad.body["requestId"] as? String == "broken-1", "\(bad.body)")
        let unauthorized = try await service.postForHeaders("/v1/identity/verify", body: submission, headers: ["X-Request-Id": "no-token-1"])
        #expect(unauthorized.status == 401)
        #expect(unauthorized.body["requestId"] as? String == "no-token-1")
        #expect(Self.header(unauthorized.headers, "X-Request-Id") == "no-token-1")

        // The log: every line one JSON object with time, level and message.
        var lines: [[String: Any]] = []
        _ = try await ServiceInstance.waitFor {
            lines = service.log.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            return lines.contains { $0["requestId"] as? String == "no-token-1" }
        }
        let text = service.log
        let rawLines = text.split(separator: "\n").filter { !$0.isEmpty }
        #expect(rawLines.count == lines.count, "lines that are not JSON: \(rawLines.filter { !$0.hasPrefix("{") }.prefix(3))")
        for line in lines {
            #expect(line["time"] is String && line["level"] is String && line["message"] is String, "\(line)")
        }
        func line(_ id: String) -> [String: Any]? { lines.first { $0["requestId"] as? String == id && $0["message"] as? String == "request" } }
        let accepted = try #require(line("verify-1"), "\(text.suffix(3000))")
        #expect(accepted["path"] as? String == "/v1/identity/verify")
        #expect(accepted["status"] as? String == "200")
        #expect(accepted["verdict"] as? String == "accepted")
        #expect(accepted["flow"] as? String == verified.body["flow"] as? String)
        #expect((accepted["failedChecks"] as? [String])?.isEmpty == true)
        let rejected = try #require(line(generated))
        #expect(rejected["verdict"] as? String == "rejected")
        #expect((rejected["failedChecks"] as? [String])?.contains("replay.nonce") == true, "\(rejected)")
        #expect(line("checkout-42")?["status"] as? String == "201")
        #expect(line("broken-1")?["status"] as? String == "400")
        #expect(line("no-token-1")?["status"] as? String == "401")

        // Nothing of the submissions, the answers' personal data or the token.
        for secret in ["Mustermann", "Erika", nonceText, Hex.encode(nonce), "4111111111111111", "AM8lJ8PaVr5bAAeoLxMCAoABFA==", token] {
            #expect(!text.contains(secret), "the log holds \(secret)")
        }
    }

    static func header(_ headers: [AnyHashable: Any], _ name: String) -> String? {
        headers.first { ($0.key as? String)?.lowercased() == name.lowercased() }?.value as? String
    }
}
