import Crypto
import Foundation
import GooglePayVerifier
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import Synchronization
import Testing
import TrustDocuments
import VerificationCore
import WalletEncoding
import WalletVerifierTestSupport

@testable import VerifierServer

/// `POST /v1/googlepay/decrypt` with the real ECv2 TEST token (Tests/GooglePayVerifierTests/Vectors)
/// at its verification time, and Google's root keys read from a file or fetched from a URL.
@Suite struct GooglePayRouteTests {
    /// The Google Pay vectors, read from the source tree (see their README).
    enum Vectors {
        static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("GooglePayVerifierTests/Vectors")
        static func path(_ name: String) -> String { root.appendingPathComponent(name).path }
        static func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: root.appendingPathComponent(name))) }
        /// The vector's verification time and merchant id (Vectors/README.md).
        static let time = Date(timeIntervalSince1970: 1_595_000_067)
        static let merchantID = "12345678901234567890"
        static let token = "r2d2-ecv2-tokenized-card.json"
        static let testRoots = "r2d2-google-root-keys-test.json"
        static let productionRoots = "r2d2-google-root-keys-production.json"
    }

    /// The merchant key copied into the fixture directory, readable by its owner only.
    static func merchantKeyPath(_ fixture: ServiceFixture) throws -> String {
        let path = fixture.directory.appendingPathComponent("googlepay.key.pem").path
        try Data(try Vectors.bytes("r2d2-merchant-private-key.pem")).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return path
    }

    /// The service with Google Pay configured through its settings (`roots`: a vector file or a URL)
    /// and the fixture's other material; nil `roots`: Google Pay not configured.
    static func services(
        _ fixture: ServiceFixture, roots: String? = Vectors.path(Vectors.testRoots), store: [String] = ["memory"],
        clock: any VerificationClock = FixedClock(Vectors.time), logger: Logger = Logger(label: "test"), extra: ServerSettings.Source = [:]
    ) async throws -> VerifierServices {
        var flags: ServerSettings.Source = [
            "store": store, "dataDir": [fixture.directory.appendingPathComponent("data").path], "merchantId": [fixture.merchantID],
            "teamId": [fixture.teamID], "webOrigins": [fixture.webOrigin],
        ]
        if let roots {
            flags["googlepayKeys"] = [try merchantKeyPath(fixture)]
            flags["googlepayMerchantId"] = [Vectors.merchantID]
            flags["googlepayRootKeys"] = [roots]
        }
        flags.merge(extra) { $1 }
        let settings = try ServerSettings.resolve(flags: flags, environment: [:], configFile: nil)
        var material = try fixture.material()
        material.googlePayKeys = try settings.googlePayKeys.map { try ServiceMaterial.googlePayKey($0, logger: logger) }
        material.googlePayRootKeys = try ServiceMaterial.googlePayRootKeysFile(settings: settings)
        return try await VerifierServices.make(settings: settings, material: material, logger: logger, clock: clock)
    }

    static func post(_ client: some TestClientProtocol, _ body: [UInt8], key: String? = nil) async throws -> (
        status: HTTPResponse.Status, json: [String: Any], body: ByteBuffer
    ) {
        var headers = RouterTests.jsonHeaders
        if let key { headers[IdempotentSubmissions.header] = key }
        let response = try await client.execute(uri: "/v1/googlepay/decrypt", method: .post, headers: headers, body: ByteBuffer(bytes: body))
        let json = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:]
        return (response.status, json, response.body)
    }

    /// `{"token": <the token object, its bytes as in the file>}`.
    static func objectBody() throws -> [UInt8] {
        Array(#"{"token": "#.utf8) + (try Vectors.bytes(Vectors.token)) + Array("}".utf8)
    }

    /// `{"token": "<the token JSON as a string>"}`, as a page receives it in tokenizationData.token.
    static func stringBody() throws -> [UInt8] {
        let text = String(decoding: try Vectors.bytes(Vectors.token), as: UTF8.self)
        return Array(try JSONSerialization.data(withJSONObject: ["token": text]))
    }

    static func check(_ json: [String: Any], _ id: String) -> [String: Any]? {
        (json["checks"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    /// The token as an object is accepted once at its time (the card in `payment`); the same token
    /// again, as the string the page receives, is a replay of its messageId.
    @Test func theRealTokenIsAcceptedOnceAsAnObject() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await Self.services(fixture), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let first = try await Self.post(client, try Self.objectBody())
            #expect(first.status == .ok)
            #expect(first.json["verdict"] as? String == "accepted", "\(first.json)")
            #expect(first.json["flow"] as? String == "googlePay")
            let payment = try #require(first.json["payment"] as? [String: Any])
            #expect((payment["paymentMethodDetails"] as? [String: Any])?["authMethod"] as? String == "CRYPTOGRAM_3DS")
            #expect((first.json["token"] as? [String: Any])?["protocolVersion"] as? String == "ECv2")
            // The card block shared with Apple Pay, the same as the CLI's.
            let card = try #require(first.json["card"] as? [String: Any])
            #expect(card["wallet"] as? String == "googlepay")
            #expect(card["number"] as? String == "4895370012003478")
            #expect(card["expiryMonth"] as? Int == 12 && card["expiryYear"] as? Int == 2025)
            #expect(card["eci"] as? String == "07")
            ContractSamples.record(first.body, schema: "GooglePayResult", name: "googlepay-decrypt")

            let again = try await Self.post(client, try Self.stringBody())
            #expect(again.status == .ok)
            #expect(again.json["verdict"] as? String == "rejected")
            #expect(Self.check(again.json, "googlepay.replay.messageId")?["reason"] as? String == "messageIdReplayed", "\(again.json)")
            #expect(again.json["payment"] == nil)
            #expect(again.json["card"] == nil)
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains(#"wallet_verifier_verifications_total{flow="googlepay",verdict="accepted"} 1"#), "\(metrics)")
            #expect(metrics.contains(#"wallet_verifier_verifications_total{flow="googlepay",verdict="rejected"} 1"#))
        }
    }

    /// The same token as the string `paymentMethodData.tokenizationData.token` (a fresh store):
    /// accepted; a retry with its Idempotency-Key is answered again (the replay check passing as
    /// `idempotentRetry`, the same payment), anything else is a replay.
    @Test func theRealTokenIsAcceptedAsAStringAndARetryAnswersTheSame() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await Self.services(fixture), logger: Logger(label: "test"))
        let key = "0b6f3d0e-5a1c-4f7e-9d2b-7c8e1f2a3b4c"
        try await app.test(.router) { client in
            let first = try await Self.post(client, try Self.stringBody(), key: key)
            #expect(first.json["verdict"] as? String == "accepted", "\(first.json)")
            let retry = try await Self.post(client, try Self.stringBody(), key: key)
            #expect(retry.status == .ok)
            #expect(retry.json["verdict"] as? String == "accepted")
            #expect(Self.check(retry.json, "googlepay.replay.messageId")?["reason"] as? String == "idempotentRetry")
            #expect(
                NSDictionary(dictionary: retry.json["payment"] as? [String: Any] ?? [:]).isEqual(
                    to: first.json["payment"] as? [String: Any] ?? ["-": 0]))
            let other = try await Self.post(client, try Self.objectBody())
            #expect(other.json["verdict"] as? String == "rejected")
            #expect(Self.check(other.json, "googlepay.replay.messageId")?["reason"] as? String == "messageIdReplayed")
        }
    }

    /// Google's production keys do not verify a TEST token.
    @Test func theProductionRootKeysRejectTheTestToken() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await Self.services(fixture, roots: Vectors.path(Vectors.productionRoots))
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let answer = try await Self.post(client, try Self.objectBody())
            #expect(answer.status == .ok)
            #expect(answer.json["verdict"] as? String == "rejected")
            let check = Self.check(answer.json, "googlepay.intermediateKey.signature")
            #expect(check?["status"] as? String == "failed", "\(answer.json)")
            #expect(answer.json["payment"] == nil)
        }
    }

    /// Not configured: 501 naming the flags. Bodies that cannot be read: 400 before anything is verified.
    @Test func notConfiguredAndMalformedBodies() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        try await VerifierApplication.build(services: try await Self.services(fixture, roots: nil), logger: Logger(label: "test")).test(.router) {
            client in
            let answer = try await Self.post(client, try Self.objectBody())
            #expect(answer.status == .notImplemented)
            let detail = answer.json["detail"] as? String ?? ""
            #expect(detail.contains("--googlepay-key") && detail.contains("--googlepay-merchant-id") && detail.contains("--googlepay-root-keys"))
        }
        try await VerifierApplication.build(services: try await Self.services(fixture), logger: Logger(label: "test")).test(.router) { client in
            let bodies: [(String, String)] = [
                ("{}", "/token: missing"), (#"{"token": 5}"#, "/token: must be"), (#"{"token": ["a"]}"#, "/token: must be"),
                (#"{"token": ""}"#, "/token: must not be empty"), (#"{"token": null}"#, "/token: must be"),
                (#"{"token": {}, "token": {}}"#, "the body is not JSON"), ("[1]", "the body is not a JSON object"), ("{", "the body is not JSON"),
            ]
            for (body, detail) in bodies {
                let answer = try await Self.post(client, Array(body.utf8))
                #expect(answer.status == .badRequest, "\(body)")
                #expect((answer.json["detail"] as? String)?.hasPrefix(detail) == true, "\(body): \(answer.json)")
            }
            // A string that is not a token is read by the verifier: a rejected report, not a 400.
            let notAToken = try await Self.post(client, Array(#"{"token": "not json"}"#.utf8))
            #expect(notAToken.status == .ok)
            #expect(Self.check(notAToken.json, "googlepay.token.structure")?["reason"] as? String == "malformedToken")
        }
    }

    /// Settings: the three Google Pay settings go together, and a merchant key file must parse.
    @Test func theSettingsGoTogether() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let base: ServerSettings.Source = ["store": ["memory"]]
        for (extra, missing) in [
            (["googlepayMerchantId": ["1"]], "--googlepay-key, --googlepay-root-keys"),
            (["googlepayKeys": ["k.pem"], "googlepayMerchantId": ["1"]], "--googlepay-root-keys"),
            (["googlepayKeys": ["k.pem"], "googlepayRootKeys": ["r.json"]], "--googlepay-merchant-id"),
        ] {
            #expect {
                _ = try ServerSettings.resolve(flags: base.merging(extra) { $1 }, environment: [:], configFile: nil)
            } throws: { "\($0)".contains("missing: \(missing)") }
        }
        #expect(throws: (any Error).self) {
            _ = try ServerSettings.resolve(
                flags: base.merging(["googlepayKeys": ["k.pem"], "googlepayMerchantId": ["1"], "googlepayRootKeys": ["http://example.com/keys.json"]])
                {
                    $1
                }, environment: [:], configFile: nil)
        }
        let notAKey = fixture.directory.appendingPathComponent("not-a-key.pem").path
        try Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: notAKey))
        #expect {
            _ = try ServiceMaterial.googlePayKey(notAKey, logger: Logger(label: "test"))
        } throws: { "\($0)".contains("--googlepay-key \(notAKey) is not a P-256 private key") }
    }

    /// `GET /v1/trust` lists the root keys with their source and each merchant key's public half.
    @Test func theTrustViewListsTheKeys() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        try await VerifierApplication.build(services: try await Self.services(fixture), logger: Logger(label: "test")).test(.router) { client in
            let response = try await client.execute(uri: "/v1/trust", method: .get)
            let trust = try RouterTests.json(response.body)
            let googlePay = try #require(trust["googlePay"] as? [String: Any])
            #expect(googlePay["recipientId"] as? String == "merchant:" + Vectors.merchantID)
            let roots = try #require(googlePay["rootKeys"] as? [[String: Any]])
            #expect(roots.map { $0["protocolVersion"] as? String ?? "" }.sorted() == ["ECv1", "ECv2", "ECv2SigningOnly"])
            #expect(roots.allSatisfy { $0["kind"] as? String == "googlepay-root" && $0["source"] as? String == Vectors.path(Vectors.testRoots) })
            let ecv2 = try #require(roots.first { $0["protocolVersion"] as? String == "ECv2" })
            #expect(ecv2["keyExpiration"] as? String == RFC3339.format(Date(timeIntervalSince1970: 2_154_841_200)))
            let keys = try #require(googlePay["merchantKeys"] as? [[String: Any]])
            let expected = try GooglePayMerchantKey(
                pemRepresentation: String(decoding: try Vectors.bytes("r2d2-merchant-private-key.pem"), as: UTF8.self))
            #expect(
                keys.count == 1 && keys[0]["publicKey"] as? String == expected.publicKeyBase64 && keys[0]["kind"] as? String == "googlepay-merchant")
            #expect(!String(buffer: response.body).contains("PRIVATE"))
            ContractSamples.record(response.body, schema: "Trust", name: "trust-googlepay")
        }
    }

    /// Root keys from a URL: fetched at start and kept in the store (SQLite here), fresh for the
    /// response's max-age (bounded to 5 minutes at least), a list that does not parse never replaces
    /// the good one, and a service starting while the server is down uses the store's copy.
    @Test func rootKeysFromAURLAreCachedInTheStore() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let good = try Vectors.bytes(Vectors.testRoots)
        server.set("/keys.json", .init(body: good, headers: [("Cache-Control", "public, max-age=600"), ("Content-Type", "application/json")]))
        let url = server.url("/keys.json")
        let clock = IdempotencyRouteTests.MovableClock(Vectors.time)
        let first = try await Self.services(fixture, roots: url, store: ["sqlite"], clock: clock)
        let configuration = try #require(first.googlePay)
        #expect(configuration.rootKeys?.keys.count == 3)
        #expect(server.requestedPaths == ["/keys.json"])
        let store = try #require(first.base?.documentCache)
        let stored = try #require(try await store.cachedDocument(GooglePayRootKeySource.cacheKey(url)))
        #expect(stored.bytes == good && stored.fetchedAt == Vectors.time && stored.freshUntil == Vectors.time.addingTimeInterval(600))
        try await VerifierApplication.build(services: first, logger: Logger(label: "test")).test(.router) { client in
            let answer = try await Self.post(client, try Self.objectBody())
            #expect(answer.json["verdict"] as? String == "accepted", "\(answer.json)")
        }

        let live = LiveServices(first)
        let refresher = GooglePayRootKeysRefreshService(live: live, logger: Logger(label: "test"))
        // Fresh: nothing fetched.
        #expect(await refresher.refreshOnce() == false)
        #expect(server.requestedPaths.count == 1)
        // Past its max-age, the server answers a list that does not parse, then an error: the good list stays.
        server.set("/keys.json", .init(body: Array(#"{"keys": [{"keyValue": "AAAA"}]}"#.utf8), headers: [("Cache-Control", "max-age=600")]))
        clock.advance(601)
        #expect(await refresher.refreshOnce() == false)
        server.set("/keys.json", .init(status: 500, body: []))
        #expect(await refresher.refreshOnce() == false)
        #expect(server.requestedPaths.count == 3)
        #expect(live.current.googlePay?.rootKeys?.keys.count == 3)
        #expect(try await store.cachedDocument(GooglePayRootKeySource.cacheKey(url))?.bytes == good)
        // A good list again, with a max-age under the floor: fresh for 5 minutes.
        server.set("/keys.json", .init(body: good, headers: [("Cache-Control", "max-age=10")]))
        #expect(await refresher.refreshOnce() == true)
        let refreshed = try #require(try await store.cachedDocument(GooglePayRootKeySource.cacheKey(url)))
        #expect(refreshed.fetchedAt == clock.now() && refreshed.freshUntil == clock.now().addingTimeInterval(300))
        await first.shutdown()

        // Another service on the same store while the server is down, after the copy went stale: the store's copy.
        server.stop()
        clock.advance(3600)
        let second = try await Self.services(fixture, roots: url, store: ["sqlite"], clock: clock)
        defer { Task { await second.shutdown() } }
        #expect(second.googlePay?.rootKeys?.keys.count == 3)
        #expect(second.googlePay?.rootKeysFetchedAt == refreshed.fetchedAt)
    }

    /// No list at all (the server down, nothing in the store): the route answers 503 until a fetch succeeds.
    @Test func withoutAnyListTheRouteIsUnavailable() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let server = try LocalHTTPServer()
        let url = server.url("/keys.json")
        server.stop()
        let services = try await Self.services(fixture, roots: url)
        #expect(services.googlePay != nil && services.googlePay?.rootKeys == nil)
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let answer = try await Self.post(client, try Self.objectBody())
            #expect(answer.status == .serviceUnavailable, "\(answer.json)")
        }
    }

    /// A reload (SIGHUP) re-reads the merchant keys and a root-key file; a key file that does not
    /// load refuses the whole new configuration and the running one stays.
    @Test func aReloadRereadsTheKeysAndTheRootFile() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let live = LiveServices(try await Self.services(fixture))
        #expect(live.current.googlePay?.keyRing.keys.count == 1)
        let second = fixture.directory.appendingPathComponent("googlepay-2.key.pem").path
        try Data(P256.KeyAgreement.PrivateKey().pemRepresentation.utf8).write(to: URL(fileURLWithPath: second))
        func settings(keys: [String], roots: String) throws -> ServerSettings {
            try ServerSettings.resolve(
                flags: [
                    "store": ["memory"], "dataDir": [fixture.directory.appendingPathComponent("data").path], "merchantId": [fixture.merchantID],
                    "teamId": [fixture.teamID], "webOrigins": [fixture.webOrigin], "googlepayKeys": keys,
                    "googlepayMerchantId": [Vectors.merchantID], "googlepayRootKeys": [roots],
                ], environment: [:], configFile: nil)
        }
        let first = try Self.merchantKeyPath(fixture)
        try await live.reload(
            settings: try settings(keys: [second, first], roots: Vectors.path(Vectors.productionRoots)), logger: Logger(label: "test"))
        #expect(live.current.googlePay?.keyRing.keys.count == 2)
        #expect(live.current.googlePay?.rootKeysSource == Vectors.path(Vectors.productionRoots))
        let broken = fixture.directory.appendingPathComponent("broken.pem").path
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: broken))
        await #expect(throws: (any Error).self) {
            try await live.reload(settings: try settings(keys: [broken], roots: Vectors.path(Vectors.testRoots)), logger: Logger(label: "test"))
        }
        #expect(live.current.googlePay?.keyRing.keys.count == 2)
        #expect(live.reloadCount == 1)
    }

    /// Nothing of the card, the message or the keys is logged: not the account number, the
    /// cryptogram, the messageId, the token's encrypted message or the merchant's private key.
    @Test func nothingOfThePaymentIsLogged() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let box = LogRedactionTests.Box()
        let logger = Logger(label: "capture") { _ in LogRedactionTests.CapturingHandler(box) }
        let services = try await Self.services(fixture, logger: logger)
        try await VerifierApplication.build(services: services, logger: logger).test(.router) { client in
            let first = try await Self.post(client, try Self.objectBody())
            #expect(first.json["verdict"] as? String == "accepted")
            let again = try await Self.post(client, try Self.stringBody())
            #expect(again.json["verdict"] as? String == "rejected")
        }
        let text = box.records.withLock { $0.joined(separator: "\n") }
        #expect(text.contains("path=/v1/googlepay/decrypt"), "\(text)")
        let token = String(decoding: try Vectors.bytes(Vectors.token), as: UTF8.self)
        let signedMessage = try #require(token.range(of: "encryptedMessage").map { String(token[$0.upperBound...].prefix(60)) })
        let key = String(decoding: try Vectors.bytes("r2d2-merchant-private-key.pem"), as: UTF8.self).split(separator: "\n")[1]
        for secret in ["4895370012003478", "AgAAAAAABk4DWZ4C28yUQAAAAAA", "AH2EjtffDAl2Jrk2579gUyuaF3ensj4Nla", signedMessage, String(key)] {
            #expect(!text.contains(secret), "logged: \(secret.prefix(8))…")
        }
    }
}
