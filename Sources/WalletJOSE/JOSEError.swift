/// Why a JOSE object (JWK, JWS or JWE) was refused: a stable code and a message that says what was
/// wrong and what to do. Messages never hold key material, plaintext or payload values.
public struct JOSEError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of error this is; extensible, compare with the constants.
    public struct Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        /// The code as written in reports, logs and tests.
        public let rawValue: String
        /// A code with this raw value.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The raw value.
        public var description: String { rawValue }

        /// The compact serialization does not have the required number of parts, or the input is too large.
        public static let malformedCompact = Code(rawValue: "malformedCompact")
        /// A part is not unpadded base64url (RFC 7515 §2), or decodes to the wrong length.
        public static let invalidBase64URL = Code(rawValue: "invalidBase64URL")
        /// The protected header is not a strict JSON object (duplicate members, bad UTF-8, not an object) or lacks a member.
        public static let malformedHeader = Code(rawValue: "malformedHeader")
        /// The `alg` header value is not one this implementation accepts.
        public static let unsupportedAlgorithm = Code(rawValue: "unsupportedAlgorithm")
        /// The `enc` header value is not one this implementation accepts.
        public static let unsupportedEncryption = Code(rawValue: "unsupportedEncryption")
        /// The header uses a feature that is refused (`zip`, `crit`, an encrypted key with direct key agreement).
        public static let unsupportedHeader = Code(rawValue: "unsupportedHeader")
        /// A JWK is not an EC P-256 public key with valid coordinates (or a point not on the curve).
        public static let invalidKey = Code(rawValue: "invalidKey")
        /// AES-GCM authentication failed: the JWE was altered or encrypted to another key.
        public static let decryptionFailed = Code(rawValue: "decryptionFailed")
        /// The JWS signature does not verify with the given key.
        public static let invalidSignature = Code(rawValue: "invalidSignature")
        /// A signing or encryption operation could not be carried out (for example an unusable certificate).
        public static let operationFailed = Code(rawValue: "operationFailed")
    }

    /// What kind of error this is.
    public var code: Code
    /// What was wrong and what to do, as a sentence.
    public var message: String

    /// An error of a code with a message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The code and the message.
    public var description: String { "\(code): \(message)" }
}
