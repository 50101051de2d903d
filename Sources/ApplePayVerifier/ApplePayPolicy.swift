import Foundation
import VerificationCore

/// Parameters of Apple Pay token verification plus the requirement level of each check.
public struct ApplePayPolicy: Sendable, Hashable {
    /// Requirement levels per check id (all required in ``production``).
    public var requirements: VerificationPolicy
    /// How long after its CMS signing time a token is accepted (default 5 minutes).
    public var maximumSigningAge: Duration
    /// How far in the future a signing time may lie (clocks disagree). The verification context's
    /// `clockSkew` is used instead when it is larger.
    public var allowedFutureSkew: Duration
    /// Namespace of transaction identifiers in the ``ReplayStore``.
    public var replayNamespace: String

    /// A policy with these requirement levels, time limits and replay namespace; the defaults are those of ``production``.
    public init(
        requirements: VerificationPolicy = VerificationPolicy(name: "applepay/production@1"),
        maximumSigningAge: Duration = .seconds(300),
        allowedFutureSkew: Duration = .seconds(60),
        replayNamespace: String = "applepay.transactionId"
    ) {
        self.requirements = requirements
        self.maximumSigningAge = maximumSigningAge
        self.allowedFutureSkew = allowedFutureSkew
        self.replayNamespace = replayNamespace
    }

    /// Every check required; 5-minute window; 60 s future skew.
    public static let production = ApplePayPolicy()

    /// The longest signing-time window a deployment may configure (the service's `--max-age` upper
    /// bound): 24 hours. Transaction identifiers are remembered at least this long after signing.
    public static let longestSigningAge: Duration = .seconds(86_400)

    /// The largest clock skew a deployment may configure (the service's `--clock-skew` upper bound): 1 hour.
    public static let largestClockSkew: Duration = .seconds(3600)

    /// How long after its signing time (or the verification time, when later) a transaction
    /// identifier is remembered: the longest window and the largest skew any configuration may use
    /// (or this policy's, when larger), whatever the current window is — so that raising the window
    /// (a reload, another instance on the same store) never makes a token acceptable again.
    public var replayRetention: Duration {
        max(maximumSigningAge, Self.longestSigningAge) + max(allowedFutureSkew, Self.largestClockSkew)
    }

    func isRequired(_ id: CheckID) -> Bool {
        requirements.requirement(for: id) == .required
    }
}

/// What the caller expects of the transaction (Apple's step 6, seed 004: "Check that the currencyCode
/// is as expected", "that the transactionAmount is correct", "that the applicationData field matches
/// the hash of the data used in the original payment request"). Each one set becomes a check; unset
/// ones are reported as not applicable, and a verification without an expected currency and amount
/// (or without an expected applicationData for a token that carries one) carries an
/// `expectationsMissing` warning: a payment flow must set them.
public struct ApplePayExpectations: Sendable, Hashable {
    /// ISO 4217 numeric code, e.g. "840".
    public var currencyCode: String?
    /// In the currency's minor units, as in `transactionAmount` (1999 for 19.99 USD): a whole number.
    public var transactionAmount: Decimal?
    /// Hex of SHA-256 of the payment request's applicationData, as in `header.applicationData`.
    public var applicationData: String?
    /// The payment request's applicationData itself (the bytes given to `PKPaymentRequest.applicationData`):
    /// the verifier hashes it as Apple does (SHA-256) and compares the hash with `header.applicationData`.
    /// When both this and ``applicationData`` are set, both must match.
    public var originalApplicationData: [UInt8]?

    /// Expectations of these values; each one left nil is not checked (its check is not applicable).
    public init(
        currencyCode: String? = nil, transactionAmount: Decimal? = nil, applicationData: String? = nil, originalApplicationData: [UInt8]? = nil
    ) {
        self.currencyCode = currencyCode
        self.transactionAmount = transactionAmount
        self.applicationData = applicationData
        self.originalApplicationData = originalApplicationData
    }

    /// No expectations: every `applepay.expect.*` check is reported as not applicable, and the report
    /// carries an `expectationsMissing` warning.
    public static let none = ApplePayExpectations()

    /// Whether an applicationData is expected, in either form.
    public var expectsApplicationData: Bool { applicationData != nil || originalApplicationData != nil }

    /// The expectations a payment flow needs and this one lacks, by the names of the checks' subjects:
    /// `currencyCode`, `transactionAmount`, and `applicationData` when the token carries a
    /// `header.applicationData` (`tokenHasApplicationData`) that nothing is compared with.
    public func missing(tokenHasApplicationData: Bool) -> [String] {
        var names: [String] = []
        if currencyCode == nil { names.append("currencyCode") }
        if transactionAmount == nil { names.append("transactionAmount") }
        if tokenHasApplicationData && !expectsApplicationData { names.append("applicationData") }
        return names
    }

    /// An amount in minor units from the text of a number: a whole, non-negative value ("1999", or
    /// a JSON number with that value such as "1999.0" or "19.99e2"); nil for anything else ("19.99",
    /// "-5", "ten").
    public static func minorUnits(_ text: String) -> Decimal? {
        let utf8 = text.utf8
        if (1...18).contains(utf8.count), utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(text) {
            return Decimal(value)
        }
        // A number in another notation: the characters of a JSON number only, then a whole value.
        guard utf8.count <= 64, utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E || $0 == 0x65 || $0 == 0x45 || $0 == 0x2B || $0 == 0x2D }),
            let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), value.isFinite, value >= 0, value <= Decimal(Int64.max)
        else { return nil }
        var rounded = Decimal()
        var copy = value
        NSDecimalRound(&rounded, &copy, 0, .plain)
        return rounded == value ? value : nil
    }
}

extension Duration {
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
