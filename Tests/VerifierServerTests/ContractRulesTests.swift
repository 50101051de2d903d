import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import WalletVerifierTestSupport

@testable import VerifierServer

/// Rules the OpenAPI document states that the server once did not enforce (found by schemathesis):
/// exactly one of two request forms, the credential's shape, bounded retention days.
@Suite struct ContractRulesTests {
    static let json: HTTPFields = [.contentType: "application/json"]

    func answer(_ client: some TestClientProtocol, _ path: String, _ body: String) async throws -> (HTTPResponse.Status, String) {
        let response = try await client.execute(uri: path, method: .post, headers: Self.json, body: ByteBuffer(string: body))
        return (response.status, String(buffer: response.body))
    }

    @Test func exactlyOneFormAndTheCredentialsShape() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await RouterTests.services(fixture), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            // Apple Pay: both forms together are a 400 naming them, where the token used to win silently.
            let both = try await answer(client, "/v1/applepay/decrypt", #"{"token": {"paymentData": {}}, "paymentData": {}}"#)
            #expect(both.0 == .badRequest)
            #expect(both.1.contains("/token, /paymentData: send exactly one"))
            // Web: credential and response together, a credential that is not the DC API object, one
            // without the protocol, a base64 (not base64url) response inside it: each a 400 naming the member.
            let cases: [(String, String)] = [
                (#"{"requestId": "r", "credential": true, "response": "AAAA"}"#, "/credential, /response: send exactly one"),
                (
                    #"{"requestId": "r", "credential": {"protocol": "org-iso-mdoc", "data": {"response": "AAAA"}}, "response": "AAAA"}"#,
                    "/credential, /response: send exactly one"
                ),
                (#"{"requestId": "r", "credential": true}"#, "/credential: must be the object"),
                (#"{"requestId": "r", "credential": ["dcapi"]}"#, "/credential: must be the object"),
                (#"{"requestId": "r", "credential": {"data": {"response": "AAAA"}}}"#, "/credential/protocol"),
                (#"{"requestId": "r", "credential": {"protocol": "org-iso-mdoc", "data": {"response": "AA+/"}}}"#, "/credential/data/response"),
                (#"{"requestId": "r", "credential": {"protocol": "org-iso-mdoc", "data": {}}}"#, "/credential/data/response"),
                (#"{"requestId": "r", "response": 5}"#, "/response: must be the base64url"),
                (#"{"requestId": "r", "response": "A"}"#, "/response: must be the base64url"),
            ]
            for (body, detail) in cases {
                let (status, text) = try await answer(client, "/v1/web/verify", body)
                #expect(status == .badRequest, "\(body)")
                #expect(text.contains(detail), "\(body): \(text)")
            }
            // A well-formed credential for an unknown request is an answer, not a 400.
            let unknown = try await answer(
                client, "/v1/web/verify", #"{"requestId": "r", "credential": {"protocol": "org-iso-mdoc", "data": {"response": "AAAA"}}}"#)
            #expect(unknown.0 == .ok, "\(unknown.1)")
            // Retention is bounded: at most 36500 days, as the document says.
            for (days, status) in [(36_500, HTTPResponse.Status.created), (36_501, .badRequest)] {
                let body =
                    #"{"descriptor": {"document": "driversLicense", "elements": [{"element": "givenName", "intentToStore": {"mayStoreDays": \#(days)}}]}}"#
                #expect(try await answer(client, "/v1/identity/requests", body).0 == status, "\(days)")
            }
        }
    }

    /// The served document states the rules above, so generated clients and schemathesis see them.
    @Test func theDocumentStatesTheRules() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await RouterTests.services(fixture), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let document = String(buffer: try await client.execute(uri: "/openapi.yaml", method: .get).body)
            for rule in [
                "title: WithToken", "title: WithPaymentData", "title: WithCredential", "title: WithResponse", "uniqueItems: true",
                "protocol: { type: string, enum: [org-iso-mdoc] }", "maximum: 36500", "operationId: verifyWeb", "links:",
            ] {
                #expect(document.contains(rule), "\(rule)")
            }
        }
    }
}
