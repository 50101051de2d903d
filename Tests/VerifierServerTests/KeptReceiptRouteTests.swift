import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Mdoc
import MdocVerifier
import NIOFoundationEssentialsCompat
import Testing
import VerificationCore
import VerificationReceipts
import WalletEncoding
import WalletVerifierTestSupport

@testable import VerifierServer

/// Kept receipts (`--receipts keep`): every receipt issued is stored, found by its id, listed a page
/// at a time with filters, and purged after the retention.
@Suite struct KeptReceiptRouteTests {
    /// The receipt of one DeviceResponse verification: accepted with its own transcript, rejected with another.
    static func mdocBody(_ fixture: ServiceFixture, accepted: Bool) throws -> ByteBuffer {
        let transcript = IdentityEnvelopeFixture.transcript(
            nonce: Array(repeating: 3, count: 32), merchantID: fixture.merchantID, teamID: fixture.teamID, recipient: fixture.identityKey.publicKey)
        let other = IdentityEnvelopeFixture.transcript(
            nonce: Array(repeating: 4, count: 32), merchantID: fixture.merchantID, teamID: fixture.teamID, recipient: fixture.identityKey.publicKey)
        let deviceResponse = try MdocFixture().deviceResponse(pki: fixture.webPKI, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        return try RouterTests.body([
            "deviceResponse": Data(deviceResponse).base64EncodedString(),
            "sessionTranscript": Data((accepted ? transcript : other).bytes).base64EncodedString(),
        ])
    }

    /// The `jti` of a receipt that verifies with `jwks`.
    static func jti(_ jws: String, jwks: [UInt8]) throws -> String {
        let verified = try ReceiptVerifier.verify(jws, jwks: jwks)
        return try #require((try JSONSerialization.jsonObject(with: Data(verified.payload)) as? [String: Any])?["jti"] as? String)
    }

    static func keepFlags(_ fixture: ServiceFixture, retention: Int = 400) throws -> ServerSettings.Source {
        let keys = try ReceiptRouteTests.KeyFiles(fixture)
        return keys.flags.merging(try ReceiptRouteTests.tokenFlags(fixture)) { $1 }.merging([
            "receipts": ["keep"], "receiptRetention": [String(retention)],
        ]) { $1 }
    }

    @Test func keptReceiptsAreFoundListedFilteredAndPurged() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let clock = IdempotencyRouteTests.MovableClock(ServiceFixture.time)
        let services = try await IdempotencyRouteTests.services(fixture, clock: clock, extra: try Self.keepFlags(fixture, retention: 2))
        #expect(services.settings.receipts == .keep && services.settings.receiptRetention == 2)
        let headers = ReceiptRouteTests.headers
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            // Five mdoc verifications a minute apart (accepted, rejected, accepted, ...), then an Apple Pay token.
            var issued: [(id: String, jws: String, verdict: String, flow: String)] = []
            func record(_ response: TestResponse, flow: String) throws {
                let answer = try RouterTests.json(response.body)
                let jws = try #require(answer["receipt"] as? String)
                let bytes = try #require(Base64.decodeURL(String(jws.split(separator: ".")[1])))
                let payload = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
                issued.append((try #require(payload["jti"] as? String), jws, try #require(answer["verdict"] as? String), flow))
            }
            for index in 0..<5 {
                let response = try await client.execute(
                    uri: "/v1/mdoc/verify", method: .post, headers: headers, body: try Self.mdocBody(fixture, accepted: index % 2 == 0))
                try record(response, flow: "mdoc")
                clock.advance(60)
            }
            // Signed a minute before the service's now: within the signing-time window.
            let token = try fixture.applePayToken(signedAt: clock.now().addingTimeInterval(-60))
            let tokenBody = #"{"token":\#(String(decoding: token, as: UTF8.self)),"expect":{"currency":"840","amount":1999}}"#
            try record(
                try await client.execute(uri: "/v1/applepay/decrypt", method: .post, headers: headers, body: ByteBuffer(string: tokenBody)),
                flow: "applepay")
            #expect(issued.map(\.verdict) == ["accepted", "rejected", "accepted", "rejected", "accepted", "accepted"])

            // One receipt by its id: exactly what was answered.
            let one = try await client.execute(uri: "/v1/receipts/\(issued[1].id)", method: .get, headers: headers)
            #expect(one.status == .ok)
            ContractSamples.record(one.body, schema: "KeptReceipt", name: "kept-receipt")
            let kept = try RouterTests.json(one.body)
            #expect(kept["id"] as? String == issued[1].id)
            #expect(kept["receipt"] as? String == issued[1].jws)
            #expect(kept["verdict"] as? String == "rejected" && kept["flow"] as? String == "mdoc")
            #expect(kept["issuedAt"] as? String == RFC3339.format(ServiceFixture.time.addingTimeInterval(60)))
            // The API token is needed, as on every /v1 route.
            #expect(try await client.execute(uri: "/v1/receipts/\(issued[1].id)", method: .get).status == .unauthorized)
            #expect(try await client.execute(uri: "/v1/receipts", method: .get).status == .unauthorized)
            // An unknown id: 404 problem.
            let missing = try await client.execute(uri: "/v1/receipts/AAAAAAAAAAAAAAAAAAAAAA", method: .get, headers: headers)
            #expect(missing.status == .notFound)
            #expect(missing.headers[.contentType] == "application/problem+json")

            // Pages of two, oldest first, to the end.
            func page(_ query: String) async throws -> (HTTPResponse.Status, [String: Any]) {
                let response = try await client.execute(uri: "/v1/receipts" + query, method: .get, headers: headers)
                return (response.status, try RouterTests.json(response.body))
            }
            var listed: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let (status, body) = try await page("?limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""))
                #expect(status == .ok)
                let receipts = try #require(body["receipts"] as? [[String: Any]])
                #expect(receipts.count <= 2)
                listed += receipts.compactMap { $0["id"] as? String }
                cursor = body["nextCursor"] as? String
                pages += 1
            } while cursor != nil && pages < 10
            #expect(pages == 3)
            #expect(listed == issued.map(\.id))
            // Filters: by verdict, by flow, by time window [from, to).
            let (_, rejected) = try await page("?verdict=rejected")
            #expect((rejected["receipts"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [issued[1].id, issued[3].id])
            #expect(rejected["nextCursor"] is NSNull)
            let (_, applePay) = try await page("?flow=applepay")
            #expect((applePay["receipts"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [issued[5].id])
            let from = RFC3339.format(ServiceFixture.time.addingTimeInterval(60))
            let to = RFC3339.format(ServiceFixture.time.addingTimeInterval(180))
            let (_, window) = try await page("?from=\(from)&to=\(to)&verdict=accepted")
            #expect((window["receipts"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [issued[2].id])
            // A bad parameter or cursor: 400 naming it.
            for (query, name) in [
                ("?limit=0", "limit"), ("?limit=1001", "limit"), ("?from=yesterday", "from"), ("?verdict=maybe", "verdict"),
                ("?from=2026-01-01T00:00:00Zjunk", "from"), ("?to=2026-01-01T00:00:00%2B01:00x", "to"),
                ("?flow=fax", "flow"), ("?cursor=nonsense", "cursor"), ("?limits=2", "limits"), ("?limit=1&limit=2", "limit"),
            ] {
                let (status, problem) = try await page(query)
                #expect(status == .badRequest, "\(query)")
                #expect((problem["detail"] as? String)?.hasPrefix(name + ":") == true, "\(query): \(problem)")
            }

            // Past the retention (2 days) the purge removes them; their ids are then unknown.
            #expect(try await services.purgeReceipts(now: clock.now()) == 0)
            clock.advance(2 * 86_400)
            #expect(try await services.purgeReceipts(now: clock.now()) == issued.count)
            #expect(try await client.execute(uri: "/v1/receipts/\(issued[0].id)", method: .get, headers: headers).status == .notFound)
            #expect(((try await page("")).1["receipts"] as? [[String: Any]])?.isEmpty == true)
        }
    }

    @Test func withoutKeepTheReceiptRoutesAre501() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let keys = try ReceiptRouteTests.KeyFiles(fixture)
        let services = try await RouterTests.services(fixture, extra: keys.flags)
        #expect(services.settings.receipts == .off)
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            // Receipts are still answered and the JWKS served; only keeping is off.
            let answer = try await client.execute(
                uri: "/v1/mdoc/verify", method: .post, headers: RouterTests.jsonHeaders, body: try Self.mdocBody(fixture, accepted: true))
            let jws = try #require(try RouterTests.json(answer.body)["receipt"] as? String)
            let id = try Self.jti(jws, jwks: Array(buffer: try await client.execute(uri: "/v1/receipts/jwks", method: .get).body))
            // Another method on a receipt's path is a 405 naming the allowed ones, as on every path.
            let put = try await client.execute(uri: "/v1/receipts/\(id)", method: .put)
            #expect(put.status == .methodNotAllowed)
            #expect(put.headers[.allow] == "GET, HEAD")
            #expect(try await client.execute(uri: "/v1/receipts/jwks", method: .post).status == .methodNotAllowed)
            #expect(try await client.execute(uri: "/v1/receipts/\(id)/more", method: .get).status == .notFound)
            for uri in ["/v1/receipts", "/v1/receipts/\(id)"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .notImplemented, "\(uri)")
                #expect((try RouterTests.json(response.body)["detail"] as? String)?.contains("--receipts keep") == true, "\(uri)")
            }
        }
        // Keeping receipts needs a key to sign them.
        #expect(throws: SettingsError.self) {
            _ = try ServerSettings.resolve(flags: ["receipts": ["keep"]], environment: [:], configFile: nil)
        }
        #expect(throws: SettingsError.self) {
            _ = try ServerSettings.resolve(flags: keys.flags.merging(["receiptRetention": ["0"]]) { $1 }, environment: [:], configFile: nil)
        }
    }

    /// Junk is answered with a receipt but not kept, and one client's receipts are kept up to its
    /// daily share; `/metrics` counts each outcome.
    @Test func junkIsNotKeptAndEachClientHasADailyShare() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let flags = try Self.keepFlags(fixture).merging(["maxClientKeptReceipts": ["2"]]) { $1 }
        let services = try await RouterTests.services(fixture, extra: flags)
        defer { Task { await services.shutdown() } }
        let headers = ReceiptRouteTests.headers
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let jwks = Array(buffer: try await client.execute(uri: "/v1/receipts/jwks", method: .get).body)
            func kept(_ body: ByteBuffer) async throws -> Bool {
                let answer = try RouterTests.json(try await client.execute(uri: "/v1/mdoc/verify", method: .post, headers: headers, body: body).body)
                let id = try Self.jti(try #require(answer["receipt"] as? String, "\(answer)"), jwks: jwks)
                return try await client.execute(uri: "/v1/receipts/\(id)", method: .get, headers: headers).status == .ok
            }
            // Junk that does not decode: a receipt in the answer, none in the store.
            var junk = try RouterTests.json(try Self.mdocBody(fixture, accepted: true))
            junk["deviceResponse"] = "oA=="
            for _ in 0..<3 { #expect(try await kept(try RouterTests.body(junk)) == false) }
            // Two verifications of this client are kept, the third is not.
            #expect(try await kept(try Self.mdocBody(fixture, accepted: true)))
            #expect(try await kept(try Self.mdocBody(fixture, accepted: false)))
            #expect(try await kept(try Self.mdocBody(fixture, accepted: true)) == false)
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains(#"wallet_verifier_receipts_kept_total{outcome="kept"} 2"#), "\(metrics)")
            #expect(metrics.contains(#"wallet_verifier_receipts_kept_total{outcome="structure"} 3"#))
            #expect(metrics.contains(#"wallet_verifier_receipts_kept_total{outcome="client-share"} 1"#))
        }
        // The next day the share starts again.
        let shares = services.keptReceiptShares
        let report = VerificationReport(
            flow: "mdoc", policy: "production", evaluatedAt: ServiceFixture.time,
            checks: [CheckResult(id: .mdocResponseStructure, status: .passed, reason: .ok, message: "")])
        #expect(shares.refusal(report: report, client: "198.51.100.7", now: ServiceFixture.time) == nil)
        #expect(shares.refusal(report: report, client: "198.51.100.7", now: ServiceFixture.time) == nil)
        #expect(shares.refusal(report: report, client: "198.51.100.7", now: ServiceFixture.time) == "client-share")
        #expect(shares.refusal(report: report, client: "198.51.100.7", now: ServiceFixture.time.addingTimeInterval(86_400)) == nil)
    }

    /// Receipts and receipt keys outlive a restart on the embedded SQLite store.
    @Test func keptReceiptsAndKeysSurviveARestartOnSQLite() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let flags = try Self.keepFlags(fixture).merging(["store": ["sqlite"]]) { $1 }
        let first = try await RouterTests.services(fixture, extra: flags)
        let headers = ReceiptRouteTests.headers
        let (id, jws, oldJWKS) = try await VerifierApplication.build(services: first, logger: Logger(label: "test")).test(.router) {
            client -> (String, String, [UInt8]) in
            let answer = try await client.execute(
                uri: "/v1/mdoc/verify", method: .post, headers: headers, body: try Self.mdocBody(fixture, accepted: true))
            let jws = try #require(try RouterTests.json(answer.body)["receipt"] as? String)
            let jwks = Array(buffer: try await client.execute(uri: "/v1/receipts/jwks", method: .get).body)
            return (try Self.jti(jws, jwks: jwks), jws, jwks)
        }
        await first.shutdown()
        // Restart with another key and the old one named as previous: both are listed, and the
        // receipt is still kept.
        var restartFlags = flags
        let rotated = try ReceiptRouteTests.KeyFiles(fixture, name: "rotated")
        restartFlags.merge(rotated.flags) { $1 }
        restartFlags["receiptPreviousKeys"] = flags["receiptKey"]
        let second = try await RouterTests.services(fixture, extra: restartFlags)
        defer { Task { await second.shutdown() } }
        try await VerifierApplication.build(services: second, logger: Logger(label: "test")).test(.router) { client in
            let kept = try await client.execute(uri: "/v1/receipts/\(id)", method: .get, headers: headers)
            #expect(kept.status == .ok)
            #expect(try RouterTests.json(kept.body)["receipt"] as? String == jws)
            let jwks = Array(buffer: try await client.execute(uri: "/v1/receipts/jwks", method: .get).body)
            #expect(jwks != oldJWKS)
            #expect(try Self.jti(jws, jwks: jwks) == id)
        }
    }

    /// Two `serve` processes on one PostgreSQL database with the same receipt key: a receipt one kept
    /// is found through the other, and the other's key set verifies it. A third process with another
    /// key on the same database adds nothing to their key set: keys enter it only as configured.
    @Test func twoInstancesOnPostgreSQLShareReceiptsAndKeys() async throws {
        guard let url = DeploymentTests.postgresURL else {
            if DeploymentTests.inCI { Issue.record("WALLET_VERIFIER_POSTGRES_URL is not set; scripts/test starts a throwaway PostgreSQL") }
            return
        }
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let (keyA, keyB) = (try ReceiptRouteTests.KeyFiles(fixture, name: "instance-a"), try ReceiptRouteTests.KeyFiles(fixture, name: "instance-b"))
        let shared = ["--store", "postgres", "--postgres-url", url, "--receipts", "keep", "--allow-open-api"] + fixture.serveArguments
        let instanceA = try await ServiceInstance(arguments: shared + ["--receipt-key", keyA.keyPath])
        defer { instanceA.stop() }
        let instanceB = try await ServiceInstance(arguments: shared + ["--receipt-key", keyA.keyPath])
        defer { instanceB.stop() }
        let (_, answer) = try await instanceA.post("/v1/mdoc/verify", body: Data(buffer: try Self.mdocBody(fixture, accepted: true)))
        let jws = try #require(answer["receipt"] as? String, "\(answer)")
        let jwksB = try JSONSerialization.data(withJSONObject: try await instanceB.getJSON("/v1/receipts/jwks"))
        let jti = try Self.jti(jws, jwks: Array(jwksB))
        let kept = try await instanceB.getJSON("/v1/receipts/\(jti)")
        #expect(kept["receipt"] as? String == jws)
        #expect(kept["flow"] as? String == "mdoc")

        // Another key on the same database: its receipts do not verify with A's key set, now or
        // after a while (a store-shared key list would have taken it in at its start).
        let instanceC = try await ServiceInstance(arguments: shared + ["--receipt-key", keyB.keyPath])
        defer { instanceC.stop() }
        let (_, other) = try await instanceC.post("/v1/mdoc/verify", body: Data(buffer: try Self.mdocBody(fixture, accepted: true)))
        let otherJWS = try #require(other["receipt"] as? String, "\(other)")
        try await Task.sleep(for: .seconds(2))
        for instance in [instanceA, instanceB] {
            let jwks = try JSONSerialization.data(withJSONObject: try await instance.getJSON("/v1/receipts/jwks"))
            let kids = ((try JSONSerialization.jsonObject(with: jwks) as? [String: Any])?["keys"] as? [[String: Any]])?.compactMap {
                $0["kid"] as? String
            }
            #expect(kids == [ReceiptKeys.thumbprint(keyA.key.publicKey)])
            #expect(throws: ReceiptVerificationError.self) { try ReceiptVerifier.verify(otherJWS, jwks: Array(jwks)) }
        }
    }
}
