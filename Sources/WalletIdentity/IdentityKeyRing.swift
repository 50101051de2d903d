import Crypto
import Foundation
import VerificationCore
import WalletCBOR
import WalletEncoding

/// The merchant's identity encryption keys (several during a rotation). A response names its key by
/// `pkRHash` = SHA-256(0x04‖X‖Y of the public key); selection happens before any decryption.
public struct IdentityKeyRing: Sendable, CustomStringConvertible {
    /// One private key of the ring with the hash that selects it.
    public struct Key: Sendable, CustomStringConvertible {
        /// The P-256 key-agreement key that opens envelopes encrypted to it.
        public let privateKey: P256.KeyAgreement.PrivateKey
        /// SHA-256 of the public key's uncompressed point (0x04‖X‖Y), compared with an envelope's `pkRHash`.
        public let publicKeyHash: [UInt8]
        /// A label for reports (a file name), never key material.
        public let label: String

        /// The label and public-key hash only; never key material.
        public var description: String { "IdentityKeyRing.Key(\(label), pkRHash \(Hex.encode(publicKeyHash)))" }
    }

    /// Labels and public-key hashes only; never key material.
    public var description: String { "IdentityKeyRing(\(keys.map(\.description).joined(separator: ", ")))" }

    /// The keys in the order they were added.
    public private(set) var keys: [Key] = []

    /// Creates a ring of the given keys, labelled `key1`, `key2` and so on.
    public init(_ keys: [P256.KeyAgreement.PrivateKey] = []) {
        for (index, key) in keys.enumerated() { add(key, label: "key\(index + 1)") }
    }

    /// Adds a key under a label shown in reports.
    public mutating func add(_ key: P256.KeyAgreement.PrivateKey, label: String) {
        keys.append(Key(privateKey: key, publicKeyHash: Self.publicKeyHash(key.publicKey), label: label))
    }

    /// SHA-256 of the key's uncompressed point (0x04‖X‖Y): the `pkRHash` an envelope encrypted to it carries.
    public static func publicKeyHash(_ key: P256.KeyAgreement.PublicKey) -> [UInt8] {
        Array(SHA256.hash(data: key.x963Representation))
    }

    /// The key whose public-key hash equals `hash` (an envelope's `pkRHash`); nil when none matches.
    public func key(forHash hash: [UInt8]) -> Key? {
        keys.first { $0.publicKeyHash == hash }
    }

    /// Loads a PEM P-256 private key (SEC1 "EC PRIVATE KEY" or PKCS#8 "PRIVATE KEY"; text before
    /// the PEM block, such as openssl's "Bag Attributes", is ignored).
    public static func loadPrivateKey(pem text: String, name: String) throws -> P256.KeyAgreement.PrivateKey {
        if let block = PEM.firstBlock(labeled: PEM.privateKeyLabels, in: text) {
            if let key = try? P256.KeyAgreement.PrivateKey(derRepresentation: block.der) { return key }
            throw IdentityKeyError("\(name): the \(block.label) block is not a P-256 private key")
        }
        if text.contains("ENCRYPTED PRIVATE KEY") {
            throw IdentityKeyError("\(name) is an encrypted PKCS#8 key; decrypt it first: openssl pkcs8 -in \(name) -out key.pem")
        }
        throw IdentityKeyError("\(name) holds no PEM P-256 private key (\"EC PRIVATE KEY\" or \"PRIVATE KEY\")")
    }

    /// Adds the PEM private key at `path`, labelled with its file name.
    /// Throws ``IdentityKeyError`` when the file cannot be read or holds no usable P-256 private key.
    public mutating func load(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw IdentityKeyError("cannot read \(path)") }
        add(try Self.loadPrivateKey(pem: String(decoding: data, as: UTF8.self), name: path), label: (path as NSString).lastPathComponent)
    }
}

/// A key file that cannot be read or parsed; the description names the file and the problem.
public typealias IdentityKeyError = CodedError<IdentityKeyErrorDomain>

/// The domain of ``IdentityKeyError``: identity key files.
public enum IdentityKeyErrorDomain: ErrorDomain {
    /// `IdentityKeyError`.
    public static let name = "IdentityKeyError"
    /// ``ErrorCode/invalidKey``.
    public static let defaultCode = ErrorCode.invalidKey
}
