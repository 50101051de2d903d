/// A stable name that reports, metrics labels and integrators' code refer to (a check id, a reason
/// code): its text is all there is to it. It is written as that text, in code (a string literal), in
/// `description` and in JSON (a plain string: the standard library's coding of a `String`
/// raw value).
public protocol StableName: Hashable, Sendable, Codable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible
where RawValue == String {
    /// Wraps the text.
    init(rawValue: String)
}

extension StableName {
    /// Wraps the text.
    public init(_ rawValue: String) { self.init(rawValue: rawValue) }
    /// The name written as a string literal.
    public init(stringLiteral value: String) { self.init(rawValue: value) }
    /// The text.
    public var description: String { rawValue }
}

/// The stable, dotted identifier of one verification check, for example `mdoc.issuer.signature`.
///
/// Identifiers are part of the public contract: reports, metrics labels and integrators' code refer to
/// them. Flows declare their identifiers as static constants in extensions.
public struct CheckID: StableName, Comparable {
    /// The dotted identifier, as reported.
    public let rawValue: String

    /// Wraps an identifier.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Orders by identifier text, for stable output.
    public static func < (lhs: CheckID, rhs: CheckID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A machine-readable reason code (stable; also used as a metrics label).
public struct ReasonCode: StableName {
    /// The code's text, as reported and used as a metrics label.
    public let rawValue: String

    /// Wraps a code.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The check passed.
    public static let ok: ReasonCode = "ok"
    /// A prerequisite check did not pass, so this one could not be evaluated.
    public static let prerequisiteFailed: ReasonCode = "prerequisiteFailed"
    /// The check does not apply to this input (for example a MAC check on a signed response).
    public static let notApplicable: ReasonCode = "notApplicable"
    /// The policy disables this check.
    public static let disabledByPolicy: ReasonCode = "disabledByPolicy"
    /// The input the check needed could not be decoded.
    public static let malformedInput: ReasonCode = "malformedInput"
    /// An operational problem (a store could not be reached, ...).
    public static let unavailable: ReasonCode = "unavailable"

    // Replay and request-session stores, shared by every flow.
    /// `replay.nonce` (passed): the same submission was verified again (a retry with the same idempotency key), so its nonce counts as used
    /// once.
    public static let idempotentRetry: ReasonCode = "idempotentRetry"
    /// `replay.nonce`: the request expired before the response arrived: start a new request.
    public static let nonceExpired: ReasonCode = "nonceExpired"
    /// `replay.nonce`: the request's nonce was used already by an earlier response: a replay; reject it.
    public static let nonceReused: ReasonCode = "nonceReused"
    /// `replay.nonce` (error): the stored request could not be read: the store's data is damaged; start a new request.
    public static let storeCorrupt: ReasonCode = "storeCorrupt"
    /// `replay.nonce` (error, retryable): the nonce store could not be reached: try again later.
    public static let storeUnavailable: ReasonCode = "storeUnavailable"
    /// `replay.nonce`: no such request was issued here (or it was purged): start a new request.
    public static let unknownRequest: ReasonCode = "unknownRequest"
}
