import ApplePayVerifier
import Foundation
import Testing
import VerificationCore
import WalletVerifierTestSupport

/// The real tokens in TestVectors/applepay. Every Apple leaf has expired: they are verified at
/// their signing time (from the READMEs).
@Suite struct RealTokenTests {
    static let seatgeekSigningTime = RFC3339Time.parse("2014-10-27T19:51:43Z")!
    static let processoutRSASigningTime = RFC3339Time.parse("2017-02-01T21:56:53Z")!
    static let processoutECSigningTime = RFC3339Time.parse("2017-02-01T18:45:06Z")!
    static let seatgeekPlaintext = #"{"applicationPrimaryAccountNumber":"4109370251004320","applicationExpirationDate":"200731","currencyCode":"840","transactionAmount":100,"deviceManufacturerIdentifier":"040010030273","paymentDataType":"3DSecure","paymentData":{"onlinePaymentCryptogram":"Af9x/QwAA/DjmU65oyc1MAABAAA=","eciIndicator":"5"}}"#

    static func seatgeekKeyRing() throws -> MerchantKeyRing {
        let key = try MerchantKey(
            certificateFile: try TestVectors.data("applepay/seatgeek-2014-ec/certificate.pem"),
            privateKeyFile: try TestVectors.data("applepay/seatgeek-2014-ec/private_key.pem")
        )
        return try MerchantKeyRing([key])
    }

    static func verifier(_ ring: MerchantKeyRing, policy: ApplePayPolicy = .production) throws -> ApplePayTokenVerifier {
        try ApplePayTokenVerifier(keyRing: ring, replayStore: InMemoryReplayStore(), policy: policy)
    }

    @Test func seatgeekVerifiesAndDecryptsToTheExactPlaintext() async throws {
        let verifier = try Self.verifier(Self.seatgeekKeyRing())
        let token = try TestVectors.data("applepay/seatgeek-2014-ec/token.json")
        let result = await verifier.verify(token, context: VerificationContext(time: Self.seatgeekSigningTime.addingTimeInterval(60)))
        for check in result.report.checks where check.status != .passed && check.reason != .notApplicable {
            Issue.record("\(check.id): \(check.status) \(check.reason) \(check.message)")
        }
        #expect(result.verdict == .accepted)
        let payment = try #require(result.payment)
        #expect(String(decoding: payment.rawJSON, as: UTF8.self) == Self.seatgeekPlaintext)
        #expect(payment.applicationPrimaryAccountNumber == "4109370251004320")
        #expect(payment.transactionAmount == 100)
        #expect(payment.currencyCode == "840")
        #expect(payment.details.eciIndicator == "5")
        #expect(result.summary?.signingTime == Self.seatgeekSigningTime)
        #expect(result.report.check(.applePaySignatureChain)?.details["rootFingerprint"] == ApplePayTrustAnchor.appleRootCAG3Fingerprint)
    }
}
