import Crypto
import WalletEncoding
import WalletJSON

/// One disclosure (RFC 9901 §4.2): the base64url text as received and the JSON array it holds —
/// `[salt, name, value]` for an object property, `[salt, value]` for an array element.
public struct SDJWTDisclosure: Sendable {
    /// The base64url text as received: its digest is computed over these characters.
    public let encoded: Substring
    /// Its position among the presentation's disclosures (from 0).
    public let position: Int
    /// The claim name of an object-property disclosure; nil for an array element.
    public let name: String?
    /// The disclosed value.
    public let value: StrictJSON.Value

    init(_ encoded: Substring, position: Int) throws(SDJWTError) {
        let label = "disclosure \(position)"
        guard !encoded.isEmpty else { throw SDJWTError(.malformedDisclosure, "\(label) is empty (two ~ in a row).") }
        guard encoded.utf8.count <= SDJWTPresentation.maximumDisclosureLength else {
            throw SDJWTError(.tooLarge, "\(label) is longer than \(SDJWTPresentation.maximumDisclosureLength) characters.")
        }
        guard let bytes = SDJWTBase64.decode(encoded) else { throw SDJWTError(.malformedDisclosure, "\(label) is not strict base64url.") }
        let parsed: StrictJSON.Value
        do { parsed = try StrictJSON.parse(bytes) } catch {
            throw SDJWTError(.malformedDisclosure, "\(label) is not strict JSON (\(error.code)).")
        }
        guard let array = parsed.array, array.count == 2 || array.count == 3 else {
            throw SDJWTError(.malformedDisclosure, "\(label) is not a JSON array of two (array element) or three (object property) members.")
        }
        guard array[0].string != nil else { throw SDJWTError(.malformedDisclosure, "\(label): its salt (first member) is not a string.") }
        if array.count == 3 {
            guard let name = array[1].string else { throw SDJWTError(.malformedDisclosure, "\(label): its claim name is not a string.") }
            self.name = name
            value = array[2]
        } else {
            name = nil
            value = array[1]
        }
        self.encoded = encoded
        self.position = position
    }

    /// The digest of the disclosure under `algorithm`: base64url of the hash of its ASCII text.
    func digest(_ algorithm: SDJWTHashAlgorithm) -> String { algorithm.digest(Array(encoded.utf8)) }
}

/// The hash of digests and `sd_hash` (`_sd_alg`, IANA Named Information names): sha-256 (the
/// default), sha-384, sha-512.
public enum SDJWTHashAlgorithm: String, Sendable {
    case sha256 = "sha-256"
    case sha384 = "sha-384"
    case sha512 = "sha-512"

    /// base64url (unpadded) of the hash of `bytes`.
    public func digest(_ bytes: [UInt8]) -> String {
        switch self {
        case .sha256: Base64.encodeURL(SHA256.hash(data: bytes))
        case .sha384: Base64.encodeURL(SHA384.hash(data: bytes))
        case .sha512: Base64.encodeURL(SHA512.hash(data: bytes))
        }
    }
}

/// Rebuilds the claims from the issuer-signed payload and the disclosures (RFC 9901 §7.1): each
/// digest in an `_sd` array or an array element `{"...": digest}` is replaced by its disclosure,
/// recursively; a digest no disclosure matches is a decoy and drops out. Refused: a digest that
/// appears more than once, a disclosure no digest references or referenced twice, a disclosure of
/// the wrong kind for its place, a claim name already present, `_sd` that is not an array of strings.
public struct SDJWTDisclosureProcessor: Sendable {
    /// The most digests one payload (with the disclosed values) may carry, decoys included.
    public static let maximumDigests = 4096

    /// The claims with the disclosures in place, without `_sd` and `_sd_alg`.
    public let claims: StrictJSON.Object
    /// The disclosed claims' paths, as lists of names and array positions, for reporting.
    public let disclosedPaths: [[String]]

    /// Processes `payload` with `disclosures` and the hash of `_sd_alg` (sha-256 when absent).
    public init(payload: StrictJSON.Object, disclosures: [SDJWTDisclosure]) throws(SDJWTError) {
        var algorithm = SDJWTHashAlgorithm.sha256
        if let name = payload["_sd_alg"] {
            guard let text = name.string, let known = SDJWTHashAlgorithm(rawValue: text) else {
                throw SDJWTError(.unsupportedHashAlgorithm, "_sd_alg is not one of sha-256, sha-384, sha-512.")
            }
            algorithm = known
        }
        var byDigest: [String: Int] = [:]
        for (index, disclosure) in disclosures.enumerated() {
            if let name = disclosure.name, name == "_sd" || name == "..." {
                throw SDJWTError(.reservedClaimName, "disclosure \(index) discloses a claim named \"\(name)\", a name SD-JWT reserves.")
            }
            let digest = disclosure.digest(algorithm)
            guard byDigest.updateValue(index, forKey: digest) == nil else {
                throw SDJWTError(.duplicateDigest, "disclosure \(index) is the same as an earlier one (same digest).")
            }
        }
        var walk = Walk(disclosures: disclosures, byDigest: byDigest)
        let root = try walk.object(payload, path: [], depth: 0)
        if let unused = walk.used.indices.first(where: { !walk.used[$0] }) {
            throw SDJWTError(
                .unreferencedDisclosure, "disclosure \(unused) is referenced by no digest of the issuer-signed payload or another disclosure.")
        }
        claims = root
        disclosedPaths = walk.paths
    }

    /// The state of one rebuild.
    private struct Walk {
        let disclosures: [SDJWTDisclosure]
        let byDigest: [String: Int]
        var used: [Bool]
        var seen = Set<String>()
        var paths: [[String]] = []

        init(disclosures: [SDJWTDisclosure], byDigest: [String: Int]) {
            self.disclosures = disclosures
            self.byDigest = byDigest
            used = Array(repeating: false, count: disclosures.count)
        }

        mutating func note(_ digest: String) throws(SDJWTError) {
            guard seen.insert(digest).inserted else {
                throw SDJWTError(.duplicateDigest, "the digest \(digest) appears more than once in the issuer-signed payload and the disclosures.")
            }
            guard seen.count <= SDJWTDisclosureProcessor.maximumDigests else {
                throw SDJWTError(.tooLarge, "the payload and the disclosures carry more than \(SDJWTDisclosureProcessor.maximumDigests) digests.")
            }
        }

        mutating func take(_ digest: String) -> SDJWTDisclosure? {
            guard let index = byDigest[digest] else { return nil }
            used[index] = true
            return disclosures[index]
        }

        mutating func value(_ value: StrictJSON.Value, path: [String], depth: Int) throws(SDJWTError) -> StrictJSON.Value {
            guard depth < StrictJSON.maximumDepth else {
                throw SDJWTError(.tooLarge, "the claims nest deeper than \(StrictJSON.maximumDepth) levels.")
            }
            if let object = value.object { return .object(try self.object(object, path: path, depth: depth + 1)) }
            if let array = value.array { return .array(try self.array(array, path: path, depth: depth + 1)) }
            return value
        }

        mutating func object(_ object: StrictJSON.Object, path: [String], depth: Int) throws(SDJWTError) -> StrictJSON.Object {
            var result = StrictJSON.Object()
            for (name, member) in object.members where name != "_sd" {
                if name == "_sd_alg" {
                    guard path.isEmpty else {
                        throw SDJWTError(.malformedSDJWT, "_sd_alg appears below the top level (at \(path.joined(separator: ".")))")
                    }
                    continue
                }
                _ = result.insert(name, try value(member, path: path + [name], depth: depth))
            }
            guard let digests = object["_sd"] else { return result }
            guard let list = digests.array else { throw SDJWTError(.malformedSDJWT, "_sd at \(Self.describe(path)) is not an array.") }
            for entry in list {
                guard let digest = entry.string else {
                    throw SDJWTError(.malformedSDJWT, "_sd at \(Self.describe(path)) holds a member that is not a digest string.")
                }
                try note(digest)
                guard let disclosure = take(digest) else { continue }
                guard let name = disclosure.name else {
                    throw SDJWTError(
                        .malformedDisclosure, "disclosure \(disclosure.position) is an array element, but its digest is in an object's _sd.")
                }
                guard result[name] == nil else {
                    throw SDJWTError(
                        .duplicateClaim,
                        "disclosure \(disclosure.position) discloses \(name) at \(Self.describe(path)), a claim already present there.")
                }
                let claimPath = path + [name]
                _ = result.insert(name, try value(disclosure.value, path: claimPath, depth: depth))
                paths.append(claimPath)
            }
            return result
        }

        mutating func array(_ array: [StrictJSON.Value], path: [String], depth: Int) throws(SDJWTError) -> [StrictJSON.Value] {
            var result: [StrictJSON.Value] = []
            for element in array {
                if let object = element.object, object.count == 1, let reference = object["..."] {
                    guard let digest = reference.string else {
                        throw SDJWTError(.malformedSDJWT, "an array element at \(Self.describe(path)) has a \"...\" that is not a digest string.")
                    }
                    try note(digest)
                    guard let disclosure = take(digest) else { continue }
                    guard disclosure.name == nil else {
                        throw SDJWTError(
                            .malformedDisclosure, "disclosure \(disclosure.position) is an object property, but its digest is an array element.")
                    }
                    let elementPath = path + [String(result.count)]
                    result.append(try value(disclosure.value, path: elementPath, depth: depth))
                    paths.append(elementPath)
                } else {
                    result.append(try value(element, path: path + [String(result.count)], depth: depth))
                }
            }
            return result
        }

        static func describe(_ path: [String]) -> String { path.isEmpty ? "the top level" : path.joined(separator: ".") }
    }
}
