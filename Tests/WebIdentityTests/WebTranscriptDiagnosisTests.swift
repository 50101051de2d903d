import Crypto
import Foundation
import Mdoc
import MdocVerifier
import Testing
import VerificationCore
import WalletVerifierTestSupport

@testable import WebIdentity

/// A web answer whose device signature fails names the transcript the wallet signed, when it is a
/// likely mistake (the origin spelled otherwise, another OpenID4VP handover).
@Suite struct WebTranscriptDiagnosisTests {
    let time = Date(timeIntervalSince1970: 1_700_000_000 + 3600)

    func annexC(
        deviceSignedFor: (String, String) -> SessionTranscript, explain: Bool = true, offeredAlongside: [TranscriptCandidate] = []
    ) async throws -> CheckResult {
        let fixture = try ServiceFixture()
        let info = try DCAPIEncryptionInfo(nonce: Array(repeating: 5, count: 16), recipientPublicKey: fixture.webKey.publicKey).base64URL
        let sealed = try fixture.webResponse(
            encryptionInfo: info, origin: fixture.webOrigin, deviceSignedFor: deviceSignedFor(info, fixture.webOrigin))
        var verifier = WebIdentityVerifier(
            trustStore: IACATrustStore(certificates: [fixture.webPKI.iaca]), policy: WebIdentityVerifier.developerPolicy,
            revocation: .off(because: "not under test"))
        verifier.explainDeviceFailures = explain
        let result = await verifier.verify(
            response: sealed.cbor, encryptionInfo: info, origin: fixture.webOrigin, recipientKey: fixture.webKey, context: .at(time),
            offeredAlongside: offeredAlongside)
        #expect(result.report.verdict == .rejected)
        #expect(result.report.check(.webEnvelopeDecryption)?.status == .passed)
        return try #require(result.report.check(.mdocDeviceAuthentication))
    }

    @Test func anAnswerSignedForTheOriginWithATrailingSlashIsNamed() async throws {
        let device = try await annexC { info, origin in .dcapi(encryptionInfoBase64URL: info, origin: origin + "/") }
        #expect(device.reason == .deviceSignatureInvalid)
        #expect(device.details["transcriptDiagnosis"] == "originTrailingSlash", "\(device.message)")
        #expect(device.message.contains("The device signed the transcript of the origin with a trailing slash"))
    }

    @Test func anAnswerSignedForAnotherSchemeIsNamed() async throws {
        let device = try await annexC { info, origin in
            .dcapi(encryptionInfoBase64URL: info, origin: origin.replacingOccurrences(of: "https://", with: "http://"))
        }
        #expect(device.details["transcriptDiagnosis"] == "originScheme", "\(device.message)")
    }

    @Test func anOpenID4VPTranscriptIsNoCandidateOfAnAnnexCRequest() async throws {
        // The Annex C request holds no OpenID4VP nonce: an OpenID4VP transcript is not among its candidates.
        let device = try await annexC { _, origin in .openID4VPDigitalCredentials(origin: origin, nonce: "n", jwkThumbprint: nil) }
        #expect(device.reason == .deviceSignatureInvalid)
        #expect(device.details["transcriptDiagnosis"] == nil)
    }

    @Test func theOpenID4VPTranscriptOfferedBesideIsNamed() async throws {
        // A request that offered OpenID4VP beside Annex C: its OpenID4VP transcript is a candidate.
        let session = try OpenID4VPRequest(
            requests: [.photoIDFixture], origin: "https://verifier.example", recipientPublicKey: P256.KeyAgreement.PrivateKey().publicKey
        ).session
        let device = try await annexC(
            deviceSignedFor: { _, _ in session.sessionTranscript }, offeredAlongside: [WebTranscriptCandidates.openID4VPTranscript(session)])
        #expect(device.details["transcriptDiagnosis"] == "otherProtocol:openid4vp-v1", "\(device.message)")
        #expect(device.message.contains("the OpenID4VP 1.0 offer of this same request"))
        #expect(!device.message.contains(session.nonce))
    }

    @Test func anUnrelatedOriginGetsNoDiagnosisAndTheOptionIsOffByDefault() async throws {
        let unrelated = try await annexC { info, _ in .dcapi(encryptionInfoBase64URL: info, origin: "https://other.example") }
        #expect(unrelated.details["transcriptDiagnosis"] == nil)
        let off = try await annexC(deviceSignedFor: { info, origin in .dcapi(encryptionInfoBase64URL: info, origin: origin + "/") }, explain: false)
        #expect(off.details["transcriptDiagnosis"] == nil)
        #expect(off.reason == .deviceSignatureInvalid)
    }

    @Test func originVariants() {
        let labels = WebTranscriptCandidates.originVariants("https://shop.example").map(\.origin)
        #expect(labels == ["https://shop.example/", "http://shop.example", "https://shop.example:443"])
        #expect(WebTranscriptCandidates.originVariants("https://shop.example:443").map(\.origin).contains("https://shop.example"))
        #expect(
            WebTranscriptCandidates.originVariants("http://localhost:8080").map(\.origin) == ["http://localhost:8080/", "https://localhost:8080"])
    }
}
