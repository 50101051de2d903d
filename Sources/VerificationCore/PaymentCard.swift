import WalletJSON

/// The card of an accepted wallet payment, in the same shape for every wallet: what a payment
/// processor needs to charge a decrypted token (account number, expiry, cryptogram, ECI), so one
/// mapping serves Apple Pay and Google Pay.
///
/// Sensitive: `description`, `debugDescription` and `dump` show the wallet, the last four digits and
/// whether a cryptogram is present; never the number, the expiry or the cryptogram.
public struct PaymentCard: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The wallet that issued the token.
    public enum Wallet: String, Sendable, Hashable {
        /// Apple Pay.
        case applePay = "applepay"
        /// Google Pay.
        case googlePay = "googlepay"
    }

    /// The wallet that issued the token.
    public let wallet: Wallet
    /// The account number: the device account number (DPAN) of a network token, or the card's own
    /// number (FPAN) for a Google Pay card on file.
    public let number: String
    /// The month the number expires, 1–12, when the wallet gives it.
    public let expiryMonth: Int?
    /// The year the number expires, four digits, when the wallet gives it.
    public let expiryYear: Int?
    /// Google Pay's `authMethod` (`PAN_ONLY` or `CRYPTOGRAM_3DS`); nil for Apple Pay.
    public let authMethod: String?
    /// Apple Pay's `paymentDataType` (`3DSecure` or `EMV`); nil for Google Pay.
    public let paymentDataType: String?
    /// The network token's cryptogram (Apple's `onlinePaymentCryptogram`, Google's `cryptogram`), when present.
    public let cryptogram: String?
    /// The electronic commerce indicator, when the wallet sends one.
    public let eci: String?

    /// A card with these members.
    public init(
        wallet: Wallet, number: String, expiryMonth: Int?, expiryYear: Int?, authMethod: String? = nil, paymentDataType: String? = nil,
        cryptogram: String?, eci: String?
    ) {
        self.wallet = wallet
        self.number = number
        self.expiryMonth = expiryMonth
        self.expiryYear = expiryYear
        self.authMethod = authMethod
        self.paymentDataType = paymentDataType
        self.cryptogram = cryptogram
        self.eci = eci
    }

    /// The JSON object of the accepted answers' `card` member, members in a fixed order:
    /// `wallet`, `number`, `expiryMonth`, `expiryYear`, `authMethod` or `paymentDataType`,
    /// `cryptogram`, `eci`; a member the wallet did not send is left out.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter(capacity: 192)
        writer.raw("{")
        writer.key("wallet")
        writer.string(wallet.rawValue)
        writer.raw(",")
        writer.key("number")
        writer.string(number)
        if let expiryMonth {
            writer.raw(",")
            writer.key("expiryMonth")
            writer.raw(String(expiryMonth))
        }
        if let expiryYear {
            writer.raw(",")
            writer.key("expiryYear")
            writer.raw(String(expiryYear))
        }
        for (name, value) in [("authMethod", authMethod), ("paymentDataType", paymentDataType), ("cryptogram", cryptogram), ("eci", eci)] {
            guard let value else { continue }
            writer.raw(",")
            writer.key(name)
            writer.string(value)
        }
        writer.raw("}")
        return writer.bytes
    }

    /// The wallet, the last four digits and whether a cryptogram is present.
    public var description: String {
        let lastFour = number.count > 8 ? "••••" + number.suffix(4) : "••••"
        var parts = [wallet.rawValue, "number \(lastFour)", "expiry hidden"]
        if let method = authMethod ?? paymentDataType { parts.append(method) }
        if let eci { parts.append("eci \(eci)") }
        if cryptogram != nil { parts.append("cryptogram present (hidden)") }
        return "PaymentCard(" + parts.joined(separator: ", ") + ")"
    }

    /// The same as ``description``, so debug output stays redacted.
    public var debugDescription: String { description }

    /// A mirror whose only child is ``description``, so `dump` and debuggers show no secrets.
    public var customMirror: Mirror {
        Mirror(self, children: ["redacted": description], displayStyle: .struct)
    }
}
