import Crypto
import Foundation
import VerificationCore
import WalletCBOR
import WalletEncoding

/// The mdoc reader's ephemeral private key (EReaderKey, P-256), which deviceMac needs, in the forms a
/// terminal or ProximityReader hands it over: PEM (SEC1 or PKCS#8), a private JWK, the 32-byte scalar
/// (hex, base64 or binary), the 97-byte X9.63 form CryptoKit's `x963Representation` gives (04 ‖ X ‖ Y
/// ‖ d; hex, base64 or binary), or a COSE_Key (`{1: 2, -1: 1, -4: d, …}`; binary, hex or base64).
/// Errors never show key material.
public enum ReaderKeyAgreementKey {
    /// Reads the key in any of the forms ``ReaderKeyAgreementKey`` lists; `name` (a file path or field name) only labels the errors.
    ///
    /// ``load(base64:name:)`` reads a JSON member that carries any of these forms as base64.
    /// Throws ``ReaderKeyError`` when the contents are none of those forms of a P-256 private key.
    public static func load(contents: [UInt8], name: String) throws(ReaderKeyError) -> P256.KeyAgreement.PrivateKey {
        let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if PEM.looksLikePEM(text) {
            if let block = PEM.firstBlock(labeled: PEM.privateKeyLabels, in: text),
                let key = try? P256.KeyAgreement.PrivateKey(derRepresentation: block.der)
            {
                return key
            }
            throw ReaderKeyError("\(name) is not a P-256 private key (PEM SEC1 or PKCS#8)")
        }
        if text.hasPrefix("{") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
                object["kty"] as? String == "EC", object["crv"] as? String == "P-256",
                let d = (object["d"] as? String).flatMap(Base64.decodeURL), d.count == 32,
                let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: d)
            else {
                throw ReaderKeyError("\(name) is not a private P-256 JWK (kty EC, crv P-256, d)")
            }
            return key
        }
        // Text that is hex or base64, or the binary itself.
        var candidates: [[UInt8]] = [contents]
        if let hex = Hex.decode(text) { candidates.insert(hex, at: 0) }
        if let base64 = Base64.decodeStrict(text) { candidates.append(base64) }
        for bytes in candidates {
            if bytes.count == 32, let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: bytes) { return key }
            // CryptoKit's x963Representation of a private key: 04 ‖ X ‖ Y ‖ d (97 bytes). The public
            // point must be the scalar's own: a mismatched pair is not a key.
            if bytes.count == 97, bytes[0] == 0x04, let key = try? P256.KeyAgreement.PrivateKey(x963Representation: bytes),
                Array(key.publicKey.x963Representation) == Array(bytes[0..<65])
            {
                return key
            }
            if let key = coseKey(bytes) { return key }
        }
        throw ReaderKeyError(
            "\(name) is not a P-256 private key: PEM, a private JWK, the 32-byte scalar, the 97-byte X9.63 form (hex or base64) or a COSE_Key with d")
    }

    /// A key sent as base64 of any form ``load(contents:name:)`` reads (a JSON member: base64 of a PEM
    /// file, of a JWK, of the scalar, of the X9.63 form or of a COSE_Key); text that is not base64 is
    /// read as it is (the hex scalar, as before).
    public static func load(base64 text: String, name: String) throws(ReaderKeyError) -> P256.KeyAgreement.PrivateKey {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if let decoded = Base64.decodeLenient(trimmed), !decoded.isEmpty, let key = try? load(contents: decoded, name: name) {
            return key
        }
        return try load(contents: Array(trimmed.utf8), name: name)
    }

    /// A COSE_Key map with kty EC2 (2), crv P-256 (1) and the private scalar d (-4).
    static func coseKey(_ bytes: [UInt8]) -> P256.KeyAgreement.PrivateKey? {
        guard let node = try? CBORDecoder(limits: .init(maxDepth: 4, maxItems: 64, maxInputSize: 4096)).decode(bytes),
            case .map(let map) = node.value
        else { return nil }
        func value(_ label: Int64) -> CBORNode? {
            map.entries.first { entry in
                switch entry.key.value {
                case .unsignedInt(let v): return label >= 0 && v == UInt64(label)
                case .negativeInt(let v): return label < 0 && v == UInt64(-1 - label)
                default: return false
                }
            }?.value
        }
        guard case .unsignedInt(2)? = value(1)?.value, case .unsignedInt(1)? = value(-1)?.value,
            let d = value(-4)?.bytesValue, d.count == 32
        else { return nil }
        return try? P256.KeyAgreement.PrivateKey(rawRepresentation: d)
    }
}

/// Why a reader key could not be read; the message names the input, never its key material.
public typealias ReaderKeyError = CodedError<ReaderKeyErrorDomain>

/// The domain of ``ReaderKeyError``: reader key-agreement keys.
public enum ReaderKeyErrorDomain: ErrorDomain {
    /// `ReaderKeyError`.
    public static let name = "ReaderKeyError"
    /// ``ErrorCode/invalidKey``.
    public static let defaultCode = ErrorCode.invalidKey
}
