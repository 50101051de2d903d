import ApplePayVerifier
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import NIOPosix
import NIOSSL
import SwiftASN1
import Synchronization
import Testing
import VerificationCore
import WalletEncoding
import WalletVerifierTestSupport
import X509

@testable import VerifierServer

/// Apple Pay on the web, merchant validation (`POST /v1/applepay/session`) against a local TLS server
/// that requires the Merchant Identity certificate as the client certificate: the session comes back
/// as received, a URL off the allow-list is refused before any connection, and every failure of the
/// server is a 502.
@Suite struct MerchantValidationRouteTests {
    static let merchantID = "merchant.com.example.shop"
    static let domain = "shop.example"
    static let displayName = "Fixture Shop"
    static let token = "session-test-token-0123456789"

    /// A Merchant Identity certificate and its P-256 key, written into the fixture's directory.
    struct IdentityFiles {
        let certificate: Certificate
        let certificatePath: String
        let keyPath: String

        init(_ fixture: ServiceFixture, ca: PortalFixtureCA, name: String = "identity", hashExtension: Bool = true) throws {
            let now = Date()
            let key = P256.Signing.PrivateKey()
            certificate = try ca.issue(
                publicKey: .init(key.publicKey),
                subject: try DistinguishedName { CommonName("Merchant ID: \(MerchantValidationRouteTests.merchantID)") },
                profile: .applePayMerchantIdentity(merchantIdentifier: MerchantValidationRouteTests.merchantID, hashExtension: hashExtension),
                notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(90 * 86_400))
            certificatePath = fixture.directory.appendingPathComponent("\(name)-cert.pem").path
            keyPath = fixture.directory.appendingPathComponent("\(name)-key.pem").path
            try Data(try certificate.serializeAsPEM().pemString.utf8).write(to: URL(fileURLWithPath: certificatePath))
            try Data(key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: keyPath))
        }
    }

    /// The flags of a service doing merchant validation against `server` only.
    static func flags(_ fixture: ServiceFixture, _ identity: IdentityFiles, _ server: MerchantValidationServer, timeout: Int = 5) throws
        -> ServerSettings.Source
    {
        let caPath = fixture.directory.appendingPathComponent("validation-ca.pem").path
        try Data(server.caPEM.utf8).write(to: URL(fileURLWithPath: caPath))
        let tokenFile = fixture.directory.appendingPathComponent("api-token").path
        try Data(token.utf8).write(to: URL(fileURLWithPath: tokenFile))
        return [
            "store": ["memory"], "dataDir": [fixture.directory.appendingPathComponent("data").path], "identityKeys": [fixture.identityKeyPath],
            "apiTokenFile": [tokenFile], "applepayIdentityCert": [identity.certificatePath], "applepayIdentityKey": [identity.keyPath],
            "applepayDomain": [domain], "applepayDisplayName": [displayName], "applepayValidationHosts": ["localhost:\(server.port)"],
            "applepayValidationCa": [caPath], "fetchTimeout": [String(timeout)],
        ]
    }

    static func services(_ flags: ServerSettings.Source, logger: Logger = Logger(label: "test")) async throws -> VerifierServices {
        try await VerifierServices.make(settings: try ServerSettings.resolve(flags: flags, environment: [:], configFile: nil), logger: logger)
    }

    static func post(_ client: some TestClientProtocol, _ body: String, token: String? = MerchantValidationRouteTests.token) async throws
        -> TestResponse
    {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await client.execute(uri: "/v1/applepay/session", method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    static func validation(_ url: String) -> String { #"{"validationURL": "\#(url)"}"# }

    static func detail(_ response: TestResponse) -> String {
        ((try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any])?["detail"] as? String ?? ""
    }

    @Test func theSessionComesBackAsReceived() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let ca = try PortalFixtureCA(now: Date())
        // Apple's session object, with its own spacing and member order: answered byte for byte.
        let session = Array(
            #"{ "epochTimestamp":1700000000000,"expiresAt": 1700003600000, "merchantSessionIdentifier":"SSH0123\/ABC","nonce":"5c1e","signature":"MIAGCSqGSIb3DQEHAqCAMIACAQExDzAN","nested":{"a":[1, 2.50]} }"#
                .utf8)
        let server = try await MerchantValidationServer(answer: .session(session), clientCA: ca.root)
        let identity = try IdentityFiles(fixture, ca: ca)
        let box = LogRedactionTests.Box()
        let logger = Logger(label: "capture") { _ in LogRedactionTests.CapturingHandler(box) }
        let services = try await Self.services(try Self.flags(fixture, identity, server), logger: logger)
        let url = "https://localhost:\(server.port)/paymentservices/paymentSession"
        try await VerifierApplication.build(services: services, logger: logger).test(.router) { client in
            // The API token first: without it, 401 and no connection.
            #expect(try await Self.post(client, Self.validation(url), token: nil).status == .unauthorized)
            #expect(server.connections == 0)

            let answer = try await Self.post(client, Self.validation(url))
            #expect(answer.status == .ok, "\(Self.detail(answer))")
            #expect(Array(buffer: answer.body) == session)
            #expect(answer.headers[.contentType] == "application/json")
            #expect(answer.headers[.cacheControl] == "no-store")

            // What Apple's server was sent: the certificate's merchant identifier (the hex of its
            // 1.2.840.113635.100.6.32), the display name, initiative web and the domain.
            let sent = try #require(server.requests.first)
            let hash = Hex.encode(Array(SHA256.hash(data: Array(Self.merchantID.utf8))), uppercase: true)
            #expect(sent["merchantIdentifier"] as? String == hash)
            #expect(sent["displayName"] as? String == Self.displayName)
            #expect(sent["initiative"] as? String == "web")
            #expect(sent["initiativeContext"] as? String == Self.domain)
            #expect(sent.count == 4)
            // Over TLS with the Merchant Identity certificate as the client certificate.
            #expect(server.recorder.clientCertificates == [try PortalFixtureCA.der(identity.certificate)])
            #expect(services.metrics.text().contains(#"applepay_sessions_total{outcome="created"} 1"#))

            // GET /v1/trust lists the Merchant Identity certificate with its expiry.
            let trust = try await client.execute(uri: "/v1/trust", method: .get, headers: [.authorization: "Bearer \(Self.token)"])
            let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer: trust.body)) as? [String: Any])
            let certificates = try #require(object["certificates"] as? [[String: Any]])
            let listed = try #require(certificates.first { $0["kind"] as? String == "applePayMerchantIdentity" })
            #expect(listed["notAfter"] as? String == RFC3339.format(identity.certificate.notValidAfter))
        }
        // The log names the host and the outcome, never the session object or key material.
        let records = box.records.withLock { $0 }
        #expect(records.contains { $0.contains("merchant session created by localhost") })
        for secret in ["SSH0123", "MIAGCSqGSIb3", "epochTimestamp", "PRIVATE KEY", Self.token] {
            #expect(!records.contains { $0.contains(secret) }, "\(secret)")
        }
        await server.stop()
    }

    /// The `serve` command itself, with the flags on its command line, on a real socket.
    @Test func theServeCommandTakesTheFlags() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let ca = try PortalFixtureCA(now: Date())
        let session = Array(#"{"merchantSessionIdentifier":"SSH-process","signature":"c2ln"}"#.utf8)
        let server = try await MerchantValidationServer(answer: .session(session), clientCA: ca.root)
        let identity = try IdentityFiles(fixture, ca: ca)
        let caPath = fixture.directory.appendingPathComponent("validation-ca.pem").path
        try Data(server.caPEM.utf8).write(to: URL(fileURLWithPath: caPath))
        let instance = try await ServiceInstance(
            arguments: [
                "--store", "memory", "--data-dir", fixture.directory.appendingPathComponent("data").path, "--identity-key",
                fixture.identityKeyPath, "--applepay-identity-cert", identity.certificatePath, "--applepay-identity-key", identity.keyPath,
                "--applepay-domain", Self.domain, "--applepay-display-name", Self.displayName, "--applepay-validation-hosts",
                "localhost:\(server.port)", "--applepay-validation-ca", caPath,
            ])
        defer { instance.stop() }
        let answer = try await instance.post(
            "/v1/applepay/session", body: Data(Self.validation("https://localhost:\(server.port)/paymentservices/paymentSession").utf8))
        #expect(answer.status == 200, "\(answer.body)")
        #expect(answer.body["merchantSessionIdentifier"] as? String == "SSH-process")
        #expect(server.requests.first?["initiativeContext"] as? String == Self.domain)
        let connections = server.connections
        let refused = try await instance.post(
            "/v1/applepay/session", body: Data(Self.validation("https://apple-pay-gateway.apple.com/paymentservices/paymentSession").utf8))
        #expect(refused.status == 400)
        #expect(server.connections == connections)
        #expect(instance.log.contains("merchant validation for shop.example"))
        #expect(!instance.log.contains("SSH-process"))
        await server.stop()
    }

    /// Without the hash extension, the certificate's UID (the merchant id in clear) is sent.
    @Test func aCertificateWithoutTheHashExtensionNamesTheMerchantIDInClear() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let ca = try PortalFixtureCA(now: Date())
        let identity = try IdentityFiles(fixture, ca: ca, hashExtension: false)
        let loaded = try ApplePayMerchantIdentity(
            certificateFile: Array(try Data(contentsOf: URL(fileURLWithPath: identity.certificatePath))),
            keyFile: Array(try Data(contentsOf: URL(fileURLWithPath: identity.keyPath))))
        #expect(loaded.merchantIdentifier == Self.merchantID)
        #expect(!loaded.description.contains("PRIVATE"))
    }

    /// A Merchant Identity certificate that names no merchant (no hash extension, no UID) is usable
    /// with `--applepay-merchant-id`, which the refusal without it names (not `--merchant-id`).
    @Test func aCertificateThatNamesNoMerchantTakesApplepayMerchantId() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let ca = try PortalFixtureCA(now: Date())
        let key = P256.Signing.PrivateKey()
        let certificate = try ca.issue(
            publicKey: .init(key.publicKey), subject: try DistinguishedName { CommonName("Merchant without an id") }, profile: .signing,
            notBefore: Date().addingTimeInterval(-3600), notAfter: Date().addingTimeInterval(90 * 86_400))
        let certificatePath = fixture.directory.appendingPathComponent("anonymous-cert.pem").path
        let keyPath = fixture.directory.appendingPathComponent("anonymous-key.pem").path
        try Data(try certificate.serializeAsPEM().pemString.utf8).write(to: URL(fileURLWithPath: certificatePath))
        try Data(key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: keyPath))
        let server = try await MerchantValidationServer(answer: .status(500), clientCA: ca.root)
        var flags = try Self.flags(fixture, try IdentityFiles(fixture, ca: ca), server)
        flags["applepayIdentityCert"] = [certificatePath]
        flags["applepayIdentityKey"] = [keyPath]
        await #expect {
            _ = try await Self.services(flags)
        } throws: { error in
            "\(error)".contains("--applepay-merchant-id") && !"\(error)".contains(" --merchant-id")
        }
        flags["applepayMerchantId"] = [Self.merchantID]
        let services = try await Self.services(flags)
        #expect(services.applePayIdentity?.merchantIdentifier == Self.merchantID)
        await services.shutdown()
        // Without a Merchant Identity certificate, the flag has nothing to name.
        var stray = flags
        stray["applepayIdentityCert"] = nil
        stray["applepayIdentityKey"] = nil
        #expect(throws: SettingsError.self) { try ServerSettings.resolve(flags: stray, environment: [:], configFile: nil) }
        await server.stop()
    }

    @Test func aURLOffTheAllowListIsRefusedBeforeAnyConnection() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let ca = try PortalFixtureCA(now: Date())
        let server = try await MerchantValidationServer(answer: .session(Array(#"{"a":1}"#.utf8)), clientCA: ca.root)
        let identity = try IdentityFiles(fixture, ca: ca)
        let services = try await Self.services(try Self.flags(fixture, identity, server))
        let port = server.port
        let bodies = [
            Self.validation("https://evil.example/paymentservices/paymentSession"),
            Self.validation("http://localhost:\(port)/paymentservices/paymentSession"),
            Self.validation("https://user@localhost:\(port)/paymentservices/paymentSession"),
            Self.validation("https://user:secret@localhost:\(port)/paymentservices/paymentSession"),
            Self.validation("https://localhost:\(port + 1)/paymentservices/paymentSession"),
            Self.validation("https://localhost/paymentservices/paymentSession"),
            Self.validation("https://127.0.0.1:\(port)/paymentservices/paymentSession"),
            Self.validation("https://[::1]:\(port)/paymentservices/paymentSession"),
            Self.validation("https://localhost:\(port)/paymentservices/paymentSession#x"),
            Self.validation("https://localhost:\(port)\\\\@evil.example/"),
            Self.validation("https://localhost:\(port)/pay ment"),
            Self.validation("https://localhost.:\(port)/paymentservices/paymentSession"),
            Self.validation("https://localhost:\(port).evil.example/"),
            // Only Apple's session paths, without a query: the certificate is presented to nothing else.
            Self.validation("https://localhost:\(port)/"),
            Self.validation("https://localhost:\(port)/admin/rotate-keys"),
            Self.validation("https://localhost:\(port)/paymentservices/paymentSession?x=1"),
            Self.validation("https://localhost:\(port)/paymentservices/paymentSession/"),
            Self.validation("https://localhost:\(port)/paymentservices/PAYMENTSESSION"),
            // Apple's own host: the override list replaced Apple's.
            Self.validation("https://apple-pay-gateway.apple.com/paymentservices/paymentSession"),
            Self.validation("localhost:\(port)/paymentservices/paymentSession"),
            Self.validation(""),
            #"{}"#, #"{"validationURL": 443}"#, #"{"validationURL": null}"#, #"{"validationURL": ["https://localhost"]}"#,
            #"{"validationURL": "https://localhost:\#(port)/", "validationURL": "https://evil.example/"}"#,
        ]
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            for body in bodies {
                let answer = try await Self.post(client, body)
                #expect(answer.status == .badRequest, "\(body): \(answer.status)")
                #expect(answer.headers[.contentType] == "application/problem+json")
                #expect(Self.detail(answer).hasPrefix("/validationURL") || Self.detail(answer).hasPrefix("the body"), "\(body)")
                #expect(!Self.detail(answer).contains("secret"))
            }
        }
        #expect(server.connections == 0)
        #expect(services.metrics.text().contains(#"applepay_sessions_total{outcome="url-refused"}"#))
        await server.stop()
    }

    /// One client holds at most a few merchant validations at once: a server that never answers
    /// keeps those waiting until the deadline, and the client's further ones are a 429 at once, with
    /// no connection made.
    @Test func oneClientHoldsAFewSessionsAtOnce() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let ca = try PortalFixtureCA(now: Date())
        let server = try await MerchantValidationServer(answer: .silent, clientCA: ca.root)
        let identity = try IdentityFiles(fixture, ca: ca)
        let services = try await Self.services(try Self.flags(fixture, identity, server, timeout: 3))
        let url = "https://localhost:\(server.port)/paymentservices/paymentSession"
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<(MerchantValidationSlots.perClient + 3) {
                    group.addTask { try await Self.post(client, Self.validation(url)).status }
                }
                var all: [HTTPResponse.Status] = []
                for try await status in group { all.append(status) }
                return all
            }
            #expect(statuses.filter { $0 == .tooManyRequests }.count == 3, "\(statuses)")
            #expect(statuses.filter { $0 == .badGateway }.count == MerchantValidationSlots.perClient, "\(statuses)")
            // The slots are free again.
            #expect(services.merchantValidationSlots.take(client: "someone") != nil)
        }
        #expect(server.connections <= MerchantValidationSlots.perClient)
        #expect(services.metrics.text().contains(#"applepay_sessions_total{outcome="busy"} 3"#))
        await server.stop()
    }

    /// Apple's documented hosts on port 443, and nothing else, when the list is not replaced.
    @Test func applesHostsAreTheDefaultList() throws {
        for host in ApplePayValidationTarget.appleHosts {
            let target = try ApplePayValidationTarget.parse("https://\(host)/paymentservices/paymentSession", allowed: nil)
            #expect(target.url == "https://\(host)/paymentservices/paymentSession")
            #expect(target.port == 443)
            #expect(try ApplePayValidationTarget.parse("https://\(host.uppercased()):443/paymentservices/startSession", allowed: nil).host == host)
        }
        #expect(ApplePayValidationTarget.appleHosts.count == 14)
        #expect(ApplePayValidationTarget.appleHosts.contains("apple-pay-gateway-nc-pod5.apple.com"))
        #expect(ApplePayValidationTarget.appleHosts.contains("cn-apple-pay-gateway-cert.apple.com"))
        for refused in [
            "https://apple-pay-gateway.apple.com:8443/paymentservices/paymentSession", "https://apple-pay-gateway.apple.com./x",
            "https://apple-pay-gateway.apple.com.evil.example/x", "https://evilapple-pay-gateway.apple.com/x",
            "https://apple-pay-gateway-nc-pod6.apple.com/x", "https://17.171.78.7/x", "https://apple.com/x",
            "https://apple-pay-gateway.apple.com%2eevil.example/x", "https://user@apple-pay-gateway.apple.com/x",
            "http://apple-pay-gateway.apple.com/x", "ftp://apple-pay-gateway.apple.com/x", "https://apple-pay-gateway.apple.com/x#f",
        ] {
            #expect(throws: Problem.self, "\(refused)") { try ApplePayValidationTarget.parse(refused, allowed: nil) }
        }
    }

    @Test func aServerThatRefusesTheCertificateIsA502() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let trusted = try PortalFixtureCA(now: Date())
        let other = try PortalFixtureCA(now: Date())
        let server = try await MerchantValidationServer(answer: .session(Array(#"{"a":1}"#.utf8)), clientCA: trusted.root)
        // A certificate of another CA than the one the server requires.
        let identity = try IdentityFiles(fixture, ca: other)
        let services = try await Self.services(try Self.flags(fixture, identity, server))
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let answer = try await Self.post(client, Self.validation("https://localhost:\(server.port)/paymentservices/paymentSession"))
            #expect(answer.status == .badGateway)
            #expect(answer.headers[.contentType] == "application/problem+json")
            let detail = Self.detail(answer)
            #expect(detail.contains("TLS") || detail.contains("closed the connection"), "\(detail)")
            #expect(!detail.contains("PRIVATE KEY"))
        }
        #expect(server.connections >= 1)
        #expect(server.recorder.bodies.isEmpty)
        await server.stop()
    }

    /// The stand-in server refuses a client without a certificate: the happy path's session came over
    /// a connection on which the Merchant Identity certificate was required.
    @Test func theValidationServerRefusesAClientWithoutACertificate() async throws {
        let ca = try PortalFixtureCA(now: Date())
        let server = try await MerchantValidationServer(answer: .session(Array(#"{"a":1}"#.utf8)), clientCA: ca.root)
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(server.caPEM.utf8)))
        let context = try NIOSSLContext(configuration: tls)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: "localhost"))
                }
            }
            .connect(host: "127.0.0.1", port: server.port).get()
        let request = #"{"merchantIdentifier":"x","displayName":"x","initiative":"web","initiativeContext":"shop.example"}"#
        _ = try? await channel.writeAndFlush(
            ByteBuffer(
                string: "POST /paymentservices/paymentSession HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(request.utf8.count)\r\n\r\n\(request)")
        ).get()
        // The server ends the connection; a guard keeps a server that would not from hanging the test.
        let guardTask = Task {
            try await Task.sleep(for: .seconds(10))
            try await channel.close()
        }
        _ = try? await channel.closeFuture.get()
        guardTask.cancel()
        #expect(server.connections == 1)
        #expect(server.recorder.bodies.isEmpty)
        await server.stop()
    }

    @Test func aServerThatNeverAnswersIsA502WithinTheDeadline() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let ca = try PortalFixtureCA(now: Date())
        let server = try await MerchantValidationServer(answer: .silent, clientCA: ca.root)
        let identity = try IdentityFiles(fixture, ca: ca)
        let services = try await Self.services(try Self.flags(fixture, identity, server, timeout: 1))
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let start = ContinuousClock.now
            let answer = try await Self.post(client, Self.validation("https://localhost:\(server.port)/paymentservices/paymentSession"))
            let elapsed = ContinuousClock.now - start
            #expect(answer.status == .badGateway)
            #expect(Self.detail(answer).contains("did not answer within 1 s"), "\(Self.detail(answer))")
            #expect(elapsed >= .milliseconds(900))
            // A generous bound: the whole suite runs in parallel on two cores, and a run of it took 5.6 s
            // here. The point is that it ends, with the deadline's message (above), not that it is quick.
            #expect(elapsed < .seconds(60), "\(elapsed)")
        }
        #expect(services.metrics.text().contains(#"applepay_sessions_total{outcome="timeout"} 1"#))
        await server.stop()
    }

    @Test func anOversizedOrRefusingAnswerIsA502() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let ca = try PortalFixtureCA(now: Date())
        let identity = try IdentityFiles(fixture, ca: ca)
        for (answer, expected) in [
            (MerchantValidationServer.Answer.oversized(100_000), "larger than 65536 bytes"),
            (.status(403), "answered HTTP 403"),
            (.status(302), "redirects are not followed"),
            (.session(Array("not json".utf8)), "not a JSON object"),
        ] {
            let server = try await MerchantValidationServer(answer: answer, clientCA: ca.root)
            let services = try await Self.services(try Self.flags(fixture, identity, server))
            try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
                let response = try await Self.post(client, Self.validation("https://localhost:\(server.port)/paymentservices/paymentSession"))
                #expect(response.status == .badGateway, "\(expected)")
                #expect(Self.detail(response).contains(expected), "\(Self.detail(response))")
                #expect(Self.detail(response).utf8.count < 300)
            }
            await server.stop()
        }
    }

    @Test func withoutAnIdentityCertificateTheRouteIs501() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.servicesFromValues(fixture)
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let answer = try await Self.post(
                client, Self.validation("https://apple-pay-gateway.apple.com/paymentservices/paymentSession"), token: services.apiToken)
            #expect(answer.status == .notImplemented)
            #expect(answer.headers[.retryAfter] == nil)
            #expect(Self.detail(answer).contains("--applepay-identity-cert"))
            // A body that cannot be read is a 400 all the same.
            #expect(try await Self.post(client, #"{"validationURL": 1}"#, token: services.apiToken).status == .badRequest)
        }
    }

    @Test func theFlagsAreCheckedTogether() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let ca = try PortalFixtureCA(now: Date())
        let identity = try IdentityFiles(fixture, ca: ca)
        let base: ServerSettings.Source = [
            "applepayIdentityCert": [identity.certificatePath], "applepayIdentityKey": [identity.keyPath], "applepayDomain": [Self.domain],
            "applepayDisplayName": [Self.displayName],
        ]
        let settings = try ServerSettings.resolve(flags: base, environment: [:], configFile: nil)
        #expect(settings.applePayDomain == Self.domain)
        #expect(settings.applePayValidationHosts == nil)
        func refused(_ change: (inout ServerSettings.Source) -> Void) -> String {
            var flags = base
            change(&flags)
            do {
                _ = try ServerSettings.resolve(flags: flags, environment: [:], configFile: nil)
                return ""
            } catch { return "\(error)" }
        }
        #expect(refused { $0["applepayIdentityKey"] = nil }.contains("go together"))
        #expect(refused { $0["applepayDomain"] = nil }.contains("needs --applepay-domain"))
        #expect(refused { $0["applepayDisplayName"] = nil }.contains("needs --applepay-display-name"))
        #expect(refused { $0["applepayDomain"] = ["https://shop.example"] }.contains("--applepay-domain"))
        #expect(refused { $0["applepayDomain"] = ["shop.example:443"] }.contains("--applepay-domain"))
        #expect(refused { $0["applepayDisplayName"] = [String(repeating: "x", count: 65)] }.contains("64"))
        #expect(refused { $0["applepayValidationHosts"] = ["https://localhost"] }.contains("HOST:PORT"))
        #expect(refused { $0["applepayValidationHosts"] = ["localhost:99999"] }.contains("HOST:PORT"))
        #expect(refused { $0 = ["applepayDomain": [Self.domain]] }.contains("needs --applepay-identity-cert"))
        #expect(refused { $0 = ["applepayValidationHosts": ["localhost:8443"]] }.contains("needs --applepay-identity-cert"))
        // A key that is not the certificate's is refused at start, naming both files.
        let otherKey = fixture.directory.appendingPathComponent("other-key.pem").path
        try Data(P256.Signing.PrivateKey().pemRepresentation.utf8).write(to: URL(fileURLWithPath: otherKey))
        var mismatched = base
        mismatched["applepayIdentityKey"] = [otherKey]
        mismatched["store"] = ["memory"]
        mismatched["dataDir"] = [fixture.directory.appendingPathComponent("data").path]
        let error = await #expect(throws: SettingsError.self) {
            _ = try await Self.services(mismatched)
        }
        #expect(error?.description.contains("--applepay-identity-key \(otherKey)") == true)
        #expect(error?.description.contains("does not belong") == true)
        // serve --check: the key matches its certificate, which is valid.
        var checked = base
        checked["store"] = ["memory"]
        checked["dataDir"] = [fixture.directory.appendingPathComponent("data").path]
        let findings = await ServicePreflight.run(
            settings: try ServerSettings.resolve(flags: checked, environment: [:], configFile: nil), logger: Logger(label: "test"))
        #expect(findings.contains { $0.check == "applepay-identity" && $0.status == .ok })
        #expect(findings.contains { $0.check == "certificate applePayMerchantIdentity" && $0.status == .ok })
        mismatched["applepayIdentityKey"] = [otherKey]
        let failed = await ServicePreflight.run(
            settings: try ServerSettings.resolve(flags: mismatched, environment: [:], configFile: nil), logger: Logger(label: "test"))
        #expect(failed.contains { $0.check == "applepay-identity" && $0.status == .fail })
    }
}
