import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MdocVerifier
import Testing
import VerificationCore
import VerifierServer
import WalletCBOR
import WalletEncoding
import WalletVerifierTestSupport
import X509

/// `GET /v1/trust`: the operator's view of what the service trusts, without a private key.
@Suite struct TrustRouteTests {
    @Test func theTrustViewNamesAnchorsKeysAndCachedLists() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let uri = server.url("/status")
        server.set(
            "/status",
            .init(
                body: try RevocationListFixture(
                    content: .identifiers([[7]]), uri: uri, issuedAt: ServiceFixture.time.addingTimeInterval(-60),
                    expiresAt: ServiceFixture.time.addingTimeInterval(3600)
                ).signed(key: P256.Signing.PrivateKey(), x5chain: nil)))
        let services = try await RouterTests.services(fixture, extra: ["revocation": ["best-effort"]])
        // A list in the shared cache, as a verification would have left it.
        _ = try await services.revocationCache?.list(for: uri, at: ServiceFixture.time)
        let app = VerifierApplication.build(services: services, logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let answer = try await client.execute(uri: "/v1/trust", method: .get)
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType] == "application/json")
            ContractSamples.record(answer.body, schema: "Trust", name: "trust")
            let text = String(buffer: answer.body)
            let trust = try RouterTests.json(answer.body)
            let anchors = try #require(trust["anchors"] as? [[String: Any]])
            #expect(anchors.count == 1)
            let der = RevocationSignerPKI.der(fixture.mdocPKI.iaca)
            #expect(anchors.first?["sha256"] as? String == Hex.encode(Array(SHA256.hash(data: der))))
            #expect(anchors.first?["subject"] as? String == "\(fixture.mdocPKI.iaca.subject)")
            #expect(anchors.first?["source"] as? String == fixture.iacaPath)
            #expect(anchors.first?["docTypes"] is NSNull)
            let revocation = try #require(trust["revocation"] as? [String: Any])
            #expect(revocation["mode"] as? String == "best-effort")
            let lists = try #require(revocation["cachedLists"] as? [[String: Any]])
            #expect(lists.first?["uri"] as? String == uri)
            #expect(lists.first?["expiresAt"] as? String == RFC3339.format(ServiceFixture.time.addingTimeInterval(3600)))
            let identity = try #require(trust["identityKeys"] as? [[String: Any]])
            let pkRHash = Hex.encode(Array(SHA256.hash(data: fixture.identityKey.publicKey.x963Representation)))
            #expect(identity.first?["pkRHash"] as? String == pkRHash)
            #expect((trust["applePayKeys"] as? [[String: Any]])?.count == 1)
            #expect((trust["webKeys"] as? [[String: Any]])?.count == 1)
            #expect(trust["readerAuthentication"] is NSNull)
            // No private key in any form.
            for secret in [
                Hex.encode(fixture.identityKey.rawRepresentation), Data(fixture.identityKey.rawRepresentation).base64EncodedString(),
                Hex.encode(fixture.webKey.rawRepresentation), "PRIVATE KEY",
            ] {
                #expect(!text.contains(secret))
            }
            let head = try await client.execute(uri: "/v1/trust", method: .head)
            #expect(head.status == .ok && head.body.readableBytes == 0)
        }
    }
}
