import ApplePayVerifier
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Mdoc
import NIOFoundationEssentialsCompat
import Synchronization
import Testing
import VerificationCore
import WalletCBOR
import WalletEncoding
import WalletVerifierTestSupport

@testable import VerifierServer

/// Idempotency-Key through the router (in process, in-memory store): retries answered, replays
/// still rejected, conflicts refused.
@Suite struct IdempotencyRouteTests {
    /// A clock the test moves (leases and windows).
    final class MovableClock: VerificationClock, Sendable {
        private let instant: Mutex<Date>
        init(_ start: Date) { instant = Mutex(start) }
        func now() -> Date { instant.withLock { $0 } }
        func advance(_ seconds: TimeInterval) { instant.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    static func services(_ fixture: ServiceFixture, clock: any VerificationClock, extra: ServerSettings.Source = [:]) async throws -> VerifierServices
    {
        var flags: ServerSettings.Source = [
            "store": ["memory"], "dataDir": [fixture.directory.appendingPathComponent("data").path],
            "identityKeys": [fixture.identityKeyPath], "merchantId": [fixture.merchantID], "teamId": [fixture.teamID], "trust": [fixture.iacaPath],
            "webKeys": [fixture.webKeyPath], "webOrigins": [fixture.webOrigin],
            "applepayCerts": [fixture.merchantCertificatePath], "applepayKeys": [fixture.merchantKeyPath], "applepayRoot": [fixture.applePayRootPath],
        ]
        flags.merge(extra) { _, new in new }
        let settings = try ServerSettings.resolve(flags: flags, environment: [:], configFile: nil)
        return try await VerifierServices.make(settings: settings, logger: Logger(label: "test"), clock: clock)
    }

    /// A body's bytes (sorted keys: the same object gives the same bytes, so a retry is the same body).
    static func bytes(_ object: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    static func post(
        _ client: some TestClientProtocol, _ path: String, _ bytes: Data, key: String? = nil,
        token: String? = nil
    ) async throws -> (status: HTTPResponse.Status, headers: HTTPFields, json: [String: Any]) {
        var headers = RouterTests.jsonHeaders
        if let key { headers[IdempotentSubmissions.header] = key }
        if let token { headers[.authorization] = "Bearer \(token)" }
        let response = try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(bytes: bytes))
        let json = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any]) ?? [:]
        return (response.status, response.headers, json)
    }

    static func check(_ json: [String: Any], _ id: String) -> [String: Any]? {
        (json["checks"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    @Test func applePayRetryIsAnsweredAndEveryOtherCopyIsAReplay() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let clock = MovableClock(ServiceFixture.time)
        let app = VerifierApplication.build(services: try await Self.services(fixture, clock: clock), logger: Logger(label: "test"))
        let token = try JSONSerialization.jsonObject(with: Data(try fixture.applePayToken()))
        let body = try Self.bytes(["token": token, "expect": ["currency": "840", "amount": 1999]])
        let changedBody = try Self.bytes(["token": token, "expect": ["currency": "978", "amount": 1999]])
        let key = "7f0e5a52-2b8c-4d3e-9a61-0c4f7d2b9e18"
        try await app.test(.router) { client in
            let first = try await Self.post(client, "/v1/applepay/decrypt", body, key: key)
            #expect(first.status == .ok)
            #expect(first.json["verdict"] as? String == "accepted")
            #expect(Self.check(first.json, "replay.transactionId")?["reason"] as? String == "ok")
            clock.advance(5)
            // The same key and body: the same answer, decrypted again; the replay check says why it passed.
            let retry = try await Self.post(client, "/v1/applepay/decrypt", body, key: key)
            #expect(retry.json["verdict"] as? String == "accepted", "\(retry.json)")
            let replay = try #require(Self.check(retry.json, "replay.transactionId"))
            #expect(replay["status"] as? String == "passed")
            #expect(replay["reason"] as? String == "idempotentRetry")
            #expect((replay["details"] as? [String: Any])?["firstSeen"] as? String == RFC3339.format(ServiceFixture.time))
            #expect((retry.json["payment"] as? [String: Any])?["currencyCode"] as? String == "840")
            // Without the key, and with another key: rejected as a replay, exactly as before.
            for other in [nil, "another-key-0123456789"] {
                let copy = try await Self.post(client, "/v1/applepay/decrypt", body, key: other)
                #expect(copy.json["verdict"] as? String == "rejected")
                #expect(Self.check(copy.json, "replay.transactionId")?["reason"] as? String == "replayed", "key \(other ?? "none")")
                #expect(copy.json["payment"] == nil)
            }
            // The same key with another body: 422.
            let changed = try await Self.post(client, "/v1/applepay/decrypt", changedBody, key: key)
            #expect(changed.status == .unprocessableContent)
            #expect(changed.headers[.contentType] == "application/problem+json")
            #expect((changed.json["detail"] as? String)?.hasPrefix("Idempotency-Key:") == true)
            // After the window (600 s) the key no longer answers: the token is a replay (and long past its signing window).
            clock.advance(600)
            let late = try await Self.post(client, "/v1/applepay/decrypt", body, key: key)
            #expect(late.json["verdict"] as? String == "rejected")
            #expect(Self.check(late.json, "replay.transactionId")?["reason"] as? String != "idempotentRetry")

            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains(#"wallet_verifier_idempotent_retries_total{route="applepay-decrypt"} 1"#))
            #expect(metrics.contains(#"wallet_verifier_idempotency_conflicts_total{route="applepay-decrypt",kind="other-request"} 1"#))
        }
    }

    @Test func identityCreationAndVerificationRetried() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let clock = MovableClock(ServiceFixture.time)
        let app = VerifierApplication.build(services: try await Self.services(fixture, clock: clock), logger: Logger(label: "test"))
        let descriptor = try JSONSerialization.jsonObject(with: Data(ServiceFixture.descriptorJSON.utf8))
        let creation = try Self.bytes(["descriptor": descriptor])
        try await app.test(.router) { client in
            // Creation: the same key and body give the same request, nonce and expiry.
            let created = try await Self.post(client, "/v1/identity/requests", creation, key: "create-key-0000000001")
            #expect(created.status == .created)
            clock.advance(2)
            let again = try await Self.post(client, "/v1/identity/requests", creation, key: "create-key-0000000001")
            #expect(again.status == .created)
            #expect(again.headers[IdempotentSubmissions.replayedHeader] == "true")
            #expect(again.json["requestId"] as? String == created.json["requestId"] as? String)
            #expect(again.json["nonce"] as? String == created.json["nonce"] as? String)
            #expect(again.json["expiresAt"] as? String == created.json["expiresAt"] as? String)
            // Another key (or none) creates another request.
            let other = try await Self.post(client, "/v1/identity/requests", creation, key: "create-key-0000000002")
            #expect(other.json["requestId"] as? String != created.json["requestId"] as? String)

            let requestID = try #require(created.json["requestId"] as? String)
            let nonce = try #require((created.json["nonce"] as? String).flatMap { Data(base64Encoded: $0) })
            let envelope = try fixture.identityResponse(nonce: [UInt8](nonce))
            let submission = try Self.bytes(["requestId": requestID, "encryptedData": Data(envelope).base64EncodedString()])
            let first = try await Self.post(client, "/v1/identity/verify", submission, key: "verify-key-0000000001")
            #expect(first.json["verdict"] as? String == "accepted", "\(first.json)")
            clock.advance(3)
            let retry = try await Self.post(client, "/v1/identity/verify", submission, key: "verify-key-0000000001")
            #expect(retry.json["verdict"] as? String == "accepted", "\(retry.json)")
            #expect(Self.check(retry.json, "replay.nonce")?["reason"] as? String == "idempotentRetry")
            #expect((retry.json["claims"] as? [String: Any])?["givenName"] != nil)
            let replay = try await Self.post(client, "/v1/identity/verify", submission)
            #expect(replay.json["verdict"] as? String == "rejected")
            #expect(Self.check(replay.json, "replay.nonce")?["reason"] as? String == "nonceReused")
            let otherKey = try await Self.post(client, "/v1/identity/verify", submission, key: "verify-key-0000000002")
            #expect(Self.check(otherKey.json, "replay.nonce")?["reason"] as? String == "nonceReused")
            // The request still expires (600 s): a retry after that is not answered again.
            clock.advance(600)
            let expired = try await Self.post(client, "/v1/identity/verify", submission, key: "verify-key-0000000001")
            #expect(expired.json["verdict"] as? String == "rejected")
        }
    }

    /// What a process that died mid-request leaves behind — the key begun (leased) and the
    /// transaction identifier recorded with its tag, no answer — and the retry that follows.
    @Test func anAttemptInProgressIs409AndADeadOnesLeaseIsTakenOver() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let clock = MovableClock(ServiceFixture.time)
        let services = try await Self.services(fixture, clock: clock)
        let app = VerifierApplication.build(services: services, logger: Logger(label: "test"))
        let tokenBytes = try fixture.applePayToken()
        let token = try JSONSerialization.jsonObject(with: Data(tokenBytes))
        let transactionID = try #require(
            (((token as? [String: Any])?["paymentData"] as? [String: Any])?["header"] as? [String: Any])?["transactionId"] as? String)
        let body = try Self.bytes(["token": token, "expect": ["currency": "840", "amount": 1999]])
        let key = "dead-attempt-key-000001"
        let tag = IdempotencyTag(
            // No API token: the key is scoped to the client (the in-process client has no address).
            key: IdempotentSubmissions.keyDigest(key, scope: IdempotentSubmissions.clientScope("unknown")),
            body: IdempotentSubmissions.requestDigest(method: "POST", path: "/v1/applepay/decrypt", body: ByteBuffer(bytes: body)),
            retryUntil: clock.now().addingTimeInterval(600))
        let diedAt = clock.now()
        #expect(
            try await services.store.beginIdempotentRequest(tag, now: diedAt, leaseUntil: diedAt.addingTimeInterval(IdempotentSubmissions.lease))
                == .proceed(firstSeen: nil))
        #expect(
            try await services.store.recordFirstUse(
                namespace: ApplePayPolicy.production.replayNamespace, key: transactionID.lowercased(),
                expiresAt: diedAt.addingTimeInterval(900), now: diedAt, idempotency: tag) == .firstUse)
        try await app.test(.router) { client in
            clock.advance(3)
            let busy = try await Self.post(client, "/v1/applepay/decrypt", body, key: key)
            #expect(busy.status == .conflict)
            #expect(busy.headers[.retryAfter] == "7")
            #expect(busy.headers[.contentType] == "application/problem+json")
            clock.advance(7)
            // The lease ran out: the retry takes over and gets the answer the dead attempt never sent.
            let retry = try await Self.post(client, "/v1/applepay/decrypt", body, key: key)
            #expect(retry.status == .ok)
            #expect(retry.json["verdict"] as? String == "accepted", "\(retry.json)")
            let replay = try #require(Self.check(retry.json, "replay.transactionId"))
            #expect(replay["reason"] as? String == "idempotentRetry")
            #expect((replay["details"] as? [String: Any])?["firstSeen"] as? String == RFC3339.format(diedAt))
            // A copy without the key is still a replay.
            let copy = try await Self.post(client, "/v1/applepay/decrypt", body)
            #expect(Self.check(copy.json, "replay.transactionId")?["reason"] as? String == "replayed")
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains(#"wallet_verifier_idempotency_conflicts_total{route="applepay-decrypt",kind="in-progress"} 1"#))
        }
    }

    @Test func keysAreCheckedAndScopedToTheCredential() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let tokenFile = fixture.directory.appendingPathComponent("api-token").path
        try #require(
            FileManager.default.createFile(
                atPath: tokenFile, contents: Data("s3cret-api-token-for-tests-0123456789".utf8), attributes: [.posixPermissions: 0o600]))
        let clock = MovableClock(ServiceFixture.time)
        let app = VerifierApplication.build(
            services: try await Self.services(fixture, clock: clock, extra: ["apiTokenFile": [tokenFile]]), logger: Logger(label: "test"))
        let descriptor = try JSONSerialization.jsonObject(with: Data(ServiceFixture.descriptorJSON.utf8))
        let creation = try Self.bytes(["descriptor": descriptor])
        try await app.test(.router) { client in
            for bad in [
                "short", String(repeating: "k", count: 256), "with space inside the key", "tab\tinside-the-key-0000", "ключ-ключ-ключ-ключ",
                "\"short\"",
            ] {
                let refused = try await Self.post(client, "/v1/identity/requests", creation, key: bad, token: "s3cret-api-token-for-tests-0123456789")
                #expect(refused.status == .badRequest, "\(bad)")
                #expect((refused.json["detail"] as? String)?.hasPrefix("Idempotency-Key:") == true)
            }
            let quoted = try await Self.post(
                client, "/v1/identity/requests", creation, key: "\"8e03978e-40d5-43e8-bc93-6894a57f9324\"",
                token: "s3cret-api-token-for-tests-0123456789")
            #expect(quoted.status == .created)
            let bare = try await Self.post(
                client, "/v1/identity/requests", creation, key: "8e03978e-40d5-43e8-bc93-6894a57f9324",
                token: "s3cret-api-token-for-tests-0123456789")
            #expect(bare.json["requestId"] as? String == quoted.json["requestId"] as? String)
            // Without the credential the key is never reached (401 first).
            let anonymous = try await Self.post(client, "/v1/identity/requests", creation, key: "8e03978e-40d5-43e8-bc93-6894a57f9324")
            #expect(anonymous.status == .unauthorized)
        }
        #expect(IdempotentSubmissions.keyDigest("k", scope: "token-a") != IdempotentSubmissions.keyDigest("k", scope: "token-b"))
        #expect(
            IdempotentSubmissions.requestDigest(method: "POST", path: "/a", body: ByteBuffer(string: "{}"))
                != IdempotentSubmissions.requestDigest(method: "POST", path: "/b", body: ByteBuffer(string: "{}")))
    }

    /// The server's key rule is the document's pattern: the same verdict on random candidates and edges.
    @Test func theKeyRuleIsTheDocumentsPattern() throws {
        let lines = OpenAPIDocument.text.split(separator: "\n")
        let start = try #require(lines.firstIndex { $0.contains("name: Idempotency-Key") })
        let line = try #require(lines[start...].first { $0.contains("pattern: '") })
        let pattern = String(try #require(line.split(separator: "pattern: '").last?.split(separator: "'").first))
        let regex = try NSRegularExpression(pattern: pattern)
        func documented(_ text: String) -> Bool {
            regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)).map { $0.range.length == (text as NSString).length } ?? false
        }
        var generator = SystemRandomNumberGenerator()
        let alphabet: [Character] = ["a", "Z", "0", "-", "\"", "\\", "!", "~", " ", "\t", "é", "\u{7f}", "\u{0}"]
        var candidates = [
            "\"" + String(repeating: "k", count: 16) + "\"", "\"" + String(repeating: "k", count: 255) + "\"",
            "\"" + String(repeating: "k", count: 15) + "\"", "\"" + String(repeating: "k", count: 256) + "\"",
            String(repeating: "k", count: 15), String(repeating: "k", count: 16), String(repeating: "k", count: 255),
            String(repeating: "k", count: 256), "\"" + String(repeating: "k", count: 14) + "\\\"", "\"abc",
        ]
        for _ in 0..<3000 {
            let length = [
                Int.random(in: 0...20, using: &generator), Int.random(in: 14...18, using: &generator), Int.random(in: 250...260, using: &generator),
            ].randomElement(using: &generator)!
            var text = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            if Bool.random(using: &generator) { text = "\"" + text + "\"" }
            candidates.append(text)
        }
        var agreed = 0
        for candidate in candidates where candidate.first?.isWhitespace != true && candidate.last?.isWhitespace != true {
            let parsed = (try? IdempotentSubmissions.parseKey(candidate)) != nil
            #expect(parsed == documented(candidate), "\(candidate.debugDescription)")
            agreed += 1
        }
        #expect(agreed > 2000)
    }

    @Test func webCreationAndVerificationRetried() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let clock = MovableClock(ServiceFixture.time)
        let app = VerifierApplication.build(services: try await Self.services(fixture, clock: clock), logger: Logger(label: "test"))
        let origin = fixture.webOrigin
        let creation = try Self.bytes([
            "docType": MdocFixture.mDL, "origin": origin, "elements": ["org.iso.18013.5.1/family_name", "org.iso.18013.5.1/age_over_21"],
        ])
        try await app.test(.router) { client in
            let created = try await Self.post(client, "/v1/web/requests", creation, key: "web-create-key-000001")
            #expect(created.status == .created)
            let again = try await Self.post(client, "/v1/web/requests", creation, key: "web-create-key-000001")
            #expect(again.json["requestId"] as? String == created.json["requestId"] as? String)
            #expect(again.headers[IdempotentSubmissions.replayedHeader] == "true")
            let requestID = try #require(created.json["requestId"] as? String)
            let argument = try #require(created.json["navigatorCredentialsGetArgument"] as? [String: Any])
            let request = try #require(((argument["digital"] as? [String: Any])?["requests"] as? [[String: Any]])?.first)
            let encryptionInfo = try #require((request["data"] as? [String: Any])?["encryptionInfo"] as? String)
            #expect(
                (((again.json["navigatorCredentialsGetArgument"] as? [String: Any])?["digital"] as? [String: Any])?["requests"] as? [[String: Any]])?
                    .first.flatMap { ($0["data"] as? [String: Any])?["encryptionInfo"] as? String } == encryptionInfo)

            var mdoc = MdocFixture()
            mdoc.elements = [
                .init(MdocFixture.isoNameSpace, "family_name", .text("Mustermann")), .init(MdocFixture.isoNameSpace, "age_over_21", .bool(true)),
            ]
            let response = try fixture.webResponse(encryptionInfo: encryptionInfo, origin: origin, fixture: mdoc).base64URL
            let submission = try Self.bytes(["requestId": requestID, "response": response])

            let first = try await Self.post(client, "/v1/web/verify", submission, key: "web-verify-key-000001")
            #expect(first.json["verdict"] as? String == "accepted", "\(first.json)")
            let retry = try await Self.post(client, "/v1/web/verify", submission, key: "web-verify-key-000001")
            #expect(retry.json["verdict"] as? String == "accepted", "\(retry.json)")
            #expect(Self.check(retry.json, "replay.nonce")?["reason"] as? String == "idempotentRetry")
            let copy = try await Self.post(client, "/v1/web/verify", submission)
            #expect(Self.check(copy.json, "replay.nonce")?["reason"] as? String == "nonceReused")
        }
    }
}
