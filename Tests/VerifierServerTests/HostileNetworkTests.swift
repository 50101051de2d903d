import Crypto
import Foundation
import Mdoc
import Testing
import WalletCBOR
import WalletVerifierTestSupport

@testable import VerifierServer

/// Attacks from the network against real `serve` processes, each as an attacker would run it: odd
/// spellings of a path without the API token, bodies that trickle, connections that never finish a
/// request, one client creating every session or taking every slot, junk with fresh idempotency
/// keys, another client's idempotency key. Other loopback addresses (127.0.0.2, …) play other clients.
@Suite(.serialized) struct HostileNetworkTests {
    static let apiToken = "hostile-network-test-token-0123456789"

    static func writeToken(_ fixture: ServiceFixture) throws -> String {
        let path = fixture.directory.appendingPathComponent("api-token").path
        guard FileManager.default.createFile(atPath: path, contents: Data(apiToken.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw RawConnectionError("cannot write \(path)")
        }
        return path
    }

    static func json(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    static func applePayBody(_ fixture: ServiceFixture) throws -> String {
        let token = try JSONSerialization.jsonObject(with: Data(try fixture.applePayToken(signedAt: Date())))
        return String(
            decoding: try JSONSerialization.data(withJSONObject: ["token": token, "expect": ["currency": "840", "amount": 1999]]), as: UTF8.self)
    }

    /// Item 1: every /v1 route, spelled with an empty or dot segment, an encoded slash or a trailing
    /// slash, is a 404 without the token — never an answer (the Apple Pay decrypt returned the PAN).
    @Test func theAPITokenHoldsForEverySpellingOfEveryRoute() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let instance = try await ServiceInstance(
            arguments: ["--store", "memory", "--api-token-file", try Self.writeToken(fixture)] + fixture.serveArguments)
        defer { instance.stop() }
        let payment = try Self.applePayBody(fixture)
        let routes: [(method: String, path: String, body: String?)] = [
            ("GET", "trust", nil), ("HEAD", "trust", nil),
            ("POST", "identity/requests", #"{"descriptor":\#(ServiceFixture.descriptorJSON)}"#),
            ("POST", "identity/verify", #"{"requestId":"x","encryptedData":"AAAA"}"#),
            ("POST", "applepay/decrypt", payment),
            ("POST", "applepay/session", #"{"validationURL":"https://apple-pay-gateway.apple.com/paymentservices/paymentSession"}"#),
            ("POST", "googlepay/decrypt", #"{"token":"{}"}"#),
            (
                "POST", "web/requests",
                #"{"docType":"org.iso.18013.5.1.mDL","origin":"https://shop.example","elements":["org.iso.18013.5.1/age_over_21"]}"#
            ),
            ("POST", "web/verify", #"{"requestId":"x","response":"AAAA"}"#),
            ("POST", "mdoc/verify", #"{"deviceResponse":"AAAA","sessionTranscript":"AAAA"}"#),
            ("GET", "receipts", nil), ("GET", "receipts/abc", nil),
        ]
        for route in routes {
            var spellings = [
                "//v1/\(route.path)", "/v1//\(route.path)", "/./v1/\(route.path)", "/%2Fv1/\(route.path)", "/%2fv1/\(route.path)",
                "/v1/./\(route.path)", "/v1/\(route.path)/", "/v1/../v1/\(route.path)", "/v1%2F\(route.path)", "///v1/\(route.path)",
            ]
            if route.path.contains("/") { spellings.append("/v1/" + route.path.replacingOccurrences(of: "/", with: "//")) }
            for path in spellings {
                let answer = try await RawConnection.request(port: instance.port, method: route.method, path: path, body: route.body)
                #expect(answer.status == 404, "\(route.method) \(path) answered \(answer.status) without the token: \(answer.body.prefix(200))")
                #expect(!answer.body.contains("verdict"), "\(route.method) \(path)")
            }
            // The one spelling the routes have: 401 without the token.
            let canonical = try await RawConnection.request(port: instance.port, method: route.method, path: "/v1/\(route.path)", body: route.body)
            #expect(canonical.status == 401, "\(route.method) /v1/\(route.path): \(canonical.status)")
        }
        // The open routes have one spelling too.
        #expect(try await RawConnection.request(port: instance.port, method: "GET", path: "//healthz").status == 404)
        for path in ["//v1/receipts/jwks", "/v1//receipts/jwks", "/v1/receipts//jwks", "/v1/receipts/jwks/"] {
            #expect(try await RawConnection.request(port: instance.port, method: "GET", path: path).status == 404, "\(path)")
        }
        #expect(try await RawConnection.request(port: instance.port, method: "GET", path: "/healthz").status == 200)
        // With the token the decrypt works, so the 404s above are not a broken fixture.
        let authorized = try await RawConnection.request(
            port: instance.port, method: "POST", path: "/v1/applepay/decrypt", headers: ["Authorization": "Bearer \(Self.apiToken)"], body: payment)
        #expect(authorized.status == 200 && Self.json(authorized.body)["verdict"] as? String == "accepted", "\(authorized.body.prefix(300))")
    }

    /// Item 2: connections that send a verification's body one byte at a time (or not at all) hold
    /// no slot: with two slots and eight such connections a genuine client is answered at once, and
    /// each slow one gets a 408 at the body deadline and is closed.
    @Test func slowBodiesStarveNobody() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let instance = try await ServiceInstance(
            arguments: ["--store", "memory", "--max-concurrent-verifications", "2", "--body-timeout", "2", "--verify-rate", "0"]
                + fixture.serveArguments)
        defer { instance.stop() }
        var attackers: [RawConnection] = []
        for index in 0..<8 {
            let connection = try RawConnection(port: instance.port, from: "127.0.0.\(2 + index % 4)")
            let path = ["/v1/mdoc/verify", "/v1/identity/verify", "/v1/applepay/decrypt", "/v1/web/verify"][index % 4]
            if index % 2 == 0 {
                connection.send("POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
            } else {
                connection.send("POST \(path) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n")
            }
            attackers.append(connection)
        }
        let started = Date()
        // The attackers keep trickling while the genuine client asks.
        let trickle = Task {
            for _ in 0..<6 {
                try await Task.sleep(for: .milliseconds(500))
                for (index, connection) in attackers.enumerated() { connection.send(index % 2 == 0 ? " " : "1\r\n \r\n") }
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        let genuine = try await RawConnection.request(
            port: instance.port, method: "POST", path: "/v1/mdoc/verify", body: #"{"deviceResponse":"AAAA","sessionTranscript":"AAAA"}"#)
        #expect(genuine.status == 400, "the genuine client got \(genuine.status): \(genuine.body)")
        #expect(Date().timeIntervalSince(started) < 2, "the genuine client waited \(Date().timeIntervalSince(started)) s")
        for (index, connection) in attackers.enumerated() {
            let answer = RawConnection.parse(await connection.receive(timeout: 8) { $0.contains("\r\n\r\n") && $0.contains("}") })
            #expect(answer.status == 408, "slow client \(index): \(answer.status)")
            #expect(Self.json(answer.body)["type"] as? String == "urn:wallet-verifier:problem:body-timeout")
            #expect(await connection.isClosed(within: 5), "slow client \(index) stays connected")
        }
        trickle.cancel()
        #expect(Date().timeIntervalSince(started) < 12)
    }

    /// Item 3: connections that send half a request line, and kept-alive connections left idle,
    /// are closed at their deadlines; one client holds at most its share of connections; /healthz
    /// answers throughout; the start-up log says the open-files limit.
    @Test func halfOpenAndIdleConnectionsAreClosed() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let instance = try await ServiceInstance(
            arguments: ["--store", "memory", "--header-timeout", "1", "--idle-timeout", "1", "--max-client-connections", "20"]
                + fixture.serveArguments)
        defer { instance.stop() }
        #expect(instance.log.contains("open files: soft limit"), "\(instance.log)")
        var halfOpen: [RawConnection] = []
        for _ in 0..<60 {
            let connection = try RawConnection(port: instance.port, from: "127.0.0.3")
            connection.send("GET /heal")
            halfOpen.append(connection)
        }
        try await Task.sleep(for: .milliseconds(300))
        // Past the client's share of 20, connections are closed as they are accepted.
        var closedAtOnce = 0
        for connection in halfOpen where await connection.isClosed(within: 0.01) { closedAtOnce += 1 }
        #expect(closedAtOnce >= 40, "\(closedAtOnce) of 60 closed at once")
        // Another client is served meanwhile.
        let health = try await RawConnection.request(port: instance.port, from: "127.0.0.4", method: "GET", path: "/healthz", timeout: 3)
        #expect(health.status == 200)
        // The rest miss the header deadline.
        var stillOpen = 0
        for connection in halfOpen where !(await connection.isClosed(within: 2.5)) { stillOpen += 1 }
        #expect(stillOpen == 0, "\(stillOpen) half-open connections outlived the header timeout")
        // A kept-alive connection, idle after its answer, is closed at the idle timeout.
        let idle = try RawConnection(port: instance.port, from: "127.0.0.5")
        idle.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(RawConnection.parse(await idle.receive(timeout: 3) { $0.contains("ok") }).status == 200)
        #expect(await idle.isClosed(within: 3))
        // The share is given back as connections close.
        let again = try await RawConnection.request(port: instance.port, from: "127.0.0.3", method: "GET", path: "/healthz", timeout: 3)
        #expect(again.status == 200)
    }

    /// Item 8: one client creating sessions from six addresses gets 429 past each address's share;
    /// another client keeps creating.
    @Test func oneClientCannotFillTheOutstandingSessions() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let instance = try await ServiceInstance(
            arguments: ["--store", "memory", "--request-rate", "0", "--max-outstanding-requests", "50", "--max-client-outstanding-requests", "5"]
                + fixture.serveArguments)
        defer { instance.stop() }
        let body = #"{"descriptor":\#(ServiceFixture.descriptorJSON)}"#
        var created = 0, refused = 0
        for address in 2...7 {
            for _ in 0..<9 {
                let answer = try await RawConnection.request(
                    port: instance.port, from: "127.0.0.\(address)", method: "POST", path: "/v1/identity/requests", body: body)
                if answer.status == 201 { created += 1 }
                if answer.status == 429 {
                    refused += 1
                    #expect(Self.json(answer.body)["type"] as? String == "urn:wallet-verifier:problem:too-many-outstanding-requests")
                }
            }
        }
        #expect(created == 30 && refused == 24, "created \(created), refused \(refused)")
        let other = try await RawConnection.request(port: instance.port, from: "127.0.0.9", method: "POST", path: "/v1/identity/requests", body: body)
        #expect(other.status == 201, "another client: \(other.status) \(other.body)")
    }

    /// Item 12: verification POSTs are rate-limited per client, and junk with a fresh
    /// Idempotency-Key leaves no record (the key is free again at once).
    @Test func verificationPostsAreRateLimitedAndJunkKeepsNoRecord() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let limited = try await ServiceInstance(arguments: ["--store", "memory", "--verify-rate", "6"] + fixture.serveArguments)
        defer { limited.stop() }
        let junk = #"{"deviceResponse":"AAAA","sessionTranscript":"AAAA"}"#
        let first = try await RawConnection.request(port: limited.port, method: "POST", path: "/v1/mdoc/verify", body: junk)
        let second = try await RawConnection.request(port: limited.port, method: "POST", path: "/v1/identity/verify", body: junk)
        #expect(first.status == 400)
        #expect(second.status == 429, "\(second.status)")
        #expect(Self.json(second.body)["type"] as? String == "urn:wallet-verifier:problem:rate-limited")
        let other = try await RawConnection.request(port: limited.port, from: "127.0.0.2", method: "POST", path: "/v1/mdoc/verify", body: junk)
        #expect(other.status == 400)

        let open = try await ServiceInstance(
            arguments: ["--store", "sqlite", "--data-dir", fixture.directory.appendingPathComponent("data").path] + fixture.serveArguments)
        defer { open.stop() }
        // A verification of an unknown request consumes nothing: its key keeps no record, so the same
        // key with another body is processed (it would be a 422 if the junk had been kept).
        let key = "junk-key-0123456789abcdef"
        let junkAnswer = try await RawConnection.request(
            port: open.port, method: "POST", path: "/v1/identity/verify", headers: ["Idempotency-Key": key],
            body: #"{"requestId":"no-such-request","encryptedData":"AAAA"}"#)
        #expect(junkAnswer.status == 200, "\(junkAnswer.body)")
        let reused = try await RawConnection.request(
            port: open.port, method: "POST", path: "/v1/identity/verify", headers: ["Idempotency-Key": key],
            body: #"{"requestId":"another-request","encryptedData":"AAAA"}"#)
        #expect(reused.status == 200, "\(reused.status): \(reused.body)")
    }

    /// Item 13: without an API token, an Idempotency-Key is scoped to the client's address: another
    /// client repeating a victim's key and body gets a replay rejection, not the victim's payment.
    @Test func anotherClientCannotReplayAnIdempotencyKey() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let instance = try await ServiceInstance(arguments: ["--store", "memory"] + fixture.serveArguments)
        defer { instance.stop() }
        let body = try Self.applePayBody(fixture)
        let key = ["Idempotency-Key": "victim-key-0123456789abcdef"]
        let victim = try await RawConnection.request(port: instance.port, method: "POST", path: "/v1/applepay/decrypt", headers: key, body: body)
        #expect(victim.status == 200 && Self.json(victim.body)["verdict"] as? String == "accepted", "\(victim.body.prefix(300))")
        #expect(Self.json(victim.body)["payment"] != nil)
        let thief = try await RawConnection.request(
            port: instance.port, from: "127.0.0.2", method: "POST", path: "/v1/applepay/decrypt", headers: key, body: body)
        #expect(Self.json(thief.body)["verdict"] as? String == "rejected", "\(thief.body.prefix(300))")
        #expect(Self.json(thief.body)["payment"] == nil)
        // The victim's own retry still gets its answer.
        let retry = try await RawConnection.request(port: instance.port, method: "POST", path: "/v1/applepay/decrypt", headers: key, body: body)
        #expect(Self.json(retry.body)["verdict"] as? String == "accepted")
    }

    /// Item 11: the page's mdoc form runs exactly the composition of POST /v1/mdoc/verify: a
    /// revoked passport is rejected on both, with the same checks in the same order.
    @Test func thePageAndTheAPIGiveTheSameChecksForARevokedPassport() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let signer = try ServiceRevocationProcessTests.ListSigner(fixture.mdocPKI)
        let id: [UInt8] = [4, 5, 6]
        let listURL = server.url("/revoked")
        server.set("/revoked", .init(body: try signer.sign(ServiceRevocationProcessTests.identifierList(revoking: [id], uri: listURL))))
        let mdoc = ServiceRevocationProcessTests.document(
            status: try RevocationListFixture.identifierListStatus(id: id, uri: listURL), passport: true)
        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: "AAAA", origin: "https://shop.example")
        let response = try mdoc.deviceResponse(pki: fixture.mdocPKI, deviceKey: .init(), transcript: transcript)
        let responseText = Data(response).base64EncodedString(), transcriptText = Data(transcript.bytes).base64EncodedString()

        let pageToken = "page-token-0123456789abcdef"
        let tokenPath = fixture.directory.appendingPathComponent("page-token").path
        try #require(FileManager.default.createFile(atPath: tokenPath, contents: Data(pageToken.utf8), attributes: [.posixPermissions: 0o600]))
        let instance = try await ServiceInstance(
            arguments: ["--store", "memory", "--ui-listen", "0", "--ui-token-file", tokenPath] + fixture.passportServeArguments)
        defer { instance.stop() }
        let api = try await instance.post("/v1/mdoc/verify", ["deviceResponse": responseText, "sessionTranscript": transcriptText])
        #expect(api.body["verdict"] as? String == "rejected")
        let apiChecks = (api.body["checks"] as? [[String: Any]] ?? []).map { "\($0["id"] as? String ?? "") \($0["status"] as? String ?? "")" }
        #expect(apiChecks.contains("mdoc.revocation.status failed"), "\(apiChecks)")

        let csrf = WebPageAccess(token: pageToken, generated: false).csrfToken
        func encode(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "" }
        let form = "kind=mdoc&deviceResponse=\(encode(responseText))&sessionTranscript=\(encode(transcriptText))&csrf=\(csrf)"
        let page = try #require(instance.uiPort)
        let connection = try RawConnection(port: page)
        connection.send(
            "POST /ui/verify HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer \(pageToken)\r\n"
                + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: \(form.utf8.count)\r\n\r\n\(form)")
        let html = RawConnection.parse(await connection.receive(timeout: 20)).body
        var pageChecks: [String] = []
        for row in html.components(separatedBy: "data-check=\"").dropFirst() {
            let check = row.prefix { $0 != "\"" }
            let status = row.components(separatedBy: "data-status=\"").dropFirst().first?.prefix { $0 != "\"" } ?? ""
            pageChecks.append("\(check) \(status)")
        }
        #expect(pageChecks == apiChecks, "page: \(pageChecks)\napi: \(apiChecks)")
        #expect(html.contains("id=\"verdict\" class=\"verdict rejected\""))
        #expect(!html.contains("Søndergård"))
    }
}
