import Foundation
import Testing
import WebIdentity

/// What a page (or a file) hands over, told apart by protocol: the credential JSON of either
/// protocol, a compact JWE, or Annex C's base64url or binary CBOR — binary that happens to hold four
/// dots is still CBOR.
@Suite struct WebCredentialTests {
    @Test func submissionsAreToldApart() throws {
        let jwe = "eyJhbGciOiJFQ0RILUVTIn0..AAAA.AAAA.AAAA"
        #expect(try WebCredential.fromSubmission(Array(jwe.utf8)) == .openID4VP(.openID4VPSigned, response: jwe))
        let unsigned = #"{"protocol": "openid4vp-v1-unsigned", "data": {"response": "\#(jwe)"}}"#
        #expect(try WebCredential.fromSubmission(Array(unsigned.utf8)) == .openID4VP(.openID4VPUnsigned, response: jwe))
        // ["dcapi", {"enc": h'2E2E', "cipherText": h'2E2E'}]: four dots, still an EncryptedResponse.
        let cbor: [UInt8] =
            [0x82, 0x65] + Array("dcapi".utf8) + [0xA2, 0x63] + Array("enc".utf8) + [0x42, 0x2E, 0x2E, 0x6A] + Array("cipherText".utf8) + [
                0x42, 0x2E, 0x2E,
            ]
        #expect(try WebCredential.fromSubmission(cbor) == .annexC(cbor))
        #expect(!WebCredential.looksLikeCompactJWE(String(decoding: cbor, as: UTF8.self)))
        let annexC = #"{"protocol": "org-iso-mdoc", "data": {"response": "gmVkY2FwaQ"}}"#
        guard case .annexC = try WebCredential.fromSubmission(Array(annexC.utf8)) else {
            Issue.record("an org-iso-mdoc credential is Annex C")
            return
        }
        #expect(throws: WebRequestError.self) {
            try WebCredential.fromSubmission(Array(#"{"protocol": "openid4vp-v1-signed", "data": {"response": "a.b"}}"#.utf8))
        }
        #expect(throws: WebRequestError.self) {
            try WebCredential(protocol: "openid4vp-v1-multisigned", response: jwe)
        }
    }
}
