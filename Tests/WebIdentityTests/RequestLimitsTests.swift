import Crypto
import Foundation
import MdocVerifier
import Testing
import VerificationCore
import WalletVerifierTestSupport

@testable import WebIdentity

/// What one web request may ask for and store (``RequestLimits``), and the data identifier form of
/// the names it carries (``DataIdentifier``).
@Suite struct RequestLimitsTests {
    let time = Date(timeIntervalSince1970: 1_700_000_000)

    /// The largest request the default limits let through: 64 elements whose namespaces and
    /// identifiers are 128 characters that JSON escapes (`\` and `"`, two bytes each), a 128-character
    /// docType of them, the longest origin, and every protocol offered, the OpenID4VP one signed with
    /// the longest DNS client identifier.
    static func maximalRequest(elements count: Int = RequestLimits.defaultMaxElements) -> WebDocumentRequest {
        let elements = (0..<count).map { index in
            WebDocumentRequest.Element(
                nameSpace: String(format: "%03d", index) + String(repeating: "\\", count: 125), identifier: String(repeating: "\"", count: 128))
        }
        return WebDocumentRequest(docType: String(repeating: "\\", count: DataIdentifier.maxLength), elements: elements)
    }

    static let longestOrigin = "https://" + (0..<7).map { _ in String(repeating: "a", count: 63) }.joined(separator: ".") + ":65535"

    func sessions(_ limits: RequestLimits = .standard) -> WebRequestSessions {
        let verifier = WebIdentityVerifier(trustStore: .init(), policy: .passport, revocation: .off(because: "not under test"))
        return WebRequestSessions(store: InMemoryReplayStore(), verifier: verifier, limits: limits)
    }

    func storedSize(_ sessions: WebRequestSessions, _ request: WebDocumentRequest, signer: OpenID4VPRequestSigner) async throws -> Int {
        let webKey = P256.KeyAgreement.PrivateKey()
        let created = try await sessions.create(
            request: request, origin: Self.longestOrigin, recipientPublicKey: webKey.publicKey, now: time,
            protocols: [.annexC, .openID4VPSigned], requestSigner: signer, recipientPrivateKey: webKey)
        guard case .outstanding(let bytes) = try await sessions.store.lookupNonce(created.requestID, now: time, idempotency: nil) else {
            Issue.record("the session was not stored")
            return 0
        }
        return bytes.count
    }

    @Test func theLargestRequestTheDefaultsAllowStoresWellUnderTheSessionCap() async throws {
        let dns = (0..<4).map { _ in String(repeating: "r", count: 62) }.joined(separator: ".")
        let (key, chain) = try OpenID4VPTests.signingChain(dnsNames: [dns])
        let signer = try OpenID4VPRequestSigner(key: key, certificates: chain, clientIDPrefix: .x509SanDNS(nil))
        #expect(signer.clientID.count > 250)
        let size = try await storedSize(sessions(), Self.maximalRequest(), signer: signer)
        // About 75 KB: the cap leaves more than a third of it free.
        #expect(size > 60_000 && size * 3 / 2 <= RequestLimits.defaultMaxSessionBytes, "\(size) bytes")

        // The size is known before anything is signed, to the byte: a cap of exactly the size
        // lets the request through, one byte less refuses it.
        let exact = try await storedSize(sessions(RequestLimits(maxSessionBytes: size)), Self.maximalRequest(), signer: signer)
        #expect(exact == size)
        do {
            _ = try await storedSize(sessions(RequestLimits(maxSessionBytes: size - 1)), Self.maximalRequest(), signer: signer)
            Issue.record("a session one byte over the cap was stored")
        } catch let error as WebRequestError {
            #expect(error.code == .requestTooLarge && error.message.contains("\(size - 1)"), "\(error)")
        }
    }

    @Test func moreElementsThanTheCapAreRefused() async throws {
        let (key, chain) = try OpenID4VPTests.signingChain(dnsNames: ["rp.example"])
        let signer = try OpenID4VPRequestSigner(key: key, certificates: chain, clientIDPrefix: .x509SanDNS(nil))
        do {
            _ = try await storedSize(sessions(), Self.maximalRequest(elements: 65), signer: signer)
            Issue.record("65 elements were stored")
        } catch let error as WebRequestError {
            #expect(error.code == .requestTooLarge && error.message.contains("64"), "\(error)")
        }
    }

    @Test func anAllowListRefusesOtherDocTypes() async throws {
        var sessions = sessions()
        sessions.allowedDocTypes = ["org.iso.18013.5.1.mDL"]
        let request = WebDocumentRequest(docType: "org.iso.23220.photoid.1", elements: [.init(nameSpace: "org.iso.23220.1", identifier: "sex")])
        await #expect(throws: WebRequestError.self) {
            try await sessions.create(
                request: request, origin: "https://rp.example", recipientPublicKey: P256.KeyAgreement.PrivateKey().publicKey, now: time)
        }
    }

    @Test func dataIdentifiersArePrintableASCIIUpTo128Characters() {
        for good in ["org.iso.18013.5.1.mDL", "age_over_21", "!", "~", String(repeating: "a", count: 128), "a\"b\\c"] {
            #expect(DataIdentifier.isValid(good), "\(good)")
        }
        let bad = [
            "", " ", "age over", "age\u{7F}", "age\u{1}", "mDL\u{202E}", "given\u{200B}name", "nom\u{00E9}", "\u{FEFF}x", "x\u{2060}",
            String(repeating: "a", count: 129), "ａｇｅ",
        ]
        for text in bad { #expect(!DataIdentifier.isValid(text), "\(text.unicodeScalars.map(\.value))") }
        #expect(throws: WebRequestError.self) {
            try WebDocumentRequest(docType: "org.iso.18013.5.1.mDL", elements: [.init(nameSpace: "org.iso.18013.5.1", identifier: "family\u{202E}")])
                .validate()
        }
    }
}
