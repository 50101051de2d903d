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
import WebIdentity

@testable import VerifierServer

/// The security review's attacks at full size through every verification route (HardeningRouteTests
/// has the first cut): 10⁵ nested tag-24 items through the in-app, web and terminal routes, the
/// meshes through `/v1/mdoc/verify`, and an under-age answer through `/v1/identity/verify`.
@Suite struct EntryPointHardeningRouteTests {
    static let levels = 100_000

    /// The service with a body limit that lets 10⁵ levels through (≈0.8 MB in base64), so the
    /// nesting itself is what gets refused, not the size.
    static func services(_ fixture: ServiceFixture) async throws -> VerifierServices {
        try await APIHygieneTests.services(fixture) { $0.bodyLimit = 4 * 1_048_576 }
    }

    static func failed(_ report: [String: Any]) -> [String] {
        ((report["checks"] as? [[String: Any]]) ?? []).compactMap { check in
            (check["status"] as? String) == "failed" ? "\(check["id"] as? String ?? "")/\(check["reason"] as? String ?? "")" : nil
        }
    }

    @Test func deepNestingThroughEveryVerificationRoute() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await Self.services(fixture), logger: Logger(label: "test"))
        var mdoc = MdocFixture()
        mdoc.elements = [MdocFixture.Element(MdocFixture.isoNameSpace, "family_name", try HostileCBOR.nestedTag24Node(levels: Self.levels))]
        let nested = mdoc
        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: "AAAA", origin: fixture.webOrigin)
        let terminal = try RouterTests.body([
            "deviceResponse": Data(try nested.deviceResponse(pki: fixture.mdocPKI, deviceKey: P256.Signing.PrivateKey(), transcript: transcript))
                .base64EncodedString(),
            "sessionTranscript": Data(transcript.bytes).base64EncodedString(),
        ])
        try await app.test(.router) { client in
            // In-app.
            let (requestID, nonce) = try await HardeningRouteTests.createIdentityRequest(client)
            let envelope = try fixture.identityResponse(nonce: [UInt8](nonce), fixture: nested)
            let identity = try await client.execute(
                uri: "/v1/identity/verify", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["requestId": requestID, "encryptedData": Data(envelope).base64EncodedString()]))
            #expect(identity.status == .ok)
            #expect(Self.failed(try RouterTests.json(identity.body)).contains("mdoc.document.structure/depthLimitExceeded"))

            // Web.
            let created = try await client.execute(
                uri: "/v1/web/requests", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["docType": MdocFixture.mDL, "origin": fixture.webOrigin, "elements": ["org.iso.18013.5.1/family_name"]]))
            let request = try RouterTests.json(created.body)
            let webID = try #require(request["requestId"] as? String)
            let argument = try #require(request["navigatorCredentialsGetArgument"] as? [String: Any])
            let first = try #require(((argument["digital"] as? [String: Any])?["requests"] as? [[String: Any]])?.first)
            let encryptionInfo = try #require((first["data"] as? [String: Any])?["encryptionInfo"] as? String)
            let response = try fixture.webResponse(encryptionInfo: encryptionInfo, origin: fixture.webOrigin, fixture: nested).base64URL
            let web = try await client.execute(
                uri: "/v1/web/verify", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["requestId": webID, "response": response]))
            #expect(web.status == .ok)
            #expect(Self.failed(try RouterTests.json(web.body)).contains("mdoc.document.structure/depthLimitExceeded"))

            // Terminal input.
            let answer = try await client.execute(uri: "/v1/mdoc/verify", method: .post, headers: RouterTests.jsonHeaders, body: terminal)
            #expect(answer.status == .ok)
            #expect(Self.failed(try RouterTests.json(answer.body)).contains("mdoc.document.structure/depthLimitExceeded"))

            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }

    /// The review's meshes in the x5chain of terminal input: a failed check, quickly, and /healthz answers.
    @Test(arguments: [(3, 12), (2, 16)])
    func meshesThroughTheTerminalRoute(width: Int, depth: Int) async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await RouterTests.services(fixture), logger: Logger(label: "test"))
        let mesh = try CertificateMesh(width: width, depth: depth)
        var mdoc = MdocFixture()
        mdoc.additionalCertificates = mesh.meshDER
        let pki = MdocPKI(iacaKey: fixture.mdocPKI.iacaKey, iaca: fixture.mdocPKI.iaca, dsKey: mesh.leafKey, ds: mesh.leaf)
        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: "AAAA", origin: fixture.webOrigin)
        let body = try RouterTests.body([
            "deviceResponse": Data(try mdoc.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript))
                .base64EncodedString(),
            "sessionTranscript": Data(transcript.bytes).base64EncodedString(),
        ])
        try await app.test(.router) { client in
            var fastest = Duration.seconds(60)
            for _ in 0..<3 {
                let start = ContinuousClock.now
                let answer = try await client.execute(uri: "/v1/mdoc/verify", method: .post, headers: RouterTests.jsonHeaders, body: body)
                fastest = min(fastest, ContinuousClock.now - start)
                #expect(answer.status == .ok)
                let report = try RouterTests.json(answer.body)
                #expect(report["verdict"] as? String == "rejected")
                #expect(Self.failed(report).contains("mdoc.issuer.signature/chainTooLong"), "\(Self.failed(report))")
            }
            #expect(fastest < CertificateMesh.endToEndBound, "\(width)×\(depth): \(fastest)")
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
        }
    }

    /// age(atLeast: 21) answered "no": rejected with ageBelowMinimum; no claims in the answer.
    @Test func anUnderAgeAnswerIsRejected() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await RouterTests.services(fixture), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let (requestID, nonce) = try await HardeningRouteTests.createIdentityRequest(
                client, descriptorJSON: #"{"document":"driversLicense","elements":[{"element":"age","atLeast":21,"intentToStore":"willNotStore"}]}"#)
            var mdoc = MdocFixture()
            mdoc.elements = [MdocFixture.Element(MdocFixture.isoNameSpace, "age_over_21", .bool(false))]
            let envelope = try fixture.identityResponse(nonce: [UInt8](nonce), fixture: mdoc)
            let answer = try await client.execute(
                uri: "/v1/identity/verify", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["requestId": requestID, "encryptedData": Data(envelope).base64EncodedString()]))
            #expect(answer.status == .ok)
            let report = try RouterTests.json(answer.body)
            #expect(report["verdict"] as? String == "rejected")
            #expect(Self.failed(report) == ["identity.request.age/ageBelowMinimum"])
            #expect(report["claims"] == nil)
        }
    }
}
