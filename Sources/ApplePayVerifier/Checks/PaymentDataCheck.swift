import VerificationCore
import WalletEncoding

/// `applepay.paymentData`: the decrypted bytes are the JSON object Apple documents
/// (applicationPrimaryAccountNumber, applicationExpirationDate, currencyCode, transactionAmount,
/// paymentDataType, paymentData, ...) with the shape Apple's "Payment token format reference"
/// gives it:
/// - `applicationExpirationDate` is YYMMDD (a real month and day);
/// - `currencyCode` is an ISO 4217 numeric code: three digits;
/// - `paymentDataType` is `3DSecure` or `EMV`;
/// - 3-D Secure data carries `onlinePaymentCryptogram`, and an `eciIndicator`, when present, is one
///   or two digits (Apple's 2014 token in TestVectors/applepay/seatgeek-2014-ec carries "5", so a
///   single digit is what real tokens send);
/// - EMV data carries `emvData`;
/// - each field in the form the seed's table gives it: `deviceManufacturerIdentifier` hex,
///   `onlinePaymentCryptogram` and `emvData` base64, `encryptedPINData` hex and only in RSA_v1 tokens
///   ("RSA_v1 only").
/// A violation fails with `paymentDataFieldInvalid` and a message that names the field, never its
/// value. The message of a pass names the type, currency and amount only.
struct PaymentDataCheck: VerificationCheck {
    let id = CheckID.applePayPaymentData
    let prerequisites: [CheckID] = [.applePayDecryption]

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let plaintext = state.plaintext else { return .notEvaluated(because: .applePayDecryption) }
        let payment = try ApplePayPaymentData(json: plaintext)
        if let violation = Self.shapeViolation(payment, version: state.token?.version) {
            return .failed(
                .paymentDataFieldInvalid, "The decrypted payment data does not have the shape Apple documents: \(violation.message)",
                details: ["field": violation.field])
        }
        state.payment = payment
        // The message captures these three texts only, never the payment data (PAN, cryptogram).
        let (type, currency, whole, amount) = (
            payment.paymentDataType, payment.currencyCode, payment.transactionAmountWholeText, payment.transactionAmount
        )
        return .passed("\(type) payment data, currency \(currency), amount \(whole ?? "\(amount)")")
    }

    /// The first field that breaks the documented shape, and why (without its value).
    static func shapeViolation(_ payment: ApplePayPaymentData, version: ApplePayTokenVersion?) -> (field: String, message: String)? {
        if !isYYMMDD(payment.applicationExpirationDate) {
            return ("applicationExpirationDate", "applicationExpirationDate is not a date in the format YYMMDD.")
        }
        if !isDigits(payment.currencyCode, count: 3...3) {
            return ("currencyCode", "currencyCode is not an ISO 4217 numeric code (three digits, as a string).")
        }
        switch payment.paymentDataType {
        case "3DSecure":
            guard let cryptogram = payment.details.onlinePaymentCryptogram, !cryptogram.isEmpty else {
                return ("paymentData.onlinePaymentCryptogram", "3-D Secure payment data must carry paymentData.onlinePaymentCryptogram.")
            }
            if let eci = payment.details.eciIndicator, !isDigits(eci, count: 1...2) {
                return ("paymentData.eciIndicator", "paymentData.eciIndicator is not a one- or two-digit ECI value.")
            }
        case "EMV":
            guard let emv = payment.details.emvData, !emv.isEmpty else {
                return ("paymentData.emvData", "EMV payment data must carry paymentData.emvData.")
            }
        default:
            return ("paymentDataType", "paymentDataType is neither \"3DSecure\" nor \"EMV\".")
        }
        return formViolation(payment, version: version)
    }

    /// The first field that is not in the form the seed's table gives it (hex, base64), or a PIN block
    /// outside an RSA_v1 token; messages name the field and the form, never the value.
    static func formViolation(_ payment: ApplePayPaymentData, version: ApplePayTokenVersion?) -> (field: String, message: String)? {
        if let identifier = payment.deviceManufacturerIdentifier, !isHex(identifier) {
            return (
                "deviceManufacturerIdentifier",
                "deviceManufacturerIdentifier is not hex text (the seed: \"Hex-encoded device manufacturer identifier\")."
            )
        }
        if let cryptogram = payment.details.onlinePaymentCryptogram, Base64.decodeStrict(cryptogram) == nil {
            return (
                "paymentData.onlinePaymentCryptogram",
                "paymentData.onlinePaymentCryptogram is not base64 text (the seed: \"A Base64 encoded string\")."
            )
        }
        if let emv = payment.details.emvData, Base64.decodeStrict(emv) == nil {
            return (
                "paymentData.emvData", "paymentData.emvData is not base64 text (the seed: \"EMV payment structure, Base64 encoded as a string\")."
            )
        }
        if let pin = payment.details.encryptedPINData {
            guard version == .rsaV1 else {
                return (
                    "paymentData.encryptedPINData",
                    "paymentData.encryptedPINData is present in a token that is not RSA_v1 (the seed: \"RSA_v1 only\")."
                )
            }
            if !isHex(pin) {
                return (
                    "paymentData.encryptedPINData",
                    "paymentData.encryptedPINData is not hex text (the seed: \"The encrypted PIN as a hex encoded string\")."
                )
            }
        }
        return nil
    }

    /// Non-empty hex text, either case, nothing else.
    static func isHex(_ text: String) -> Bool {
        !text.isEmpty && Hex.decodeStrict(text) != nil
    }

    static func isDigits(_ text: String, count: ClosedRange<Int>) -> Bool {
        count.contains(text.utf8.count) && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    static func isYYMMDD(_ text: String) -> Bool {
        guard isDigits(text, count: 6...6) else { return false }
        // Six ASCII digits: the month and the day read from the UTF-8 bytes, without an array.
        var digits = text.utf8.makeIterator()
        func next() -> Int { Int((digits.next() ?? 0x30) - 0x30) }
        _ = (next(), next())
        let month = next() * 10 + next()
        let day = next() * 10 + next()
        return (1...12).contains(month) && (1...31).contains(day)
    }
}
