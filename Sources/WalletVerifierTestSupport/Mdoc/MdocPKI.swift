import Crypto
import Foundation
import SwiftASN1
import X509

/// An issuing authority made in code: an IACA root and a document signer (DS), as ISO 18013-5
/// Annex B describes them, with knobs to break each profile rule.
public struct MdocPKI: Sendable {
    /// The IACA root's private key.
    public let iacaKey: P256.Signing.PrivateKey
    /// The self-signed IACA root certificate.
    public let iaca: Certificate
    /// The document signer's private key, which signs the MSO.
    public let dsKey: P256.Signing.PrivateKey
    /// The document signer certificate, issued by ``iaca``.
    public let ds: Certificate

    /// Which Annex B profile rules the built certificates keep or break.
    public struct Options: Sendable {
        /// The IACA's countryName; nil leaves it out of the subject.
        public var iacaCountry: String? = "US"
        /// The document signer's countryName; nil leaves it out of the subject.
        public var dsCountry: String? = "US"
        /// Make the document signer a CA (basicConstraints cA and keyCertSign).
        public var dsIsCA = false
        /// Give the document signer the mdoc signing extended key usage (1.0.18013.5.1.2).
        public var dsHasEKU = true
        /// Set digitalSignature in the document signer's key usage.
        public var dsKeyUsageDigitalSignature = true
        /// Set keyCertSign in the IACA's key usage.
        public var iacaHasKeyCertSign = true
        /// Set cRLSign in the IACA's key usage.
        public var iacaHasCRLSign = true
        /// The IACA's basicConstraints pathLenConstraint (Annex B: 0); nil leaves it out.
        public var iacaPathLength: Int? = 0
        /// Give the IACA a CRL distribution point.
        public var iacaHasCRLDistributionPoint = true
        /// Mark the document signer's key usage critical.
        public var dsKeyUsageCritical = true
        /// Mark the document signer's extended key usage critical.
        public var dsEKUCritical = true
        /// The document signer's commonName; nil leaves it out of the subject.
        public var dsCommonName: String? = "Test Document Signer"
        /// The IACA's stateOrProvinceName; nil leaves it out.
        public var iacaState: String? = nil
        /// The document signer's stateOrProvinceName; nil leaves it out.
        public var dsState: String? = nil
        /// The start of the IACA's validity (and the document signer's when ``dsNotBefore`` is nil).
        public var notBefore = Date(timeIntervalSince1970: 1_600_000_000)  // 2020-09-13
        /// The end of the IACA's validity; the document signer never outlives it unless ``dsNotAfter`` is set.
        public var notAfter = Date(timeIntervalSince1970: 2_000_000_000)  // 2033-05-18
        /// The document signer's validity: 2023-06-01 for 456 days (Annex B allows 457) by default,
        /// around the fixtures' signing time (2023-11-14).
        public var dsNotBefore: Date? = MdocPKI.dsNotBefore
        /// The end of the document signer's validity; nil means ``MdocPKI/dsValidity`` after its start, capped at ``notAfter``.
        public var dsNotAfter: Date? = nil
        /// The Annex B profile with every rule kept.
        public init() {}
    }

    /// A PKI from given parts (hostile tests: a document signer issued by something else).
    public init(iacaKey: P256.Signing.PrivateKey, iaca: Certificate, dsKey: P256.Signing.PrivateKey, ds: Certificate) {
        self.iacaKey = iacaKey
        self.iaca = iaca
        self.dsKey = dsKey
        self.ds = ds
    }

    /// The default start of the document signer's validity: 2023-06-01T00:00:00Z.
    public static let dsNotBefore = Date(timeIntervalSince1970: 1_685_577_600)
    /// The default length of the document signer's validity, in seconds (456 days).
    public static let dsValidity: Double = 456 * 86_400

    /// A PKI for the service fixtures, whose document signer must be valid at any time (real clocks
    /// in process tests): valid 2020–2033, which breaks only Annex B's validity-length rule, a
    /// warning under the in-app policy the service runs.
    public static func longLived() throws -> MdocPKI {
        var options = Options()
        options.dsNotBefore = options.notBefore
        options.dsNotAfter = options.notAfter
        return try MdocPKI(options)
    }

    /// Generates an IACA and a document signer with fresh P-256 keys, shaped by `options`.
    /// Throws when a certificate cannot be built or signed.
    public init(_ options: Options = Options()) throws {
        iacaKey = P256.Signing.PrivateKey()
        dsKey = P256.Signing.PrivateKey()
        let iacaName = try DistinguishedName {
            if let country = options.iacaCountry { CountryName(country) }
            if let state = options.iacaState { StateOrProvinceName(state) }
            OrganizationName("Test Issuing Authority")
            CommonName("Test IACA")
        }
        let dsName = try DistinguishedName {
            if let country = options.dsCountry { CountryName(country) }
            if let state = options.dsState { StateOrProvinceName(state) }
            OrganizationName("Test Issuing Authority")
            if let name = options.dsCommonName { CommonName(name) }
        }
        let iacaKeyIdentifier = SubjectKeyIdentifier(hash: .init(iacaKey.publicKey)).keyIdentifier
        iaca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(iacaKey.publicKey),
            notValidBefore: options.notBefore, notValidAfter: options.notAfter,
            issuer: iacaName, subject: iacaName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: options.iacaPathLength))
                Critical(KeyUsage(keyCertSign: options.iacaHasKeyCertSign, cRLSign: options.iacaHasCRLSign))
                SubjectKeyIdentifier(keyIdentifier: iacaKeyIdentifier)
                AnnexBExtensions.issuerAltName(email: "iaca@issuer.example")
                if options.iacaHasCRLDistributionPoint { AnnexBExtensions.crlDistributionPoint("https://issuer.example/iaca.crl") }
            },
            issuerPrivateKey: .init(iacaKey))
        ds = try Self.documentSigner(options, key: dsKey, subject: dsName, iacaName: iacaName, iacaKey: iacaKey, iacaKeyIdentifier: iacaKeyIdentifier)
    }

    /// Another document signer of the same IACA: a new key, the Annex B profile, valid from
    /// `notBefore` for 456 days (Annex B allows 457).
    public func anotherDocumentSigner(notBefore: Date = MdocPKI.dsNotBefore) throws -> MdocPKI {
        var options = Options()
        options.dsNotBefore = notBefore
        options.notAfter = iaca.notValidAfter
        let key = P256.Signing.PrivateKey()
        let identifier = SubjectKeyIdentifier(hash: .init(iacaKey.publicKey)).keyIdentifier
        let signer = try Self.documentSigner(
            options, key: key, subject: ds.subject, iacaName: iaca.subject, iacaKey: iacaKey, iacaKeyIdentifier: identifier)
        return MdocPKI(iacaKey: iacaKey, iaca: iaca, dsKey: key, ds: signer)
    }

    static func documentSigner(
        _ options: Options, key dsKey: P256.Signing.PrivateKey, subject dsName: DistinguishedName, iacaName: DistinguishedName,
        iacaKey: P256.Signing.PrivateKey, iacaKeyIdentifier: ArraySlice<UInt8>
    ) throws -> Certificate {
        let signerPublicKey = dsKey.publicKey
        let dsNotBefore = options.dsNotBefore ?? options.notBefore
        return try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(dsKey.publicKey),
            notValidBefore: dsNotBefore,
            notValidAfter: options.dsNotAfter ?? min(options.notAfter, dsNotBefore.addingTimeInterval(MdocPKI.dsValidity)),
            issuer: iacaName, subject: dsName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                if options.dsIsCA { Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil)) }
                try Certificate.Extension(
                    KeyUsage(digitalSignature: options.dsKeyUsageDigitalSignature, keyCertSign: options.dsIsCA), critical: options.dsKeyUsageCritical)
                if options.dsHasEKU {
                    try Certificate.Extension(
                        try ExtendedKeyUsage([ExtendedKeyUsage.Usage(oid: [1, 0, 18013, 5, 1, 2])]), critical: options.dsEKUCritical)
                }
                SubjectKeyIdentifier(hash: .init(signerPublicKey))
                AuthorityKeyIdentifier(keyIdentifier: iacaKeyIdentifier)
                AnnexBExtensions.issuerAltName(email: "iaca@issuer.example")
                AnnexBExtensions.crlDistributionPoint("https://issuer.example/crl")
            },
            issuerPrivateKey: .init(iacaKey))
    }

    /// The document signer certificate's DER encoding, as x5chain carries it.
    public var dsDER: [UInt8] {
        var serializer = DER.Serializer()
        try! serializer.serialize(ds)
        return serializer.serializedBytes
    }

    /// The IACA root certificate in PEM, for writing trust-root files.
    public var iacaPEM: String { try! iaca.serializeAsPEM().pemString }
}
