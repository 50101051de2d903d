import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import WalletCBOR
@testable import VerifierServer
import WalletVerifierTestSupport

/// Attacks from the security review, through the HTTP API: each gets a clean answer and the service
/// keeps answering.
@Suite struct HardeningRouteTests {
    /// 20,000 nested tag-24 items in an element value (≈114 KB, under the body limit) used to overflow
    /// the stack of the process while the verified elements were rendered.
    @Test func deepTag24NestingIsAFailedCheckAndTheServiceKeepsAnswering() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.services(fixture)
        let app = VerifierApplication.build(services: services, logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let descriptor = try JSONSerialization.jsonObject(with: Data(ServiceFixture.descriptorJSON.utf8))
            let created = try await client.execute(uri: "/v1/identity/requests", method: .post, headers: RouterTests.jsonHeaders, body: try RouterTests.body(["descriptor": descriptor]))
            let request = try RouterTests.json(created.body)
            let requestID = try #require(request["requestId"] as? String)
            let nonce = try #require((request["nonce"] as? String).flatMap { Data(base64Encoded: $0) })
            var mdoc = MdocFixture()
            mdoc.elements = [MdocFixture.Element(MdocFixture.isoNameSpace, "given_name", try HostileCBOR.nestedTag24Node(levels: 20_000))]
            let envelope = try fixture.identityResponse(nonce: [UInt8](nonce), fixture: mdoc)
            let answer = try await client.execute(uri: "/v1/identity/verify", method: .post, headers: RouterTests.jsonHeaders,
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
}
