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

    func isRequired(_ id: CheckID) -> Bool {
        requirements.requirement(for: id) == .required
    }
}

/// What the caller expects of the transaction (Apple's step 6). Each one set becomes a check;
/// unset ones are reported as not applicable.
public struct ApplePayExpectations: Sendable, Hashable {
    /// ISO 4217 numeric code, e.g. "840".
    public var currencyCode: String?
    /// In minor units, as in `transactionAmount`.
    public var transactionAmount: Decimal?
    /// Hex of SHA-256 of the payment request's applicationData, as in `header.applicationData`.
    public var applicationData: String?

    public init(currencyCode: String? = nil, transactionAmount: Decimal? = nil, applicationData: String? = nil) {
        self.currencyCode = currencyCode
        self.transactionAmount = transactionAmount
        self.applicationData = applicationData
    }

    public static let none = ApplePayExpectations()
}

extension Duration {
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}
