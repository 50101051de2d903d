import Crypto
import SwiftASN1
import WalletEncoding
import WalletJOSE
import WalletJSON
import X509

/// What signs receipts: a P-256 key behind a small interface, so that a file key
/// (``ReceiptSigningKey``), an HSM or a cloud KMS can sign. Receipts are ES256 JWS.
public protocol ReceiptSigner: Sendable {
    /// The `kid` receipts carry: by convention the RFC 7638 thumbprint (base64url) of ``publicKey``.
    var keyID: String { get }
    /// The public key that verifies the signatures.
    var publicKey: P256.Signing.PublicKey { get }
    /// The certificate chain of the key (DER, leaf first) for the `x5c` header; empty without one.
    var certificateChain: [[UInt8]] { get }
    /// Signs the JWS signing input with ECDSA P-256 over SHA-256 and returns the 64-byte r‖s signature.
    func signES256(_ signingInput: [UInt8]) async throws -> [UInt8]
}

extension ReceiptSigner {
    /// The public JWK of the key (`kty`, `crv`, `x`, `y`, `kid`, `use: "sig"`, `alg: "ES256"`, and
    /// `x5c` when the key has a certificate), as JSON text: an entry of the receipt JWKS.
    public var publicJWK: String {
        ReceiptKeys.publicJWK(publicKey, keyID: keyID, certificateChain: certificateChain)
    }
}

/// The RFC 7638 thumbprint and the JWK text of receipt keys.
public enum ReceiptKeys {
    /// The base64url x and y coordinates of `key`.
    static func coordinates(_ key: P256.Signing.PublicKey) -> (x: String, y: String) {
        let point = key.x963Representation
        return (Base64.encodeURL(point.dropFirst().prefix(32)), Base64.encodeURL(point.suffix(32)))
    }

    /// base64url of the RFC 7638 SHA-256 thumbprint of `key` (over `{"crv","kty","x","y"}`): the default `kid`.
    public static func thumbprint(_ key: P256.Signing.PublicKey) -> String {
        let (x, y) = coordinates(key)
        let canonical = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        return Base64.encodeURL(SHA256.hash(data: Array(canonical.utf8)))
    }

    /// The public JWK text of `key` with its `kid`, `use`, `alg` and optional `x5c`.
    public static func publicJWK(_ key: P256.Signing.PublicKey, keyID: String, certificateChain: [[UInt8]]) -> String {
        let (x, y) = coordinates(key)
        var writer = JSONWriter(capacity: 256 + certificateChain.reduce(0) { $0 + $1.count * 4 / 3 + 4 })
        writer.raw("{")
        for (index, (name, value)) in [("kty", "EC"), ("crv", "P-256"), ("x", x), ("y", y), ("kid", keyID), ("use", "sig"), ("alg", "ES256")]
            .enumerated()
        {
            if index > 0 { writer.raw(",") }
            writer.key(name)
            writer.string(value)
        }
        if !certificateChain.isEmpty {
            writer.raw(",")
            JWS.writeX5C(certificateChain, to: &writer)
        }
        writer.raw("}")
        return writer.text
    }
}

/// Why a receipt key could not be loaded.
public struct ReceiptKeyError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, naming the file.
    public let description: String

    init(_ description: String) { self.description = description }
}

/// A receipt signing key held in memory (loaded from a PEM file), with its optional certificate chain.
public struct ReceiptSigningKey: ReceiptSigner {
    private let privateKey: P256.Signing.PrivateKey
    /// The key's `kid`: its RFC 7638 thumbprint.
    public let keyID: String
    /// The certificate chain (DER, leaf first); empty without one.
    public let certificateChain: [[UInt8]]
    /// The public key.
    public var publicKey: P256.Signing.PublicKey { privateKey.publicKey }

    /// A signer of `privateKey`; the chain's leaf must certify that key.
    public init(privateKey: P256.Signing.PrivateKey, certificateChain: [[UInt8]] = []) throws(ReceiptKeyError) {
        if let leafDER = certificateChain.first {
            guard let leaf = try? Certificate(derEncoded: leafDER) else { throw ReceiptKeyError("the receipt certificate is not a certificate") }
            guard leaf.publicKey == Certificate.PublicKey(privateKey.publicKey) else {
                throw ReceiptKeyError("the receipt certificate is not the receipt key's: its public key is another key")
            }
        }
        self.privateKey = privateKey
        self.certificateChain = certificateChain
        self.keyID = ReceiptKeys.thumbprint(privateKey.publicKey)
    }

    /// Loads a P-256 key from PEM text (PKCS#8 or SEC1) named `keyName`, and the certificate chain
    /// (PEM, leaf first) from `certificatePEM` when given.
    public static func load(keyPEM: String, keyName: String, certificatePEM: String? = nil, certificateName: String = "the certificate")
        throws(ReceiptKeyError) -> ReceiptSigningKey
    {
        let key: P256.Signing.PrivateKey
        do { key = try P256.Signing.PrivateKey(pemRepresentation: keyPEM) } catch {
            throw ReceiptKeyError("\(keyName): not a P-256 private key in PEM (PKCS#8 or SEC1); receipts are signed with ES256")
        }
        var chain: [[UInt8]] = []
        if let certificatePEM {
            do {
                chain = try PEMDocument.parseMultiple(pemString: certificatePEM).filter { $0.discriminator == "CERTIFICATE" }.map { $0.derBytes }
            } catch { throw ReceiptKeyError("\(certificateName): not PEM certificates") }
            guard !chain.isEmpty else { throw ReceiptKeyError("\(certificateName): holds no CERTIFICATE block") }
        }
        do { return try ReceiptSigningKey(privateKey: key, certificateChain: chain) } catch {
            throw ReceiptKeyError("\(certificateName): \(error.description) (\(keyName))")
        }
    }

    /// Signs with the key in memory.
    public func signES256(_ signingInput: [UInt8]) async throws -> [UInt8] {
        Array(try privateKey.signature(for: signingInput).rawRepresentation)
    }
}

/// A receipt key that verifies but no longer signs (a key rotated out): its `kid` and its public JWK,
/// listed in the JWKS beside the current key while the operator names it.
public struct ReceiptPublicKey: Sendable, Hashable {
    /// The key's `kid`: its RFC 7638 thumbprint.
    public let keyID: String
    /// The public JWK text (with `x5c` when it was read from a certificate).
    public let jwk: String

    /// The public half of a P-256 key from PEM text named `name`: a private key (PKCS#8 or SEC1), a
    /// public key (SubjectPublicKeyInfo), or certificates (leaf first, kept as the JWK's `x5c`).
    public static func load(pem: String, name: String) throws(ReceiptKeyError) -> ReceiptPublicKey {
        let documents: [PEMDocument]
        do { documents = try PEMDocument.parseMultiple(pemString: pem) } catch {
            throw ReceiptKeyError("\(name): not PEM (a P-256 private key, public key or certificate)")
        }
        let certificates = documents.filter { $0.discriminator == "CERTIFICATE" }.map(\.derBytes)
        var key: P256.Signing.PublicKey?
        if let leafDER = certificates.first {
            key = (try? Certificate(derEncoded: leafDER)).flatMap { P256.Signing.PublicKey($0.publicKey) }
        } else if let document = documents.first, document.discriminator == "PUBLIC KEY" {
            key = try? P256.Signing.PublicKey(derRepresentation: document.derBytes)
        } else {
            key = (try? P256.Signing.PrivateKey(pemRepresentation: pem))?.publicKey
        }
        guard let key else {
            throw ReceiptKeyError("\(name): holds no P-256 key (a private key, public key or certificate); receipts are signed with ES256")
        }
        let keyID = ReceiptKeys.thumbprint(key)
        return ReceiptPublicKey(keyID: keyID, jwk: ReceiptKeys.publicJWK(key, keyID: keyID, certificateChain: certificates))
    }
}
