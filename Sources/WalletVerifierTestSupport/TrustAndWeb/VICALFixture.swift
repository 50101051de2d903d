import Crypto
import Foundation
import MdocVerifier
import SwiftASN1
import WalletCBOR
import WalletCOSE
import X509

/// Builds VICALs (ISO/IEC 18013-5 Annex C) signed by a VICAL signer made in code: an anchor (root)
/// and a signer it issued, carried in x5chain like AAMVA's.
public struct VICALFixture: Sendable {
    /// One `CertificateInfo` of the list: an issuer certificate and the docTypes it is trusted for.
    public struct Entry: Sendable {
        /// The listed certificate (an IACA, normally).
        public var certificate: Certificate
        /// The docTypes the certificate is listed for.
        public var docTypes: [String]
        /// An entry for `certificate` and `docTypes`.
        public init(_ certificate: Certificate, docTypes: [String]) {
            self.certificate = certificate
            self.docTypes = docTypes
        }
    }

    /// The anchor's private key.
    public let anchorKey: P256.Signing.PrivateKey
    /// The self-signed anchor certificate, the trust root for the VICAL signer.
    public let anchor: Certificate
    /// The VICAL signer's private key.
    public let signerKey: P256.Signing.PrivateKey
    /// The VICAL signer certificate (EKU 1.0.18013.5.1.8), issued by ``anchor``.
    public let signer: Certificate

    /// The certificates the VICAL lists; each gets a placeholder serial number and SKI.
    public var entries: [Entry] = []
    /// The VICAL `date`: a day before the fixtures' signing time by default.
    public var date = Date(timeIntervalSince1970: 1_700_000_000 - 86_400)
    /// The VICAL `nextUpdate`: 30 days after the fixtures' signing time by default; nil leaves it out.
    public var nextUpdate: Date? = Date(timeIntervalSince1970: 1_700_000_000 + 30 * 86_400)
    /// The `vicalProvider` string.
    public var provider = "Test Trust Service"
    /// The `vicalIssueID`: 42 by default; nil leaves it out.
    public var issueID: UInt64? = 42

    /// Generates the anchor and signer with fresh P-256 keys; both are valid from 2020-09-13, the signer until `signerNotAfter`.
    /// Throws when a certificate cannot be built.
    public init(signerNotAfter: Date = Date(timeIntervalSince1970: 2_000_000_000)) throws {
        anchorKey = P256.Signing.PrivateKey()
        signerKey = P256.Signing.PrivateKey()
        let anchorName = try FixtureCertificates.name("Test Trust Service", "Test VICAL Root")
        let notBefore = Date(timeIntervalSince1970: 1_600_000_000)
        anchor = try FixtureCertificates.issue(
            .authority(pathLength: 1), .init(anchorKey.publicKey), subject: anchorName,
            validity: (notBefore, Date(timeIntervalSince1970: 2_000_000_000)),
            issuer: anchorName, issuerKey: .init(anchorKey))
        signer = try FixtureCertificates.issue(
            .signer(extendedKeyUsage: [1, 0, 18013, 5, 1, 8]), .init(signerKey.publicKey),
            subject: try FixtureCertificates.name("Test Trust Service", "Test VICAL Signer"), validity: (notBefore, signerNotAfter),
            issuer: anchorName,
            issuerKey: .init(anchorKey))
    }

    /// The anchor certificate in PEM, for writing trust-root files.
    public var anchorPEM: String { try! anchor.serializeAsPEM().pemString }

    static func der(_ certificate: Certificate) -> [UInt8] { FixtureCertificates.der(certificate) }

    /// The signed VICAL (COSE_Sign1, x5chain [signer, anchor] unprotected like AAMVA's).
    public func signed() throws -> [UInt8] {
        try signed(key: signerKey, x5chain: [Self.der(signer), Self.der(anchor)])
    }

    /// The VICAL signed by another key and x5chain (a certificate made for another role).
    public func signed(key: P256.Signing.PrivateKey, x5chain: [[UInt8]]) throws -> [UInt8] {
        var infos: [CBORNode] = []
        for entry in entries {
            var info: [(CBORNode, CBORNode)] = [
                (.text("certificate"), .bytes(Self.der(entry.certificate))),
                (.text("serialNumber"), .tagged(2, .bytes([1]))),
                (.text("ski"), .bytes([UInt8](repeating: 7, count: 20))),
                (.text("docType"), .array(entry.docTypes.map { .text($0) })),
                (.text("issuingAuthority"), .text(entry.certificate.subject.description)),
            ]
            // The entry's country, as AAMVA's VICAL names it: the root's own C.
            if let country = IssuerPlace(entry.certificate.subject).country { info.append((.text("issuingCountry"), .text(country))) }
            infos.append(try CBORNode.map(info))
        }
        var fields: [(CBORNode, CBORNode)] = [
            (.text("version"), .text("1.0")), (.text("vicalProvider"), .text(provider)),
            (.text("date"), CBORDateTime(date: date).cborNode()), (.text("certificateInfos"), .array(infos)),
        ]
        if let issueID { fields.append((.text("vicalIssueID"), .unsigned(issueID))) }
        if let nextUpdate { fields.append((.text("nextUpdate"), CBORDateTime(date: nextUpdate).cborNode())) }
        let payload = Array(try CBORNode.map(fields).encodedBytes)
        let sign1 = try COSESign1.sign(payload: payload, key: .p256(key), unprotected: [(.int(33), .array(x5chain.map { .bytes($0) }))])
        return Array(sign1.node.encodedBytes)
    }
}
