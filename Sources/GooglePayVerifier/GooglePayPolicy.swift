import VerificationCore

/// Whom a token is for: Google signs `merchant:<merchantId>` for a merchant that decrypts its own
/// tokens and `gateway:<gatewayId>` for a payment gateway.
public enum GooglePayRecipient: Sendable, Hashable, CustomStringConvertible {
    /// A merchant: the merchant identifier from the Google Pay & Wallet Console.
    case merchant(String)
    /// A gateway: the gateway identifier Google assigned.
    case gateway(String)

    /// The recipient id as signed: `merchant:<id>` or `gateway:<id>`.
    public var recipientId: String {
        switch self {
        case .merchant(let id): return "merchant:" + id
        case .gateway(let id): return "gateway:" + id
        }
    }

    /// The recipient id.
    public var description: String { recipientId }
}

/// Parameters of Google Pay token verification plus the requirement level of each check.
public struct GooglePayPolicy: Sendable, Hashable {
    /// Requirement levels per check id (all required in ``production``).
    public var requirements: VerificationPolicy
    /// Namespace of message identifiers in the ``ReplayStore``.
    public var replayNamespace: String
    /// The largest token accepted, in bytes.
    public var maximumTokenSize: Int

    /// A policy with these requirement levels, replay namespace and size limit; the defaults are those of ``production``.
    public init(
        requirements: VerificationPolicy = VerificationPolicy(name: "googlepay/production@1"),
        replayNamespace: String = "googlepay.messageId",
        maximumTokenSize: Int = 64 * 1024
    ) {
        self.requirements = requirements
        self.replayNamespace = replayNamespace
        self.maximumTokenSize = maximumTokenSize
    }

    /// Every check required; messageIds in `googlepay.messageId`; tokens up to 64 KiB.
    public static let production = GooglePayPolicy()

    func requiredOnly(_ ids: [CheckID]) -> [CheckID] {
        ids.filter { requirements.requirement(for: $0) == .required }
    }
}
