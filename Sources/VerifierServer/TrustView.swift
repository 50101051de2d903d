import ApplePayVerifier
import Crypto
import Foundation
import GooglePayVerifier
import MdocVerifier
import SwiftASN1
import TrustDocuments
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
        object["roots"] = services.identity.verifier.mdocVerifier.trustStore.anchors.map(rootJSON)
        let now = services.clock.now()
        object["sources"] = services.currentTrustSources(at: now).map { sourceJSON($0, now: now, settings: services.settings) }
        var revocation: [String: Any] = ["mode": services.settings.revocation.rawValue, "files": services.settings.revocationLists]
        var lists: [[String: Any]] = []
        if let cache = services.revocationCache, let entries = try? await cache.entries() {
            // The VICAL rollback records share the store's document cache; they are not lists.
            for entry in entries where !VICALCopies.isHighestKey(entry.uri) && !GooglePayRootKeySource.isCacheKey(entry.uri) {
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

    /// One trusted root with its provenance (``RootProvenance``), as `GET /v1/trust` and `trust list` show it.
    static func rootJSON(_ anchor: IACATrustStore.Anchor) -> [String: Any] {
        var entry: [String: Any] = [
            "subject": "\(anchor.certificate.subject)", "sha256": anchor.sha256,
            "notBefore": RFC3339.format(anchor.certificate.notValidBefore), "notAfter": RFC3339.format(anchor.certificate.notValidAfter),
            "docTypes": anchor.docTypes.map { Array($0).sorted() as Any } ?? NSNull(),
            "provenance": provenanceJSON(anchor.provenance),
        ]
        entry["summary"] = anchor.provenance.summary
        return entry
    }

    /// Where a root came from: `kind` and the members of that kind.
    static func provenanceJSON(_ provenance: RootProvenance) -> [String: Any] {
        var object: [String: Any] = ["kind": provenance.kind.rawValue]
        switch provenance.kind {
        case .file:
            object["path"] = provenance.location
            object["fileSHA256"] = provenance.fileSHA256 ?? NSNull()
        case .url:
            object["url"] = provenance.location
            object["pin"] = provenance.pin ?? NSNull()
            object["fetchedAt"] = provenance.fetchedAt.map(RFC3339.format) ?? NSNull()
        case .vical:
            object["location"] = provenance.location
            object["fetchedAt"] = provenance.fetchedAt.map(RFC3339.format) ?? NSNull()
            if let vical = provenance.vical {
                object["issuer"] = vical.issuer
                object["signerSubject"] = vical.signerSubject
                object["signerSHA256"] = vical.signerSHA256
                object["issueID"] = vical.issueID.flatMap { Int(exactly: $0) }.map { $0 as Any } ?? NSNull()
                object["date"] = RFC3339.format(vical.date)
                object["nextUpdate"] = vical.nextUpdate.map(RFC3339.format) ?? NSNull()
                object["issuingAuthority"] = vical.issuingAuthority ?? NSNull()
                object["country"] = vical.country ?? NSNull()
                object["state"] = vical.state ?? NSNull()
                object["docTypes"] = vical.docTypes
            }
        case .memory:
            object["location"] = provenance.location
        }
        return object
    }

    /// One configured trust source: what it contributes, when it last loaded, when it is due, and
    /// whether it is stale (past its next update by more than `--trust-stale-after`) or not in use.
    static func sourceJSON(_ source: TrustSourceStatus, now: Date, settings: ServerSettings) -> [String: Any] {
        [
            "kind": source.kind.rawValue, "location": source.location, "roots": source.roots,
            "lastSuccess": source.lastSuccess.map(RFC3339.format) ?? NSNull(),
            "nextUpdate": source.nextUpdate.map(RFC3339.format) ?? NSNull(),
            "stale": source.isStale(at: now, margin: settings.trustStaleAfter),
            "problem": source.problem ?? NSNull(),
        ]
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
