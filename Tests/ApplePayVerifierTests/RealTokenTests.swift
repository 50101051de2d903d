import ApplePayVerifier
import Crypto
import Foundation
import Testing
import VerificationCore
import WalletEncoding
import WalletVerifierTestSupport

/// The real tokens in TestVectors/applepay. Every Apple leaf has expired: they are verified at
/// their signing time (from the READMEs).
@Suite struct RealTokenTests {
    static let seatgeekSigningTime = RFC3339.parse("2014-10-27T19:51:43Z")!
    static let processoutRSASigningTime = RFC3339.parse("2017-02-01T21:56:53Z")!
    static let processoutECSigningTime = RFC3339.parse("2017-02-01T18:45:06Z")!
    static let seatgeekPlaintext =
        #"{"applicationPrimaryAccountNumber":"4109370251004320","applicationExpirationDate":"200731","currencyCode":"840","transactionAmount":100,"deviceManufacturerIdentifier":"040010030273","paymentDataType":"3DSecure","paymentData":{"onlinePaymentCryptogram":"Af9x/QwAA/DjmU65oyc1MAABAAA=","eciIndicator":"5"}}"#

    static let signatureChecks: [CheckID] = [
        .applePayTokenStructure, .applePaySignatureCMS, .applePaySignatureMarkerOIDs,
        .applePaySignatureCertificateValidity, .applePaySignatureChain, .applePaySignatureContentType,
        .applePaySignatureMessageDigest, .applePaySignatureSigner, .applePaySigningTime,
    ]

    static func seatgeekKey() throws -> MerchantKey {
        try MerchantKey(
            certificateFile: try TestVectors.data("applepay/seatgeek-2014-ec/certificate.pem"),
            privateKeyFile: try TestVectors.data("applepay/seatgeek-2014-ec/private_key.pem")
        )
    }

    static func verifier(_ keys: [MerchantKey], policy: ApplePayPolicy = .production) throws -> ApplePayTokenVerifier {
        try ApplePayTokenVerifier(keyRing: try MerchantKeyRing(keys), replayStore: InMemoryReplayStore(), policy: policy)
    }

    /// What the 2014 token was for (its README's plaintext): 1.00 USD.
    static let seatgeekExpectations = ApplePayExpectations(currencyCode: "840", transactionAmount: 100)

    static func seatgeek(at time: Date, policy: ApplePayPolicy = .production) async throws -> ApplePayResult {
        let verifier = try verifier([seatgeekKey()], policy: policy)
        return await verifier.verify(
            try TestVectors.data("applepay/seatgeek-2014-ec/token.json"), context: VerificationContext(time: time), expectations: seatgeekExpectations
        )
    }

    @Test func seatgeekVerifiesAndDecryptsToTheExactPlaintext() async throws {
        let result = try await Self.seatgeek(at: Self.seatgeekSigningTime.addingTimeInterval(60))
        for check in result.report.checks where check.status != .passed && check.reason != .notApplicable {
            Issue.record("\(check.id): \(check.status) \(check.reason) \(check.message)")
        }
        #expect(result.verdict == .accepted)
        let payment = try #require(result.payment)
        #expect(String(decoding: payment.rawJSON, as: UTF8.self) == Self.seatgeekPlaintext)
        #expect(payment.applicationPrimaryAccountNumber == "4109370251004320")
        #expect(payment.applicationExpirationDate == "200731")
        #expect(payment.transactionAmount == 100)
        #expect(payment.currencyCode == "840")
        #expect(payment.deviceManufacturerIdentifier == "040010030273")
        #expect(payment.paymentDataType == "3DSecure")
        #expect(payment.details.onlinePaymentCryptogram == "Af9x/QwAA/DjmU65oyc1MAABAAA=")
        #expect(payment.details.eciIndicator == "5")
        #expect(result.summary?.signingTime == Self.seatgeekSigningTime)
        #expect(result.summary?.transactionId == "2686f5297f123ec7fd9d31074d43d201953ca75f098890375f13aed2737d92f2")
        #expect(result.report.check(.applePaySignatureChain)?.details["rootFingerprint"] == ApplePayTrustAnchor.appleRootCAG3Fingerprint)
        #expect(result.report.warnings.isEmpty)
        // Every check is in the report, in order.
        #expect(result.report.checks.map(\.id) == CheckID.applePayChecks)
    }

    @Test func seatgeekMerchantKeyFacts() throws {
        let key = try Self.seatgeekKey()
        #expect(key.publicKeyHash == "LbsUwAT6w1JV9tFXocU813TCHks+LSuFF0R/eBkrWnQ=")
        #expect(key.merchantIdentifierSource == "OID 1.2.840.113635.100.6.32")
        // The caller's merchant id must agree with the certificate's.
        _ = try MerchantKey(
            certificateFile: try TestVectors.data("applepay/seatgeek-2014-ec/certificate.pem"),
            privateKeyFile: try TestVectors.data("applepay/seatgeek-2014-ec/private_key.pem"),
            merchantIdentifier: "merchant.com.seatgeek.SeatGeek"
        )
        #expect(throws: MerchantKeyError(.merchantIdentifierMismatch, "")) {
            try MerchantKey(
                certificateFile: try TestVectors.data("applepay/seatgeek-2014-ec/certificate.pem"),
                privateKeyFile: try TestVectors.data("applepay/seatgeek-2014-ec/private_key.pem"),
                merchantIdentifier: "merchant.com.other"
            )
        }
        #expect(!key.description.contains("3aab"))
    }

    /// The README's derived symmetric key, from ECDH + the NIST KDF.
    @Test func seatgeekKDFGivesTheDocumentedSymmetricKey() throws {
        let pem = try TestVectors.text("applepay/seatgeek-2014-ec/private_key.pem")
        let privateKey = try P256.KeyAgreement.PrivateKey(pemRepresentation: pem)
        let token = try JSONSerialization.jsonObject(with: Data(try TestVectors.data("applepay/seatgeek-2014-ec/token.json"))) as! [String: Any]
        let header = token["header"] as! [String: String]
        let ephemeral = try P256.KeyAgreement.PublicKey(derRepresentation: Data(base64Encoded: header["ephemeralPublicKey"]!)!)
        let shared = try privateKey.sharedSecretFromKeyAgreement(with: ephemeral)
        let key = ApplePayDecryption.deriveSymmetricKey(
            sharedSecret: shared, merchantIdentifierHash: Array(SHA256.hash(data: Array("merchant.com.seatgeek.SeatGeek".utf8))))
        let hex = key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
        #expect(hex == "1ce49a828f59d43861ba442fce6829b8218fbb0ab55b40206ac31058d66f5086")
    }

    @Test func seatgeekJustInsideAndOutsideTheWindow() async throws {
        let inside = try await Self.seatgeek(at: Self.seatgeekSigningTime.addingTimeInterval(299))
        #expect(inside.verdict == .accepted)
        let edge = try await Self.seatgeek(at: Self.seatgeekSigningTime.addingTimeInterval(300))
        #expect(edge.verdict == .accepted)
        let outside = try await Self.seatgeek(at: Self.seatgeekSigningTime.addingTimeInterval(301))
        #expect(outside.verdict == .rejected)
        #expect(outside.payment == nil)
        let check = try #require(outside.report.check(.applePaySigningTime))
        #expect(check.status == .failed)
        #expect(check.reason == .signingTimeTooOld)
        #expect(check.message.contains("2014-10-27T19:51:43Z"))
        // The certificates are still valid: a different check, not failed.
        #expect(outside.report.check(.applePaySignatureCertificateValidity)?.status == .passed)
        #expect(outside.report.check(.applePaySignatureSigner)?.status == .passed)
        #expect(outside.report.check(.applePayDecryption)?.reason == .prerequisiteFailed)
    }

    /// halturin's cases: 1 h window at +1 h accepts; signing time itself with a zero window accepts.
    @Test func seatgeekWithCustomWindows() async throws {
        let hour = try await Self.seatgeek(
            at: Self.seatgeekSigningTime.addingTimeInterval(3600), policy: ApplePayPolicy(maximumSigningAge: .seconds(3600)))
        #expect(hour.verdict == .accepted)
        let zero = try await Self.seatgeek(at: Self.seatgeekSigningTime, policy: ApplePayPolicy(maximumSigningAge: .seconds(0)))
        #expect(zero.verdict == .accepted)
    }

    @Test func seatgeekBeforeSigningIsRejectedAsFutureDated() async throws {
        let result = try await Self.seatgeek(at: RFC3339.parse("2014-10-27T19:49:00Z")!)
        #expect(result.verdict == .rejected)
        #expect(result.report.check(.applePaySigningTime)?.reason == .signingTimeInFuture)
        // 2010: before the leaf and the intermediate were issued, too.
        let early = try await Self.seatgeek(at: RFC3339.parse("2010-01-02T00:00:00Z")!)
        #expect(early.report.check(.applePaySignatureCertificateValidity)?.reason == .certificateNotYetValid)
        #expect(early.report.check(.applePaySigningTime)?.reason == .signingTimeInFuture)
        #expect(early.payment == nil)
    }

    /// At today's clock the leaf has expired: "certificate expired" and "signing time outside the
    /// window" are two checks with two messages.
    @Test func seatgeekAfterLeafExpiryFailsTwoDistinctChecks() async throws {
        let result = try await Self.seatgeek(at: RFC3339.parse("2021-06-01T00:00:00Z")!)
        #expect(result.verdict == .rejected)
        let validity = try #require(result.report.check(.applePaySignatureCertificateValidity))
        #expect(validity.reason == .certificateExpired)
        #expect(validity.message.contains("ecc-smp-broker-sign_UC4-PROD"))
        #expect(validity.message.contains("expired at 2019-09-24T22:06:11Z"))
        let signingTime = try #require(result.report.check(.applePaySigningTime))
        #expect(signingTime.reason == .signingTimeTooOld)
        #expect(signingTime.message != validity.message)
        // The chain needs valid certificates: skipped, not silently passed.
        #expect(result.report.check(.applePaySignatureChain)?.reason == .prerequisiteFailed)
        // The signature itself is still checked and still good.
        #expect(result.report.check(.applePaySignatureSigner)?.status == .passed)
        #expect(result.report.check(.applePaySignatureMessageDigest)?.status == .passed)
    }

    @Test func seatgeekAsPKPaymentTokenAndWithPaymentDataAsBase64() async throws {
        let raw = try TestVectors.data("applepay/seatgeek-2014-ec/token.json")
        let paymentData = try JSONSerialization.jsonObject(with: Data(raw))
        let wrapped = try JSONSerialization.data(withJSONObject: [
            "paymentData": paymentData,
            "transactionIdentifier": "2686F5297F123EC7FD9D31074D43D201953CA75F098890375F13AED2737D92F2",
            "paymentMethod": ["network": "Visa", "type": "debit", "displayName": "Visa 4320"],
        ])
        let verifier = try Self.verifier([Self.seatgeekKey()])
        let context = VerificationContext(time: Self.seatgeekSigningTime.addingTimeInterval(60))
        let result = await verifier.verify([UInt8](wrapped), context: context, expectations: Self.seatgeekExpectations)
        #expect(result.verdict == .accepted)
        #expect(result.report.warnings.isEmpty)

        let base64 = try JSONSerialization.data(withJSONObject: ["paymentData": Data(raw).base64EncodedString()])
        let second = try Self.verifier([Self.seatgeekKey()])
        #expect(await second.verify([UInt8](base64), context: context).verdict == .accepted)
    }

    @Test func seatgeekTwiceIsAReplay() async throws {
        let verifier = try Self.verifier([Self.seatgeekKey()])
        let token = try TestVectors.data("applepay/seatgeek-2014-ec/token.json")
        let context = VerificationContext(time: Self.seatgeekSigningTime.addingTimeInterval(60))
        #expect(await verifier.verify(token, context: context).verdict == .accepted)
        let again = await verifier.verify(token, context: VerificationContext(time: Self.seatgeekSigningTime.addingTimeInterval(90)))
        #expect(again.verdict == .rejected)
        #expect(again.report.check(.replayTransactionId)?.reason == .replayed)
        #expect(again.payment == nil)
    }

    @Test(arguments: [
        ("token-rsa.json", "2017-02-01T21:56:53Z", "+J/p5vUX3+9EE3I/Ds2WioXIFl7klj082vuSQ3vygV0=", "RSA_v1"),
        ("token-ec.json", "2017-02-01T18:45:06Z", "hErQTIkV+XDB8kVuVvYI+1PUv/iIJPuFg2QF/+z1NIo=", "EC_v1"),
    ])
    func processoutSignaturesVerifyButNoKeyMatches(file: String, signingTime: String, publicKeyHash: String, version: String) async throws {
        let time = try #require(RFC3339.parse(signingTime))
        // A ring with an unrelated key (seatgeek's) must not be tried: selection is by hash.
        let verifier = try Self.verifier([Self.seatgeekKey()])
        let result = await verifier.verify(
            try TestVectors.data("applepay/processout-signature-only/\(file)"), context: VerificationContext(time: time.addingTimeInterval(60)))
        for id in Self.signatureChecks {
            #expect(result.report.check(id)?.status == .passed, "\(id): \(result.report.check(id)?.message ?? "missing")")
        }
        #expect(result.summary?.version.rawValue == version)
        #expect(result.summary?.publicKeyHash == publicKeyHash)
        #expect(result.summary?.signingTime == time)
        let selection = try #require(result.report.check(.applePayKeySelection))
        #expect(selection.status == .failed)
        #expect(selection.reason == .noMatchingMerchantKey)
        #expect(selection.message.hasPrefix("No configured merchant key matches publicKeyHash \(publicKeyHash)"))
        #expect(result.report.check(.applePayDecryption)?.reason == .prerequisiteFailed)
        #expect(result.verdict == .rejected)
        #expect(result.payment == nil)
    }

    @Test func processoutRSAWindowFourAndSixMinutes() async throws {
        let token = try TestVectors.data("applepay/processout-signature-only/token-rsa.json")
        let verifier = try Self.verifier([])
        let four = await verifier.verify(token, context: VerificationContext(time: Self.processoutRSASigningTime.addingTimeInterval(240)))
        #expect(four.report.check(.applePaySigningTime)?.status == .passed)
        let six = await verifier.verify(token, context: VerificationContext(time: Self.processoutRSASigningTime.addingTimeInterval(360)))
        #expect(six.report.check(.applePaySigningTime)?.reason == .signingTimeTooOld)
        #expect(six.report.check(.applePaySignatureSigner)?.message.contains("RSA PKCS#1 v1.5/SHA-256") == true)
    }

    /// The token's own fields are what the signature covers: changing the (unencrypted, unsigned by
    /// GCM) transactionId of a real token breaks the message digest.
    @Test func processoutECWithAlteredTransactionIdFailsTheDigest() async throws {
        var object =
            try JSONSerialization.jsonObject(with: Data(try TestVectors.data("applepay/processout-signature-only/token-ec.json"))) as! [String: Any]
        var paymentData = object["paymentData"] as! [String: Any]
        var header = paymentData["header"] as! [String: Any]
        let id = header["transactionId"] as! String
        header["transactionId"] = (id.first == "0" ? "1" : "0") + id.dropFirst()
        paymentData["header"] = header
        object["paymentData"] = paymentData
        let verifier = try Self.verifier([])
        let result = await verifier.verify(
            [UInt8](try JSONSerialization.data(withJSONObject: object)),
            context: VerificationContext(time: Self.processoutECSigningTime.addingTimeInterval(30)))
        #expect(result.report.check(.applePaySignatureMessageDigest)?.reason == .digestMismatch)
        #expect(result.report.check(.applePaySignatureSigner)?.status == .passed)
        #expect(result.report.warnings.contains { $0.code == "transactionIdentifierMismatch" })
    }

    @Test func bundledRootIsPinned() throws {
        let anchor = try ApplePayTrustAnchor.appleRootCAG3()
        #expect(anchor.isAppleRootCAG3)
        #expect(anchor.fingerprint == "63343ABFB89A6A03EBB57E9B3F5FA7BE7C4F5C756F3017B3A8C488C3653E9179")
        let vectorCopy = try ApplePayTrustAnchor(fileContents: try TestVectors.data("applepay/apple-root-ca-g3/AppleRootCA-G3.pem"))
        #expect(vectorCopy.fingerprint == anchor.fingerprint)
    }

    /// The real tokens against a root that is not Apple's: no chain, nothing else hidden.
    @Test func seatgeekAgainstTheFixtureRootHasNoChain() async throws {
        let verifier = try ApplePayTokenVerifier(
            keyRing: try MerchantKeyRing([Self.seatgeekKey()]),
            replayStore: InMemoryReplayStore(),
            trustAnchor: try ApplePayFixturePKI.standard.trustAnchor()
        )
        let result = await verifier.verify(
            try TestVectors.data("applepay/seatgeek-2014-ec/token.json"),
            context: VerificationContext(time: Self.seatgeekSigningTime.addingTimeInterval(60)))
        // The fixture root was not valid in 2014 either, so the chain is not even attempted.
        #expect(result.report.check(.applePaySignatureChain)?.status != .passed)
        #expect(result.verdict == .rejected)
        #expect(result.report.check(.applePaySignatureSigner)?.status == .passed)
        #expect(result.report.check(.applePayDecryption)?.reason == .prerequisiteFailed)
        #expect(result.report.warnings.contains { $0.code == "customTrustAnchor" })
        #expect(result.payment == nil)
    }
}
