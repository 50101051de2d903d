import Crypto
import Foundation
import SwiftASN1
import X509

/// What the fixtures' small PKIs (reader, revocation signer, VICAL) share: names of the form
/// `C=US, O=…, CN=…`, CA and signer certificates signed with ECDSA and SHA-256, and DER.
enum FixtureCertificates {
    /// `C=US, O=<organization>, CN=<commonName>`.
    static func name(_ organization: String, _ commonName: String) throws -> DistinguishedName {
        try DistinguishedName {
            CountryName("US")
            OrganizationName(organization)
            CommonName(commonName)
        }
    }

    /// What a certificate is for, which sets its extensions.
    enum Role {
        /// A CA: critical basicConstraints (cA, `pathLength`) and critical keyCertSign and cRLSign.
        case authority(pathLength: Int)
        /// A signer: critical digitalSignature key usage and, when given, that critical extended key
        /// usage (for example 1.0.18013.5.1.6 for mdoc readers).
        case signer(extendedKeyUsage: ASN1ObjectIdentifier? = nil)
    }

    /// A certificate for `role`, signed with ECDSA and SHA-256 by `issuerKey` under the name `issuer`
    /// (self-signed when those are the subject's own).
    static func issue(
        _ role: Role, _ publicKey: Certificate.PublicKey, subject: DistinguishedName, validity: (notBefore: Date, notAfter: Date),
        issuer: DistinguishedName, issuerKey: Certificate.PrivateKey
    ) throws -> Certificate {
        try Certificate(
            version: .v3, serialNumber: .init(), publicKey: publicKey,
            notValidBefore: validity.notBefore, notValidAfter: validity.notAfter,
            issuer: issuer, subject: subject, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                switch role {
                case .authority(let pathLength):
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: pathLength))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                case .signer(let extendedKeyUsage):
                    Critical(KeyUsage(digitalSignature: true))
                    if let extendedKeyUsage { Critical(try ExtendedKeyUsage([ExtendedKeyUsage.Usage(oid: extendedKeyUsage)])) }
                }
            },
            issuerPrivateKey: issuerKey)
    }

    /// A certificate's DER encoding.
    static func der(_ certificate: Certificate) -> [UInt8] {
        var serializer = DER.Serializer()
        try! serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
