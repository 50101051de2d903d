import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Mdoc
import MdocVerifier
import Testing
import VerificationCore
import WalletJOSE
import WalletVerifierTestSupport
import WebIdentity

@testable import VerifierServer

/// `serve --explain-device-failures` through `/v1/web/verify`: for a request that offered both web
/// protocols, an answer over one whose device signed the other's transcript, or the web key's own
/// thumbprint, is named; the verdict stays rejected and the request stays open. Without the flag no
/// candidate is tried.
@Suite struct ExplainDeviceFailuresRouteTests {
    func transcriptDiagnosis(_ report: [String: Any]) -> String? {
        (WebOpenID4VPRouteTests.check(report, "mdoc.device.authentication")?["details"] as? [String: Any])?["transcriptDiagnosis"] as? String
    }

    func run(explain: Bool, _ body: @escaping @Sendable (ServiceFixture, any TestClientProtocol) async throws -> Void) async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.services(fixture, extra: explain ? ["explainDeviceFailures": ["true"]] : [:])
        let app = VerifierApplication.build(services: services, logger: Logger(label: "test"))
        try await app.test(.router) { client in try await body(fixture, client) }
    }

    @Test func theOtherProtocolsTranscriptAndTheWebKeysThumbprintAreNamed() async throws {
        try await run(explain: true) { fixture, client in
            let (status, created) = try await WebOpenID4VPRouteTests.create(client, origin: fixture.webOrigin)
            #expect(status == .created, "\(created)")
            let requestID = try #require(created["requestId"] as? String)
            let request = try #require(try OpenID4VPWallet.request(created))
            let info = try #require(OpenID4VPWallet.encryptionInfo(created))
            let openID4VPTranscript = SessionTranscript.openID4VPDigitalCredentials(
                origin: fixture.webOrigin, nonce: request.nonce, jwkThumbprint: request.jwkThumbprint)

            // Annex C answer, device signed the OpenID4VP transcript of the same request.
            let annexC = try fixture.webResponse(
                encryptionInfo: info, origin: fixture.webOrigin, fixture: WebOpenID4VPRouteTests.mdoc(), deviceSignedFor: openID4VPTranscript)
            let (_, first) = try await WebOpenID4VPRouteTests.verify(
                client, ["requestId": requestID, "credential": ["protocol": "org-iso-mdoc", "data": ["response": annexC.base64URL]]])
            #expect(first["verdict"] as? String == "rejected")
            #expect(transcriptDiagnosis(first) == "otherProtocol:openid4vp-v1", "\(first)")
            let message = WebOpenID4VPRouteTests.check(first, "mdoc.device.authentication")?["message"] as? String ?? ""
            #expect(message.contains("The device signed the transcript of the OpenID4VP 1.0 offer of this same request"), "\(message)")
            #expect(!message.contains(request.nonce))

            // OpenID4VP answer, device signed the Annex C transcript: the request is still open.
            let mdoc = WebOpenID4VPRouteTests.mdoc()
            let overAnnexC = try OpenID4VPWallet.credential(
                for: request, origin: fixture.webOrigin, mdoc: mdoc, pki: fixture.webPKI,
                transcript: .dcapi(encryptionInfoBase64URL: info, origin: fixture.webOrigin))
            let (_, second) = try await WebOpenID4VPRouteTests.verify(client, ["requestId": requestID, "credential": overAnnexC])
            #expect(WebOpenID4VPRouteTests.check(second, "web.openid4vp.response")?["status"] as? String == "passed", "\(second)")
            #expect(transcriptDiagnosis(second) == "otherProtocol:org-iso-mdoc", "\(second)")

            // OpenID4VP answer whose handover carries the web key's thumbprint, not the request's own key's.
            let webKeyThumbprint = JWK(publicKey: fixture.webKey.publicKey).thumbprint
            let overWebKey = try OpenID4VPWallet.credential(
                for: request, origin: fixture.webOrigin, mdoc: mdoc, pki: fixture.webPKI,
                transcript: .openID4VPDigitalCredentials(origin: fixture.webOrigin, nonce: request.nonce, jwkThumbprint: webKeyThumbprint))
            let (_, third) = try await WebOpenID4VPRouteTests.verify(client, ["requestId": requestID, "credential": overWebKey])
            #expect(transcriptDiagnosis(third) == "otherKeyThumbprint", "\(third)")
            #expect(third["verdict"] as? String == "rejected")

            // None of them used the request: the genuine answer is accepted.
            let genuine = try OpenID4VPWallet.credential(for: request, origin: fixture.webOrigin, mdoc: mdoc, pki: fixture.webPKI)
            let (_, accepted) = try await WebOpenID4VPRouteTests.verify(client, ["requestId": requestID, "credential": genuine])
            #expect(accepted["verdict"] as? String == "accepted", "\(accepted)")
        }
    }

    @Test func withoutTheFlagNoCandidateIsTried() async throws {
        try await run(explain: false) { fixture, client in
            let (_, created) = try await WebOpenID4VPRouteTests.create(client, origin: fixture.webOrigin)
            let requestID = try #require(created["requestId"] as? String)
            let request = try #require(try OpenID4VPWallet.request(created))
            let info = try #require(OpenID4VPWallet.encryptionInfo(created))
            let slash = try fixture.webResponse(
                encryptionInfo: info, origin: fixture.webOrigin, fixture: WebOpenID4VPRouteTests.mdoc(),
                deviceSignedFor: .dcapi(encryptionInfoBase64URL: info, origin: fixture.webOrigin + "/"))
            let (_, report) = try await WebOpenID4VPRouteTests.verify(
                client, ["requestId": requestID, "credential": ["protocol": "org-iso-mdoc", "data": ["response": slash.base64URL]]])
            #expect(report["verdict"] as? String == "rejected")
            #expect(WebOpenID4VPRouteTests.check(report, "mdoc.device.authentication")?["reason"] as? String == "deviceSignatureInvalid")
            #expect(transcriptDiagnosis(report) == nil, "\(report)")
            let overAnnexC = try OpenID4VPWallet.credential(
                for: request, origin: fixture.webOrigin, mdoc: WebOpenID4VPRouteTests.mdoc(), pki: fixture.webPKI,
                transcript: .dcapi(encryptionInfoBase64URL: info, origin: fixture.webOrigin))
            let (_, second) = try await WebOpenID4VPRouteTests.verify(client, ["requestId": requestID, "credential": overAnnexC])
            #expect(transcriptDiagnosis(second) == nil, "\(second)")
        }
    }

    @Test func theOriginSpelledOtherwiseIsNamedWithTheFlag() async throws {
        try await run(explain: true) { fixture, client in
            let (_, created) = try await WebOpenID4VPRouteTests.create(client, origin: fixture.webOrigin)
            let requestID = try #require(created["requestId"] as? String)
            let info = try #require(OpenID4VPWallet.encryptionInfo(created))
            let slash = try fixture.webResponse(
                encryptionInfo: info, origin: fixture.webOrigin, fixture: WebOpenID4VPRouteTests.mdoc(),
                deviceSignedFor: .dcapi(encryptionInfoBase64URL: info, origin: fixture.webOrigin + "/"))
            let (_, report) = try await WebOpenID4VPRouteTests.verify(
                client, ["requestId": requestID, "credential": ["protocol": "org-iso-mdoc", "data": ["response": slash.base64URL]]])
            #expect(transcriptDiagnosis(report) == "originTrailingSlash", "\(report)")
        }
    }

    /// The operator's page names the transcript whatever the flag says; the API, without the flag, does not.
    @Test func theOperatorsPageAlwaysExplains() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.services(fixture)
        #expect(services.settings.explainDeviceFailures == false)
        /// A new Annex C request and an answer whose device signed the origin with a trailing slash.
        func slashAnswer() async throws -> (requestID: String, answer: (cbor: [UInt8], base64URL: String)) {
            let created = try await services.web.create(
                request: WebDocumentRequest(docType: MdocFixture.mDL, elements: [.init(nameSpace: "org.iso.18013.5.1", identifier: "family_name")]),
                origin: fixture.webOrigin, recipientPublicKey: fixture.webKey.publicKey, now: ServiceFixture.time)
            let info = created.presentation.encryptionInfo.base64URL
            let answer = try fixture.webResponse(
                encryptionInfo: info, origin: fixture.webOrigin, fixture: WebOpenID4VPRouteTests.mdoc(),
                deviceSignedFor: .dcapi(encryptionInfoBase64URL: info, origin: fixture.webOrigin + "/"))
            return (created.requestID, answer)
        }
        let (requestID, slash) = try await slashAnswer()
        let credential = #"{"protocol":"org-iso-mdoc","data":{"response":"\#(slash.base64URL)"}}"#
        let csrf = WebPageAccess(token: WebPageSecurityTests.token, generated: false).csrfToken
        try await WebPageSecurityTests.pageApp(services).test(.router) { client in
            let fields = ["kind": "web", "requestId": requestID, "credential": credential, "csrf": csrf]
            let page = String(
                buffer: try await client.execute(
                    uri: "/ui/verify", method: .post, headers: WebPageSecurityTests.cookie, body: WebPageSecurityTests.form(fields)
                ).body)
            #expect(page.contains(#"data-check="mdoc.device.authentication" data-status="failed""#), "\(page.suffix(3000))")
            #expect(page.contains("The device signed the transcript of the origin with a trailing slash"), "\(page.suffix(3000))")
        }
        // The same kind of answer through the API of the same service: no candidate is tried.
        let again = try await slashAnswer()
        let report = await services.web.verify(
            requestID: again.requestID, credential: .annexC(again.answer.cbor), recipientKeys: services.webKeys, context: .at(ServiceFixture.time)
        ).report
        #expect(report.check(.mdocDeviceAuthentication)?.reason == .deviceSignatureInvalid)
        #expect(report.check(.mdocDeviceAuthentication)?.details["transcriptDiagnosis"] == nil)
    }
}
