import Foundation
import VerificationCore
import WalletJSON

/// The decrypted card of an accepted token, typed, plus the JSON exactly as decrypted.
///
/// Sensitive: `description`, `debugDescription` and `dump` show the last four digits of the
/// account number and never the cryptogram or the expiry. Read the properties (or ``rawJSON``)
/// to process the payment.
public struct GooglePayPaymentData: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// How the card was authenticated.
    public enum AuthMethod: String, Sendable, Hashable {
        /// A card on file: the account number, without a cryptogram (3-D Secure may be needed).
        case panOnly = "PAN_ONLY"
        /// A device token: the device account number with a 3-D Secure cryptogram.
        case cryptogram3DS = "CRYPTOGRAM_3DS"
    }

    /// `messageId`: Google's identifier of this message.
    public let messageId: String
    /// `messageExpiration`.
    public let messageExpiration: Date
    /// `paymentMethod`: always CARD.
    public let paymentMethod: String
    /// `paymentMethodDetails.pan` (or the older `dpan`): the account number, or the device account
    /// number for CRYPTOGRAM_3DS.
    public let pan: String
    /// `paymentMethodDetails.expirationMonth`, 1–12.
    public let expirationMonth: Int
    /// `paymentMethodDetails.expirationYear`, four digits.
    public let expirationYear: Int
    /// `paymentMethodDetails.authMethod`.
    public let authMethod: AuthMethod
    /// `paymentMethodDetails.cryptogram` (CRYPTOGRAM_3DS only).
    public let cryptogram: String?
    /// `paymentMethodDetails.eciIndicator`, when Google sends one (CRYPTOGRAM_3DS only).
    public let eciIndicator: String?
    /// `gatewayMerchantId`, when present.
    public let gatewayMerchantId: String?
    /// The decrypted JSON, byte for byte.
    public let rawJSON: [UInt8]

    /// The account number's last four digits, the rest masked.
    public var maskedPAN: String {
        let count = pan.count
        return String(repeating: "•", count: max(0, count - 4)) + String(pan.suffix(min(4, count)))
    }

    /// A summary with the masked account number; the cryptogram and the expiry only as "present".
    public var description: String {
        var parts = ["PAN \(maskedPAN)", "auth \(authMethod.rawValue)", "expiry hidden"]
        if let eci = eciIndicator { parts.append("eci \(eci)") }
        if cryptogram != nil { parts.append("cryptogram present (hidden)") }
        return "GooglePayPaymentData(" + parts.joined(separator: ", ") + ")"
    }

    /// The same as ``description``, so debug output stays redacted.
    public var debugDescription: String { description }

    /// A mirror whose only child is ``description``, so `dump` and debuggers show no secrets.
    public var customMirror: Mirror {
        Mirror(self, children: ["redacted": description], displayStyle: .struct)
    }

    /// The largest `messageId` accepted.
    static let maximumMessageIdLength = 1024

    /// Reads the decrypted message. Messages name fields, never their values.
    init(json bytes: [UInt8]) throws(MessageError) {
        let value: StrictJSON.Value
        do {
            value = try StrictJSON.parse(bytes)
        } catch {
            throw MessageError(
                .malformedMessage, "The decrypted message is not valid JSON (\(error.message) at byte \(error.offset) of \(bytes.count))")
        }
        guard let object = value.object else {
            throw MessageError(.malformedMessage, "The decrypted message is \(value.typeName), not a JSON object")
        }
        let expirationText = try Self.string("messageExpiration", in: object)
        guard let expiration = GooglePayTime.date(milliseconds: expirationText) else {
            throw MessageError(.malformedMessage, "messageExpiration is not milliseconds since the epoch")
        }
        let messageId = try Self.string("messageId", in: object)
        guard !messageId.isEmpty, messageId.utf8.count <= Self.maximumMessageIdLength else {
            throw MessageError(.malformedMessage, "messageId is empty or longer than \(Self.maximumMessageIdLength) bytes")
        }
        let paymentMethod = try Self.string("paymentMethod", in: object)
        guard paymentMethod == "CARD" else {
            throw MessageError(.unsupportedPaymentMethod, "paymentMethod is not CARD, the only payment method Google documents")
        }
        guard let detailsValue = object["paymentMethodDetails"] else {
            throw MessageError(.malformedMessage, "The decrypted message has no paymentMethodDetails")
        }
        guard let details = detailsValue.object else {
            throw MessageError(.malformedMessage, "paymentMethodDetails is \(detailsValue.typeName), not an object")
        }
        let authText = try Self.string("authMethod", in: details, path: "paymentMethodDetails.")
        guard let authMethod = AuthMethod(rawValue: authText) else {
            throw MessageError(.unsupportedAuthMethod, "paymentMethodDetails.authMethod is neither PAN_ONLY nor CRYPTOGRAM_3DS")
        }
        // `pan`; tokens of the first ECv2 integrations named the device account number `dpan`.
        let panName = details["pan"] != nil || details["dpan"] == nil ? "pan" : "dpan"
        let pan = try Self.string(panName, in: details, path: "paymentMethodDetails.")
        guard (12...19).contains(pan.utf8.count), pan.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw MessageError(.cardFieldInvalid, "paymentMethodDetails.\(panName) is not 12 to 19 digits")
        }
        let month = try Self.integer("expirationMonth", in: details)
        guard (1...12).contains(month) else {
            throw MessageError(.cardFieldInvalid, "paymentMethodDetails.expirationMonth is not a month (1 to 12)")
        }
        let year = try Self.integer("expirationYear", in: details)
        guard (2000...9999).contains(year) else {
            throw MessageError(.cardFieldInvalid, "paymentMethodDetails.expirationYear is not a four-digit year")
        }
        var cryptogram: String?
        var eci: String?
        if authMethod == .cryptogram3DS {
            let text = try Self.string("cryptogram", in: details, path: "paymentMethodDetails.")
            guard !text.isEmpty, text.utf8.count <= 256 else {
                throw MessageError(.cardFieldInvalid, "paymentMethodDetails.cryptogram is empty or longer than 256 bytes")
            }
            cryptogram = text
            if let member = details["eciIndicator"] {
                guard let text = member.string, text.utf8.count <= 4, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
                    throw MessageError(.cardFieldInvalid, "paymentMethodDetails.eciIndicator is not a string of at most 4 digits")
                }
                eci = text
            }
        }
        var gatewayMerchantId: String?
        if let member = object["gatewayMerchantId"] {
            guard let text = member.string else {
                throw MessageError(.malformedMessage, "gatewayMerchantId is \(member.typeName), not a string")
            }
            gatewayMerchantId = text
        }
        self.messageId = messageId
        self.messageExpiration = expiration
        self.paymentMethod = paymentMethod
        self.pan = pan
        self.expirationMonth = month
        self.expirationYear = year
        self.authMethod = authMethod
        self.cryptogram = cryptogram
        self.eciIndicator = eci
        self.gatewayMerchantId = gatewayMerchantId
        self.rawJSON = bytes
    }

    private static func string(_ name: String, in object: StrictJSON.Object, path: String = "") throws(MessageError) -> String {
        guard let value = object[name] else { throw MessageError(.malformedMessage, "The decrypted message has no \(path)\(name)") }
        guard let text = value.string else {
            throw MessageError(.malformedMessage, "\(path)\(name) is \(value.typeName), not a string")
        }
        return text
    }

    private static func integer(_ name: String, in details: StrictJSON.Object) throws(MessageError) -> Int {
        guard let value = details[name] else {
            throw MessageError(.malformedMessage, "The decrypted message has no paymentMethodDetails.\(name)")
        }
        guard let text = value.number else {
            throw MessageError(.malformedMessage, "paymentMethodDetails.\(name) is \(value.typeName), not a number")
        }
        guard text.utf8.count <= 4, let number = Int(text) else {
            throw MessageError(.cardFieldInvalid, "paymentMethodDetails.\(name) is not a whole number of at most 4 digits")
        }
        return number
    }
}

/// Why the decrypted message could not be read.
struct MessageError: Error, CheckFailureDescribing {
    let reasonCode: ReasonCode
    let checkMessage: String

    init(_ reason: ReasonCode, _ message: String) {
        self.reasonCode = reason
        self.checkMessage = message
    }
}

extension GooglePayPaymentData {
    /// The card in the shape shared with Apple Pay: the PAN (a card on file) or DPAN (a device
    /// token), the expiry, `authMethod`, and for CRYPTOGRAM_3DS the cryptogram and ECI.
    public var card: PaymentCard {
        PaymentCard(
            wallet: .googlePay, number: pan, expiryMonth: expirationMonth, expiryYear: expirationYear, authMethod: authMethod.rawValue,
            cryptogram: cryptogram, eci: eciIndicator)
    }
}
