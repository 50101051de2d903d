import Crypto
import Synchronization
import WalletEncoding
import WalletJOSE

/// The RFC 7638 thumbprints (base64url) of the web recipient keys, computed once per key: a
/// thumbprint needs the public point's affine coordinates, whose conversion costs a field inversion
/// on every verification otherwise. Keyed by SHA-256 of the private key's scalar, so the table holds
/// no key material; bounded (emptied when full: a verifier has a handful of keys).
enum RecipientKeyThumbprints {
    private static let table = Mutex<[SHA256.Digest: String]>([:])
    private static let capacity = 64

    /// The base64url RFC 7638 thumbprint of `key`'s public key.
    static func thumbprint(of key: P256.KeyAgreement.PrivateKey) -> String {
        let id = SHA256.hash(data: key.rawRepresentation)
        if let known = table.withLock({ $0[id] }) { return known }
        let thumbprint = Base64.encodeURL(JWK(publicKey: key.publicKey).thumbprint)
        table.withLock { table in
            if table.count >= capacity { table.removeAll(keepingCapacity: true) }
            table[id] = thumbprint
        }
        return thumbprint
    }
}
