import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import VerificationCore
import VerifierServer
import WalletCBOR
import WalletVerifierTestSupport

/// Reload without restart: a new configuration is built whole and swapped in, or refused whole;
/// removed identity keys keep opening responses to earlier requests until those expire.
@Suite struct ReloadTests {
    static func identityEnvelope(_ fixture: ServiceFixture, nonce: [UInt8], to key: P256.KeyAgreement.PrivateKey) throws -> [UInt8] {
        let transcript = IdentityEnvelopeFixture.transcript(
            nonce: nonce, merchantID: fixture.merchantID, teamID: fixture.teamID, recipient: key.publicKey)
        let response = try MdocFixture().deviceResponse(pki: fixture.mdocPKI, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        return try IdentityEnvelopeFixture().envelope(
            deviceResponse: response, recipient: key.publicKey, nonce: nonce, merchantID: fixture.merchantID, teamID: fixture.teamID)
    }

    @Test func aReloadSwapsKeysAndTrustAndRefusesABrokenConfiguration() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let clock = IdempotencyRouteTests.MovableClock(ServiceFixture.time)
        let live = LiveServices(try await IdempotencyRouteTests.services(fixture, clock: clock))
        let app = VerifierApplication.build(live: live, logger: Logger(label: "test"))
        let newKey = P256.KeyAgreement.PrivateKey()
        let newKeyPath = fixture.directory.appendingPathComponent("identity-2.pem").path
        try Data(newKey.pemRepresentation.utf8).write(to: URL(fileURLWithPath: newKeyPath))
        let otherPKI = try MdocPKI()
        let otherRoot = fixture.directory.appendingPathComponent("other-iaca.pem").path
        try Data(otherPKI.iacaPEM.utf8).write(to: URL(fileURLWithPath: otherRoot))
        @Sendable func settings(identityKeys: [String], trust: [String]) throws -> ServerSettings {
            try ServerSettings.resolve(
                flags: [
                    "store": ["memory"], "dataDir": [fixture.directory.appendingPathComponent("data").path],
                    "identityKeys": identityKeys, "merchantId": [fixture.merchantID], "teamId": [fixture.teamID], "trust": trust,
                    "webKeys": [fixture.webKeyPath], "webOrigins": [fixture.webOrigin],
                    "applepayCerts": [fixture.merchantCertificatePath], "applepayKeys": [fixture.merchantKeyPath],
                    "applepayRoot": [fixture.applePayRootPath],
                ], environment: [:], configFile: nil)
        }
        try await app.test(.router) { client in
            let descriptor = try JSONSerialization.jsonObject(with: Data(ServiceFixture.descriptorJSON.utf8))
            func create() async throws -> (id: String, nonce: [UInt8]) {
                let created = try RouterTests.json(
                    try await client.execute(
                        uri: "/v1/identity/requests", method: .post, headers: RouterTests.jsonHeaders,
                        body: try RouterTests.body(["descriptor": descriptor])
                    ).body)
                return (
                    try #require(created["requestId"] as? String),
                    [UInt8](try #require((created["nonce"] as? String).flatMap { Data(base64Encoded: $0) }))
                )
            }
            func verify(_ request: (id: String, nonce: [UInt8]), to key: P256.KeyAgreement.PrivateKey) async throws -> [String: Any] {
                let envelope = try Self.identityEnvelope(fixture, nonce: request.nonce, to: key)
                return try RouterTests.json(
                    try await client.execute(
                        uri: "/v1/identity/verify", method: .post, headers: RouterTests.jsonHeaders,
                        body: try RouterTests.body(["requestId": request.id, "encryptedData": Data(envelope).base64EncodedString()])
                    ).body)
            }
            func trust() async throws -> [String: Any] { try RouterTests.json(try await client.execute(uri: "/v1/trust", method: .get).body) }

            let before = try await create()
            // Rotate: only the new identity key, and one more IACA root.
            try await live.reload(
                settings: try settings(identityKeys: [newKeyPath], trust: [fixture.iacaPath, otherRoot]), logger: Logger(label: "test"))
            #expect(live.reloadCount == 1)
            let view = try await trust()
            #expect((view["anchors"] as? [[String: Any]])?.count == 2)
            let labels = (view["identityKeys"] as? [[String: Any]])?.compactMap { $0["label"] as? String } ?? []
            #expect(labels.count == 2 && labels.contains { $0.contains("retired until") })
            // The request issued before the reload: its response to the removed key still opens.
            #expect(try await verify(before, to: fixture.identityKey)["verdict"] as? String == "accepted")
            // A request after it: the new key.
            let after = try await create()
            #expect(try await verify(after, to: newKey)["verdict"] as? String == "accepted")

            // A configuration that does not load is refused whole, naming the file; the running one stays.
            let broken = fixture.directory.appendingPathComponent("broken-key.pem").path
            try Data("-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: broken))
            await #expect {
                try await live.reload(
                    settings: try settings(identityKeys: [newKeyPath, broken], trust: [fixture.iacaPath]), logger: Logger(label: "test"))
            } throws: {
                "\($0)".contains(broken)
            }
            #expect(live.reloadCount == 1)
            #expect((try await trust()["anchors"] as? [[String: Any]])?.count == 2)

            // Once the requests issued before the reload have expired, the removed key goes.
            clock.advance(Double(live.current.settings.requestLifetime) + 1)
            try await live.reload(settings: try settings(identityKeys: [newKeyPath], trust: [fixture.iacaPath]), logger: Logger(label: "test"))
            let pruned = (try await trust()["identityKeys"] as? [[String: Any]]) ?? []
            #expect(pruned.count == 1)
            let late = try await create()
            let refused = try await verify(late, to: fixture.identityKey)
            #expect(
                (refused["checks"] as? [[String: Any]])?.contains {
                    $0["id"] as? String == "identity.envelope.recipientKey" && $0["reason"] as? String == "noMatchingKey"
                } == true)
        }
    }

    /// A real `serve` process: SIGHUP reloads a trust directory; a broken file is refused, logged
    /// with its path, and the running trust stays.
    @Test func sighupReloadsTheTrustOfARunningService() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let roots = fixture.directory.appendingPathComponent("roots")
        try FileManager.default.createDirectory(at: roots, withIntermediateDirectories: true)
        try Data(fixture.mdocPKI.iacaPEM.utf8).write(to: roots.appendingPathComponent("first.pem"))
        var arguments = fixture.serveArguments
        if let index = arguments.firstIndex(of: fixture.iacaPath) { arguments[index] = roots.path }
        let instance = try await ServiceInstance(arguments: ["--store", "memory"] + arguments)
        defer { instance.stop() }
        func anchors() async throws -> Int { (try await instance.getJSON("/v1/trust")["anchors"] as? [[String: Any]])?.count ?? -1 }
        #expect(try await anchors() == 1)
        try Data(try MdocPKI().iacaPEM.utf8).write(to: roots.appendingPathComponent("second.pem"))
        instance.signal(SIGHUP)
        #expect(try await ServiceInstance.waitFor { try await anchors() == 2 }, "\(instance.log.suffix(2000))")
        #expect(instance.log.contains("reload: done; 2 IACA root(s)"))
        // A broken root: refused whole, the log names the file, the two roots stay.
        let broken = roots.appendingPathComponent("third.pem")
        try Data("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8).write(to: broken)
        instance.signal(SIGHUP)
        #expect(
            try await ServiceInstance.waitFor { instance.log.contains("reload: the new configuration was not loaded") },
            "\(instance.log.suffix(2000))")
        #expect(instance.log.contains("third.pem"))
        #expect(try await anchors() == 2)
        #expect(try await instance.get("/healthz") == 200)
    }
}
