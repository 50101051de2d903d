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
        guard let payment = state.payment else { throw MissingPrerequisite("the payment data") }
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
        guard let payment = state.payment else { throw MissingPrerequisite("the payment data") }
        // Both in the currency's minor units (1999 is 19.99 USD): the messages say so.
        let unit = "minor units of \(payment.currencyCode)"
        guard payment.transactionAmount == expected else {
            return .failed(
                .amountMismatch, "The token's transactionAmount is \(payment.transactionAmount), expected \(expected) (\(unit))",
                details: ["actual": "\(payment.transactionAmount)", "expected": "\(expected)"])
        }
        return .passed("Amount \(expected) (\(unit)) as expected")
    }
}

/// `applepay.expect.applicationData`: the signed header.applicationData (hex SHA-256 of the payment
/// request's applicationData) is the caller's.
struct ExpectedApplicationDataCheck: VerificationCheck {
    let id = CheckID.applePayExpectApplicationData
    let expected: String?
    let prerequisites: [CheckID]

    init(expected: String?, policy: ApplePayPolicy) {
        self.expected = expected
        // Compare only a value the signature covers.
        self.prerequisites =
            expected == nil ? [] : [.applePayTokenStructure] + policy.requiredOnly([.applePaySignatureMessageDigest, .applePaySignatureSigner])
    }

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let expected else { return .notApplicable("No expected applicationData was given.") }
        guard let token = state.token else { throw MissingPrerequisite("the token") }
        guard let expectedBytes = Hex.decodeStrict(expected.trimmingCharacters(in: .whitespaces)) else {
            return .failed(.applicationDataMismatch, "The expected applicationData is not hex text")
        }
        guard let actual = token.header.applicationDataBytes, let actualText = token.header.applicationData else {
            return .failed(.applicationDataMissing, "The token has no header.applicationData, but \(expected) was expected")
        }
        guard actual == expectedBytes else {
            return .failed(
                .applicationDataMismatch, "header.applicationData is \(actualText), expected \(expected)",
                details: ["actual": actualText, "expected": expected])
        }
        return .passed("applicationData \(actualText) as expected")
    }
}
