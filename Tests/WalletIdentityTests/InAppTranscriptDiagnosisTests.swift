import Crypto
import Foundation
import Mdoc
import MdocVerifier
import Testing
import VerificationCore
import WalletVerifierTestSupport

@testable import WalletIdentity

/// An in-app response whose device signature is over another configured merchant's transcript names it.
@Suite struct InAppTranscriptDiagnosisTests {
    @Test func aDeviceSignatureForAnotherConfiguredMerchantIsNamed() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let nonce = Array(repeating: UInt8(9), count: 32)
        let other = (merchantID: "merchant.com.example.second", teamID: "TEAMSECOND")
        let signedFor = IdentityEnvelopeFixture.transcript(
            nonce: nonce, merchantID: other.merchantID, teamID: other.teamID, recipient: fixture.identityKey.publicKey)
        let response = try MdocFixture().deviceResponse(pki: fixture.mdocPKI, deviceKey: P256.Signing.PrivateKey(), transcript: signedFor)
        let envelope = try IdentityEnvelopeFixture().envelope(
            deviceResponse: response, recipient: fixture.identityKey.publicKey, nonce: nonce, merchantID: fixture.merchantID,
            teamID: fixture.teamID)
        var verifier = AppleIdentityVerifier(
            keyRing: IdentityKeyRing([fixture.identityKey]), merchantID: fixture.merchantID, teamID: fixture.teamID,
            trustStore: IACATrustStore(certificates: [fixture.mdocPKI.iaca]), revocation: .off(because: "not under test"))
        verifier.otherMerchants = [other]
        let plain = await verifier.verify(encryptedData: envelope, nonce: nonce, context: .at(ServiceFixture.time)).report
        #expect(plain.check(.identityEnvelopeDecryption)?.status == .passed)
        #expect(plain.check(.mdocDeviceAuthentication)?.reason == .deviceSignatureInvalid)
        #expect(plain.check(.mdocDeviceAuthentication)?.details["transcriptDiagnosis"] == nil)
        verifier.explainDeviceFailures = true
        let report = await verifier.verify(encryptedData: envelope, nonce: nonce, context: .at(ServiceFixture.time)).report
        #expect(report.verdict == .rejected)
        let device = try #require(report.check(.mdocDeviceAuthentication))
        #expect(device.reason == .deviceSignatureInvalid)
        #expect(device.details["transcriptDiagnosis"] == "otherMerchant", "\(device.message)")
        #expect(device.message.contains(other.merchantID))
    }
}
