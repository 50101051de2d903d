import Foundation
import Testing
import ApplePayVerifier
import VerificationCore
import WalletVerifierTestSupport

/// Attacker-supplied certificates in the CMS never feed path building: at most 4 are read, and only
/// the leaf and the intermediate that issued it are used.
@Suite struct ChainBoundTests {
    @Test(arguments: [(3, 10), (3, 12), (2, 16)])
    func aMeshInTheSignatureIsRefusedQuickly(width: Int, depth: Int) async throws {
        let mesh = try CertificateMesh(width: width, depth: depth)
        var builder = Fixture.builder()
        builder.cms = { $0.extraCertificates = mesh.meshDER }
        let token = try builder.build()
        var best = Double.infinity
        for _ in 0..<3 {
            let start = ContinuousClock.now
            let result = try await Fixture.verify(token)
            let elapsed = ContinuousClock.now - start
            best = min(best, Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            result.expectRejected(.applePaySignatureCMS, .malformedCMS)
            #expect(result.report.check(.applePaySignatureCMS)?.message.contains("at most 4 are read") == true)
        }
        #expect(best < 50, "\(width)×\(depth): \(best) ms")
    }

    @Test func unrelatedCertificatesBesideTheChainAreIgnored() async throws {
        let mesh = try CertificateMesh(width: 2, depth: 1)
        var builder = Fixture.builder()
        builder.cms = { $0.extraCertificates = mesh.meshDER }
        try await Fixture.verify(try builder.build()).expectAccepted()
    }
}
