import ApplePayVerifier
import Foundation
import Testing
import VerificationCore
import WalletEncoding
import WalletVerifierTestSupport

/// Seed 004, step 6 ("Check that the currencyCode is as expected", "that the transactionAmount is
/// correct", "that the applicationData field matches the hash of the data used in the original payment
/// request") and the payment data keys in the forms the seed's tables give them.
@Suite struct ApplePayExpectationsCheckTests {
    static let full = ApplePayExpectations(currencyCode: "840", transactionAmount: 1999)

    static func warning(_ result: ApplePayResult) -> ReportWarning? {
        result.report.warnings.first { $0.code == .expectationsMissing }
    }

    // MARK: Expectations are never silently absent

    /// Without expectations the token is still verified (a library caller may choose that), but the
    /// report says which expectations were missing; with them there is no such warning.
    @Test func verifyingWithoutExpectationsIsAWarning() async throws {
        let token = try Fixture.builder().build()
        let bare = try await Fixture.verify(token)
        bare.expectAccepted()
        let warning = try #require(Self.warning(bare), "\(bare.report.warnings)")
        #expect(warning.message.contains("currencyCode, transactionAmount"))
        #expect(!warning.message.contains("applicationData was") && !warning.message.contains("4111"))

        let amountOnly = try await Fixture.verify(try Fixture.builder().build(), expectations: ApplePayExpectations(transactionAmount: 1999))
        #expect(Self.warning(amountOnly)?.message.contains("No expected currencyCode was given") == true)

        let checked = try await Fixture.verify(try Fixture.builder().build(), expectations: Self.full)
        checked.expectAccepted()
        #expect(checked.report.warnings.map(\.code) == ["customTrustAnchor"])
    }

    /// A token bound to a payment request's applicationData, verified without comparing it: the
    /// warning names applicationData even when the currency and amount were checked.
    @Test func aTokenWithApplicationDataNeedsItsExpectation() async throws {
        var builder = Fixture.builder()
        builder.applicationData = ApplePayTokenBuilder.applicationDataHash("order-42")
        let result = try await Fixture.verify(try builder.build(), expectations: Self.full)
        result.expectAccepted()
        #expect(Self.warning(result)?.message.contains("No expected applicationData was given") == true)
        var expectations = Self.full
        expectations.originalApplicationData = Array("order-42".utf8)
        let checked = try await Fixture.verify(try builder.build(), expectations: expectations)
        #expect(Self.warning(checked) == nil)
        // A token that carries none needs none.
        let plain = try await Fixture.verify(try Fixture.builder().build(), expectations: Self.full)
        #expect(Self.warning(plain) == nil)
    }

    /// Also a token that cannot be read: the warning is about the call, not the token.
    @Test func theWarningDoesNotDependOnTheToken() async throws {
        let result = try await Fixture.verify(json: Array("{}".utf8))
        #expect(result.verdict == .rejected)
        #expect(Self.warning(result) != nil)
    }

    // MARK: applicationData as the original data

    /// The payment request's data itself: hashed with SHA-256 as Apple does and compared with the
    /// signed header.applicationData; another order's data is a mismatch that does not use up the
    /// transactionId; both forms given must both match.
    @Test func originalApplicationDataIsHashedAndCompared() async throws {
        var builder = Fixture.builder()
        builder.applicationData = ApplePayTokenBuilder.applicationDataHash(#"{"order":"42"}"#)
        let token = try builder.build()
        let verifier = try Fixture.verifier()
        func expect(_ original: String?, hex: String? = nil) -> ApplePayExpectations {
            ApplePayExpectations(
                currencyCode: "840", transactionAmount: 1999, applicationData: hex, originalApplicationData: original.map { Array($0.utf8) })
        }
        let other = try await Fixture.verify(token, with: verifier, expectations: expect(#"{"order":"43"}"#))
        other.expectRejected(.applePayExpectApplicationData, .applicationDataMismatch)
        let message = try #require(other.report.check(.applePayExpectApplicationData)?.message)
        #expect(message.contains("SHA-256 of the payment request's applicationData"), "\(message)")
        #expect(other.reason(.replayTransactionId) == .prerequisiteFailed)

        let rightHex = Hex.encode(ApplePayTokenBuilder.applicationDataHash(#"{"order":"42"}"#))
        let disagreeing = try await Fixture.verify(token, with: verifier, expectations: expect(#"{"order":"43"}"#, hex: rightHex))
        disagreeing.expectRejected(.applePayExpectApplicationData, .applicationDataMismatch)

        let good = try await Fixture.verify(token, with: verifier, expectations: expect(#"{"order":"42"}"#, hex: rightHex.uppercased()))
        good.expectAccepted()
        #expect(good.report.check(.applePayExpectApplicationData)?.message.contains("SHA-256 of the payment request's applicationData") == true)

        // A token without applicationData, when the original data was expected.
        let missing = try await Fixture.verify(try Fixture.builder().build(), expectations: expect("order-42"))
        missing.expectRejected(.applePayExpectApplicationData, .applicationDataMissing)
    }

    // MARK: Payment data keys in their seed forms

    static func payment(_ fields: String = #""deviceManufacturerIdentifier":"040010030273""#, type: String = "3DSecure", details: String) -> String {
        #"{"applicationPrimaryAccountNumber":"4111111111111111","applicationExpirationDate":"281231","currencyCode":"840","transactionAmount":1999,\#(fields),"paymentDataType":"\#(type)","paymentData":\#(details)}"#
    }

    static let cryptogram = #"{"onlinePaymentCryptogram":"AM8lJ8PaVr5bAAeoLxMCAoABFA==","eciIndicator":"7"}"#

    static func verify(_ json: String, merchant: ApplePayFixtureMerchant = Fixture.ecMerchant) async throws -> ApplePayResult {
        var builder = Fixture.builder(merchant)
        builder.plaintext = Array(json.utf8)
        return try await Fixture.verify(try builder.build(), expectations: Self.full)
    }

    /// deviceManufacturerIdentifier hex, onlinePaymentCryptogram and emvData base64, encryptedPINData
    /// hex and only in RSA_v1: each violation fails applepay.paymentData naming the field, never the value.
    @Test func paymentDataFieldsInTheirSeedForms() async throws {
        for (json, merchant) in [
            (Self.payment(details: Self.cryptogram), Fixture.ecMerchant),
            (Self.payment(#""deviceManufacturerIdentifier":"04001003027A""#, details: Self.cryptogram), Fixture.ecMerchant),
            (Self.payment(#""cardholderName":"Jane""#, details: Self.cryptogram), Fixture.ecMerchant),
            (Self.payment(type: "EMV", details: #"{"emvData":"nyYIq8mRNBJWeJA="}"#), Fixture.ecMerchant),
            (Self.payment(type: "EMV", details: #"{"emvData":"nyYIq8mRNBJWeJA=","encryptedPINData":"8B3A6C0F2E1D4A59"}"#), Fixture.rsaMerchant),
        ] {
            try await Self.verify(json, merchant: merchant).expectAccepted()
        }
        let violations: [(json: String, merchant: ApplePayFixtureMerchant, field: String, secret: String)] = [
            (
                Self.payment(#""deviceManufacturerIdentifier":"04-00-10-03""#, details: Self.cryptogram), Fixture.ecMerchant,
                "deviceManufacturerIdentifier", "04-00-10-03"
            ),
            (
                Self.payment(#""deviceManufacturerIdentifier":"0400100""#, details: Self.cryptogram), Fixture.ecMerchant,
                "deviceManufacturerIdentifier", "0400100"
            ),
            (
                Self.payment(#""deviceManufacturerIdentifier":"""#, details: Self.cryptogram), Fixture.rsaMerchant, "deviceManufacturerIdentifier",
                "\"\""
            ),
            (
                Self.payment(details: #"{"onlinePaymentCryptogram":"AM8lJ8PaVr5b AAeoLxMCAoABFA=="}"#), Fixture.ecMerchant,
                "paymentData.onlinePaymentCryptogram", "AM8lJ8"
            ),
            (
                Self.payment(details: #"{"onlinePaymentCryptogram":"AM8lJ8PaVr5bAAeoLxMCAoABFA"}"#), Fixture.rsaMerchant,
                "paymentData.onlinePaymentCryptogram", "AM8lJ8"
            ),
            (
                Self.payment(details: #"{"onlinePaymentCryptogram":"AM8lJ8PaVr5bAAeo_xMCAoABFA=="}"#), Fixture.ecMerchant,
                "paymentData.onlinePaymentCryptogram", "AM8lJ8"
            ),
            (Self.payment(type: "EMV", details: #"{"emvData":"9f2608abc9*"}"#), Fixture.ecMerchant, "paymentData.emvData", "9f2608"),
            (
                Self.payment(type: "EMV", details: #"{"emvData":"nyYIq8mRNBJWeJA=","encryptedPINData":"8B3A6C0F2E1D4A59"}"#), Fixture.ecMerchant,
                "paymentData.encryptedPINData", "8B3A6C"
            ),
            (
                Self.payment(type: "EMV", details: #"{"emvData":"nyYIq8mRNBJWeJA=","encryptedPINData":"i1ps0C8uHUpZ"}"#), Fixture.rsaMerchant,
                "paymentData.encryptedPINData", "i1ps0C"
            ),
        ]
        for violation in violations {
            let result = try await Self.verify(violation.json, merchant: violation.merchant)
            result.expectRejected(.applePayPaymentData, .paymentDataFieldInvalid)
            let check = try #require(result.report.check(.applePayPaymentData))
            #expect(check.details["field"] == violation.field, "\(violation.field): \(check.message)")
            #expect(check.message.contains(violation.field))
            #expect(!check.message.contains(violation.secret) && !check.message.contains("4111"), "\(check.message)")
            #expect(!check.details.values.contains { $0.contains(violation.secret) })
        }
    }
}
