/// The stable, dotted identifier of one verification check, for example `mdoc.issuer.signature`.
///
/// Identifiers are part of the public contract: reports, metrics labels and integrators' code refer to
/// them. Flows declare their identifiers as static constants in extensions.
public struct CheckID: Hashable, Sendable, Codable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible, Comparable {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (lhs: CheckID, rhs: CheckID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A machine-readable reason code (stable; also used as a metrics label).
public struct ReasonCode: Hashable, Sendable, Codable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

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
}
