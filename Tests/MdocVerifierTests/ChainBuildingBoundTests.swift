import Crypto
import Foundation
import Mdoc
import Testing
import VerificationCore
import WalletCBOR
import WalletVerifierTestSupport

@testable import MdocVerifier

/// The security review's certificate meshes: certificates that can all sign each other, handed over
/// in x5chain. Path search used to explore width^depth paths (5–9 s for 10–13 KB); now the chain is
/// built from the trust store alone, after the issuer signature, and x5chain is read up to 4
/// certificates.
@Suite struct ChainBuildingBoundTests {
    let transcript = SessionTranscript.appleInApp(
        nonce: Array(repeating: 7, count: 32), merchantID: "m", teamID: "t", recipientKeyHash: Array(repeating: 1, count: 32))
    let time = Date(timeIntervalSince1970: 1_700_000_000 + 3600)

    /// The fastest of three runs, in milliseconds, and the last report.
    func timed(_ body: () async -> VerificationReport) async -> (milliseconds: Double, report: VerificationReport) {
        var best = Double.infinity
        var report: VerificationReport?
        for _ in 0..<3 {
            let start = ContinuousClock.now
            report = await body()
            let elapsed = ContinuousClock.now - start
            best = min(best, Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        }
        return (best, report!)
    }

    @Test(arguments: [(3, 10), (3, 11), (3, 12), (2, 16)])
    func meshesFinishFastWithAFailedCheck(width: Int, depth: Int) async throws {
        let mesh = try CertificateMesh(width: width, depth: depth)
        let trusted = try MdocPKI()
        let pki = MdocPKI(iacaKey: trusted.iacaKey, iaca: trusted.iaca, dsKey: mesh.leafKey, ds: mesh.leaf)
        var fixture = MdocFixture()
        fixture.additionalCertificates = mesh.meshDER
        let bytes = try fixture.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let verifier = MdocVerifier(trustStore: IACATrustStore(certificates: [trusted.iaca]), policy: .iso18013Strict)
        let (milliseconds, report) = await timed { await verifier.verify(deviceResponse: bytes, transcript: transcript, context: .at(time)).report }
        #expect(report.verdict == .rejected)
        #expect(report.check(.mdocIssuerSignature)?.reason == "chainTooLong")
        #expect(report.check(.mdocIssuerChain)?.reason == .prerequisiteFailed)
        #expect(milliseconds < 50, "\(width)×\(depth) mesh: \(milliseconds) ms")
    }

    /// Within the x5chain cap, extra certificates are never path-building candidates: a signer the
    /// IACA did not issue fails, whatever else x5chain holds, and one it issued passes.
    @Test func extraCertificatesAreNotCandidates() async throws {
        let mesh = try CertificateMesh(width: 3, depth: 1)
        let trusted = try MdocPKI()
        let meshSigned = MdocPKI(iacaKey: trusted.iacaKey, iaca: trusted.iaca, dsKey: mesh.leafKey, ds: mesh.leaf)
        var fixture = MdocFixture()
        fixture.additionalCertificates = mesh.meshDER
        let verifier = MdocVerifier(trustStore: IACATrustStore(certificates: [trusted.iaca]), policy: .iso18013Strict)
        let bytes = try fixture.deviceResponse(pki: meshSigned, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let (milliseconds, report) = await timed { await verifier.verify(deviceResponse: bytes, transcript: transcript, context: .at(time)).report }
        #expect(report.check(.mdocIssuerSignature)?.status == .passed)
        let chain = try #require(report.check(.mdocIssuerChain))
        #expect(chain.reason == "untrustedIssuer")
        #expect(chain.message.contains("3 x5chain certificate(s) are not used"))
        #expect(milliseconds < 50)
        // The trusted IACA's own signer with unrelated certificates after it: accepted.
        let good = try fixture.deviceResponse(pki: trusted, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let accepted = await verifier.verify(deviceResponse: good, transcript: transcript, context: .at(time)).report
        #expect(accepted.check(.mdocIssuerChain)?.status == .passed, "\(accepted.failures.map(\.message))")
    }
}
