import Crypto
import WalletEncoding
import WalletJSON
import X509

/// The signature algorithms of SD-JWT VC here: ECDSA with P-256, P-384 or P-521 (`none`, MAC and
/// every other algorithm refused).
public enum SDJWTSignatureKey: Sendable {
    case p256(P256.Signing.PublicKey)
    case p384(P384.Signing.PublicKey)
    case p521(P521.Signing.PublicKey)

    /// The `alg` this key signs with.
    public var algorithm: String {
        switch self {
        case .p256: "ES256"
        case .p384: "ES384"
        case .p521: "ES512"
        }
    }

    /// The key of a certificate, when it is an EC key of one of these curves.
    public init?(certificateKey: Certificate.PublicKey) {
        if let key = P256.Signing.PublicKey(certificateKey) {
            self = .p256(key)
        } else if let key = P384.Signing.PublicKey(certificateKey) {
            self = .p384(key)
        } else if let key = P521.Signing.PublicKey(certificateKey) {
            self = .p521(key)
        } else {
            return nil
        }
    }

    /// The key of a public JWK (`kty` EC, `crv` P-256, P-384 or P-521, `x`, `y`); a JWK with `d` is refused.
    public init(jwk: StrictJSON.Object) throws(SDJWTError) {
        guard jwk["kty"]?.string == "EC" else { throw SDJWTError(.keyBindingMalformed, "cnf.jwk is not an EC key (kty EC).") }
        guard jwk["d"] == nil else { throw SDJWTError(.keyBindingMalformed, "cnf.jwk holds a private key (d).") }
        guard let xText = jwk["x"]?.string, let yText = jwk["y"]?.string, let x = SDJWTBase64.decode(Substring(xText)),
            let y = SDJWTBase64.decode(Substring(yText))
        else { throw SDJWTError(.keyBindingMalformed, "cnf.jwk has no x and y in base64url.") }
        let point = [0x04] + x + y
        do {
            switch jwk["crv"]?.string {
            case "P-256": self = .p256(try P256.Signing.PublicKey(x963Representation: point))
            case "P-384": self = .p384(try P384.Signing.PublicKey(x963Representation: point))
            case "P-521": self = .p521(try P521.Signing.PublicKey(x963Representation: point))
            default: throw SDJWTError(.keyBindingMalformed, "cnf.jwk's crv is not P-256, P-384 or P-521.")
            }
        } catch let error as SDJWTError {
            throw error
        } catch {
            throw SDJWTError(.keyBindingMalformed, "cnf.jwk's x and y are not a point of its curve.")
        }
    }

    /// Whether `jws` carries an allowed `alg` for this key and its signature verifies over the
    /// signing input as received. Throws for an `alg` outside ES256/ES384/ES512 or another than the key's.
    public func verify(_ jws: CompactJWS) throws(SDJWTError) -> Bool {
        let alg = jws.header["alg"]?.string ?? "(none)"
        guard ["ES256", "ES384", "ES512"].contains(alg) else {
            throw SDJWTError(.algorithmNotAllowed, "alg is \(SDJWTText.printable(alg)); only ES256, ES384 and ES512 are accepted.")
        }
        guard alg == algorithm else {
            throw SDJWTError(.algorithmNotAllowed, "alg is \(alg), but the key is for \(algorithm).")
        }
        let input = Array(jws.signingInput.utf8)
        switch self {
        case .p256(let key):
            guard let signature = try? P256.Signing.ECDSASignature(rawRepresentation: jws.signature) else { return false }
            return key.isValidSignature(signature, for: input)
        case .p384(let key):
            guard let signature = try? P384.Signing.ECDSASignature(rawRepresentation: jws.signature) else { return false }
            return key.isValidSignature(signature, for: input)
        case .p521(let key):
            guard let signature = try? P521.Signing.ECDSASignature(rawRepresentation: jws.signature) else { return false }
            return key.isValidSignature(signature, for: input)
        }
    }
}

/// Attacker-chosen text in messages: at most 40 printable ASCII characters, the rest as `?`.
enum SDJWTText {
    static func printable(_ text: String) -> String {
        "\"" + String(text.unicodeScalars.prefix(40).map { $0.value >= 0x20 && $0.value < 0x7f ? Character($0) : "?" }) + "\""
    }
}
