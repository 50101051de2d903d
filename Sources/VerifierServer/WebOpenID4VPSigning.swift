import Crypto
import Foundation
import Logging
import SwiftASN1
import VerificationCore
import WalletCOSE
import WalletEncoding
import WebIdentity
import X509

/// The key and certificate chain that sign OpenID4VP request objects (ES256, `x5c`), and the client
/// identifier they give the verifier: `--request-signing-key`/`--request-signing-cert`, or the reader
/// key of `--reader-key`/`--reader-cert` when those are not given.
struct WebRequestSigning: Sendable {
    /// The P-256 key and its chain (leaf first), checked to match.
    let signer: ReaderAuthSigner
    /// The library's signer of request objects, with the client identifier.
    let requestSigner: OpenID4VPRequestSigner
    /// How the client identifier names the verifier.
    let scheme: ServerSettings.OpenID4VPClientIDScheme
    /// Where the key came from, for the trust view: `requestSigningKey` or `readerKey`.
    let source: String

    /// `x509_san_dns:<name>` or `x509_hash:<base64url SHA-256 of the leaf DER>`.
    var clientID: String { requestSigner.clientID }

    /// The OpenID4VP signer of the keys read (``ServiceMaterial``): the own request-signing key, else
    /// the reader key; nil when neither is configured (or the reader key is not P-256).
    static func make(own: ReaderAuthSigner?, reader: ReaderAuthSigner?, settings: ServerSettings, logger: Logger, now: Date) throws
        -> WebRequestSigning?
    {
        guard let signer = own ?? reader else { return nil }
        let isOwn = own != nil
        let keyFlag = isOwn ? "--request-signing-key" : "--reader-key"
        guard case .p256(let key) = signer.key else {
            if isOwn { throw SettingsError("\(keyFlag): OpenID4VP requests are signed with ES256, which needs a P-256 key") }
            // A P-384 reader key still signs Annex C requests; OpenID4VP requests then go unsigned.
            logger.notice(
                "web: OpenID4VP requests are unsigned: the reader key is not P-256 (ES256); give --request-signing-key for signed OpenID4VP requests")
            return nil
        }
        let names = dnsNames(signer.leaf)
        let scheme: ServerSettings.OpenID4VPClientIDScheme = settings.openID4VPClientID ?? (names.isEmpty ? .x509Hash : .x509SANDNS)
        let requestSigner: OpenID4VPRequestSigner
        do {
            let certificates = try signer.chain.map { try Certificate(derEncoded: $0) }
            requestSigner = try OpenID4VPRequestSigner(
                key: key, certificates: certificates, clientIDPrefix: scheme == .x509Hash ? .x509Hash : .x509SanDNS(nil))
        } catch {
            throw SettingsError("\(keyFlag), --openid4vp-client-id \(scheme.rawValue): \(error)")
        }
        if signer.leaf.notValidAfter < now || signer.leaf.notValidBefore > now {
            logger.warning(
                "web: the request-signing certificate \(signer.leaf.subject) is not valid now; wallets will refuse signed OpenID4VP requests")
        }
        logger.notice("web: OpenID4VP requests are signed by \(signer.leaf.subject) as \(requestSigner.clientID)")
        return WebRequestSigning(signer: signer, requestSigner: requestSigner, scheme: scheme, source: isOwn ? "requestSigningKey" : "readerKey")
    }

    /// The DNS names of the leaf's subjectAltName, in order (none when it has no such extension or it does not parse).
    static func dnsNames(_ certificate: Certificate) -> [String] {
        guard let names = try? certificate.extensions.subjectAlternativeNames else { return [] }
        return names.compactMap { name -> String? in
            if case .dnsName(let text) = name { return text }
            return nil
        }
    }

    /// `GET /v1/trust`'s `requestSigning` member.
    var trustJSON: [String: Any] {
        let leaf = signer.leaf
        var object: [String: Any] = [
            "subject": "\(leaf.subject)", "notBefore": RFC3339.format(leaf.notValidBefore), "notAfter": RFC3339.format(leaf.notValidAfter),
            "sha256": Hex.encode(Array(SHA256.hash(data: signer.chain[0]))), "clientId": clientID, "source": source,
            "dnsNames": Self.dnsNames(leaf), "chainLength": signer.chain.count,
        ]
        object["relyingPartyMetadataHash"] = RelyingPartyCertificate.metadataHash(leaf).map { Hex.encode($0) } ?? NSNull()
        return object
    }
}
