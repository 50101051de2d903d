import Crypto
import Foundation
import SwiftASN1
import X509

/// An issuing authority made in code: an IACA root and a document signer (DS), as ISO 18013-5
/// Annex B describes them, with knobs to break each profile rule.
public struct MdocPKI: Sendable {
    public let iacaKey: P256.Signing.PrivateKey
    public let iaca: Certificate
    public let dsKey: P256.Signing.PrivateKey
    public let ds: Certificate

    public struct Options: Sendable {
        public var iacaCountry: String? = "US"
        public var dsCountry: String? = "US"
        public var dsIsCA = false
        public var dsHasEKU = true
        public var dsKeyUsageDigitalSignature = true
        public var iacaHasKeyCertSign = true
        public var notBefore = Date(timeIntervalSince1970: 1_600_000_000) // 2020-09-13
        public var notAfter = Date(timeIntervalSince1970: 2_000_000_000)  // 2033-05-18
        public var dsNotAfter: Date? = nil
        public init() {}
    }

    /// A PKI from given parts (hostile tests: a document signer issued by something else).
    public init(iacaKey: P256.Signing.PrivateKey, iaca: Certificate, dsKey: P256.Signing.PrivateKey, ds: Certificate) {
        self.iacaKey = iacaKey
        self.iaca = iaca
        self.dsKey = dsKey
        self.ds = ds
    }

    public init(_ options: Options = Options()) throws {
        iacaKey = P256.Signing.PrivateKey()
        dsKey = P256.Signing.PrivateKey()
        let iacaName = try DistinguishedName {
            if let country = options.iacaCountry { CountryName(country) }
            OrganizationName("Test Issuing Authority")
            CommonName("Test IACA")
        }
        let dsName = try DistinguishedName {
            if let country = options.dsCountry { CountryName(country) }
            OrganizationName("Test Issuing Authority")
            CommonName("Test Document Signer")
        }
        iaca = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(iacaKey.publicKey),
            notValidBefore: options.notBefore, notValidAfter: options.notAfter,
            issuer: iacaName, subject: iacaName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: options.iacaHasKeyCertSign, cRLSign: true))
            },
            issuerPrivateKey: .init(iacaKey))
        ds = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(dsKey.publicKey),
            notValidBefore: options.notBefore, notValidAfter: options.dsNotAfter ?? options.notAfter,
            issuer: iacaName, subject: dsName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                if options.dsIsCA { Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil)) }
                Critical(KeyUsage(digitalSignature: options.dsKeyUsageDigitalSignature, keyCertSign: options.dsIsCA))
                if options.dsHasEKU { Critical(try ExtendedKeyUsage([ExtendedKeyUsage.Usage(oid: [1, 0, 18013, 5, 1, 2])])) }
            },
            issuerPrivateKey: .init(iacaKey))
    }

    public var dsDER: [UInt8] {
        var serializer = DER.Serializer()
        try! serializer.serialize(ds)
        return serializer.serializedBytes
    }

    public var iacaPEM: String { try! iaca.serializeAsPEM().pemString }
}
