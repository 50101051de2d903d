import ApplePayVerifier
import Crypto
import Foundation
import SwiftASN1
import X509

/// A stand-in for the portals that issue certificates from a CSR (Apple Developer, Apple Business, a
/// verifier registrar): a self-signed P-256 root that issues a leaf for the CSR's public key and
/// subject, with the extensions of the certificate asked for.
public struct PortalFixtureCA: @unchecked Sendable {
    /// Which certificate the portal issues, which sets the leaf's extensions.
    public enum Profile: Sendable {
        /// Apple Pay Payment Processing: keyAgreement (and keyEncipherment), the extension
        /// 1.2.840.113635.100.6.32 with the upper-case hex SHA-256 of the merchant id as a UTF8String,
        /// and, when `uid` is true, the merchant id as the subject's UID.
        case applePayProcessing(merchantIdentifier: String, uid: Bool = true)
        /// Apple Pay Merchant Identity (the TLS client certificate of merchant validation): digitalSignature,
        /// clientAuth, the extension 1.2.840.113635.100.6.31, the merchant id as the subject's UID and,
        /// when `hashExtension` is true, the extension 1.2.840.113635.100.6.32 with the upper-case hex
        /// SHA-256 of the merchant id.
        case applePayMerchantIdentity(merchantIdentifier: String, hashExtension: Bool = false)
        /// An identity encryption certificate: keyAgreement only.
        case identityEncryption
        /// A reader-authentication certificate (ISO/IEC 18013-5 Annex B): digitalSignature and the EKU 1.0.18013.5.1.6.
        case reader
        /// Google's relying-party certificate: digitalSignature, a DNS name and the extension
        /// 1.3.6.1.4.1.11129.10.1 holding `metadataHash` in an OCTET STRING.
        case googleRelyingParty(metadataHash: [UInt8], dnsName: String)
        /// A plain signing certificate: digitalSignature only.
        case signing
    }

    /// The root's private key.
    public let rootKey: P256.Signing.PrivateKey
    /// The self-signed root certificate.
    public let root: Certificate
    /// The root's name (the leaves' issuer).
    public static let rootName = try! DistinguishedName {
        CountryName("US")
        OrganizationName("Fixture Portal")
        CommonName("Fixture Portal Issuing CA")
    }

    /// A new root, valid from a year before `now` to ten years after.
    public init(now: Date = ApplePayFixturePKI.epoch) throws {
        rootKey = P256.Signing.PrivateKey()
        root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
            notValidBefore: now.addingTimeInterval(-365 * 86_400), notValidAfter: now.addingTimeInterval(10 * 365 * 86_400),
            issuer: Self.rootName, subject: Self.rootName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(rootKey))
    }

    /// The leaf for the CSR in `csrPEM` (whose signature must verify), valid from `notBefore` to `notAfter`.
    public func issue(csrPEM: String, profile: Profile, notBefore: Date, notAfter: Date) throws -> Certificate {
        let csr = try CertificateSigningRequest(pemEncoded: csrPEM)
        guard csr.publicKey.isValidSignature(csr.signature, for: csr) else { throw VectorError("the CSR's signature does not verify") }
        return try issue(publicKey: csr.publicKey, subject: csr.subject, profile: profile, notBefore: notBefore, notAfter: notAfter)
    }

    /// A leaf for `publicKey` named `subject`.
    public func issue(publicKey: Certificate.PublicKey, subject: DistinguishedName, profile: Profile, notBefore: Date, notAfter: Date) throws
        -> Certificate
    {
        var extensions = Certificate.Extensions()
        try extensions.append(Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true))
        var name = subject
        switch profile {
        case .applePayProcessing(let merchantIdentifier, let uid):
            try extensions.append(Certificate.Extension(KeyUsage(keyEncipherment: true, keyAgreement: true), critical: true))
            let hashHex = Array(SHA256.hash(data: Array(merchantIdentifier.utf8))).map { String(format: "%02X", $0) }.joined()
            var serializer = DER.Serializer()
            try serializer.serialize(ASN1UTF8String(hashHex))
            try extensions.append(Certificate.Extension(oid: ApplePayOID.merchantIdentifier, critical: false, value: serializer.serializedBytes[...]))
            if uid {
                name = DistinguishedName(
                    [RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: ApplePayOID.userID, utf8String: merchantIdentifier))]
                        + Array(subject))
            }
        case .applePayMerchantIdentity(let merchantIdentifier, let hashExtension):
            try extensions.append(Certificate.Extension(KeyUsage(digitalSignature: true), critical: true))
            if hashExtension {
                let hashHex = Array(SHA256.hash(data: Array(merchantIdentifier.utf8))).map { String(format: "%02X", $0) }.joined()
                var serializer = DER.Serializer()
                try serializer.serialize(ASN1UTF8String(hashHex))
                try extensions.append(
                    Certificate.Extension(oid: ApplePayOID.merchantIdentifier, critical: false, value: serializer.serializedBytes[...]))
            }
            try extensions.append(Certificate.Extension(try ExtendedKeyUsage([.clientAuth]), critical: false))
            try extensions.append(Certificate.Extension(oid: ApplePayOID.merchantIdentityCertificate, critical: false, value: [0x05, 0x00]))
            name = DistinguishedName(
                [RelativeDistinguishedName(RelativeDistinguishedName.Attribute(type: ApplePayOID.userID, utf8String: merchantIdentifier))]
                    + Array(subject))
        case .identityEncryption:
            try extensions.append(Certificate.Extension(KeyUsage(keyAgreement: true), critical: true))
        case .reader:
            try extensions.append(Certificate.Extension(KeyUsage(digitalSignature: true), critical: true))
            try extensions.append(Certificate.Extension(try ExtendedKeyUsage([ExtendedKeyUsage.Usage(oid: [1, 0, 18013, 5, 1, 6])]), critical: true))
        case .googleRelyingParty(let metadataHash, let dnsName):
            try extensions.append(Certificate.Extension(KeyUsage(digitalSignature: true), critical: true))
            try extensions.append(Certificate.Extension(SubjectAlternativeNames([.dnsName(dnsName)]), critical: false))
            var serializer = DER.Serializer()
            try serializer.serialize(ASN1OctetString(contentBytes: ArraySlice(metadataHash)))
            try extensions.append(
                Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 11129, 10, 1], critical: false, value: ArraySlice(serializer.serializedBytes)))
        case .signing:
            try extensions.append(Certificate.Extension(KeyUsage(digitalSignature: true), critical: true))
        }
        return try Certificate(
            version: .v3, serialNumber: .init(), publicKey: publicKey, notValidBefore: notBefore, notValidAfter: notAfter,
            issuer: Self.rootName, subject: name, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: .init(rootKey))
    }

    /// A certificate's DER, as portals deliver `.cer` files.
    public static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// The leaf and then the root, as one PEM file.
    public func chainPEM(_ leaf: Certificate) throws -> String {
        try leaf.serializeAsPEM().pemString + "\n" + root.serializeAsPEM().pemString + "\n"
    }
}
