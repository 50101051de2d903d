import Foundation

/// A configuration problem with merchant keys, certificates or the trust anchor. Thrown when a key
/// ring or verifier is built (never during a verification).
public struct MerchantKeyError: Error, Hashable, CustomStringConvertible {
    /// What kind of problem it is; extensible like `CBORError.Code`.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code as written in logs and tests.
        public let rawValue: String
        /// A code with this raw value.
        public init(_ rawValue: String) { self.rawValue = rawValue }
        /// The raw value.
        public var description: String { rawValue }

        /// The key file holds no readable private key.
        public static let unreadableKey = Code("unreadableKey")
        /// The certificate file holds no readable certificate.
        public static let unreadableCertificate = Code("unreadableCertificate")
        /// A PKCS#12 keystore was given; the key and certificate must be extracted from it first.
        public static let pkcs12 = Code("pkcs12")
        /// The private key is encrypted; it must be decrypted first.
        public static let encryptedKey = Code("encryptedKey")
        /// The key is neither P-256 (EC_v1) nor RSA (RSA_v1).
        public static let unsupportedKeyType = Code("unsupportedKeyType")
        /// The private key is not the certificate's.
        public static let keyCertificateMismatch = Code("keyCertificateMismatch")
        /// No merchant identifier was given and the certificate carries none.
        public static let merchantIdentifierMissing = Code("merchantIdentifierMissing")
        /// The merchant identifier given differs from the certificate's.
        public static let merchantIdentifierMismatch = Code("merchantIdentifierMismatch")
        /// Two configured keys have the same public key hash.
        public static let duplicateKey = Code("duplicateKey")
    }

    /// What kind of problem it is.
    public var code: Code
    /// What is wrong and how to fix it. Never key material.
    public var reason: String

    /// An error with its code and reason.
    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// The reason.
    public var description: String { reason }

    /// Errors are equal when their codes are (tests compare codes, not wording).
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    /// Hashes the code only, as equality compares it only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
