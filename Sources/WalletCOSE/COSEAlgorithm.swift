/// COSE algorithm identifiers (IANA "COSE Algorithms") used by mdoc, CWT status lists and VICALs.
public struct COSEAlgorithm: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
    /// The IANA identifier, as carried in the `alg` header parameter.
    public let rawValue: Int64
    /// Wraps any identifier, including ones this library does not support.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// ECDSA with SHA-256 (P-256).
    public static let es256 = COSEAlgorithm(rawValue: -7)
    /// ECDSA with SHA-384 (P-384).
    public static let es384 = COSEAlgorithm(rawValue: -35)
    /// ECDSA with SHA-512 (P-521).
    public static let es512 = COSEAlgorithm(rawValue: -36)
    /// EdDSA (Ed25519).
    public static let edDSA = COSEAlgorithm(rawValue: -8)
    /// HMAC with SHA-256, 256-bit tag.
    public static let hmac256 = COSEAlgorithm(rawValue: 5)

    /// The usual name ("ES256", ...), or the number for an algorithm without one here.
    public var description: String {
        switch self {
        case .es256: return "ES256"
        case .es384: return "ES384"
        case .es512: return "ES512"
        case .edDSA: return "EdDSA"
        case .hmac256: return "HMAC 256/256"
        default: return "COSE algorithm \(rawValue)"
        }
    }
}

/// Well-known COSE header labels.
public enum COSEHeaderLabel {
    /// `alg`: the algorithm identifier (see ``COSEAlgorithm``).
    public static let algorithm: Int64 = 1
    /// `crit`: labels the recipient must understand; a protected `crit` is rejected, as none is supported.
    public static let critical: Int64 = 2
    /// `content type`: the media type of the payload.
    public static let contentType: Int64 = 3
    /// `kid`: an identifier of the key, a byte string.
    public static let keyID: Int64 = 4
    /// x5chain (RFC 9360): one certificate as a bstr, or an array of bstr, leaf first.
    public static let x5chain: Int64 = 33
}
