import Crypto
import WalletEncoding
import WalletJOSE
import WalletJSON
import X509

/// A receipt whose signature, `typ` and `kid` verified: its header and payload.
public struct VerifiedReceipt: Sendable {
    /// The `kid` of the key that verified it.
    public let keyID: String
    /// The payload JSON as signed.
    public let payload: [UInt8]
    /// The payload, parsed.
    public let claims: StrictJSON.Object
}

/// Why a receipt was not verified: ``Kind/unreadable`` (not a receipt at all, or keys that cannot be
/// read) or ``Kind/invalid`` (a receipt that does not verify: another `typ`, an unknown `kid`, a
/// signature that fails, a payload changed after signing).
public struct ReceiptVerificationError: Error, Sendable, CustomStringConvertible {
    /// The two kinds of failure.
    public enum Kind: Sendable {
        /// The input is not a compact JWS, or the keys are not a JWKS or certificate.
        case unreadable
        /// The receipt does not verify.
        case invalid
    }

    /// Which kind.
    public let kind: Kind
    /// What is wrong.
    public let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

/// Verifies receipts as an auditor would: with the issuer's JWKS (`GET /v1/receipts/jwks`) or the
/// receipt key's certificate.
public enum ReceiptVerifier {
    /// Verifies `compact` with the key of its `kid` in `jwks` (`{"keys": [...]}` JSON).
    public static func verify(_ compact: String, jwks: [UInt8]) throws(ReceiptVerificationError) -> VerifiedReceipt {
        let keyID = try header(compact)
        let keys: [StrictJSON.Value]
        do {
            guard let list = try StrictJSON.parse(jwks).object?["keys"]?.array else {
                throw ReceiptVerificationError(.unreadable, "the JWKS is not a JSON object with a keys array")
            }
            keys = list
        } catch let error as ReceiptVerificationError {
            throw error
        } catch {
            throw ReceiptVerificationError(.unreadable, "the JWKS is not strict JSON: \(error)")
        }
        let known = keys.compactMap { $0.object?["kid"]?.string }
        guard let entry = keys.first(where: { $0.object?["kid"]?.string == keyID })?.object else {
            throw ReceiptVerificationError(
                .invalid,
                "no key in the JWKS has the receipt's kid \"\(keyID)\" (it has \(known.isEmpty ? "none" : known.joined(separator: ", "))); the receipt was signed with a key this issuer does not list"
            )
        }
        let jwk: JWK
        do { jwk = try JWK(object: entry, name: "the JWKS key \"\(keyID)\"") } catch {
            throw ReceiptVerificationError(.unreadable, error.message)
        }
        guard let key = try? P256.Signing.PublicKey(x963Representation: jwk.publicKey.x963Representation) else {
            throw ReceiptVerificationError(.unreadable, "the JWKS key \"\(keyID)\" is not a P-256 key")
        }
        return try verify(compact, keyID: keyID, key: key)
    }

    /// Verifies `compact` with the public key of `certificate`; the receipt's `kid` must be that
    /// key's RFC 7638 thumbprint.
    public static func verify(_ compact: String, certificate: Certificate) throws(ReceiptVerificationError) -> VerifiedReceipt {
        let keyID = try header(compact)
        guard let key = P256.Signing.PublicKey(certificate.publicKey) else {
            throw ReceiptVerificationError(.unreadable, "the certificate's key is not a P-256 key; receipts are signed with ES256")
        }
        let expected = ReceiptKeys.thumbprint(key)
        guard keyID == expected else {
            throw ReceiptVerificationError(
                .invalid, "the receipt's kid \"\(keyID)\" is not the certificate key's thumbprint \"\(expected)\": it was signed with another key")
        }
        return try verify(compact, keyID: keyID, key: key)
    }

    /// The `kid` of a receipt's header, after checking its shape and `typ`.
    static func header(_ compact: String) throws(ReceiptVerificationError) -> String {
        let parts = compact.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, compact.utf8.count <= JWS.maximumCompactLength,
            let headerBytes = Base64.decodeURL(String(parts[0])), let header = try? StrictJSON.parse(headerBytes).object
        else {
            throw ReceiptVerificationError(.unreadable, "not a compact JWS (three base64url parts with a JSON header)")
        }
        guard header["typ"]?.string == VerificationReceipt.type else {
            throw ReceiptVerificationError(
                .invalid,
                "the JWS typ is \(header["typ"]?.string.map { "\"\(printable($0))\"" } ?? "missing"), not \"\(VerificationReceipt.type)\": it is not a verification receipt"
            )
        }
        guard let keyID = header["kid"]?.string, !keyID.isEmpty else {
            throw ReceiptVerificationError(.invalid, "the receipt's header names no kid")
        }
        return keyID
    }

    static func verify(_ compact: String, keyID: String, key: P256.Signing.PublicKey) throws(ReceiptVerificationError) -> VerifiedReceipt {
        let verified: JWS.Verified
        do { verified = try JWS.verifyES256(compact, publicKey: key) } catch {
            throw ReceiptVerificationError(.invalid, "the signature does not verify with the key \"\(keyID)\": \(error.message)")
        }
        guard let claims = try? StrictJSON.parse(verified.payload).object else {
            throw ReceiptVerificationError(.invalid, "the signed payload is not a JSON object")
        }
        return VerifiedReceipt(keyID: keyID, payload: verified.payload, claims: claims)
    }

    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.prefix(60).map { $0.value >= 0x20 && $0.value < 0x7f ? Character($0) : "?" })
    }
}

/// The JSON Web Key Set of receipt keys: `{"keys": [...]}` of public JWK texts.
public enum ReceiptKeySet {
    /// The JWKS of these JWK texts (each a JSON object), in order.
    public static func json(_ jwks: [String]) -> String {
        "{\"keys\":[" + jwks.joined(separator: ",") + "]}"
    }
}
