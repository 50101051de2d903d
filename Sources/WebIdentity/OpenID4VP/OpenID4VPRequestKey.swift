import Crypto
import Foundation

/// Each OpenID4VP request's own response encryption key (OpenID4VP 1.0 §8.3 lets
/// `client_metadata.jwks` differ per request), derived from a configured web recipient key and an
/// identifier of the request (the service uses the request id):
///
/// scalar = HKDF-SHA256(ikm: the web key's scalar, salt: `wallet-verifier/openid4vp-request-key/1`,
/// info: identifier (UTF-8) ‖ counter (one byte), 32 bytes), with the first counter from 0 whose output is
/// a valid P-256 scalar (all but about one in 2³² are).
///
/// A wallet's answer therefore decrypts under its own request alone: an answer captured and submitted
/// under another request (even one its holder created) does not open. Nothing is stored: every
/// instance holding the web key derives the same key for the same identifier, the key survives a
/// restart, and rotating the web key rotates every request key with it. Knowing request keys, or the
/// identifiers (which are public), reveals nothing of the web key.
public enum OpenID4VPRequestKey {
    /// The HKDF salt: names the derivation and its version.
    static let salt = Array("wallet-verifier/openid4vp-request-key/1".utf8)

    /// The request key for `identifier` under `webKey`.
    public static func derive(from webKey: P256.KeyAgreement.PrivateKey, identifier: String) -> P256.KeyAgreement.PrivateKey {
        let material = SymmetricKey(data: webKey.rawRepresentation)
        var info = Array(identifier.utf8)
        info.append(0)
        var counter: UInt8 = 0
        while true {
            info[info.count - 1] = counter
            let scalar = HKDF<SHA256>.deriveKey(inputKeyMaterial: material, salt: salt, info: info, outputByteCount: 32)
            let candidate = scalar.withUnsafeBytes { try? P256.KeyAgreement.PrivateKey(rawRepresentation: $0) }
            if let candidate { return candidate }
            // Zero or not below the group order: the next counter (a wrap after 256 failures, which
            // has probability about 2^-8192, only repeats the search).
            counter &+= 1
        }
    }
}
