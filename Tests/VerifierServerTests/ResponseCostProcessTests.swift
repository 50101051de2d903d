import Crypto
import Foundation
import Mdoc
import Testing
import WalletEncoding
import WalletVerifierTestSupport

/// What one verification may cost, against a real `serve`: a DeviceResponse with more documents than
/// were asked for (or than `POST /v1/mdoc/verify` verifies), or with a docType not asked for, is
/// refused before any signature is verified, with a small report.
@Suite(.serialized) struct ResponseCostProcessTests {
    static func count(_ body: [String: Any], _ id: String) -> (all: Int, evaluated: Int) {
        let checks = (body["checks"] as? [[String: Any]] ?? []).filter { $0["id"] as? String == id }
        return (checks.count, checks.filter { $0["status"] as? String != "skipped" }.count)
    }

    @Test func aResponseWithMoreDocumentsThanVerifiedIsRefusedBeforeAnySignature() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let service = try await ServiceInstance(arguments: HostileNetworkSessionTests.sqliteArguments(fixture))
        defer { service.stop() }
        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: "AAAA", origin: fixture.webOrigin)
        let pki = try HostileNetworkSessionTests.webPKI(fixture)

        // Four documents (the documented limit) are each verified.
        var mdoc = HostileNetworkSessionTests.webDocument()
        mdoc.documentCount = 4
        let four = try await service.post(
            "/v1/mdoc/verify",
            [
                "deviceResponse": Base64.encodeURL(try mdoc.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)),
                "sessionTranscript": Base64.encodeURL(transcript.bytes),
            ])
        #expect(four.status == 200, "\(four.body)")
        #expect(Self.count(four.body, "mdoc.issuer.signature").evaluated == 4, "\(four.body)")

        // Sixty are refused whole: no signature verified, each document check reported once, skipped.
        mdoc.documentCount = 60
        let bytes = try mdoc.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let payload = try JSONSerialization.data(withJSONObject: [
            "deviceResponse": Base64.encodeURL(bytes), "sessionTranscript": Base64.encodeURL(transcript.bytes),
        ])
        let started = ContinuousClock.now
        let answer = try await service.post("/v1/mdoc/verify", body: payload)
        let elapsed = ContinuousClock.now - started
        #expect(answer.body["verdict"] as? String == "rejected", "\(answer.body)")
        let structure = HostileNetworkSessionTests.check(answer.body, "mdoc.response.structure")
        #expect(structure?["reason"] as? String == "tooManyDocuments", "\(answer.body)")
        for id in ["mdoc.issuer.signature", "mdoc.issuer.chain", "mdoc.device.authentication"] {
            let counted = Self.count(answer.body, id)
            #expect(counted.all == 1 && counted.evaluated == 0, "\(id): \(counted)")
        }
        let size = try JSONSerialization.data(withJSONObject: answer.body).count
        #expect(size < 16_384, "the refusal is small: \(size) bytes")
        // Well under a second alone; the bound only catches a refusal that verified after all (seconds of CPU),
        // with room for a loaded machine.
        #expect(elapsed < .seconds(30), "\(elapsed)")

        // --max-documents lowers the limit.
        let strict = try await ServiceInstance(arguments: HostileNetworkSessionTests.sqliteArguments(fixture) + ["--max-documents", "2"])
        defer { strict.stop() }
        mdoc.documentCount = 3
        let three = try await strict.post(
            "/v1/mdoc/verify",
            [
                "deviceResponse": Base64.encodeURL(try mdoc.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)),
                "sessionTranscript": Base64.encodeURL(transcript.bytes),
            ])
        let refused = HostileNetworkSessionTests.check(three.body, "mdoc.response.structure")
        #expect(refused?["reason"] as? String == "tooManyDocuments", "\(three.body)")
        #expect((refused?["details"] as? [String: Any])?["maxDocuments"] as? String == "2", "\(three.body)")
    }

    @Test func aWebAnswerHoldsOneDocumentPerDocTypeAskedFor() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let service = try await ServiceInstance(arguments: HostileNetworkSessionTests.sqliteArguments(fixture))
        defer { service.stop() }
        let pki = try HostileNetworkSessionTests.webPKI(fixture)
        let mdoc = HostileNetworkSessionTests.webDocument()
        var doubled = mdoc
        doubled.documentCount = 2

        // Annex C: two documents for one docType asked for.
        let (annexCID, info) = try await HostileNetworkSessionTests.createWebRequest(for: mdoc, fixture: fixture, on: service)
        let two = try fixture.webResponse(encryptionInfo: info, origin: fixture.webOrigin, fixture: doubled, pki: pki)
        let refused = try await service.post("/v1/web/verify", ["requestId": annexCID, "response": two.base64URL])
        #expect(refused.body["verdict"] as? String == "rejected", "\(refused.body)")
        #expect(HostileNetworkSessionTests.check(refused.body, "mdoc.response.structure")?["reason"] as? String == "tooManyDocuments")
        #expect(Self.count(refused.body, "mdoc.issuer.signature").evaluated == 0, "\(refused.body)")

        // A docType that was not asked for.
        var other = mdoc
        other.docType = "org.example.loyalty.1"
        let unasked = try fixture.webResponse(encryptionInfo: info, origin: fixture.webOrigin, fixture: other, pki: pki)
        let wrong = try await service.post("/v1/web/verify", ["requestId": annexCID, "response": unasked.base64URL])
        #expect(
            HostileNetworkSessionTests.check(wrong.body, "mdoc.response.structure")?["reason"] as? String == "docTypeNotAccepted", "\(wrong.body)")
        #expect(Self.count(wrong.body, "mdoc.issuer.signature").evaluated == 0, "\(wrong.body)")
        // Neither used the request up.
        let genuine = try fixture.webResponse(encryptionInfo: info, origin: fixture.webOrigin, fixture: mdoc, pki: pki)
        let accepted = try await service.post("/v1/web/verify", ["requestId": annexCID, "response": genuine.base64URL])
        #expect(accepted.body["verdict"] as? String == "accepted", "\(accepted.body)")

        // OpenID4VP: several presentations for one credential query, or one with two documents.
        let (requestID, request) = try await RequestBindingProcessTests.openID4VP(service, fixture, mdoc)
        let many = try OpenID4VPWallet.credential(for: request, origin: fixture.webOrigin, mdoc: mdoc, pki: pki, presentations: 8)
        let manyAnswer = try await service.post("/v1/web/verify", ["requestId": requestID, "credential": many])
        #expect(
            HostileNetworkSessionTests.check(manyAnswer.body, "web.openid4vp.credentials")?["reason"] as? String == "tooManyPresentations",
            "\(manyAnswer.body)")
        #expect(Self.count(manyAnswer.body, "mdoc.issuer.signature").evaluated == 0, "\(manyAnswer.body)")
        let twoDocuments = try OpenID4VPWallet.credential(for: request, origin: fixture.webOrigin, mdoc: doubled, pki: pki)
        let twoAnswer = try await service.post("/v1/web/verify", ["requestId": requestID, "credential": twoDocuments])
        #expect(HostileNetworkSessionTests.check(twoAnswer.body, "mdoc.response.structure")?["reason"] as? String == "tooManyDocuments")
        #expect(Self.count(twoAnswer.body, "mdoc.issuer.signature").evaluated == 0, "\(twoAnswer.body)")
    }
}
