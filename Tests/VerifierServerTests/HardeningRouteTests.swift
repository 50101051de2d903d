import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Mdoc
import Testing
import VerificationCore
import WalletCBOR
import WalletVerifierTestSupport

@testable import VerifierServer

/// Attacks from the security review, through the HTTP API: each gets a clean answer and the service
/// keeps answering.
@Suite struct HardeningRouteTests {
    /// Creates an identity request through the API: its id and nonce.
    static func createIdentityRequest(_ client: some TestClientProtocol, descriptorJSON: String = ServiceFixture.descriptorJSON) async throws -> (
        String, Data
    ) {
        let descriptor = try JSONSerialization.jsonObject(with: Data(descriptorJSON.utf8))
        let created = try await client.execute(
            uri: "/v1/identity/requests", method: .post, headers: RouterTests.jsonHeaders, body: try RouterTests.body(["descriptor": descriptor]))
        let request = try RouterTests.json(created.body)
        let requestID = try #require(request["requestId"] as? String)
        let nonce = try #require((request["nonce"] as? String).flatMap { Data(base64Encoded: $0) })
        return (requestID, nonce)
    }

    /// 20,000 nested tag-24 items in an element value (≈114 KB, under the body limit) used to overflow
    /// the stack of the process while the verified elements were rendered.
    @Test func deepTag24NestingIsAFailedCheckAndTheServiceKeepsAnswering() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.services(fixture)
        let app = VerifierApplication.build(services: services, logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let (requestID, nonce) = try await Self.createIdentityRequest(client)
            var mdoc = MdocFixture()
            mdoc.elements = [MdocFixture.Element(MdocFixture.isoNameSpace, "given_name", try HostileCBOR.nestedTag24Node(levels: 20_000))]
            let envelope = try fixture.identityResponse(nonce: [UInt8](nonce), fixture: mdoc)
            let answer = try await client.execute(
                uri: "/v1/identity/verify", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["requestId": requestID, "encryptedData": Data(envelope).base64EncodedString()]))
            #expect(answer.status == .ok)
            let report = try RouterTests.json(answer.body)
            #expect(report["verdict"] as? String == "rejected")
            let checks = try #require(report["checks"] as? [[String: Any]])
            #expect(checks.contains { $0["id"] as? String == "mdoc.document.structure" && $0["reason"] as? String == "depthLimitExceeded" })
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(health.status == .ok)
        }
    }

    /// The review's certificate mesh (3 × 12) in an identity response's x5chain, and in an Apple Pay
    /// signature: a failed check quickly each, and /healthz answers.
    @Test func certificateMeshesAreRefusedQuickly() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.services(fixture)
        let app = VerifierApplication.build(services: services, logger: Logger(label: "test"))
        let mesh = try CertificateMesh(width: 3, depth: 12)
        try await app.test(.router) { client in
            // The fastest of three submissions (the suite runs tests in parallel on two cores).
            var identityTime = Duration.seconds(60)
            var payTime = Duration.seconds(60)
            for _ in 0..<3 {
                let (requestID, nonce) = try await Self.createIdentityRequest(client)
                var mdoc = MdocFixture()
                mdoc.additionalCertificates = mesh.meshDER
                let pki = MdocPKI(iacaKey: fixture.mdocPKI.iacaKey, iaca: fixture.mdocPKI.iaca, dsKey: mesh.leafKey, ds: mesh.leaf)
                let envelope = try fixture.identityResponse(nonce: [UInt8](nonce), fixture: mdoc, pki: pki)
                let start = ContinuousClock.now
                let answer = try await client.execute(
                    uri: "/v1/identity/verify", method: .post, headers: RouterTests.jsonHeaders,
                    body: try RouterTests.body(["requestId": requestID, "encryptedData": Data(envelope).base64EncodedString()]))
                identityTime = min(identityTime, ContinuousClock.now - start)
                #expect(answer.status == .ok)
                let report = try RouterTests.json(answer.body)
                #expect(report["verdict"] as? String == "rejected")
                #expect(
                    (report["checks"] as? [[String: Any]])?.contains {
                        $0["id"] as? String == "mdoc.issuer.signature" && $0["reason"] as? String == "chainTooLong"
                    } == true)

                var builder = ApplePayTokenBuilder(merchant: fixture.merchant, signingTime: ApplePayFixturePKI.epoch.addingTimeInterval(3600))
                builder.cms = { $0.extraCertificates = mesh.meshDER }
                let token = try JSONSerialization.jsonObject(with: Data(try builder.build().json(asPKPaymentToken: true)))
                let payStart = ContinuousClock.now
                let paid = try await client.execute(
                    uri: "/v1/applepay/decrypt", method: .post, headers: RouterTests.jsonHeaders,
                    body: try RouterTests.body(["token": token, "expect": ["currency": "840", "amount": 1999]]))
                payTime = min(payTime, ContinuousClock.now - payStart)
                #expect(paid.status == .ok)
                #expect(try RouterTests.json(paid.body)["verdict"] as? String == "rejected")
            }
            #expect(identityTime < CertificateMesh.endToEndBound, "\(identityTime)")
            #expect(payTime < CertificateMesh.endToEndBound, "\(payTime)")
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }

    /// Trust scoped to docTypes from flags, the environment (docTypes separated by "|") and the config
    /// file; a root scoped to passports does not vouch for a licence through the API.
    @Test func trustScopedToDocTypes() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let fromEnvironment = try ServerSettings.resolve(
            flags: [:],
            environment: [
                "WALLET_VERIFIER_TRUST_DOCTYPES": "org.iso.23220.photoid.1|org.iso.18013.5.1.mDL=\(fixture.iacaPath),org.iso.23220.photoid.1=/roots"
            ], configFile: nil)
        #expect(
            fromEnvironment.trustDocTypes == ["org.iso.23220.photoid.1|org.iso.18013.5.1.mDL=\(fixture.iacaPath)", "org.iso.23220.photoid.1=/roots"])
        #expect(throws: SettingsError.self) {
            try ServerSettings.resolve(flags: ["trustDocTypes": ["no-equals-sign"]], environment: [:], configFile: nil)
        }
        let config = fixture.directory.appendingPathComponent("config.json").path
        try Data(#"{"trustDocTypes": ["org.iso.23220.photoid.1=\#(fixture.iacaPath)"]}"#.utf8).write(to: URL(fileURLWithPath: config))
        #expect(try ServerSettings.resolve(flags: [:], environment: [:], configFile: config).trustDocTypes.count == 1)

        let flags: ServerSettings.Source = [
            "store": ["memory"], "dataDir": [fixture.directory.appendingPathComponent("data").path],
            "identityKeys": [fixture.identityKeyPath], "merchantId": [fixture.merchantID], "teamId": [fixture.teamID],
            "trustDocTypes": ["org.iso.23220.photoid.1=\(fixture.iacaPath)"],
        ]
        let settings = try ServerSettings.resolve(flags: flags, environment: [:], configFile: nil)
        let services = try await VerifierServices.make(settings: settings, logger: Logger(label: "test"), clock: FixedClock(ServiceFixture.time))
        let app = VerifierApplication.build(services: services, logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let (requestID, nonce) = try await Self.createIdentityRequest(client)
            let envelope = try fixture.identityResponse(nonce: [UInt8](nonce))
            let answer = try await client.execute(
                uri: "/v1/identity/verify", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["requestId": requestID, "encryptedData": Data(envelope).base64EncodedString()]))
            let report = try RouterTests.json(answer.body)
            #expect(report["verdict"] as? String == "rejected")
            #expect(
                (report["checks"] as? [[String: Any]])?.contains {
                    $0["id"] as? String == "mdoc.issuer.chain" && $0["reason"] as? String == "noTrustAnchor"
                } == true)
        }
    }

    /// The same nesting through the web flow (POST /v1/web/verify) and through the page's mdoc form.
    @Test func deepTag24NestingThroughTheWebFlowAndThePage() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.services(fixture)
        var nested = MdocFixture()
        nested.elements = [MdocFixture.Element(MdocFixture.isoNameSpace, "family_name", try HostileCBOR.nestedTag24Node(levels: 20_000))]
        let mdoc = nested
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let created = try RouterTests.json(
                try await client.execute(
                    uri: "/v1/web/requests", method: .post, headers: RouterTests.jsonHeaders,
                    body: try RouterTests.body([
                        "docType": MdocFixture.mDL, "origin": fixture.webOrigin, "elements": ["org.iso.18013.5.1/family_name"],
                    ])
                ).body)
            let argument = try #require(created["navigatorCredentialsGetArgument"] as? [String: Any])
            let first = try #require(((argument["digital"] as? [String: Any])?["requests"] as? [[String: Any]])?.first)
            let encryptionInfo = try #require((first["data"] as? [String: Any])?["encryptionInfo"] as? String)
            let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: encryptionInfo, origin: fixture.webOrigin)
            let plaintext = try mdoc.deviceResponse(pki: fixture.mdocPKI, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
            let response = try DCAPIResponseFixture.encrypt(
                plaintext, encryptionInfoBase64URL: encryptionInfo, origin: fixture.webOrigin, recipientPublicKey: fixture.webKey.publicKey)
            let answer = try await client.execute(
                uri: "/v1/web/verify", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["requestId": created["requestId"] as! String, "response": Data(response).base64EncodedString()]))
            #expect(answer.status == .ok)
            let report = try RouterTests.json(answer.body)
            #expect(
                (report["checks"] as? [[String: Any]])?.contains {
                    $0["id"] as? String == "mdoc.document.structure" && $0["reason"] as? String == "depthLimitExceeded"
                } == true)
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
        }
        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: "AAAA", origin: fixture.webOrigin)
        let deviceResponse = try mdoc.deviceResponse(pki: fixture.mdocPKI, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        try await WebPageSecurityTests.pageApp(services).test(.router) { client in
            let body = WebPageSecurityTests.form([
                "kind": "mdoc", "deviceResponse": Data(deviceResponse).base64EncodedString(),
                "sessionTranscript": Data(transcript.bytes).base64EncodedString(),
                "csrf": WebPageAccess(token: WebPageSecurityTests.token, generated: false).csrfToken,
            ])
            let page = try await client.execute(uri: "/ui/verify", method: .post, headers: WebPageSecurityTests.cookie, body: body)
            #expect(page.status == .ok)
            #expect(String(buffer: page.body).contains("depthLimitExceeded"))
        }
    }
}
