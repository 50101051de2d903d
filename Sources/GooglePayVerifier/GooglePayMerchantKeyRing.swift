import Crypto
import WalletEncoding

/// One of the merchant's P-256 encryption keys (the private half of the public key registered
/// with Google).
public struct GooglePayMerchantKey: Sendable, CustomStringConvertible {
    /// The private key tokens are decrypted with.
    public let privateKey: P256.KeyAgreement.PrivateKey
    /// base64 of the uncompressed public key, as registered with Google: names the key in reports.
    public let publicKeyBase64: String

    /// A key from its private half.
    public init(privateKey: P256.KeyAgreement.PrivateKey) {
        self.privateKey = privateKey
        self.publicKeyBase64 = Base64.encode(privateKey.publicKey.x963Representation)
    }

    /// A key from a PEM file: `EC PRIVATE KEY` (SEC 1) or `PRIVATE KEY` (PKCS #8).
    public init(pemRepresentation pem: String) throws {
        self.init(privateKey: try P256.KeyAgreement.PrivateKey(pemRepresentation: pem))
    }

    /// A key from DER: PKCS #8 (what Google's examples give in base64) or SEC 1.
    public init(derRepresentation der: [UInt8]) throws {
        self.init(privateKey: try P256.KeyAgreement.PrivateKey(derRepresentation: der))
    }

    /// The public key only; never key material.
    public var description: String { "GooglePayMerchantKey(public \(publicKeyBase64))" }
}

/// The merchant's encryption keys, any number (rotation): each is tried in turn on a token's tag
/// until one verifies it.
public struct GooglePayMerchantKeyRing: Sendable, CustomStringConvertible {
    /// The keys, in the order tried.
    public let keys: [GooglePayMerchantKey]

    /// A ring of these keys, tried in this order.
    public init(_ keys: [GooglePayMerchantKey]) {
        self.keys = keys
    }

    /// A ring without keys: tokens can be verified but not decrypted.
    public static let empty = GooglePayMerchantKeyRing([])

    /// The number of keys and their public halves; never key material.
    public var description: String {
        "GooglePayMerchantKeyRing(\(keys.count) keys: \(keys.map(\.publicKeyBase64).joined(separator: ", ")))"
    }
}
