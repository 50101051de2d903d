import Crypto
import Foundation
import Mdoc
import Testing
import WalletEncoding
import WalletVerifierTestSupport

/// Web answers bound to their requests, against real `serve` processes: an OpenID4VP answer opens
/// under its own request alone (each request has its own encryption key, derived again on any
/// instance and after a restart); an answer not device-signed over the request's transcript reports
/// nothing of what it says; and only an answer that could be accepted uses its request up, so what
/// the page holds (the public keys and transcripts) cannot burn a request.
@Suite(.serialized) struct RequestBindingProcessTests {
    /// The answer as text, for asserting what it does not say.
    static func text(_ body: [String: Any]) -> String {
        (try? JSONSerialization.data(withJSONObject: body)).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// What a report must not carry of an answer that is not bound to its request: the disclosed
    /// element identifiers and values, and the issuer's certificate subject.
    static func expectNothingOfThePlaintext(_ body: [String: Any], _ mdoc: MdocFixture, _ label: String) {
        let text = Self.text(body)
        for element in mdoc.elements {
            #expect(
                !text.contains("\"\(element.identifier)") && !text.contains("/\(element.identifier)"),
                "\(label): names \(element.identifier): \(text)")
        }
        for value in ["Mustermann", "Erika", "D1234567", "valid through", "CN=", "O="] {
            #expect(!text.contains(value), "\(label): shows \(value): \(text)")
        }
        #expect((body["documents"] as? [Any] ?? []).isEmpty, "\(label): \(text)")
        #expect(body["claims"] == nil || (body["claims"] as? [Any])?.isEmpty == true, "\(label): \(text)")
    }

    static func createWeb(_ instance: ServiceInstance, _ fixture: ServiceFixture, _ mdoc: MdocFixture) async throws -> [String: Any] {
        let elements = mdoc.elements.map { "\($0.nameSpace)/\($0.identifier)" }
        let created = try await instance.post("/v1/web/requests", ["docType": mdoc.docType, "origin": fixture.webOrigin, "elements": elements])
        #expect(created.status == 201, "\(created.body)")
        return created.body
    }

    /// Creates a web request on `instance` for `mdoc`'s elements: its identifier and OpenID4VP request.
    static func openID4VP(_ instance: ServiceInstance, _ fixture: ServiceFixture, _ mdoc: MdocFixture) async throws -> (
        id: String, request: OpenID4VPWallet.Request
    ) {
        let created = try await createWeb(instance, fixture, mdoc)
        return (try #require(created["requestId"] as? String), try #require(try OpenID4VPWallet.request(created)))
    }

    @Test func aCapturedOpenID4VPAnswerDoesNotOpenUnderAnotherRequest() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let arguments = HostileNetworkSessionTests.sqliteArguments(fixture)
        let service = try await ServiceInstance(arguments: arguments)
        defer { service.stop() }
        let mdoc = HostileNetworkSessionTests.webDocument(), pki = try HostileNetworkSessionTests.webPKI(fixture)

        // The holder's request and answer; the attacker captures the answer and makes a request of their own.
        let victim = try await Self.createWeb(service, fixture, mdoc)
        let victimRequest = try #require(try OpenID4VPWallet.request(victim))
        let captured = try OpenID4VPWallet.credential(for: victimRequest, origin: fixture.webOrigin, mdoc: mdoc, pki: pki)
        let attacker = try await Self.createWeb(service, fixture, mdoc)
        let attackerRequest = try #require(try OpenID4VPWallet.request(attacker))
        #expect(
            (attackerRequest.jwk["x"] as? String) != (victimRequest.jwk["x"] as? String),
            "every request offers an encryption key of its own")
        #expect((attackerRequest.jwk["kid"] as? String) != (victimRequest.jwk["kid"] as? String))

        let replayed = try await service.post(
            "/v1/web/verify", ["requestId": try #require(attacker["requestId"] as? String), "credential": captured])
        #expect(replayed.body["verdict"] as? String == "rejected", "\(replayed.body)")
        let response = HostileNetworkSessionTests.check(replayed.body, "web.openid4vp.response")
        #expect(response?["status"] as? String == "failed", "\(replayed.body)")
        #expect(["unknownKeyID", "decryptionFailed"].contains(response?["reason"] as? String ?? ""), "\(replayed.body)")
        #expect(HostileNetworkSessionTests.check(replayed.body, "mdoc.issuer.signature")?["status"] as? String != "passed")
        Self.expectNothingOfThePlaintext(replayed.body, mdoc, "captured answer")

        // The same ciphertext with the attacker's kid written into its header does not open either
        // (the header is authenticated), and the holder's own answer is still accepted after both.
        let genuine = try await service.post(
            "/v1/web/verify", ["requestId": try #require(victim["requestId"] as? String), "credential": captured])
        #expect(genuine.body["verdict"] as? String == "accepted", "\(genuine.body)")
    }

    @Test func aRequestKeySurvivesARestartAndWorksOnEveryInstance() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        for (label, arguments) in HostileNetworkSessionTests.sharedStores(fixture) {
            let mdoc = HostileNetworkSessionTests.webDocument(), pki = try HostileNetworkSessionTests.webPKI(fixture)
            // Created on one instance, which then stops; answered on a new one over the same store.
            let first = try await ServiceInstance(arguments: arguments)
            let created = try await Self.createWeb(first, fixture, mdoc)
            first.stop()
            let second = try await ServiceInstance(arguments: arguments)
            defer { second.stop() }
            let credential = try OpenID4VPWallet.credential(
                for: try #require(try OpenID4VPWallet.request(created)), origin: fixture.webOrigin, mdoc: mdoc, pki: pki)
            let answer = try await second.post(
                "/v1/web/verify", ["requestId": try #require(created["requestId"] as? String), "credential": credential])
            #expect(answer.body["verdict"] as? String == "accepted", "\(label): \(answer.body)")
        }
    }

    @Test func anAnswerNotSignedForThisRequestShowsNothingOfItselfAndLeavesItOpen() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let service = try await ServiceInstance(arguments: HostileNetworkSessionTests.sqliteArguments(fixture))
        defer { service.stop() }
        let mdoc = HostileNetworkSessionTests.webDocument(), pki = try HostileNetworkSessionTests.webPKI(fixture)

        // OpenID4VP: encrypted to this request's key, device-signed for another nonce.
        let (requestID, request) = try await Self.openID4VP(service, fixture, mdoc)
        let foreign = try OpenID4VPWallet.credential(
            for: request, origin: fixture.webOrigin, mdoc: mdoc, pki: pki, nonce: Base64.encodeURL([UInt8](repeating: 7, count: 32)))
        let rejected = try await service.post("/v1/web/verify", ["requestId": requestID, "credential": foreign])
        #expect(rejected.body["verdict"] as? String == "rejected", "\(rejected.body)")
        #expect(HostileNetworkSessionTests.check(rejected.body, "web.openid4vp.response")?["status"] as? String == "passed")
        #expect(HostileNetworkSessionTests.check(rejected.body, "mdoc.device.authentication")?["reason"] as? String == "deviceSignatureInvalid")
        for id in ["mdoc.issuer.chain", "mdoc.valueDigests", "mdoc.validity", "web.request.elements"] {
            let check = HostileNetworkSessionTests.check(rejected.body, id)
            #expect(check?["status"] as? String == "skipped", "\(id): \(rejected.body)")
            #expect((check?["details"] as? [String: Any])?["prerequisite"] as? String == "mdoc.device.authentication", "\(id)")
        }
        Self.expectNothingOfThePlaintext(rejected.body, mdoc, "openid4vp")
        let genuine = try OpenID4VPWallet.credential(for: request, origin: fixture.webOrigin, mdoc: mdoc, pki: pki)
        let accepted = try await service.post("/v1/web/verify", ["requestId": requestID, "credential": genuine])
        #expect(accepted.body["verdict"] as? String == "accepted", "\(accepted.body)")

        // Annex C: sealed to the request's key and transcript, device-signed over another transcript.
        let (annexCID, info) = try await HostileNetworkSessionTests.createWebRequest(for: mdoc, fixture: fixture, on: service)
        let other = SessionTranscript.dcapi(encryptionInfoBase64URL: info, origin: "https://other.example")
        let sealed = try fixture.webResponse(encryptionInfo: info, origin: fixture.webOrigin, fixture: mdoc, pki: pki, deviceSignedFor: other)
        let refused = try await service.post("/v1/web/verify", ["requestId": annexCID, "response": sealed.base64URL])
        #expect(refused.body["verdict"] as? String == "rejected", "\(refused.body)")
        #expect(HostileNetworkSessionTests.check(refused.body, "web.envelope.decryption")?["status"] as? String == "passed")
        #expect(HostileNetworkSessionTests.check(refused.body, "mdoc.issuer.chain")?["status"] as? String == "skipped", "\(refused.body)")
        Self.expectNothingOfThePlaintext(refused.body, mdoc, "annex C")
        let good = try fixture.webResponse(encryptionInfo: info, origin: fixture.webOrigin, fixture: mdoc, pki: pki)
        let kept = try await service.post("/v1/web/verify", ["requestId": annexCID, "response": good.base64URL])
        #expect(kept.body["verdict"] as? String == "accepted", "\(kept.body)")
    }

    @Test func whatThePageHoldsCannotBurnARequest() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let service = try await ServiceInstance(arguments: HostileNetworkSessionTests.sqliteArguments(fixture))
        defer { service.stop() }
        let mdoc = HostileNetworkSessionTests.webDocument(), pki = try HostileNetworkSessionTests.webPKI(fixture)
        // An issuer nobody configured: its documents verify as signed, but chain to no trusted root.
        let untrusted = try MdocPKI.longLived()

        // Annex C: a document of the untrusted issuer, device-signed over the request's own transcript and
        // sealed to its public key.
        let (annexCID, info) = try await HostileNetworkSessionTests.createWebRequest(for: mdoc, fixture: fixture, on: service)
        let forged = try fixture.webResponse(encryptionInfo: info, origin: fixture.webOrigin, fixture: mdoc, pki: untrusted)
        let refused = try await service.post("/v1/web/verify", ["requestId": annexCID, "response": forged.base64URL])
        #expect(refused.body["verdict"] as? String == "rejected", "\(refused.body)")
        #expect(HostileNetworkSessionTests.check(refused.body, "mdoc.issuer.chain")?["status"] as? String == "failed", "\(refused.body)")
        let nonce = HostileNetworkSessionTests.check(refused.body, "replay.nonce")
        #expect(nonce?["status"] as? String == "skipped", "\(refused.body)")
        let genuine = try fixture.webResponse(encryptionInfo: info, origin: fixture.webOrigin, fixture: mdoc, pki: pki)
        let accepted = try await service.post("/v1/web/verify", ["requestId": annexCID, "response": genuine.base64URL])
        #expect(accepted.body["verdict"] as? String == "accepted", "annex C: \(accepted.body)")

        // OpenID4VP: the same forgery, encrypted to the request's key.
        let (requestID, request) = try await Self.openID4VP(service, fixture, mdoc)
        let forgedVP = try OpenID4VPWallet.credential(for: request, origin: fixture.webOrigin, mdoc: mdoc, pki: untrusted)
        let refusedVP = try await service.post("/v1/web/verify", ["requestId": requestID, "credential": forgedVP])
        #expect(refusedVP.body["verdict"] as? String == "rejected", "\(refusedVP.body)")
        #expect(HostileNetworkSessionTests.check(refusedVP.body, "replay.nonce")?["status"] as? String == "skipped", "\(refusedVP.body)")
        let genuineVP = try OpenID4VPWallet.credential(for: request, origin: fixture.webOrigin, mdoc: mdoc, pki: pki)
        let acceptedVP = try await service.post("/v1/web/verify", ["requestId": requestID, "credential": genuineVP])
        #expect(acceptedVP.body["verdict"] as? String == "accepted", "openid4vp: \(acceptedVP.body)")
        // Used up by the accepted answer: a second submission is a replay.
        let again = try await service.post("/v1/web/verify", ["requestId": requestID, "credential": genuineVP])
        #expect(HostileNetworkSessionTests.check(again.body, "replay.nonce")?["reason"] as? String == "nonceReused", "\(again.body)")
    }
}
