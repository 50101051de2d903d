import Crypto
import Foundation
import MdocVerifier
import Testing
import VerificationCore
import WalletEncoding
import WalletJOSE

@testable import WebIdentity

/// Each OpenID4VP request's own encryption key: derived again, the same, from the web key and the
/// request's identifier; another identifier or web key gives another key; the session record keeps
/// the identifier, and an older record without one still names the web key itself.
@Suite struct OpenID4VPRequestKeyTests {
    let origin = "https://verifier.example"

    @Test func theKeyIsDerivedAgainFromTheWebKeyAndTheIdentifier() {
        let webKey = P256.KeyAgreement.PrivateKey()
        let one = OpenID4VPRequestKey.derive(from: webKey, identifier: "request-1")
        #expect(one.rawRepresentation == OpenID4VPRequestKey.derive(from: webKey, identifier: "request-1").rawRepresentation)
        #expect(one.rawRepresentation != OpenID4VPRequestKey.derive(from: webKey, identifier: "request-2").rawRepresentation)
        #expect(one.rawRepresentation != OpenID4VPRequestKey.derive(from: P256.KeyAgreement.PrivateKey(), identifier: "request-1").rawRepresentation)
        #expect(one.rawRepresentation != webKey.rawRepresentation)
        // A fixed web key gives a fixed request key: the derivation is part of the stored sessions' format.
        let fixed = try! P256.KeyAgreement.PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: 32))
        let derived = OpenID4VPRequestKey.derive(from: fixed, identifier: "AAAAAAAAAAAAAAAAAAAAAAAA")
        let expected = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: [UInt8](repeating: 1, count: 32)), salt: Array("wallet-verifier/openid4vp-request-key/1".utf8),
            info: Array("AAAAAAAAAAAAAAAAAAAAAAAA".utf8) + [0], outputByteCount: 32)
        #expect(derived.rawRepresentation == expected.withUnsafeBytes { Data($0) })
    }

    @Test func theRequestOffersItsOwnKeyAndTheRecordKeepsItsIdentifier() throws {
        let webKey = P256.KeyAgreement.PrivateKey()
        let request = try OpenID4VPRequest(requests: [.photoIDFixture], origin: origin, webKey: webKey, requestKeyID: "req-1")
        let own = OpenID4VPRequestKey.derive(from: webKey, identifier: "req-1")
        #expect(request.session.jwkThumbprint == Base64.encodeURL(JWK(publicKey: own.publicKey).thumbprint))
        #expect(request.session.keyID == request.session.jwkThumbprint)
        #expect(request.session.requestKeyID == "req-1" && request.session.version == 2)
        #expect(!request.data.contains(Base64.encodeURL(JWK(publicKey: webKey.publicKey).thumbprint)))

        // The record round-trips; the verifier finds the request key among rotated web keys, and not without its web key.
        let decoded = try JSONDecoder().decode(OpenID4VPSession.self, from: JSONEncoder().encode(request.session))
        #expect(decoded == request.session)
        let other = P256.KeyAgreement.PrivateKey()
        #expect(OpenID4VPVerifier.requestKey(session: decoded, recipientKeys: [other, webKey])?.rawRepresentation == own.rawRepresentation)
        #expect(OpenID4VPVerifier.requestKey(session: decoded, recipientKeys: [other]) == nil)

        // A record from before request keys (version 1, no identifier) names a configured key itself.
        let legacy = try OpenID4VPRequest(requests: [.photoIDFixture], origin: origin, recipientPublicKey: webKey.publicKey)
        #expect(legacy.session.requestKeyID == nil && legacy.session.version == 1)
        #expect(OpenID4VPVerifier.requestKey(session: legacy.session, recipientKeys: [other, webKey])?.rawRepresentation == webKey.rawRepresentation)
    }

    @Test func aSessionOfferingOpenID4VPNeedsTheWebKeysPrivateHalf() async throws {
        let verifier = WebIdentityVerifier(trustStore: IACATrustStore(), revocation: .off(because: "not under test"))
        let sessions = WebRequestSessions(store: InMemoryReplayStore(), verifier: verifier)
        let webKey = P256.KeyAgreement.PrivateKey()
        await #expect(throws: WebRequestError.self) {
            _ = try await sessions.create(
                request: .photoIDFixture, origin: origin, recipientPublicKey: webKey.publicKey, now: Date(), protocols: [.annexC, .openID4VPUnsigned])
        }
        let created = try await sessions.create(
            request: .photoIDFixture, origin: origin, recipientPublicKey: webKey.publicKey, now: Date(), protocols: [.annexC, .openID4VPUnsigned],
            recipientPrivateKey: webKey)
        let data = try #require(created.openID4VPRequest)
        let own = OpenID4VPRequestKey.derive(from: webKey, identifier: created.requestID)
        #expect(data.contains(Base64.encodeURL(Array(own.publicKey.x963Representation.dropFirst().prefix(32)))))
    }
}
