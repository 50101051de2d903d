import Foundation
import VerificationCore
import WalletJSON

/// The decrypted payment data of a token, typed, plus the JSON exactly as Apple sent it.
///
/// Sensitive: `description`, `debugDescription` and `dump` show the last four digits of the
/// account number and no cryptogram, EMV data, PIN block or cardholder name. Read the properties
/// (or ``rawJSON``) to process the payment.
public struct ApplePayPaymentData: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Device-specific account number (DPAN).
    public let applicationPrimaryAccountNumber: String
    /// YYMMDD.
    public let applicationExpirationDate: String
    /// ISO 4217 numeric code, as a string to keep leading zeros.
    public let currencyCode: String
    /// In the currency's minor units, as Apple sends it.
    public let transactionAmount: Decimal
    /// `"\(transactionAmount)"` when the amount was a whole number of at most 18 digits (what Apple
    /// sends): its text as received, which is the same characters; nil otherwise.
    let transactionAmountWholeText: String?
    /// The cardholder's name, when Apple includes it; hidden by `description`.
    public let cardholderName: String?
    /// Hex identifier of the device's manufacturer, when present.
    public let deviceManufacturerIdentifier: String?
    /// `3DSecure` or `EMV`.
    public let paymentDataType: String
    /// The `paymentData` member: the 3-D Secure or EMV fields for the payment processor.
    public let details: Details
    /// The decrypted JSON, byte for byte.
    public let rawJSON: [UInt8]
    /// Merchant tokens (recurring, deferred and automatic-reload payments): the token's identifier,
    /// when present.
    public let merchantTokenIdentifier: String?
    /// `merchantTokenMetadata` and `authenticationResponses`, when present, as the JSON Apple sent
    /// (their members vary by card network; every member passes through unchanged).
    public let merchantTokenMetadataJSON: [UInt8]?
    /// `authenticationResponses` as the JSON Apple sent, when present; ``authenticationResponses`` holds the typed entries.
    public let authenticationResponsesJSON: [UInt8]?
    /// `authenticationResponses`, typed: one per merchant of a multi-merchant payment. Empty when
    /// the payment data has none.
    public let authenticationResponses: [AuthenticationResponse]

    /// `merchantTokenMetadata` as a JSON object (its members vary by card network and token kind:
    /// recurring, deferred, automatic reload), when present.
    public var merchantTokenMetadata: StrictJSON.Object? {
        merchantTokenMetadataJSON.flatMap { try? StrictJSON.parse($0).object }
    }

    /// One entry of `authenticationResponses`: the merchant it authenticates the payment for, its
    /// authentication data (a cryptogram: kept out of `description`) and amount. Members that are
    /// not these pass through in ``ApplePayPaymentData/authenticationResponsesJSON``.
    public struct AuthenticationResponse: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
        /// The merchant this response authenticates the payment for, when present.
        public let merchantIdentifier: String?
        /// The authentication data (a cryptogram) for that merchant, when present; hidden by `description`.
        public let authenticationData: String?
        /// In the currency's minor units, as Apple sends it.
        public let transactionAmount: Decimal?

        /// A response with these members (nil: absent from the payment data).
        public init(merchantIdentifier: String?, authenticationData: String?, transactionAmount: Decimal?) {
            self.merchantIdentifier = merchantIdentifier
            self.authenticationData = authenticationData
            self.transactionAmount = transactionAmount
        }

        /// The merchant and the amount; the authentication data only as "present".
        public var description: String {
            "AuthenticationResponse(merchant \(merchantIdentifier ?? "-"), amount \(transactionAmount.map { "\($0)" } ?? "-")"
                + (authenticationData == nil ? ")" : ", authenticationData present (hidden))")
        }

        /// The same as ``description``, so debug output hides the authentication data too.
        public var debugDescription: String { description }
        /// A mirror whose only child is ``description``, so `dump` hides the authentication data too.
        public var customMirror: Mirror { Mirror(self, children: ["redacted": description], displayStyle: .struct) }
    }

    /// The `paymentData` member of the decrypted JSON: 3-D Secure or EMV fields, as ``ApplePayPaymentData/paymentDataType`` says.
    public struct Details: Sendable, Hashable {
        /// 3-D Secure.
        public let onlinePaymentCryptogram: String?
        /// 3-D Secure; pass it on to the processor when present.
        public let eciIndicator: String?
        /// EMV (China).
        public let emvData: String?
        /// EMV, RSA_v1 only.
        public let encryptedPINData: String?
    }

    /// `••••4320`.
    public var maskedAccountNumber: String {
        Self.mask(applicationPrimaryAccountNumber)
    }

    static func mask(_ pan: String) -> String {
        guard pan.count > 8 else { return "••••" }
        return "••••" + pan.suffix(4)
    }

    /// A summary with the masked account number; the cryptogram, EMV data, PIN data and cardholder name only as "present".
    public var description: String {
        var parts = [
            "PAN \(maskedAccountNumber)",
            "expires \(applicationExpirationDate)",
            "currency \(currencyCode)",
            "amount \(transactionAmount)",
            "type \(paymentDataType)",
        ]
        if let eci = details.eciIndicator { parts.append("eci \(eci)") }
        if details.onlinePaymentCryptogram != nil { parts.append("cryptogram present (hidden)") }
        if details.emvData != nil { parts.append("emvData present (hidden)") }
        if details.encryptedPINData != nil { parts.append("encryptedPINData present (hidden)") }
        if cardholderName != nil { parts.append("cardholder name present (hidden)") }
        if let token = merchantTokenIdentifier { parts.append("merchant token \(token)") }
        if !authenticationResponses.isEmpty { parts.append("\(authenticationResponses.count) authentication response(s), data hidden") }
        return "ApplePayPaymentData(" + parts.joined(separator: ", ") + ")"
    }

    /// The same as ``description``, so debug output stays redacted.
    public var debugDescription: String { description }

    /// A mirror whose only child is ``description``, so `dump` and debuggers show no secrets.
    public var customMirror: Mirror {
        Mirror(self, children: ["redacted": description], displayStyle: .struct)
    }

    /// Reads Apple's payment-data JSON. Messages name fields, never their values.
    init(json bytes: [UInt8]) throws(DecryptionError) {
        // The usual payment data reads in place; anything else, and every error, the general way.
        if let usual = Self.readUsual(bytes) {
            self = usual
        } else {
            try self.init(strictJSON: bytes)
        }
    }

    /// The general reading behind ``init(json:)``: the strict JSON parse, then each field.
    init(strictJSON bytes: [UInt8]) throws(DecryptionError) {
        let value: StrictJSON.Value
        do {
            value = try StrictJSON.parse(bytes)
        } catch {
            throw DecryptionError(
                .malformedPaymentData, "The decrypted payment data is not valid JSON (\(error.message) at byte \(error.offset) of \(bytes.count))")
        }
        guard let object = value.object else {
            throw DecryptionError(.malformedPaymentData, "The decrypted payment data is \(value.typeName), not a JSON object")
        }
        func string(_ key: String, in object: StrictJSON.Object, path: String? = nil, required: Bool) throws(DecryptionError) -> String? {
            // The field's full name is written only for a message: a pass builds no text.
            func name() -> String { path.map { "\($0).\(key)" } ?? key }
            guard let value = object[key] else {
                if required { throw DecryptionError(.malformedPaymentData, "The decrypted payment data has no \(name())") }
                return nil
            }
            if case .string(let text) = value { return text }
            guard value != .null else {
                if required { throw DecryptionError(.malformedPaymentData, "The decrypted payment data has no \(name())") }
                return nil
            }
            throw DecryptionError(.malformedPaymentData, "The decrypted payment data's \(name()) is \(value.typeName), not a string")
        }
        guard let pan = try string("applicationPrimaryAccountNumber", in: object, required: true),
            let expiration = try string("applicationExpirationDate", in: object, required: true),
            let currency = try string("currencyCode", in: object, required: true),
            let type = try string("paymentDataType", in: object, required: true)
        else { throw DecryptionError(.malformedPaymentData, "The decrypted payment data lacks required fields") }
        guard let amountValue = object["transactionAmount"] else {
            throw DecryptionError(.malformedPaymentData, "The decrypted payment data has no transactionAmount")
        }
        guard case .number(let amountText) = amountValue, let amount = Self.decimal(amountText) else {
            throw DecryptionError(.malformedPaymentData, "The decrypted payment data's transactionAmount is \(amountValue.typeName), not a number")
        }
        guard let detailValue = object["paymentData"] else {
            throw DecryptionError(.malformedPaymentData, "The decrypted payment data has no paymentData")
        }
        guard let details = detailValue.object else {
            throw DecryptionError(.malformedPaymentData, "The decrypted payment data's paymentData is \(detailValue.typeName), not an object")
        }
        self.applicationPrimaryAccountNumber = pan
        self.applicationExpirationDate = expiration
        self.currencyCode = currency
        self.transactionAmount = amount
        self.transactionAmountWholeText = Self.isWholeNumberText(amountText) ? amountText : nil
        self.cardholderName = try string("cardholderName", in: object, required: false)
        self.deviceManufacturerIdentifier = try string("deviceManufacturerIdentifier", in: object, required: false)
        self.paymentDataType = type
        self.details = Details(
            onlinePaymentCryptogram: try string("onlinePaymentCryptogram", in: details, path: "paymentData", required: false),
            eciIndicator: try string("eciIndicator", in: details, path: "paymentData", required: false),
            emvData: try string("emvData", in: details, path: "paymentData", required: false),
            encryptedPINData: try string("encryptedPINData", in: details, path: "paymentData", required: false)
        )
        self.rawJSON = bytes
        self.merchantTokenIdentifier = try string("merchantTokenIdentifier", in: object, required: false)
        func member(_ name: String, _ kind: String, _ accepts: (StrictJSON.Value) -> Bool) throws(DecryptionError) -> [UInt8]? {
            guard let value = object[name], value != .null else { return nil }
            guard accepts(value), let range = object.range(of: name) else {
                throw DecryptionError(.malformedPaymentData, "The decrypted payment data's \(name) is \(value.typeName), not \(kind)")
            }
            return Array(bytes[range])
        }
        self.merchantTokenMetadataJSON = try member("merchantTokenMetadata", "an object") { $0.object != nil }
        self.authenticationResponsesJSON = try member("authenticationResponses", "an array") { $0.array != nil }
        var responses: [AuthenticationResponse] = []
        for (position, element) in (object["authenticationResponses"]?.array ?? []).enumerated() {
            let path = "authenticationResponses[\(position)]"
            guard let entry = element.object else {
                throw DecryptionError(.malformedPaymentData, "The decrypted payment data's \(path) is \(element.typeName), not an object")
            }
            var amount: Decimal?
            if let value = entry["transactionAmount"], value != .null {
                guard case .number(let text) = value, let parsed = Self.decimal(text) else {
                    throw DecryptionError(
                        .malformedPaymentData, "The decrypted payment data's \(path).transactionAmount is \(value.typeName), not a number")
                }
                amount = parsed
            }
            responses.append(
                AuthenticationResponse(
                    merchantIdentifier: try string("merchantIdentifier", in: entry, path: path, required: false),
                    authenticationData: try string("authenticationData", in: entry, path: path, required: false),
                    transactionAmount: amount))
        }
        self.authenticationResponses = responses
    }

    /// Digits only, at most 18, without a leading zero unless it is "0": the text `Decimal` writes
    /// for the value it reads from it.
    static func isWholeNumberText(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count <= 18, let first = utf8.first, utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
        return first != 0x30 || utf8.count == 1
    }

    /// Whole numbers (what Apple sends) without Foundation's scanner; anything else through it.
    static func decimal(_ text: String) -> Decimal? {
        let utf8 = text.utf8
        if utf8.count <= 18, !utf8.isEmpty, utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(text) {
            return Decimal(value)
        }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }
}

extension ApplePayPaymentData {
    /// The card in the shape shared with Google Pay: the DPAN, the expiry read from
    /// `applicationExpirationDate` (YYMMDD; left out when it is not six digits), `paymentDataType`,
    /// and for 3-D Secure the cryptogram and ECI.
    public var card: PaymentCard {
        var month: Int?
        var year: Int?
        let digits = Array(applicationExpirationDate.utf8)
        if digits.count == 6, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            let value = { (index: Int) in Int(digits[index] - 0x30) * 10 + Int(digits[index + 1] - 0x30) }
            if (1...12).contains(value(2)) {
                year = 2000 + value(0)
                month = value(2)
            }
        }
        return PaymentCard(
            wallet: .applePay, number: applicationPrimaryAccountNumber, expiryMonth: month, expiryYear: year, paymentDataType: paymentDataType,
            cryptogram: details.onlinePaymentCryptogram, eci: details.eciIndicator)
    }
}
