import ApplePayVerifier
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import VerificationCore
import WalletVerifierTestSupport

@testable import VerifierServer

/// Seed 004, step 6 through the service: `POST /v1/applepay/decrypt` needs the expected currency
/// and amount (a 400 that says why), unless the operator chose `--applepay-expectations optional`;
/// the applicationData may be given as the payment request's data itself.
@Suite struct ApplePayExpectationRouteTests {
    static func post(_ client: some TestClientProtocol, _ object: [String: Any]) async throws -> (status: HTTPResponse.Status, json: [String: Any]) {
        let response = try await client.execute(
            uri: "/v1/applepay/decrypt", method: .post, headers: RouterTests.jsonHeaders, body: try RouterTests.body(object))
        if response.status == .badRequest { #expect(response.headers[.contentType] == "application/problem+json") }
        return (response.status, try RouterTests.json(response.body))
    }

    static func token(_ fixture: ServiceFixture, applicationData: String? = nil) throws -> Any {
        var builder = ApplePayTokenBuilder(merchant: fixture.merchant)
        builder.applicationData = applicationData.map(ApplePayTokenBuilder.applicationDataHash)
        return try JSONSerialization.jsonObject(with: Data(try builder.build().json(asPKPaymentToken: true)))
    }

    static func warnings(_ json: [String: Any]) -> [String] {
        ((json["warnings"] as? [[String: Any]]) ?? []).compactMap { $0["code"] as? String }
    }

    /// Without `expect.currency` and `expect.amount` the default service answers 400 before verifying
    /// anything (the token's transactionId stays unused), the detail starting with the member's pointer.
    @Test func expectationsAreRequiredByDefault() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await RouterTests.servicesFromValues(fixture), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let token = try Self.token(fixture)
            let cases: [([String: Any], String)] = [
                (["token": token], "/expect/currency: missing"),
                (["token": token, "expect": [String: Any]()], "/expect/currency: missing"),
                (["token": token, "expect": ["amount": 1999]], "/expect/currency: missing"),
                (["token": token, "expect": ["currency": "840"]], "/expect/amount: missing"),
                (["paymentData": (token as! [String: Any])["paymentData"]!, "expect": ["currency": "840"]], "/expect/amount: missing"),
            ]
            for (body, detail) in cases {
                let answer = try await Self.post(client, body)
                #expect(answer.status == .badRequest, "\(body.keys)")
                let text = try #require(answer.json["detail"] as? String)
                #expect(text.hasPrefix(detail), "\(text)")
                #expect(text.contains("--applepay-expectations optional"))
                #expect(answer.json["verdict"] == nil)
            }
            // An alphabetic code would never match the token's numeric one: a 400 that asks for the number.
            for currency in ["USD", "84", "8400", "８４０"] {
                let answer = try await Self.post(client, ["token": token, "expect": ["currency": currency, "amount": 1999]])
                #expect(answer.status == .badRequest, "\(currency)")
                #expect((answer.json["detail"] as? String)?.hasPrefix("/expect/currency: must be the ISO 4217 numeric code") == true, "\(currency)")
            }
            // Nothing was verified or recorded: the same token with its expectations is accepted once.
            let answer = try await Self.post(client, ["token": token, "expect": ["currency": "840", "amount": 1999]])
            #expect(answer.status == .ok)
            #expect(answer.json["verdict"] as? String == "accepted", "\(answer.json)")
            #expect(!Self.warnings(answer.json).contains("expectationsMissing"))
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains(#"wallet_verifier_verifications_total{flow="applepay",verdict="accepted"} 1"#), "\(metrics)")
        }
    }

    /// `applepayExpectations: optional`: the token is verified without them and the answer's report
    /// carries the `expectationsMissing` warning; a malformed expectation is still a 400.
    @Test func optionalExpectationsAreAWarning() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.servicesFromValues(fixture) { $0.applePayExpectations = .optional }
        let app = VerifierApplication.build(services: services, logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let answer = try await Self.post(client, ["token": try Self.token(fixture)])
            #expect(answer.status == .ok)
            #expect(answer.json["verdict"] as? String == "accepted", "\(answer.json)")
            #expect(Self.warnings(answer.json).contains("expectationsMissing"))
            let currencyOnly = try await Self.post(client, ["token": try Self.token(fixture), "expect": ["currency": "840"]])
            #expect(currencyOnly.json["verdict"] as? String == "accepted")
            let warning = ((currencyOnly.json["warnings"] as? [[String: Any]]) ?? []).first { $0["code"] as? String == "expectationsMissing" }
            #expect((warning?["message"] as? String)?.contains("No expected transactionAmount was given") == true)
            let malformed = try await Self.post(client, ["token": try Self.token(fixture), "expect": ["amount": "19.99"]])
            #expect(malformed.status == .badRequest)
        }
    }

    /// `expect.applicationDataBase64`: the payment request's data, hashed by the service (SHA-256) and
    /// compared with the signed header.applicationData (with `applicationData` too, both must match); not
    /// base64 is a 400.
    @Test func applicationDataAsTheOriginalData() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await RouterTests.servicesFromValues(fixture), logger: Logger(label: "test"))
        let order = #"{"order":"42","total":"19.99"}"#
        let original = Data(order.utf8).base64EncodedString()
        try await app.test(.router) { client in
            func expect(_ extra: [String: Any]) -> [String: Any] { ["currency": "840", "amount": 1999].merging(extra) { $1 } }
            let other = try await Self.post(
                client, ["token": try Self.token(fixture, applicationData: order), "expect": expect(["applicationDataBase64": "b3JkZXItNDM="])])
            #expect(other.status == .ok)
            #expect(other.json["verdict"] as? String == "rejected")
            let check = (other.json["checks"] as? [[String: Any]])?.first { $0["id"] as? String == "applepay.expect.applicationData" }
            #expect(check?["reason"] as? String == "applicationDataMismatch", "\(String(describing: check))")

            let good = try await Self.post(
                client, ["token": try Self.token(fixture, applicationData: order), "expect": expect(["applicationDataBase64": original])])
            #expect(good.json["verdict"] as? String == "accepted", "\(good.json)")
            #expect(Self.warnings(good.json).allSatisfy { $0 != "expectationsMissing" })

            // Both forms: both must match (the hex of another hash is a mismatch).
            let both = try await Self.post(
                client,
                [
                    "token": try Self.token(fixture, applicationData: order),
                    "expect": expect(["applicationDataBase64": original, "applicationData": String(repeating: "ab", count: 32)]),
                ])
            #expect(both.json["verdict"] as? String == "rejected")
            // Checked before the token: a 400 whatever the token is.
            for (extra, detail) in [
                (["applicationDataBase64": "not base64!"], "/expect/applicationDataBase64: must be base64"),
                (["applicationDataBase64": "QQ="], "/expect/applicationDataBase64: must be base64"),
                (["applicationDataBase64": 42], "/expect/applicationDataBase64: must be base64"),
            ] as [([String: Any], String)] {
                let answer = try await Self.post(client, ["token": try Self.token(fixture), "expect": expect(extra)])
                #expect(answer.status == .badRequest)
                #expect((answer.json["detail"] as? String)?.hasPrefix(detail) == true, "\(answer.json)")
            }
        }
    }

    /// The setting from the environment and the config file; anything but required or optional stops the start.
    @Test func theSettingComesFromEveryPlace() throws {
        #expect(try ServerSettings.resolve(flags: [:], environment: [:], configFile: nil).applePayExpectations == .required)
        let environment = ["WALLET_VERIFIER_APPLEPAY_EXPECTATIONS": "optional"]
        #expect(try ServerSettings.resolve(flags: [:], environment: environment, configFile: nil).applePayExpectations == .optional)
        #expect(
            try ServerSettings.resolve(flags: ["applepayExpectations": ["required"]], environment: environment, configFile: nil).applePayExpectations
                == .required)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("expectations-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"applepayExpectations": "optional"}"#.utf8).write(to: file)
        #expect(try ServerSettings.resolve(flags: [:], environment: [:], configFile: file.path).applePayExpectations == .optional)
        #expect(throws: SettingsError.self) {
            try ServerSettings.resolve(flags: ["applepayExpectations": ["off"]], environment: [:], configFile: nil)
        }
    }

    /// A real `serve --applepay-expectations optional`: it says so in its log at start, and answers a
    /// token without expectations with the warning in the report.
    @Test func aRealServeWithOptionalExpectations() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let instance = try await ServiceInstance(arguments: ["--store", "memory", "--applepay-expectations", "optional"] + fixture.serveArguments)
        defer { instance.stop() }
        #expect(instance.log.contains("applepay: expectations optional"), "\(instance.log)")
        let token = try JSONSerialization.jsonObject(with: Data(try fixture.applePayToken(signedAt: Date())))
        let answer = try await instance.post("/v1/applepay/decrypt", ["token": token])
        #expect(answer.status == 200)
        #expect(answer.body["verdict"] as? String == "accepted", "\(answer.body)")
        #expect(Self.warnings(answer.body).contains("expectationsMissing"))
    }

    /// The operators' page verifies without expectations (a debugging tool), and its report shows the warning.
    @Test func thePageShowsTheWarning() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.servicesFromValues(fixture)
        let csrf = WebPageAccess(token: WebPageSecurityTests.token, generated: false).csrfToken
        let token = String(decoding: try fixture.applePayToken(), as: UTF8.self)
        try await WebPageSecurityTests.pageApp(services).test(.router) { client in
            let answer = try await client.execute(
                uri: "/ui/verify", method: .post, headers: WebPageSecurityTests.cookie,
                body: WebPageSecurityTests.form(["kind": "applepay", "token": token, "csrf": csrf]))
            #expect(answer.status == .ok)
            let html = String(buffer: answer.body)
            #expect(html.contains(#"class="verdict accepted""#), "\(html.prefix(600))")
            #expect(html.contains("No expected currencyCode, transactionAmount was given"))
        }
    }
}
