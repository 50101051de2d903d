import Crypto
import SwiftASN1
import VerificationCore
import WalletEncoding
import WalletJOSE
import X509

/// Signs OpenID4VP request objects (protocol `openid4vp-v1-signed`): a JWS with ES256,
/// `typ: oauth-authz-req+jwt` and `x5c` (leaf first), whose `client_id` uses an X.509 client
/// identifier prefix (OpenID4VP 1.0 §5.9.3).
public struct OpenID4VPRequestSigner: Sendable {
    /// How the `client_id` names the verifier through its leaf certificate.
    public enum ClientIDPrefix: Sendable, Hashable {
        /// `x509_san_dns:<name>`: a DNS name among the leaf's subjectAltName entries; nil takes the first one.
        case x509SanDNS(String?)
        /// `x509_hash:<base64url SHA-256 of the leaf DER>`.
        case x509Hash
    }

    /// The P-256 signing key, matching the leaf certificate.
    public let key: P256.Signing.PrivateKey
    /// The certificates, leaf first, as parsed.
    public let certificates: [Certificate]
    /// The DER of each certificate, leaf first (the JWS `x5c`).
    public let chain: [[UInt8]]
    /// The `client_id` every request signed by this signer carries.
    public let clientID: String

    /// Checks that `key` is the leaf's key and derives the `client_id`. Throws ``WebRequestError`` for
    /// no certificate, a key that does not match the leaf, or an `x509_san_dns` name the leaf does not hold.
    public init(key: P256.Signing.PrivateKey, certificates: [Certificate], clientIDPrefix: ClientIDPrefix) throws(WebRequestError) {
        guard let leaf = certificates.first else { throw WebRequestError("the request-signing chain holds no certificate; give the leaf first") }
        guard P256.Signing.PublicKey(leaf.publicKey)?.rawRepresentation == key.publicKey.rawRepresentation else {
            throw WebRequestError(
                "the request-signing key does not match the public key of the first certificate (\(leaf.subject)); give the leaf certificate of this key first"
            )
        }
        var chain: [[UInt8]] = []
        for (index, certificate) in certificates.enumerated() {
            var serializer = DER.Serializer()
            do { try serializer.serialize(certificate) } catch {
                throw WebRequestError("request-signing certificate \(index) cannot be encoded as DER")
            }
            chain.append(serializer.serializedBytes)
        }
        switch clientIDPrefix {
        case .x509Hash:
            clientID = "x509_hash:" + Base64.encodeURL(SHA256.hash(data: chain[0]))
        case .x509SanDNS(let wanted):
            let names = Self.dnsNames(of: leaf)
            if let wanted {
                guard let name = names.first(where: { $0.lowercased() == wanted.lowercased() }) else {
                    throw WebRequestError(
                        "the request-signing certificate (\(leaf.subject)) has no DNS subjectAltName \(wanted)"
                            + (names.isEmpty ? "; it has none, so use x509_hash" : "; it has \(names.joined(separator: ", "))"))
                }
                clientID = "x509_san_dns:" + name
            } else {
                guard let name = names.first else {
                    throw WebRequestError("the request-signing certificate (\(leaf.subject)) has no DNS subjectAltName; use x509_hash")
                }
                clientID = "x509_san_dns:" + name
            }
        }
        self.key = key
        self.certificates = certificates
        self.chain = chain
    }

    /// The DNS names among a certificate's subjectAltName entries, in order.
    public static func dnsNames(of certificate: Certificate) -> [String] {
        guard let names = try? certificate.extensions.subjectAlternativeNames else { return [] }
        return names.compactMap { name in
            if case .dnsName(let dns) = name { return dns }
            return nil
        }
    }

    /// The compact JWS of a request object: header `{"alg":"ES256","typ":"oauth-authz-req+jwt","x5c":[…]}`.
    public func sign(requestObject: [UInt8]) throws(WebRequestError) -> String {
        do {
            return try JWS.signES256(payload: requestObject, key: key, type: "oauth-authz-req+jwt", x5c: chain)
        } catch {
            throw WebRequestError("the request object could not be signed: \(error.message)")
        }
    }
}
