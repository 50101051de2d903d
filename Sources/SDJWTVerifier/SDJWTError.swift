import VerificationCore

/// Why a presentation cannot be read or a rule of SD-JWT does not hold: a reason code a check
/// reports, and a message naming the part at fault (never a claim value).
public struct SDJWTError: Error, Sendable, CustomStringConvertible, CheckFailureDescribing {
    /// The reason the check reports.
    public let reasonCode: ReasonCode
    /// What is wrong, for people.
    public let checkMessage: String
    /// Never operational: every SD-JWT error is about the input.
    public var isOperational: Bool { false }

    /// An error with its reason and message.
    public init(_ reason: ReasonCode, _ message: String) {
        self.reasonCode = reason
        self.checkMessage = message
    }

    /// The reason and the message.
    public var description: String { "\(reasonCode): \(checkMessage)" }
}
