import Crypto
import Foundation
import Testing
import VerificationCore
import WalletEncoding
import WalletJOSE
import WalletVerifierTestSupport
import X509

@testable import WebIdentity

/// The wallet's checks of a signed OpenID4VP request object: the signature with the `x5c` leaf, the
/// `client_id` naming that leaf, `expected_origins` holding the page's origin.
@Suite struct OpenID4VPSignedRequestVerifierTests {
    let origin = "https://verifier.example"

    func signedRequest(_ signer: OpenID4VPRequestSigner, origin: String? = nil) throws -> String {
        let request = try OpenID4VPRequest(
            requests: [.photoIDFixture], origin: origin ?? self.origin, recipientPublicKey: P256.KeyAgreement.PrivateKey().publicKey, signer: signer)
        let data = try #require(try JSONSerialization.jsonObject(with: Data(request.data.utf8)) as? [String: Any])
        return try #require(data["request"] as? String)
    }

    @Test func aRequestTheServiceSignsVerifies() throws {
        let (key, chain) = try OpenID4VPTests.signingChain(dnsNames: ["rp.example"])
        for prefix in [OpenID4VPRequestSigner.ClientIDPrefix.x509SanDNS(nil), .x509Hash] {
            let signer = try OpenID4VPRequestSigner(key: key, certificates: chain, clientIDPrefix: prefix)
            let verified = try OpenID4VPSignedRequestVerifier.verify(jws: try signedRequest(signer), origins: [origin])
            #expect(verified.clientID == signer.clientID)
            #expect(verified.expectedOrigins == [origin])
        }
    }

    @Test func anotherOriginIsRefused() throws {
        let (key, chain) = try OpenID4VPTests.signingChain(dnsNames: ["rp.example"])
        let signer = try OpenID4VPRequestSigner(key: key, certificates: chain, clientIDPrefix: .x509SanDNS(nil))
        let error = #expect(throws: WebRequestError.self) {
            try OpenID4VPSignedRequestVerifier.verify(jws: try signedRequest(signer), origins: [origin, "https://other.example"])
        }
        #expect(error?.message.contains("https://other.example") == true)
    }

    @Test func aSignatureByAnotherKeyOrAClientIDOfAnotherLeafIsRefused() throws {
        let (key, chain) = try OpenID4VPTests.signingChain(dnsNames: ["rp.example"])
        let signer = try OpenID4VPRequestSigner(key: key, certificates: chain, clientIDPrefix: .x509SanDNS(nil))
        let jws = try signedRequest(signer)
        let parts = jws.split(separator: ".").map(String.init)

        // The same header and payload signed by a key that is not the x5c leaf's.
        let otherKey = P256.Signing.PrivateKey()
        let signature = try otherKey.signature(for: Array((parts[0] + "." + parts[1]).utf8))
        let forged = parts[0] + "." + parts[1] + "." + Base64.encodeURL(signature.rawRepresentation)
        let badSignature = #expect(throws: WebRequestError.self) { try OpenID4VPSignedRequestVerifier.verify(jws: forged, origins: [origin]) }
        #expect(badSignature?.message.contains("does not verify") == true)

        // A leaf whose DNS names do not include the client_id's, signing a request naming rp.example.
        let (otherLeafKey, otherChain) = try OpenID4VPTests.signingChain(dnsNames: ["elsewhere.example"])
        let payload = try #require(Base64.decodeURL(parts[1]))
        let mislabelled = try JWS.signES256(
            payload: payload, key: otherLeafKey, type: "oauth-authz-req+jwt", x5c: otherChain.map(ReaderPKI.der))
        let wrongName = #expect(throws: WebRequestError.self) { try OpenID4VPSignedRequestVerifier.verify(jws: mislabelled, origins: [origin]) }
        #expect(wrongName?.message.contains("x509_san_dns:rp.example") == true)

        // Another typ.
        let untyped = try JWS.signES256(payload: payload, key: key, x5c: signer.chain)
        #expect(throws: WebRequestError.self) { try OpenID4VPSignedRequestVerifier.verify(jws: untyped, origins: [origin]) }
    }
}
