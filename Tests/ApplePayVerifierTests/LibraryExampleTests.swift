import ApplePayVerifier
import Foundation
import Testing
import VerificationCore
import WalletVerifierTestSupport

/// README's "As a library" Apple Pay example, run on a fixture: the same calls, with the fixture's
/// merchant files and its trust anchor in place of Apple's root.
@Suite struct ApplePayLibraryExampleTests {
    @Test func theReadmeApplePayExampleRuns() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let tokenJSON = try fixture.applePayToken()
        let anchor = try ApplePayTrustAnchor(fileContents: [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture.applePayRootPath))))

        let certificate = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture.merchantCertificatePath)))
        let privateKey = [UInt8](try Data(contentsOf: URL(fileURLWithPath: fixture.merchantKeyPath)))
        let ring = try MerchantKeyRing([try MerchantKey(certificateFile: certificate, privateKeyFile: privateKey)])
        let verifier = try ApplePayTokenVerifier(keyRing: ring, replayStore: InMemoryReplayStore(), trustAnchor: anchor)
        let result = await verifier.verify(
            tokenJSON, context: .at(ServiceFixture.time),
            expectations: ApplePayExpectations(currencyCode: "840", transactionAmount: 1999))
        var charged = false
        if result.report.verdict == .accepted, result.payment != nil {
            charged = true
        } else {
            for failure in result.report.failures { print(failure.id, failure.reason, failure.message) }
        }
        #expect(charged, "\(result.report.failures.map(\.message))")
        // The same token again is a replay: rejected, and no payment data.
        let again = await verifier.verify(
            tokenJSON, context: .at(ServiceFixture.time), expectations: ApplePayExpectations(currencyCode: "840", transactionAmount: 1999))
        #expect(again.report.verdict == .rejected && again.payment == nil)
        #expect(again.report.failures.contains { $0.id == .replayTransactionId })
    }
}
