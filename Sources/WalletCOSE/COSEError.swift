/// An error for COSE input that cannot be used: wrong structure, unknown or unsupported algorithm,
/// a key of the wrong kind, a signature of the wrong length. A signature that is well-formed but
/// does not verify is not an error: verification returns `false`.
///
/// Equality compares ``code`` only.
public struct COSEError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, machine-readable error category; the known ones are its static members.
    public struct Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        /// The code's name, as shown in messages.
        public let rawValue: String
        /// Wraps a code name; prefer the static members.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The CBOR is not a COSE structure of the expected shape.
        public static let malformedStructure = Code(rawValue: "malformedStructure")
        /// The underlying CBOR could not be decoded.
        public static let malformedCBOR = Code(rawValue: "malformedCBOR")
        /// No `alg` header, or one this library does not support.
        public static let unsupportedAlgorithm = Code(rawValue: "unsupportedAlgorithm")
        /// The key does not fit the algorithm (curve, kind).
        public static let keyAlgorithmMismatch = Code(rawValue: "keyAlgorithmMismatch")
        /// The COSE_Key is malformed or of an unsupported type or curve.
        public static let invalidKey = Code(rawValue: "invalidKey")
        /// The signature or tag has the wrong length (for example a DER-encoded ECDSA signature).
        public static let invalidSignatureFormat = Code(rawValue: "invalidSignatureFormat")
        /// The payload is detached but none was supplied, or attached and another was supplied.
        public static let payloadMismatch = Code(rawValue: "payloadMismatch")
        /// No x5chain header.
        public static let missingCertificateChain = Code(rawValue: "missingCertificateChain")
        /// A critical header parameter this library does not understand.
        public static let unsupportedCriticalHeader = Code(rawValue: "unsupportedCriticalHeader")
    }

    /// The category: the only part that equality and hashing consider.
    public let code: Code
    /// A human-readable explanation, for logs and reports.
    public let message: String

    /// Creates an error of a category with an explanation.
    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The code and the message, for logs.
    public var description: String { "COSEError.\(code): \(message)" }

    /// Compares ``code`` only; messages may differ.
    public static func == (lhs: COSEError, rhs: COSEError) -> Bool { lhs.code == rhs.code }
    /// Hashes ``code`` only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
