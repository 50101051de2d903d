import ApplePayVerifier
import Crypto
import Foundation
import GooglePayVerifier
import MdocVerifier
import SwiftASN1
import VerificationCore
import WalletCBOR
import WalletEncoding
import WalletIdentity
import WebIdentity
import X509

/// `GET /v1/trust`: what the service trusts right now, for operators. Certificates, fingerprints,
/// key hashes and dates only: never a private key, never a list's content.
enum TrustView {
    static func json(_ services: VerifierServices) async -> String {
        var object: [String: Any] = [:]
        object["anchors"] = services.identity.verifier.mdocVerifier.trustStore.anchors.map { anchor -> [String: Any] in
            var serializer = DER.Serializer()
            let der: [UInt8] = (try? serializer.serialize(anchor.certificate)).map { serializer.serializedBytes } ?? []
            var entry: [String: Any] = [
                "subject": "\(anchor.certificate.subject)",
                "sha256": Hex.encode(Array(SHA256.hash(data: der))),
                "notBefore": RFC3339.format(anchor.certificate.notValidBefore),
                "notAfter": RFC3339.format(anchor.certificate.notValidAfter),
                "source": anchor.source,
            ]
            entry["docTypes"] = anchor.docTypes.map { Array($0).sorted() } ?? NSNull()
            return entry
        }
        var revocation: [String: Any] = ["mode": services.settings.revocation.rawValue, "files": services.settings.revocationLists]
        var lists: [[String: Any]] = []
        if let cache = services.revocationCache, let entries = try? await cache.entries() {
            // The VICAL rollback records share the store's document cache; they are not lists.
            for entry in entries where !VICALCopies.isHighestKey(entry.uri) && !GooglePayRootKeyCopies.isCacheKey(entry.uri) {
                var list: [String: Any] = [
                    "uri": entry.uri, "fetchedAt": RFC3339.format(entry.fetchedAt),
                    "freshUntil": RFC3339.format(entry.freshUntil), "usableUntil": RFC3339.format(entry.usableUntil),
                ]
                list["issuedAt"] = entry.issuedAt.map(RFC3339.format) ?? NSNull()
                list["expiresAt"] = entry.expiresAt.map(RFC3339.format) ?? NSNull()
                lists.append(list)
            }
        }
        revocation["cachedLists"] = lists
        object["revocation"] = revocation
        object["vicals"] = services.vicals.map { vical -> [String: Any] in
            [
                "source": vical.source, "provider": vical.provider,
                "issueID": vical.issueID.flatMap { Int(exactly: $0) }.map { $0 as Any } ?? NSNull(),
                "date": RFC3339.format(vical.date), "nextUpdate": vical.nextUpdate.map(RFC3339.format) ?? NSNull(),
                "fetchedAt": vical.fetchedAt.map(RFC3339.format) ?? NSNull(),
            ]
        }
        object["identityKeys"] = services.identity.verifier.keyRing.keys.map { ["label": $0.label, "pkRHash": Hex.encode($0.publicKeyHash)] }
        object["webKeys"] = services.webKeys.map { ["thumbprint": WebRecipientKey.thumbprint($0.publicKey)] }
        object["applePayKeys"] = (services.applePay?.keyRing.keys ?? []).map { ["publicKeyHash": $0.publicKeyHash] }
        object["googlePay"] = googlePay(services.googlePay)
        if let signer = services.readerAuth {
            object["readerAuthentication"] = [
                "subject": "\(signer.leaf.subject)", "notAfter": RFC3339.format(signer.leaf.notValidAfter),
                "form": services.settings.readerAuthAll ? "readerAuthAll" : "readerAuth",
            ]
        } else {
            object["readerAuthentication"] = NSNull()
        }
        object["requestSigning"] = services.requestSigning?.trustJSON ?? NSNull()
        object["webProtocols"] = services.defaultWebProtocols.map(\.rawValue)
        object["certificates"] = services.certificates.map { certificate -> [String: Any] in
            [
                "kind": certificate.kind.rawValue, "subject": certificate.subject, "notBefore": RFC3339.format(certificate.notBefore),
                "notAfter": RFC3339.format(certificate.notAfter), "id": certificate.id,
            ]
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Google Pay: the merchant id, each merchant key (its public half, base64 of the uncompressed
    /// point, as registered with Google) and each root key of the list in use with where it came from.
    static func googlePay(_ configuration: GooglePayConfiguration?) -> Any {
        guard let configuration else { return NSNull() }
        let fetchedAt = configuration.rootKeysFetchedAt.map(RFC3339.format).map { $0 as Any } ?? NSNull()
        let roots = (configuration.rootKeys?.keys ?? []).map { key -> [String: Any] in
            [
                "kind": "googlepay-root", "protocolVersion": key.protocolVersion, "keyValue": key.keyValue,
                "keyExpiration": key.expiration.map(RFC3339.format).map { $0 as Any } ?? NSNull(),
                "source": configuration.rootKeysSource, "fetchedAt": fetchedAt,
            ]
        }
        return [
            "recipientId": configuration.recipient.recipientId,
            "merchantKeys": configuration.keyRing.keys.map { ["kind": "googlepay-merchant", "publicKey": $0.publicKeyBase64] },
            "rootKeys": roots, "rootKeysSource": configuration.rootKeysSource,
        ] as [String: Any]
    }
}
