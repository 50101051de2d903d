import Crypto
import WalletCBOR

/// A public key from a COSE_Key (RFC 9052 §7, RFC 9053 §7): EC2 on P-256, P-384 or P-521, or OKP
/// Ed25519.
public enum COSEPublicKey: Sendable {
    case p256(P256.Signing.PublicKey)
    case p384(P384.Signing.PublicKey)
    case p521(P521.Signing.PublicKey)
    case ed25519(Curve25519.Signing.PublicKey)

    // COSE_Key labels and values.
    static let kty: Int64 = 1
    static let crv: Int64 = -1
    static let x: Int64 = -2
    static let y: Int64 = -3
    static let ktyOKP: Int64 = 1
    static let ktyEC2: Int64 = 2

    /// Decodes a COSE_Key map. Compressed EC points (a boolean `y`) are not accepted.
    public init(coseKey node: CBORNode) throws(COSEError) {
        guard let map = node.mapValue else {
            throw COSEError(code: .invalidKey, message: "a COSE_Key must be a map, found \(node.value.kindDescription)")
        }
        guard let kty = map[Self.kty]?.integerValue else {
            throw COSEError(code: .invalidKey, message: "COSE_Key has no integer kty (1)")
        }
        guard let crv = map[Self.crv]?.integerValue else {
            throw COSEError(code: .invalidKey, message: "COSE_Key has no integer crv (-1)")
        }
        guard let x = map[Self.x]?.bytesValue else {
            throw COSEError(code: .invalidKey, message: "COSE_Key has no x coordinate (-2)")
        }
        switch kty {
        case Self.ktyEC2:
            guard let yNode = map[Self.y] else {
                throw COSEError(code: .invalidKey, message: "EC2 COSE_Key has no y coordinate (-3)")
            }
            guard let y = yNode.bytesValue else {
                throw COSEError(code: .invalidKey, message: "EC2 COSE_Key y must be a byte string (compressed points are not supported)")
            }
            var point: [UInt8] = []
            point.reserveCapacity(1 + x.count + y.count)
            point.append(0x04)
            point.append(contentsOf: x)
            point.append(contentsOf: y)
            do {
                switch crv {
                case 1:
                    guard x.count == 32, y.count == 32 else { throw COSEError(code: .invalidKey, message: "P-256 coordinates must be 32 bytes") }
                    self = .p256(try P256.Signing.PublicKey(x963Representation: point))
                case 2:
                    guard x.count == 48, y.count == 48 else { throw COSEError(code: .invalidKey, message: "P-384 coordinates must be 48 bytes") }
                    self = .p384(try P384.Signing.PublicKey(x963Representation: point))
                case 3:
                    guard x.count == 66, y.count == 66 else { throw COSEError(code: .invalidKey, message: "P-521 coordinates must be 66 bytes") }
                    self = .p521(try P521.Signing.PublicKey(x963Representation: point))
                default:
                    throw COSEError(code: .invalidKey, message: "EC2 curve \(crv) is not supported (P-256, P-384 and P-521 are)")
                }
            } catch let error as COSEError {
                throw error
            } catch {
                throw COSEError(code: .invalidKey, message: "the EC point is not on the curve")
            }
        case Self.ktyOKP:
            guard crv == 6 else {
                throw COSEError(code: .invalidKey, message: "OKP curve \(crv) is not supported (Ed25519 is)")
            }
            guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x) else {
                throw COSEError(code: .invalidKey, message: "Ed25519 keys are 32 bytes")
            }
            self = .ed25519(key)
        default:
            throw COSEError(code: .invalidKey, message: "key type \(kty) is not supported (EC2 and OKP are)")
        }
    }

    /// A short name for reports ("P-256", ...).
    public var curveName: String {
        switch self {
        case .p256: return "P-256"
        case .p384: return "P-384"
        case .p521: return "P-521"
        case .ed25519: return "Ed25519"
        }
    }

    /// The uncompressed point 04‖X‖Y for EC keys; the raw key for Ed25519.
    public var rawPublicKey: [UInt8] {
        switch self {
        case .p256(let k): return Array(k.x963Representation)
        case .p384(let k): return Array(k.x963Representation)
        case .p521(let k): return Array(k.x963Representation)
        case .ed25519(let k): return Array(k.rawRepresentation)
        }
    }

    /// The COSE_Key map for this key (deterministically encoded).
    public func coseKey() -> CBORNode {
        func ec2(_ crv: Int64, _ point: [UInt8]) -> CBORNode {
            let size = (point.count - 1) / 2
            return
                (try? CBORNode.map([
                    (.int(Self.kty), .int(Self.ktyEC2)), (.int(Self.crv), .int(crv)),
                    (.int(Self.x), .bytes(point[1...size])), (.int(Self.y), .bytes(point[(1 + size)...])),
                ])) ?? .null
        }
        switch self {
        case .p256(let k): return ec2(1, Array(k.x963Representation))
        case .p384(let k): return ec2(2, Array(k.x963Representation))
        case .p521(let k): return ec2(3, Array(k.x963Representation))
        case .ed25519(let k):
            return (try? CBORNode.map([(.int(Self.kty), .int(Self.ktyOKP)), (.int(Self.crv), .int(6)), (.int(Self.x), .bytes(k.rawRepresentation))]))
                ?? .null
        }
    }

    /// The P-256 key for ECDH (mdoc MAC authentication, HPKE), if this is a P-256 key.
    public var p256KeyAgreementKey: P256.KeyAgreement.PublicKey? {
        guard case .p256(let key) = self else { return nil }
        return try? P256.KeyAgreement.PublicKey(x963Representation: key.x963Representation)
    }
}

/// A private key that can produce COSE signatures (fixtures, test tools, and signing of our own
/// structures).
public enum COSESigningKey: Sendable {
    case p256(P256.Signing.PrivateKey)
    case p384(P384.Signing.PrivateKey)
    case p521(P521.Signing.PrivateKey)
    case ed25519(Curve25519.Signing.PrivateKey)

    /// The algorithm this key signs with: ES256, ES384, ES512 or EdDSA.
    public var algorithm: COSEAlgorithm {
        switch self {
        case .p256: return .es256
        case .p384: return .es384
        case .p521: return .es512
        case .ed25519: return .edDSA
        }
    }

    /// The public key that verifies this key's signatures.
    public var publicKey: COSEPublicKey {
        switch self {
        case .p256(let k): return .p256(k.publicKey)
        case .p384(let k): return .p384(k.publicKey)
        case .p521(let k): return .p521(k.publicKey)
        case .ed25519(let k): return .ed25519(k.publicKey)
        }
    }

    /// Raw r‖s (ECDSA) or the Ed25519 signature over `data`.
    public func signature(for data: [UInt8]) throws -> [UInt8] {
        switch self {
        case .p256(let k): return Array(try k.signature(for: data).rawRepresentation)
        case .p384(let k): return Array(try k.signature(for: data).rawRepresentation)
        case .p521(let k): return Array(try k.signature(for: data).rawRepresentation)
        case .ed25519(let k): return Array(try k.signature(for: data))
        }
    }
}
