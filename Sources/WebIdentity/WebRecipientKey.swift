import Crypto
import Foundation
import VerificationCore
import WalletEncoding

/// The website's HPKE recipient key (P-256), from a PEM file (SEC1 "EC PRIVATE KEY" or PKCS#8
/// "PRIVATE KEY") or a JWK (`{"kty": "EC", "crv": "P-256", "d", "x", "y"}`). Errors never show key
/// material.
public enum WebRecipientKey {
    /// Reads the private key from a file's contents; `name` (the file name) appears in errors.
    /// Throws ``WebKeyError`` for an unreadable, encrypted, non-P-256 or public-only key, or a JWK whose x and y do not match d.
    public static func load(contents: [UInt8], name: String) throws -> P256.KeyAgreement.PrivateKey {
        let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("{") { return try jwk(text, name: name) }
        if let block = PEM.firstBlock(labeled: PEM.privateKeyLabels, in: text) {
            if let key = try? P256.KeyAgreement.PrivateKey(derRepresentation: block.der) { return key }
            throw WebKeyError("\(name): the \(block.label) block is not a P-256 private key")
        }
        if text.contains("ENCRYPTED PRIVATE KEY") {
            throw WebKeyError("\(name) is an encrypted PKCS#8 key; decrypt it first (openssl pkcs8 -in \(name) -out key.pem)")
        }
        throw WebKeyError("\(name) holds neither a PEM P-256 private key nor a private EC JWK")
    }

    static func jwk(_ text: String, name: String) throws -> P256.KeyAgreement.PrivateKey {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw WebKeyError("\(name) is not a JSON object")
        }
        guard object["kty"] as? String == "EC", object["crv"] as? String == "P-256" else {
            throw WebKeyError("\(name) is not a P-256 EC JWK (kty \"EC\", crv \"P-256\")")
        }
        guard let d = (object["d"] as? String).flatMap(Base64.decodeURL) else {
            throw WebKeyError("\(name) has no private part (d): a public JWK cannot open responses")
        }
        guard d.count == 32, let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: d) else {
            throw WebKeyError("\(name): d is not a 32-byte P-256 scalar")
        }
        if let x = (object["x"] as? String).flatMap(Base64.decodeURL), let y = (object["y"] as? String).flatMap(Base64.decodeURL) {
            guard [0x04] + x + y == Array(key.publicKey.x963Representation) else {
                throw WebKeyError("\(name): x and y are not the public key of d")
            }
        }
        return key
    }

    /// A short fingerprint of a public key for session files and reports (not secret).
    public static func thumbprint(_ key: P256.KeyAgreement.PublicKey) -> String {
        Hex.encode(SHA256.hash(data: key.x963Representation))
    }
}

/// A recipient key file that cannot be used; the description names the file and the problem, never key material.
public typealias WebKeyError = CodedError<WebKeyErrorDomain>

/// The domain of ``WebKeyError``: web recipient key files.
public enum WebKeyErrorDomain: ErrorDomain {
    /// `WebKeyError`.
    public static let name = "WebKeyError"
    /// ``ErrorCode/invalidKey``.
    public static let defaultCode = ErrorCode.invalidKey
}
