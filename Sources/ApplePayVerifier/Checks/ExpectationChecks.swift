import Crypto
import Foundation
import VerificationCore
import WalletEncoding

/// `applepay.expect.currency`: the decrypted currencyCode is the one the caller charges in.
struct ExpectedCurrencyCheck: VerificationCheck {
    let id = CheckID.applePayExpectCurrency
    let expected: String?

    var prerequisites: [CheckID] { expected == nil ? [] : [.applePayPaymentData] }

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let expected else { return .notApplicable("No expected currency was given.") }
        guard let payment = state.payment else { return .notEvaluated(because: .applePayPaymentData) }
        guard payment.currencyCode == expected else {
            return .failed(
                .currencyMismatch, "The token's currency is \(payment.currencyCode), expected \(expected)",
                details: ["actual": payment.currencyCode, "expected": expected])
        }
        return .passed("Currency \(expected) as expected")
    }
}

/// `applepay.expect.amount`: the decrypted transactionAmount is the amount the caller charges.
struct ExpectedAmountCheck: VerificationCheck {
    let id = CheckID.applePayExpectAmount
    let expected: Decimal?

    var prerequisites: [CheckID] { expected == nil ? [] : [.applePayPaymentData] }

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let expected else { return .notApplicable("No expected amount was given.") }
        guard let payment = state.payment else { return .notEvaluated(because: .applePayPaymentData) }
        // Both in the currency's minor units (1999 is 19.99 USD): the messages say so.
        let unit = "minor units of \(payment.currencyCode)"
        guard payment.transactionAmount == expected else {
            return .failed(
                .amountMismatch, "The token's transactionAmount is \(payment.transactionAmount), expected \(expected) (\(unit))",
                details: ["actual": "\(payment.transactionAmount)", "expected": "\(expected)"])
        }
        // Equal to the token's amount, so its text as received when it is a whole number (what Apple
        // sends) says the same without formatting a Decimal.
        let amount = payment.transactionAmountWholeText
        return .passed("Amount \(amount ?? "\(expected)") (\(unit)) as expected")
    }
}

/// `applepay.expect.applicationData`: the signed header.applicationData (hex SHA-256 of the payment
/// request's applicationData) is the caller's: given as that hex, or as the original data, which is
/// hashed here as Apple does (SHA-256).
struct ExpectedApplicationDataCheck: VerificationCheck {
    let id = CheckID.applePayExpectApplicationData
    let expectedHex: String?
    let original: [UInt8]?
    let prerequisites: [CheckID]

    init(expectations: ApplePayExpectations, policy: ApplePayPolicy) {
        self.expectedHex = expectations.applicationData
        self.original = expectations.originalApplicationData
        // Compare only a value the signature covers.
        self.prerequisites =
            expectations.expectsApplicationData
            ? [.applePayTokenStructure] + policy.requiredOnly([.applePaySignatureMessageDigest, .applePaySignatureSigner]) : []
    }

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard expectedHex != nil || original != nil else { return .notApplicable("No expected applicationData was given.") }
        guard let token = state.token else { return .notEvaluated(because: .applePayTokenStructure) }
        var expected: [(bytes: [UInt8], text: String, source: String)] = []
        if let expectedHex {
            guard let bytes = Hex.decodeStrict(expectedHex.trimmingCharacters(in: .whitespaces)) else {
                return .failed(.applicationDataMismatch, "The expected applicationData is not hex text")
            }
            expected.append((bytes, expectedHex, "expected"))
        }
        if let original {
            let hash = Array(SHA256.hash(data: original))
            expected.append((hash, Hex.encode(hash), "SHA-256 of the payment request's applicationData"))
        }
        guard let actual = token.header.applicationDataBytes, let actualText = token.header.applicationData else {
            return .failed(.applicationDataMissing, "The token has no header.applicationData, but \(expected[0].text) was expected")
        }
        for value in expected where value.bytes != actual {
            return .failed(
                .applicationDataMismatch, "header.applicationData is \(actualText), \(value.source) is \(value.text)",
                details: ["actual": actualText, "expected": value.text])
        }
        let how = original == nil ? "" : " (SHA-256 of the payment request's applicationData)"
        return .passed("applicationData \(actualText) as expected\(how)")
    }
}
