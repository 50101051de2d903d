/// The code of a configuration or input error (a key file, a trust anchor, a request descriptor, a
/// setting): a stable identifier callers can branch on, next to the error's message for people. Every
/// ``CodedError`` carries one. The package alone adds codes (the initialisers are `package`), so a
/// caller can switch over the codes it knows and treat any other as "invalid input".
public struct ErrorCode: Hashable, Sendable, CustomStringConvertible {
    /// The code as written in logs and tests.
    public let rawValue: String
    /// A code with this raw value.
    package init(rawValue: String) { self.rawValue = rawValue }
    /// A code with this raw value.
    package init(_ rawValue: String) { self.rawValue = rawValue }
    /// The raw value.
    public var description: String { rawValue }

    /// A private key could not be read or is not of the kind required.
    public static let invalidKey = ErrorCode("invalidKey")
    /// A certificate or trust anchor could not be read.
    public static let invalidCertificate = ErrorCode("invalidCertificate")
    /// A file could not be read at all.
    public static let unreadableFile = ErrorCode("unreadableFile")
    /// A request descriptor or presentation request is not one this verifier can ask for.
    public static let invalidRequest = ErrorCode("invalidRequest")
    /// A setting (flag, environment variable, configuration file) is invalid.
    public static let invalidSetting = ErrorCode("invalidSetting")
    /// Input given to a command is unreadable or of the wrong kind.
    public static let invalidInput = ErrorCode("invalidInput")
    /// A VICAL does not have the ISO/IEC 18013-5 Annex C shape.
    public static let malformedVICAL = ErrorCode("malformedVICAL")
    /// A request asks for more than a limit allows (elements, stored size; see ``RequestLimits``):
    /// ask for less, or raise the limit.
    public static let requestTooLarge = ErrorCode("requestTooLarge")
}
