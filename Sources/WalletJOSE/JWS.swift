import Crypto
import WalletEncoding
import WalletJSON

/// JWS compact serialization (RFC 7515 §7.1) with ES256 (RFC 7518 §3.4: ECDSA P-256 SHA-256, the
/// signature is the 64-byte r‖s). Signing builds the protected header `{"alg":"ES256","typ":…,"x5c":[…]}`;
/// verification accepts only `alg` ES256 and refuses `crit`.
public enum JWS {
    /// The largest compact JWS read, in bytes.
    public static let maximumCompactLength = 1 << 20

    /// A verified JWS: its protected header and payload, as received.
    public struct Verified: Sendable {
        /// The protected header, parsed strictly.
        public let header: StrictJSON.Object
        /// The payload bytes (base64url-decoded).
        public let payload: [UInt8]
    }

    /// Signs `payload` with ES256. The header holds `alg`, then `typ` and `kid` when given, then
    /// `x5c` (standard base64 DER, leaf first) when certificates are given.
    public static func signES256(
        payload: [UInt8], key: P256.Signing.PrivateKey, type: String? = nil, keyID: String? = nil, x5c: [[UInt8]] = []
    ) throws(JOSEError) -> String {
        let input = signingInputES256(payload: payload, type: type, keyID: keyID, x5c: x5c)
        let signature: P256.Signing.ECDSASignature
        do { signature = try key.signature(for: Array(input.utf8)) } catch {
            throw JOSEError(.operationFailed, "ES256 signing failed.")
        }
        return try compact(signingInput: input, signature: Array(signature.rawRepresentation))
    }

    /// The JWS signing input (`base64url(header) "." base64url(payload)`) for ES256, with the header
    /// ``signES256(payload:key:type:keyID:x5c:)`` writes: for a signer that holds its key elsewhere
    /// (an HSM, a KMS), which signs these bytes and gives the signature to ``compact(signingInput:signature:)``.
    public static func signingInputES256(payload: [UInt8], type: String? = nil, keyID: String? = nil, x5c: [[UInt8]] = []) -> String {
        var header = JSONWriter(capacity: 256 + x5c.reduce(0) { $0 + $1.count * 4 / 3 + 8 })
        header.raw("{")
        header.key("alg")
        header.string("ES256")
        if let type {
            header.raw(",")
            header.key("typ")
            header.string(type)
        }
        if let keyID {
            header.raw(",")
            header.key("kid")
            header.string(keyID)
        }
        if !x5c.isEmpty {
            header.raw(",")
            writeX5C(x5c, to: &header)
        }
        header.raw("}")
        return Base64URLStrict.encode(header.bytes) + "." + Base64URLStrict.encode(payload)
    }

    /// Writes the member `"x5c": [...]` (standard base64 of each DER certificate, in order), as a JWS
    /// header or a JWK carries it.
    public static func writeX5C(_ chain: [[UInt8]], to writer: inout JSONWriter) {
        writer.key("x5c")
        writer.raw("[")
        for (index, der) in chain.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.string(Base64.encode(der))
        }
        writer.raw("]")
    }

    /// The compact JWS of a signing input and its ES256 signature (64 bytes, r‖s); throws
    /// ``JOSEError`` for a signature of another length.
    public static func compact(signingInput: String, signature: [UInt8]) throws(JOSEError) -> String {
        guard signature.count == 64 else {
            throw JOSEError(.operationFailed, "An ES256 signature is 64 bytes (r‖s); the signer gave \(signature.count).")
        }
        return signingInput + "." + Base64URLStrict.encode(signature)
    }

    /// Verifies a compact ES256 JWS with `publicKey`; throws ``JOSEError`` for another shape, another
    /// algorithm, a `crit` header or a signature that does not verify.
    public static func verifyES256(_ compact: String, publicKey: P256.Signing.PublicKey) throws(JOSEError) -> Verified {
        guard compact.utf8.count <= maximumCompactLength else {
            throw JOSEError(.malformedCompact, "The JWS is larger than \(maximumCompactLength) bytes.")
        }
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw JOSEError(.malformedCompact, "A compact JWS has 3 dot-separated parts; this one has \(parts.count).")
        }
        let headerBytes = try Base64URLStrict.decode(parts[0], part: "JWS protected header")
        let header = try JOSEHeader.parse(headerBytes, what: "JWS protected header")
        guard let alg = header["alg"]?.string else { throw JOSEError(.malformedHeader, "The JWS protected header has no alg string.") }
        guard alg == "ES256" else {
            throw JOSEError(.unsupportedAlgorithm, "The JWS alg is \"\(JOSEHeader.printable(alg))\"; only ES256 is accepted.")
        }
        let payload = try Base64URLStrict.decode(parts[1], part: "JWS payload")
        let signatureBytes = try Base64URLStrict.decode(parts[2], part: "JWS signature")
        guard signatureBytes.count == 64, let signature = try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes) else {
            throw JOSEError(.invalidSignature, "An ES256 signature is 64 bytes (r‖s); this one is \(signatureBytes.count).")
        }
        let signingInput = Array(compact.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count))
        guard publicKey.isValidSignature(signature, for: signingInput) else {
            throw JOSEError(.invalidSignature, "The ES256 signature does not verify with the given key.")
        }
        return Verified(header: header, payload: payload)
    }
}

/// Strict reading of JOSE headers shared by JWS and JWE.
enum JOSEHeader {
    static let maximumLength = 16 * 1024

    static func parse(_ bytes: [UInt8], what: String) throws(JOSEError) -> StrictJSON.Object {
        guard bytes.count <= maximumLength else { throw JOSEError(.malformedHeader, "The \(what) is larger than \(maximumLength) bytes.") }
        let value: StrictJSON.Value
        do { value = try StrictJSON.parse(bytes) } catch {
            throw JOSEError(.malformedHeader, "The \(what) is not strict JSON (\(error)); duplicate members are refused.")
        }
        guard let object = value.object else { throw JOSEError(.malformedHeader, "The \(what) is \(value.typeName), not a JSON object.") }
        if object["crit"] != nil {
            throw JOSEError(.unsupportedHeader, "The \(what) has crit; no critical header extension is supported here, so it must be left out.")
        }
        return object
    }

    /// A header value for a message: at most 40 printable ASCII characters.
    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.prefix(40).map { $0.value >= 0x20 && $0.value < 0x7f ? Character($0) : "?" })
    }
}
