import Crypto
import WalletJSON

/// An EC P-256 public JSON Web Key (RFC 7517, RFC 7518 §6.2): `{"kty": "EC", "crv": "P-256", "x", "y"}`,
/// with the optional `kid`, `use` and `alg` members. Private members (`d`) are never read or written.
public struct JWK: Sendable, Hashable {
    /// The public key.
    public let publicKey: P256.KeyAgreement.PublicKey
    /// `kid`: the key identifier, if any.
    public var keyID: String?
    /// `use`: `enc` or `sig`, if given.
    public var use: String?
    /// `alg`: the algorithm the key is meant for (`ECDH-ES`, `ES256`), if given.
    public var algorithm: String?

    /// A JWK of a P-256 public key with optional `kid`, `use` and `alg`.
    public init(publicKey: P256.KeyAgreement.PublicKey, keyID: String? = nil, use: String? = nil, algorithm: String? = nil) {
        self.publicKey = publicKey
        self.keyID = keyID
        self.use = use
        self.algorithm = algorithm
    }

    /// A JWK of a P-256 signing public key.
    public init(signingKey: P256.Signing.PublicKey, keyID: String? = nil, use: String? = nil, algorithm: String? = nil) throws(JOSEError) {
        guard let key = try? P256.KeyAgreement.PublicKey(x963Representation: signingKey.x963Representation) else {
            throw JOSEError(.invalidKey, "The signing key is not a P-256 point.")
        }
        self.init(publicKey: key, keyID: keyID, use: use, algorithm: algorithm)
    }

    /// Reads a JWK object: `kty` must be `EC`, `crv` `P-256`, `x` and `y` 32-byte base64url values of a
    /// point on the curve. `kid`, `use` and `alg`, when present, must be strings; other members are ignored.
    /// `name` says where the key came from in messages (for example "the epk header member").
    public init(object: StrictJSON.Object, name: String = "the JWK") throws(JOSEError) {
        guard object["kty"]?.string == "EC" else {
            throw JOSEError(.invalidKey, "\(name) is not an EC key (kty must be \"EC\"); only P-256 keys are accepted.")
        }
        guard object["crv"]?.string == "P-256" else {
            throw JOSEError(.invalidKey, "\(name) is not on P-256 (crv must be \"P-256\").")
        }
        guard object["d"] == nil else {
            throw JOSEError(.invalidKey, "\(name) holds a private key (d); a public key must never carry it.")
        }
        guard let xText = object["x"]?.string, let yText = object["y"]?.string else {
            throw JOSEError(.invalidKey, "\(name) lacks its x or y coordinate (base64url strings).")
        }
        let x = try Base64URLStrict.decode(Substring(xText), part: "x coordinate of \(name)")
        let y = try Base64URLStrict.decode(Substring(yText), part: "y coordinate of \(name)")
        guard x.count == 32, y.count == 32 else {
            throw JOSEError(.invalidKey, "\(name) has coordinates of \(x.count) and \(y.count) bytes; P-256 needs 32 each.")
        }
        var point = [UInt8]()
        point.reserveCapacity(65)
        point.append(0x04)
        point += x
        point += y
        guard let key = try? P256.KeyAgreement.PublicKey(x963Representation: point) else {
            throw JOSEError(.invalidKey, "\(name) is not a point on P-256.")
        }
        // kid, use and alg in this order, each a string when present.
        func optional(_ member: String) throws(JOSEError) -> String? {
            guard let value = object[member] else { return nil }
            guard let text = value.string else { throw JOSEError(.invalidKey, "\(name): \(member) must be a string.") }
            return text
        }
        let keyID = try optional("kid")
        let use = try optional("use")
        let algorithm = try optional("alg")
        self.init(publicKey: key, keyID: keyID, use: use, algorithm: algorithm)
    }

    /// Reads a JWK from JSON text (strict: duplicate members refused).
    public init(json: [UInt8], name: String = "the JWK") throws(JOSEError) {
        let value: StrictJSON.Value
        do { value = try StrictJSON.parse(json) } catch {
            throw JOSEError(.invalidKey, "\(name) is not strict JSON: \(error).")
        }
        guard let object = value.object else { throw JOSEError(.invalidKey, "\(name) is not a JSON object.") }
        try self.init(object: object, name: name)
    }

    /// The base64url x coordinate.
    public var x: String { Base64URLStrict.encode(publicKey.x963Representation.dropFirst().prefix(32)) }
    /// The base64url y coordinate.
    public var y: String { Base64URLStrict.encode(publicKey.x963Representation.suffix(32)) }

    /// The JSON object: `kty`, `crv`, `x`, `y`, then `kid`, `use`, `alg` when set.
    public func write(to writer: inout JSONWriter) {
        writer.raw("{")
        writer.key("kty")
        writer.string("EC")
        writer.raw(",")
        writer.key("crv")
        writer.string("P-256")
        writer.raw(",")
        writer.key("x")
        writer.string(x)
        writer.raw(",")
        writer.key("y")
        writer.string(y)
        for (name, value) in [("kid", keyID), ("use", use), ("alg", algorithm)] {
            guard let value else { continue }
            writer.raw(",")
            writer.key(name)
            writer.string(value)
        }
        writer.raw("}")
    }

    /// The JSON text of ``write(to:)``.
    public var json: String {
        var writer = JSONWriter(capacity: 200)
        write(to: &writer)
        return writer.text
    }

    /// Equal when the keys and the optional members are.
    public static func == (lhs: JWK, rhs: JWK) -> Bool {
        lhs.publicKey.x963Representation == rhs.publicKey.x963Representation && lhs.keyID == rhs.keyID && lhs.use == rhs.use
            && lhs.algorithm == rhs.algorithm
    }

    /// Hashes the key and the optional members.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(publicKey.x963Representation)
        hasher.combine(keyID)
        hasher.combine(use)
        hasher.combine(algorithm)
    }

    /// The RFC 7638 SHA-256 thumbprint: the hash of `{"crv":"P-256","kty":"EC","x":…,"y":…}`.
    public var thumbprint: [UInt8] {
        // One conversion of the point to its coordinates (each costs a field inversion).
        let point = publicKey.rawRepresentation
        return Self.thumbprint(requiredMembers: [
            "crv": "P-256", "kty": "EC", "x": Base64URLStrict.encode(point.prefix(32)), "y": Base64URLStrict.encode(point.suffix(32)),
        ])
    }

    /// The RFC 7638 SHA-256 thumbprint of any key given by its required members (for EC `crv`,
    /// `kty`, `x`, `y`; for RSA `e`, `kty`, `n`): the members in lexicographic order of their names,
    /// no whitespace, string values.
    public static func thumbprint(requiredMembers: [String: String]) -> [UInt8] {
        var writer = JSONWriter(capacity: 200)
        // Member names are ASCII here; Swift's String ordering of ASCII is by code point, as RFC 7638 requires.
        writer.sortedStringObject(requiredMembers)
        return Array(SHA256.hash(data: writer.bytes))
    }
}
