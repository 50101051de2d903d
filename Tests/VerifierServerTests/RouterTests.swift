import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOFoundationEssentialsCompat
import Testing
import VerificationCore
import WalletIdentity
import WalletVerifierTestSupport

@testable import VerifierServer

/// In-process tests of the API (Hummingbird's router test framework), on the in-memory store.
@Suite struct RouterTests {
    static func services(
        _ fixture: ServiceFixture, store: ServerSettings.StoreKind = .memory, applePay: Bool = true,
        extra: ServerSettings.Source = [:]
    ) async throws -> VerifierServices {
        var flags: ServerSettings.Source = [
            "store": [store.rawValue], "dataDir": [fixture.directory.appendingPathComponent("data").path],
            "identityKeys": [fixture.identityKeyPath], "merchantId": [fixture.merchantID], "teamId": [fixture.teamID], "trust": [fixture.iacaPath],
            "webKeys": [fixture.webKeyPath], "webOrigins": [fixture.webOrigin],
        ]
        if applePay {
            flags["applepayCerts"] = [fixture.merchantCertificatePath]
            flags["applepayKeys"] = [fixture.merchantKeyPath]
            flags["applepayRoot"] = [fixture.applePayRootPath]
        }
        flags.merge(extra) { $1 }
        let settings = try ServerSettings.resolve(flags: flags, environment: [:], configFile: nil)
        return try await VerifierServices.make(settings: settings, logger: Logger(label: "test"), clock: FixedClock(ServiceFixture.time))
    }

    static func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(buffer: buffer)) as? [String: Any])
    }

    static func body(_ object: [String: Any]) throws -> ByteBuffer {
        ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: object))
    }

    static let jsonHeaders: HTTPFields = [.contentType: "application/json"]

    @Test func identityRequestThenVerifyOnceThenReplay() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await Self.services(fixture)
        let app = VerifierApplication.build(services: services, logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let descriptor = try JSONSerialization.jsonObject(with: Data(ServiceFixture.descriptorJSON.utf8))
            let created = try await client.execute(
                uri: "/v1/identity/requests", method: .post, headers: Self.jsonHeaders, body: try Self.body(["descriptor": descriptor]))
            #expect(created.status == .created)
            let request = try Self.json(created.body)
            let requestID = try #require(request["requestId"] as? String)
            let nonce = try #require((request["nonce"] as? String).flatMap { Data(base64Encoded: $0) })
            #expect(nonce.count == 32)
            #expect(request["merchantId"] as? String == fixture.merchantID)
            #expect(request["expiresAt"] is String)

            let envelope = try fixture.identityResponse(nonce: [UInt8](nonce))
            let submission = try Self.body(["requestId": requestID, "encryptedData": Data(envelope).base64EncodedString()])
            let first = try await client.execute(uri: "/v1/identity/verify", method: .post, headers: Self.jsonHeaders, body: submission)
            #expect(first.status == .ok)
            let report = try Self.json(first.body)
            #expect(report["verdict"] as? String == "accepted", "\(String(buffer: first.body))")
            ContractSamples.record(first.body, schema: "IdentityResult", name: "identity-verify")
            let claims = try #require(report["claims"] as? [String: Any])
            #expect((claims["givenName"] as? [String: Any])?["value"] as? String == "Erika")
            #expect((claims["ageAtLeast"] as? [String: Any])?["value"] as? Bool == true)

            let second = try await client.execute(uri: "/v1/identity/verify", method: .post, headers: Self.jsonHeaders, body: submission)
            #expect(second.status == .ok)
            let replay = try Self.json(second.body)
            #expect(replay["verdict"] as? String == "rejected")
            #expect(
                (replay["checks"] as? [[String: Any]])?.contains { $0["id"] as? String == "replay.nonce" && $0["reason"] as? String == "nonceReused" }
                    == true)

            let metrics = try await client.execute(uri: "/metrics", method: .get)
            let text = String(buffer: metrics.body)
            #expect(text.contains(#"wallet_verifier_verifications_total{flow="identity",verdict="accepted"} 1"#))
            #expect(text.contains(#"wallet_verifier_check_failures_total{check="replay.nonce",reason="nonceReused"} 1"#))
            #expect(text.contains("wallet_verifier_verification_duration_seconds_bucket"))
        }
    }

    @Test func applePayDecryptOnceThenReplay() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await Self.services(fixture), logger: Logger(label: "test"))
        let tokenBytes = try fixture.applePayToken()
        try await app.test(.router) { client in
            let token = try JSONSerialization.jsonObject(with: Data(tokenBytes))
            let body = try Self.body(["token": token, "expect": ["currency": "840", "amount": 1999]])
            let first = try await client.execute(uri: "/v1/applepay/decrypt", method: .post, headers: Self.jsonHeaders, body: body)
            #expect(first.status == .ok)
            let report = try Self.json(first.body)
            #expect(report["verdict"] as? String == "accepted", "\(String(buffer: first.body))")
            #expect((report["payment"] as? [String: Any])?["currencyCode"] as? String == "840")
            let payment = try #require(report["payment"] as? [String: Any])
            let card = try #require(report["card"] as? [String: Any])
            #expect(card["wallet"] as? String == "applepay")
            #expect(card["number"] as? String == payment["applicationPrimaryAccountNumber"] as? String)
            ContractSamples.record(first.body, schema: "ApplePayResult", name: "applepay-decrypt")
            let second = try await client.execute(uri: "/v1/applepay/decrypt", method: .post, headers: Self.jsonHeaders, body: body)
            let replay = try Self.json(second.body)
            #expect(replay["verdict"] as? String == "rejected")
            #expect(replay["payment"] == nil)
            #expect(replay["card"] == nil)
            let wrongAmount = try await client.execute(
                uri: "/v1/applepay/decrypt", method: .post, headers: Self.jsonHeaders,
                body: try Self.body(["paymentData": (token as! [String: Any])["paymentData"]!, "expect": ["currency": "840", "amount": "5"]]))
            #expect(try Self.json(wrongAmount.body)["verdict"] as? String == "rejected")
        }
    }

    @Test func unreadableRequestsAreProblems() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        var services = try await Self.services(fixture)
        services = VerifierServices(
            settings: {
                var s = services.settings
                s.bodyLimit = 4096
                return s
            }(), store: services.store, identity: services.identity,
            applePay: services.applePay, web: services.web, webKeys: services.webKeys, metrics: services.metrics, clock: services.clock,
            backgroundServices: [],
            prepare: {}, shutdown: {})
        let app = VerifierApplication.build(services: services, logger: Logger(label: "test"))
        try await app.test(.router) { client in
            func problem(_ uri: String, _ body: ByteBuffer, headers: HTTPFields = Self.jsonHeaders) async throws -> (
                HTTPResponse.Status, [String: Any]
            ) {
                let response = try await client.execute(uri: uri, method: .post, headers: headers, body: body)
                #expect(response.headers[.contentType] == "application/problem+json")
                return (response.status, try Self.json(response.body))
            }
            let notJSON = try await problem("/v1/identity/verify", ByteBuffer(string: "{nope"))
            #expect(notJSON.0 == .badRequest)
            #expect(notJSON.1["status"] as? Int == 400)
            #expect(
                try await problem("/v1/identity/verify", ByteBuffer(string: "x"), headers: [.contentType: "text/plain"]).0 == .unsupportedMediaType)
            #expect(
                try await problem("/v1/identity/verify", ByteBuffer(string: "{\"requestId\":\"" + String(repeating: "a", count: 8000) + "\"}")).0
                    == .contentTooLarge)
            #expect(
                try await problem("/v1/identity/verify", try Self.body(["requestId": "r"])).1["detail"] as? String
                    == "/encryptedData: missing (base64 of PKIdentityDocument.encryptedData)")
            #expect(try await problem("/v1/identity/verify", try Self.body(["requestId": "r", "encryptedData": "%%%"])).0 == .badRequest)
            let badDescriptor = try await problem(
                "/v1/identity/requests",
                try Self.body([
                    "descriptor": ["document": "driversLicense", "elements": [["element": "age", "atLeast": 300, "intentToStore": "willNotStore"]]]
                ]))
            #expect(badDescriptor.0 == .badRequest)
            #expect((badDescriptor.1["detail"] as? String)?.contains("outside 1...125") == true)
            #expect(try await problem("/v1/applepay/decrypt", try Self.body(["nothing": 1])).0 == .badRequest)
            // An unknown request is an answer (rejected), not a problem.
            let unknown = try await client.execute(
                uri: "/v1/identity/verify", method: .post, headers: Self.jsonHeaders,
                body: try Self.body(["requestId": "unknown", "encryptedData": "AAAA"]))
            #expect(unknown.status == .ok)
            #expect(try Self.json(unknown.body)["verdict"] as? String == "rejected")
        }
    }

    /// The token reaches the verifier as the bytes received (escaped slashes, spacing, member order
    /// untouched); the body around it is read strictly.
    @Test func applePayTokenIsPassedAsReceivedAndBodiesAreStrict() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await Self.services(fixture), logger: Logger(label: "test"))
        let tokenText = String(decoding: try fixture.applePayToken(), as: UTF8.self)
        // Escaped slashes and spacing the way some serializers write them.
        let spaced = tokenText.replacingOccurrences(of: "\\/", with: "/").replacingOccurrences(of: "/", with: "\\/").replacingOccurrences(
            of: "\":", with: "\" :  ")
        try await app.test(.router) { client in
            func post(_ text: String) async throws -> (HTTPResponse.Status, [String: Any]) {
                let response = try await client.execute(
                    uri: "/v1/applepay/decrypt", method: .post, headers: Self.jsonHeaders, body: ByteBuffer(string: text))
                return (response.status, try Self.json(response.body))
            }
            let accepted = try await post(#"{ "expect" : {"amount": 19.99e2, "currency": "840"}, "token" :  "# + spaced + " }")
            #expect(accepted.0 == .ok)
            #expect(accepted.1["verdict"] as? String == "accepted", "\(accepted.1)")
            #expect((accepted.1["token"] as? [String: Any])?["transactionId"] != nil)
            // Duplicate names, trailing content, a non-object token, wrong types: 400 before any verification.
            // The amount is in minor units: a non-integer is refused and the problem says so.
            for amount in ["19.99", "-5", "1e-2", #""19.99""#] {
                let answer = try await post(#"{"token": {}, "expect": {"amount": \#(amount)}}"#)
                #expect(answer.0 == .badRequest, "\(amount)")
                #expect((answer.1["detail"] as? String)?.contains("minor units") == true)
            }
            for body in [
                #"{"token": {}, "token": {}}"#, #"{"token": {}} x"#, #"{"token": "text"}"#, #"{"token": {}, "expect": []}"#,
                #"{"token": {}, "expect": {"amount": true}}"#, #"{"token": {}, "expect": {"currency": 840}}"#, "[]", #""\ud800""#,
            ] {
                let answer = try await post(body)
                #expect(answer.0 == .badRequest, "\(body)")
                #expect(answer.1["type"] as? String == "urn:wallet-verifier:problem:invalid-request")
            }
            let wrongType = try await client.execute(
                uri: "/v1/identity/verify", method: .post, headers: Self.jsonHeaders,
                body: ByteBuffer(string: #"{"requestId": 5, "encryptedData": "AAAA"}"#))
            #expect(wrongType.status == .badRequest)
            #expect(try Self.json(wrongType.body)["detail"] as? String == "/requestId: must be a string")
        }
    }

    @Test func otherMethodsOnKnownPathsAre405() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await Self.services(fixture), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let get = try await client.execute(uri: "/v1/applepay/decrypt", method: .get)
            #expect(get.status == .methodNotAllowed)
            #expect(get.headers[.allow] == "POST")
            #expect(get.headers[.contentType] == "application/problem+json")
            let delete = try await client.execute(uri: "/healthz", method: .delete)
            #expect(delete.status == .methodNotAllowed)
            #expect(delete.headers[.allow] == "GET, HEAD")
            // TRACE too is a 405 with Allow; HEAD is served where GET is; an unknown path is a 404 problem.
            let trace = try await client.execute(uri: "/v1/identity/verify", method: .trace)
            #expect(trace.status == .methodNotAllowed)
            #expect(trace.headers[.allow] == "POST")
            // Methods HTTPTypes has no name for (QUERY, PROPFIND) as well.
            for name in ["QUERY", "PROPFIND"] {
                let other = try await client.execute(uri: "/v1/web/requests", method: try #require(HTTPRequest.Method(name)))
                #expect(other.status == .methodNotAllowed, "\(name)")
                #expect(other.headers[.allow] == "POST")
                #expect(other.headers[.contentType] == "application/problem+json")
            }
            let head = try await client.execute(uri: "/healthz", method: .head)
            #expect(head.status == .ok)
            #expect(head.body.readableBytes == 0)
            #expect(head.headers[.contentType] == "application/json")
            // The router's HEAD (RFC 9110 §9.3.2): the GET answer's fields, its Content-Length too.
            #expect(head.headers[.contentLength] == String(#"{"status":"ok"}"#.utf8.count))
            #expect(try await client.execute(uri: "/v1/identity/verify", method: .head).status == .methodNotAllowed)
            let unknown = try await client.execute(uri: "/no/such/path", method: .get)
            #expect(unknown.status == .notFound)
            #expect(unknown.headers[.contentType] == "application/problem+json")
            #expect(try Self.json(unknown.body)["type"] as? String == "urn:wallet-verifier:problem:not-found")
            // The API listener serves no page: / is not a path here.
            #expect(try await client.execute(uri: "/", method: .put).status == .notFound)
            #expect(try await client.execute(uri: "/no/such/path", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }

    @Test func healthReadinessAndSpec() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await Self.servicesFromValues(fixture, applePay: false), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .ok)
            let spec = String(buffer: try await client.execute(uri: "/openapi.yaml", method: .get).body)
            for path in ["/v1/identity/requests:", "/v1/identity/verify:", "/v1/applepay/decrypt:", "/healthz:", "/readyz:", "/metrics:"] {
                #expect(spec.contains(path), "\(path)")
            }
            // The descriptor's element enum is exactly the library's PassKit element list.
            let enumStart = try #require(spec.range(of: "enum: [givenName"))
            let enumEnd = try #require(spec[enumStart.upperBound...].firstIndex(of: "]"))
            let listed = spec[spec.index(enumStart.lowerBound, offsetBy: "enum: [".count)..<enumEnd]
                .split(separator: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            #expect(Set(listed) == Set(IdentityElement.allCases.map(\.rawValue)))
            #expect(listed.count == IdentityElement.allCases.count)
            let notConfigured = try await client.execute(
                uri: "/v1/applepay/decrypt", method: .post, headers: Self.jsonHeaders, body: try Self.body(["paymentData": [:]]))
            // Not an outage: 501 without Retry-After, naming the flags that configure it.
            #expect(notConfigured.status == .notImplemented)
            #expect(notConfigured.headers[.retryAfter] == nil)
            #expect((try Self.json(notConfigured.body)["detail"] as? String)?.contains("--applepay-cert") == true)
            // The web page is on its own listener (--ui-listen), never here.
            #expect(try await client.execute(uri: "/", method: .get).status == .notFound)
        }
    }

    @Test func aStoreThatFailsMakesVerdictsIndeterminateAnd503() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await Self.services(fixture, store: .sqlite)
        let app = VerifierApplication.build(services: services, logger: Logger(label: "test"))
        let tokenBytes = try fixture.applePayToken()
        await services.shutdown()  // the embedded store is closed: every operation fails
        try await app.test(.router) { client in
            let token = try JSONSerialization.jsonObject(with: Data(tokenBytes))
            #expect(try await client.execute(uri: "/readyz", method: .get).status == .serviceUnavailable)
            let response = try await client.execute(
                uri: "/v1/applepay/decrypt", method: .post, headers: Self.jsonHeaders,
                body: try Self.body(["token": token, "expect": ["currency": "840", "amount": 1999]]))
            #expect(response.status == .serviceUnavailable)
            #expect(response.headers[.retryAfter] == "1")
            #expect(try Self.json(response.body)["verdict"] as? String == "indeterminate")
            let created = try await client.execute(
                uri: "/v1/identity/requests", method: .post, headers: Self.jsonHeaders,
                body: try Self.body(["descriptor": try JSONSerialization.jsonObject(with: Data(ServiceFixture.descriptorJSON.utf8))]))
            #expect(created.status == .serviceUnavailable)
        }
    }

    @Test func settingsPrecedenceAndErrors() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cfg-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("config.json").path
        try Data(#"{"port": 9000, "host": "0.0.0.0", "trust": ["a.pem", "b.pem"], "maxAge": 120}"#.utf8).write(to: URL(fileURLWithPath: file))
        let settings = try ServerSettings.resolve(
            flags: ["port": ["9100"]], environment: ["WALLET_VERIFIER_HOST": "127.0.0.2", "WALLET_VERIFIER_MAX_AGE": "60"], configFile: file)
        #expect(settings.port == 9100)
        #expect(settings.host == "127.0.0.2")
        #expect(settings.trust == ["a.pem", "b.pem"])
        #expect(settings.maxAge == 60)
        #expect(throws: SettingsError.self) { try ServerSettings.resolve(flags: ["store": ["postgres"]], environment: [:], configFile: nil) }
        #expect(throws: SettingsError.self) { try ServerSettings.resolve(flags: ["port": ["http"]], environment: [:], configFile: nil) }
        #expect(throws: SettingsError.self) { try ServerSettings.resolve(flags: ["applepayCerts": ["c.pem"]], environment: [:], configFile: nil) }
        try Data(#"{"colour": "blue"}"#.utf8).write(to: URL(fileURLWithPath: file))
        #expect(throws: SettingsError.self) { try ServerSettings.resolve(flags: [:], environment: [:], configFile: file) }
    }
}

@Suite("event-loop executor setting")
struct EventLoopExecutorSettingTests {
    @Test("on unless WALLET_VERIFIER_EVENT_LOOP_EXECUTOR says off")
    func setting() {
        #expect(EventLoopExecutor.enabled(environment: [:]))
        for on in ["on", "ON", "1", "true", "yes", ""] {
            #expect(EventLoopExecutor.enabled(environment: ["WALLET_VERIFIER_EVENT_LOOP_EXECUTOR": on]), "\(on)")
        }
        for off in ["off", "OFF", "0", "false", "No"] {
            #expect(!EventLoopExecutor.enabled(environment: ["WALLET_VERIFIER_EVENT_LOOP_EXECUTOR": off]), "\(off)")
        }
    }
}
