import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Mdoc
import Testing
import VerificationCore
@testable import VerifierServer
import WalletCBOR
import WalletVerifierTestSupport

/// The web flow (ISO/IEC 18013-7 Annex C) through the service: create a request, answer it as a
/// wallet would (HPKE to the service's key, transcript from the request), verify once.
@Suite struct WebRouteTests {
    @Test func webRequestThenVerifyOnce() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.services(fixture)
        let app = VerifierApplication.build(services: services, logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let origin = "https://shop.example"
            let created = try await client.execute(uri: "/v1/web/requests", method: .post, headers: RouterTests.jsonHeaders,
                                                   body: try RouterTests.body(["docType": MdocFixture.mDL, "origin": origin,
                                                                               "elements": ["org.iso.18013.5.1/family_name", "org.iso.18013.5.1/age_over_21"]]))
            #expect(created.status == .created, "\(String(buffer: created.body))")
            let request = try RouterTests.json(created.body)
            let requestID = try #require(request["requestId"] as? String)
            let argument = try #require(request["navigatorCredentialsGetArgument"] as? [String: Any])
            let digital = try #require(argument["digital"] as? [String: Any])
            let first = try #require((digital["requests"] as? [[String: Any]])?.first)
            #expect(first["protocol"] as? String == "org-iso-mdoc")
            let encryptionInfo = try #require((first["data"] as? [String: Any])?["encryptionInfo"] as? String)

            // The wallet's side.
            let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: encryptionInfo, origin: origin)
            var mdoc = MdocFixture()
            mdoc.elements = [.init(MdocFixture.isoNameSpace, "family_name", .text("Mustermann")), .init(MdocFixture.isoNameSpace, "age_over_21", .bool(true))]
            let deviceResponse = try mdoc.deviceResponse(pki: fixture.mdocPKI, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
            let suite = HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_128)
            var sender = try HPKE.Sender(recipientKey: fixture.identityKey.publicKey, ciphersuite: suite, info: Data(transcript.bytes))
            let cipherText = try sender.seal(deviceResponse, authenticating: Data())
            let encrypted = CBORNode.array([.text("dcapi"), try .map(["enc": .bytes(sender.encapsulatedKey), "cipherText": .bytes(cipherText)])])
            let response = Data(encrypted.encodedBytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let credential: [String: Any] = ["protocol": "org-iso-mdoc", "data": ["response": response]]

            let verified = try await client.execute(uri: "/v1/web/verify", method: .post, headers: RouterTests.jsonHeaders,
                                                    body: try RouterTests.body(["requestId": requestID, "credential": credential]))
            #expect(verified.status == .ok)
            let report = try RouterTests.json(verified.body)
            #expect(report["verdict"] as? String == "accepted", "\(String(buffer: verified.body))")
            let again = try await client.execute(uri: "/v1/web/verify", method: .post, headers: RouterTests.jsonHeaders,
                                                 body: try RouterTests.body(["requestId": requestID, "response": response]))
            #expect(try RouterTests.json(again.body)["verdict"] as? String == "rejected")

            let bad = try await client.execute(uri: "/v1/web/requests", method: .post, headers: RouterTests.jsonHeaders,
                                               body: try RouterTests.body(["docType": MdocFixture.mDL, "origin": "shop.example", "elements": ["x"]]))
            #expect(bad.status == .badRequest)
            // Input the request builder refuses (the same element twice) is a 400, not a store failure.
            let duplicate = try await client.execute(uri: "/v1/web/requests", method: .post, headers: RouterTests.jsonHeaders,
                                                     body: try RouterTests.body(["docType": MdocFixture.mDL, "origin": origin,
                                                                                 "elements": ["org.iso.18013.5.1/family_name", "org.iso.18013.5.1/family_name"]]))
            #expect(duplicate.status == .badRequest, "\(String(buffer: duplicate.body))")
        }
    }
}
