import Foundation
import VerificationCore

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
    public let cardholderName: String?
    public let deviceManufacturerIdentifier: String?
    /// `3DSecure` or `EMV`.
    public let paymentDataType: String
    public let details: Details
    /// The decrypted JSON, byte for byte.
    public let rawJSON: [UInt8]

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
        guard pan.count > 8 else { return String(repeating: "•", count: max(pan.count, 4)) }
        return "••••" + pan.suffix(4)
    }

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
        return "ApplePayPaymentData(" + parts.joined(separator: ", ") + ")"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["redacted": description], displayStyle: .struct)
    }

    /// Reads Apple's payment-data JSON.
    init(json bytes: [UInt8]) throws(DecryptionError) {
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw DecryptionError(.malformedPaymentData, "the decrypted payment data is not what Apple documents: \(Self.describe(error))")
        } catch {
            throw DecryptionError(.malformedPaymentData, "the decrypted payment data is not a JSON object (\(bytes.count) bytes)")
        }
        self.applicationPrimaryAccountNumber = wire.applicationPrimaryAccountNumber
        self.applicationExpirationDate = wire.applicationExpirationDate
        self.currencyCode = wire.currencyCode
        self.transactionAmount = wire.transactionAmount
        self.cardholderName = wire.cardholderName
        self.deviceManufacturerIdentifier = wire.deviceManufacturerIdentifier
        self.paymentDataType = wire.paymentDataType
        self.details = Details(
            onlinePaymentCryptogram: wire.paymentData.onlinePaymentCryptogram,
            eciIndicator: wire.paymentData.eciIndicator,
            emvData: wire.paymentData.emvData,
            encryptedPINData: wire.paymentData.encryptedPINData
        )
        self.rawJSON = bytes
    }

    private struct Wire: Decodable {
        var applicationPrimaryAccountNumber: String
        var applicationExpirationDate: String
        var currencyCode: String
        var transactionAmount: Decimal
        var cardholderName: String?
        var deviceManufacturerIdentifier: String?
        var paymentDataType: String
        var paymentData: DetailsWire
    }

    private struct DetailsWire: Decodable {
        var onlinePaymentCryptogram: String?
        var eciIndicator: String?
        var emvData: String?
        var encryptedPINData: String?
    }

    /// Names the field, never its value.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map(\.stringValue).joined(separator: ".")
            return keys.isEmpty ? "the top level" : keys
        }
        switch error {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return parent == "the top level" ? "\(key.stringValue) is missing" : "\(parent).\(key.stringValue) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(path(context)) has the wrong type"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "it is not a JSON object" : "\(path(context)) is malformed"
        @unknown default:
            return "it could not be decoded"
        }
    }
}
