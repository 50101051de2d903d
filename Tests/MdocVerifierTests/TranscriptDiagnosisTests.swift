import Crypto
import Foundation
import Mdoc
import Testing
import VerificationCore
import WalletCBOR
import WalletVerifierTestSupport

@testable import MdocVerifier

/// A failed device signature names the transcript the device signed, when it is one of the candidates.
@Suite struct TranscriptDiagnosisTests {
    let transcript = SessionTranscript.appleInApp(
        nonce: Array(repeating: 7, count: 32), merchantID: "m", teamID: "t", recipientKeyHash: Array(repeating: 1, count: 32))
    let time = Date(timeIntervalSince1970: 1_700_000_000 + 3600)

    func verify(_ bytes: [UInt8], pki: MdocPKI, explain: Bool = true) async -> VerificationReport {
        let verifier = MdocFlowVerifier(
            mdocVerifier: MdocVerifier(trustStore: IACATrustStore(certificates: [pki.iaca]), policy: .iso18013Strict),
            revocation: .off(because: "not under test"))
        return await verifier.verify(
            deviceResponse: bytes, transcript: transcript, readerKey: nil, context: .at(time), explainDeviceFailures: explain
        )
        .report
    }

    @Test func aDeviceSignatureOverTheTaggedTranscriptIsNamed() async throws {
        let pki = try MdocPKI()
        let bytes = try MdocFixture().deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript.tagWrapped)
        let report = await verify(bytes, pki: pki)
        #expect(report.verdict == .rejected)
        let device = try #require(report.check(.mdocDeviceAuthentication))
        #expect(device.reason == .deviceSignatureInvalid)
        #expect(device.details["transcriptDiagnosis"] == "taggedTranscript")
        #expect(device.message.contains("The device signed the transcript of the given transcript wrapped"))
        // Without the option, the same failure says nothing more.
        let plain = await verify(bytes, pki: pki, explain: false)
        #expect(plain.check(.mdocDeviceAuthentication)?.details["transcriptDiagnosis"] == nil)
        #expect(plain.check(.mdocDeviceAuthentication)?.reason == .deviceSignatureInvalid)
    }

    @Test func anUnrelatedTranscriptGetsNoDiagnosis() async throws {
        let pki = try MdocPKI()
        let other = SessionTranscript.appleInApp(
            nonce: Array(repeating: 8, count: 32), merchantID: "m", teamID: "t", recipientKeyHash: Array(repeating: 1, count: 32))
        let bytes = try MdocFixture().deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: other)
        let report = await verify(bytes, pki: pki)
        let device = try #require(report.check(.mdocDeviceAuthentication))
        #expect(device.reason == .deviceSignatureInvalid)
        #expect(device.details["transcriptDiagnosis"] == nil)
        #expect(!device.message.contains("The device signed the transcript of"))
    }

    @Test func aVerifiedResponseIsReportedAsWithoutCandidates() async throws {
        let pki = try MdocPKI()
        let bytes = try MdocFixture().deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let explained = await verify(bytes, pki: pki)
        let plain = await verify(bytes, pki: pki, explain: false)
        #expect(explained.check(.mdocDeviceAuthentication)?.status == .passed)
        #expect(explained.checks == plain.checks)
    }

    @Test func candidatesAreCappedAtSixteen() async throws {
        let pki = try MdocPKI()
        let key = P256.Signing.PrivateKey()
        let many = (0..<40).map { index in
            TranscriptCandidate(
                label: "c\(index)", description: "candidate \(index)", fix: "none",
                transcript: .appleInApp(nonce: [UInt8(index)], merchantID: "m", teamID: "t", recipientKeyHash: [1]))
        }
        #expect(TranscriptDiagnosis.bounded(many).count == TranscriptDiagnosis.maxCandidates)
        #expect(TranscriptDiagnosis.bounded(many + many).map(\.label) == many.prefix(16).map(\.label))
        // A candidate past the cap is never tried, even when it is the one signed; one within it is named.
        let composition = MdocPresentationVerifier(
            mdocVerifier: MdocVerifier(trustStore: IACATrustStore(certificates: [pki.iaca]), policy: .iso18013Strict),
            revocation: .off(because: "not under test"))
        for (signed, expected) in [(20, nil), (3, "c3")] as [(Int, String?)] {
            let bytes = try MdocFixture().deviceResponse(pki: pki, deviceKey: key, transcript: many[signed].transcript)
            var runner = CheckRunner(policy: MdocVerificationPolicy.iso18013Strict.requirements, context: .at(time))
            _ = await composition.verify(
                deviceResponse: bytes, transcript: transcript, readerKey: nil, expectations: MdocPresentationExpectations(), runner: &runner,
                flow: "mdoc", transcriptCandidates: many)
            let device = try #require(runner.report(flow: "mdoc").check(.mdocDeviceAuthentication))
            #expect(device.reason == .deviceSignatureInvalid)
            #expect(device.details["transcriptDiagnosis"] == expected)
        }
    }
}
