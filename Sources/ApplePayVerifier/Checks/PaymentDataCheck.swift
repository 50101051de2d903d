import VerificationCore

/// `applepay.paymentData`: the decrypted bytes are the JSON object Apple documents
/// (applicationPrimaryAccountNumber, applicationExpirationDate, currencyCode, transactionAmount,
/// paymentDataType, paymentData, ...). The message names the type, currency and amount only.
struct PaymentDataCheck: VerificationCheck {
    let id = CheckID.applePayPaymentData
    let prerequisites: [CheckID] = [.applePayDecryption]

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let plaintext = state.plaintext else { throw MissingPrerequisite("the plaintext") }
        let payment = try ApplePayPaymentData(json: plaintext)
        state.payment = payment
        return .passed("\(payment.paymentDataType) payment data, currency \(payment.currencyCode), amount \(payment.transactionAmount)")
    }
}
