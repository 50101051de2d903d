import Foundation
import Testing
import WalletVerifierTestSupport

/// OpenID4VP answers against real `serve` processes sharing one store (SQLite; PostgreSQL when
/// WALLET_VERIFIER_POSTGRES_URL is set): concurrent submissions of one answer are accepted exactly
/// once across instances, and an Annex C answer to the same request on the other instance is a replay.
@Suite(.serialized) struct WebOpenID4VPProcessTests {
    @Test func anOpenID4VPAnswerIsAcceptedOnceAcrossInstancesAndProtocols() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        for (label, arguments) in HostileNetworkSessionTests.sharedStores(fixture) {
            let a = try await ServiceInstance(arguments: arguments)
            let b = try await ServiceInstance(arguments: arguments)
            defer {
                a.stop()
                b.stop()
            }
            let mdoc = HostileNetworkSessionTests.webDocument(), pki = try HostileNetworkSessionTests.webPKI(fixture)
            let elements = mdoc.elements.map { "\($0.nameSpace)/\($0.identifier)" }

            // Concurrent submissions of one OpenID4VP answer, round-robin over both instances.
            let created = try await b.post("/v1/web/requests", ["docType": mdoc.docType, "origin": fixture.webOrigin, "elements": elements])
            #expect(created.status == 201, "\(created.body)")
            let request = try #require(try OpenID4VPWallet.request(created.body))
            let requestID = try #require(created.body["requestId"] as? String)
            let credential = try OpenID4VPWallet.credential(for: request, origin: fixture.webOrigin, mdoc: mdoc, pki: pki)
            let answers = try await HostileNetworkSessionTests.submit(
                "/v1/web/verify", ["requestId": requestID, "credential": credential], to: [a, b], count: 16)
            DeploymentTests.expectExactlyOneAccepted(answers.map { ($0.status, $0.verdict) }, "openid4vp/\(label)")
            #expect(answers.filter { $0.nonce == "nonceReused" }.count == 15, "openid4vp/\(label): \(answers.map { $0.nonce ?? "-" })")

            // One request, answered over OpenID4VP on one instance and over Annex C on the other: one accepted.
            let second = try await a.post("/v1/web/requests", ["docType": mdoc.docType, "origin": fixture.webOrigin, "elements": elements])
            let secondID = try #require(second.body["requestId"] as? String)
            let openID4VP = try OpenID4VPWallet.credential(
                for: try #require(try OpenID4VPWallet.request(second.body)), origin: fixture.webOrigin, mdoc: mdoc, pki: pki)
            let sealed = try fixture.webResponse(
                encryptionInfo: try #require(OpenID4VPWallet.encryptionInfo(second.body)), origin: fixture.webOrigin, fixture: mdoc, pki: pki)
            let first = try await a.post("/v1/web/verify", ["requestId": secondID, "credential": openID4VP])
            #expect(first.body["verdict"] as? String == "accepted", "\(label): \(first.body)")
            let annexC = try await b.post("/v1/web/verify", ["requestId": secondID, "response": sealed.base64URL])
            #expect(annexC.body["verdict"] as? String == "rejected", "\(label): \(annexC.body)")
            #expect(HostileNetworkSessionTests.check(annexC.body, "replay.nonce")?["reason"] as? String == "nonceReused", "\(annexC.body)")
        }
    }
}
