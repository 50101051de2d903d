import Crypto
import Foundation
import SwiftASN1
import VerificationCore
import WalletEncoding
import WalletJOSE
import WalletJSON
import X509

/// What a wallet checks of a signed OpenID4VP request object (`openid4vp-v1-signed`, OpenID4VP 1.0
/// §5.9.3 and Appendix A.4) before it trusts what the request says: the JWS verifies with the key of
/// its `x5c` leaf, its `typ` is `oauth-authz-req+jwt`, its `client_id` names that leaf
/// (`x509_san_dns:` a DNS name of the leaf, or `x509_hash:` the base64url SHA-256 of its DER), and
/// its `expected_origins` holds the origin the page is served from.
///
/// The chain of `x5c` is not validated here: which reader roots a wallet trusts is the wallet's.
/// `serve --check` runs it on a request it signs, as a wallet would.
public enum OpenID4VPSignedRequestVerifier {
    /// A request object that verified.
    public struct Verified: Sendable {
        /// The `client_id`, naming the leaf.
        public let clientID: String
        /// The `expected_origins`, as listed.
        public let expectedOrigins: [String]
        /// The leaf certificate of `x5c`.
        public let leaf: Certificate
        /// The request object (the JWS payload), as received.
        public let payload: [UInt8]
    }

    /// Verifies the compact JWS `jws` for a page served from each of `origins`. Throws
    /// ``WebRequestError`` saying which rule the request breaks.
    public static func verify(jws: String, origins: [String]) throws(WebRequestError) -> Verified {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64.decodeURL(String(parts[0])) else {
            throw WebRequestError("the signed request is not a compact JWS (three base64url parts)")
        }
        guard let header = (try? StrictJSON.parse(headerBytes))?.object else { throw WebRequestError("the JWS header is not a strict JSON object") }
        guard header["typ"]?.string == "oauth-authz-req+jwt" else {
            throw WebRequestError("the JWS typ is not oauth-authz-req+jwt; wallets refuse other request object types")
        }
        guard let x5c = header["x5c"]?.array, let first = x5c.first?.string, let leafDER = Base64.decodeStrict(first) else {
            throw WebRequestError("the JWS header has no x5c with a base64 leaf certificate; an X.509 client identifier needs it")
        }
        let leaf: Certificate
        do { leaf = try Certificate(derEncoded: leafDER) } catch { throw WebRequestError("the x5c leaf does not parse as X.509") }
        guard let key = P256.Signing.PublicKey(leaf.publicKey) else {
            throw WebRequestError("the x5c leaf (\(leaf.subject)) does not hold a P-256 key; ES256 needs one")
        }
        let verified: JWS.Verified
        do { verified = try JWS.verifyES256(jws, publicKey: key) } catch {
            throw WebRequestError("the request object's signature does not verify with its x5c leaf (\(leaf.subject)): \(error.message)")
        }
        guard let object = (try? StrictJSON.parse(verified.payload))?.object else {
            throw WebRequestError("the request object is not a strict JSON object")
        }
        guard let clientID = object["client_id"]?.string else { throw WebRequestError("the signed request object has no client_id") }
        if clientID.hasPrefix("x509_san_dns:") {
            let name = String(clientID.dropFirst("x509_san_dns:".count)).lowercased()
            let names = OpenID4VPRequestSigner.dnsNames(of: leaf).map { $0.lowercased() }
            guard names.contains(name) else {
                throw WebRequestError(
                    "client_id \(clientID) names a DNS name the x5c leaf (\(leaf.subject)) does not hold"
                        + (names.isEmpty ? " (it has none)" : " (it has \(names.joined(separator: ", ")))"))
            }
        } else if clientID.hasPrefix("x509_hash:") {
            let expected = "x509_hash:" + Base64.encodeURL(SHA256.hash(data: leafDER))
            guard clientID == expected else {
                throw WebRequestError("client_id \(clientID) is not the SHA-256 of the x5c leaf (\(leaf.subject)), \(expected)")
            }
        } else {
            throw WebRequestError("client_id \(clientID) uses neither x509_san_dns: nor x509_hash:, the prefixes a signed request carries")
        }
        let expected = (object["expected_origins"]?.array ?? []).compactMap(\.string)
        for origin in origins where !expected.contains(origin) {
            throw WebRequestError(
                "expected_origins (\(expected.joined(separator: ", "))) does not hold \(origin); a wallet refuses the request on a page of that origin"
            )
        }
        return Verified(clientID: clientID, expectedOrigins: expected, leaf: leaf, payload: verified.payload)
    }
}
