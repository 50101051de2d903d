/// Where an error was thrown: the `#fileID` and line of the throwing call, kept for diagnostics
/// (logs, debugging) and never compared.
public struct ErrorLocation: Hashable, Sendable, CustomStringConvertible {
    /// The `#fileID` of the throwing call, for example `WebIdentity/WebRecipientKey.swift`.
    public let fileID: String
    /// The line of the throwing call.
    public let line: UInt

    /// A location; the defaults capture the caller's.
    public init(fileID: String = #fileID, line: UInt = #line) {
        self.fileID = fileID
        self.line = line
    }

    /// `fileID:line`.
    public var description: String { "\(fileID):\(line)" }
}

/// What a family of ``CodedError``s is about (trust anchors, key files, web requests, …): its name
/// and the code of an error thrown without one. Each module declares its own domains.
public protocol ErrorDomain: Sendable {
    /// The name of the error type in logs, for example `TrustStoreError`.
    static var name: String { get }
    /// The code of an error made with ``CodedError/init(_:fileID:line:)``.
    static var defaultCode: ErrorCode { get }
}

/// The one shape of the library's configuration and input errors (a key file, a trust anchor, a
/// request descriptor, a VICAL, a web request, a setting, a command's input): a stable ``ErrorCode``
/// that callers branch on, a message for people that says what is wrong and what to do (never key
/// material or personal data), and where it was thrown. Each domain is its own type
/// (`TrustStoreError` is `CodedError<TrustStoreErrorDomain>`), so `catch let error as TrustStoreError`
/// and typed throws keep telling them apart.
///
/// Equality and hashing consider only ``code``, as for `CBORError` and swift-certificates'
/// `CertificateError`: two errors of the same domain and code are the same error whatever their
/// wording or location, so a test compares against `TrustStoreError(.invalidKey, "")`.
public struct CodedError<Domain: ErrorDomain>: Error, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What kind of error this is: the only part equality and hashing consider.
    public let code: ErrorCode
    /// What is wrong and what to do, for people. Never key material or personal data.
    public let message: String
    /// Where it was thrown, for diagnostics.
    public let location: ErrorLocation

    /// An error of the domain's usual code, thrown here.
    public init(_ message: String, fileID: String = #fileID, line: UInt = #line) {
        self.init(Domain.defaultCode, message, fileID: fileID, line: line)
    }

    /// An error with its code and message, thrown here.
    public init(_ code: ErrorCode, _ message: String, fileID: String = #fileID, line: UInt = #line) {
        self.code = code
        self.message = message
        self.location = ErrorLocation(fileID: fileID, line: line)
    }

    /// Same domain (by type) and same code.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, as equality does.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// The message: what users see.
    public var description: String { message }

    /// The domain, code, message and location: for logs and debugging.
    public var debugDescription: String { "\(Domain.name).\(code): \(message) (\(location))" }
}
