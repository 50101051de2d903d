import ApplePayVerifier
import Crypto
import CryptoExtras
import Foundation
import SwiftASN1
import X509

/// An Apple-like PKI made in code: a P-384 root (like Apple Root CA - G3), a P-256 intermediate
/// with marker OID 1.2.840.113635.100.6.2.14, an EC P-256 leaf and an RSA-2048 leaf with marker
/// 1.2.840.113635.100.6.29. Every knob a negative test needs is a parameter.
public struct ApplePayFixturePKI: @unchecked Sendable {
    /// The private keys, generated once per process (RSA generation is slow in debug builds).
    public struct Keys: @unchecked Sendable {
        /// The P-384 root key.
        public let root: P384.Signing.PrivateKey
        /// The P-256 intermediate key, which signs both leaves.
        public let intermediate: P256.Signing.PrivateKey
        /// The EC leaf key, which signs EC_v1 tokens.
        public let ecLeaf: P256.Signing.PrivateKey
        /// The RSA-2048 leaf key, which signs RSA_v1 tokens.
        public let rsaLeaf: _RSA.Signing.PrivateKey
        /// A second root, for "wrong root" tests.
        public let otherRoot: P384.Signing.PrivateKey

        /// The process-wide keys, generated on first use; a generation failure is a fatal error.
        public static let shared: Keys = {
            do {
                return Keys(
                    root: P384.Signing.PrivateKey(),
                    intermediate: P256.Signing.PrivateKey(),
                    ecLeaf: P256.Signing.PrivateKey(),
                    rsaLeaf: try _RSA.Signing.PrivateKey(keySize: .bits2048),
                    otherRoot: P384.Signing.PrivateKey()
                )
            } catch {
                fatalError("fixture key generation failed: \(error)")
            }
        }()
    }

    /// Which rules of Apple's certificate checks the built certificates keep or break.
    public struct Options: Sendable {
        /// Give both leaves the leaf marker extension (1.2.840.113635.100.6.29).
        public var leafMarker = true
        /// Give the intermediate the intermediate marker extension (1.2.840.113635.100.6.2.14).
        public var intermediateMarker = true
        /// The start of both leaves' validity.
        public var leafNotBefore = ApplePayFixturePKI.epoch
        /// The end of both leaves' validity: five years after ``ApplePayFixturePKI/epoch`` by default.
        public var leafNotAfter = ApplePayFixturePKI.epoch.addingTimeInterval(5 * 365 * 86_400)
        /// The start of the intermediate's validity: a day before ``ApplePayFixturePKI/epoch`` by default.
        public var intermediateNotBefore = ApplePayFixturePKI.epoch.addingTimeInterval(-86_400)
        /// The end of the intermediate's validity: fifteen years after ``ApplePayFixturePKI/epoch`` by default.
        public var intermediateNotAfter = ApplePayFixturePKI.epoch.addingTimeInterval(15 * 365 * 86_400)
        /// Sign the intermediate with ``Keys/otherRoot`` (same subject as the real root).
        public var intermediateSignedByOtherRoot = false
        /// Every marker present and every certificate valid around ``ApplePayFixturePKI/epoch``.
        public init() {}
    }

    /// 2024-01-01T00:00:00Z; fixture tokens are signed shortly after.
    public static let epoch = Date(timeIntervalSince1970: 1_704_067_200)

    /// The private keys behind the certificates.
    public let keys: Keys
    /// The self-signed P-384 root certificate, the trust anchor.
    public let root: Certificate
    /// A second self-signed root with the same name as ``root`` but a different key.
    public let otherRoot: Certificate
    /// The intermediate certificate, issued by ``root`` (or by ``otherRoot`` when the options say so).
    public let intermediate: Certificate
    /// The EC P-256 leaf certificate, issued by ``intermediate``.
    public let ecLeaf: Certificate
    /// The RSA-2048 leaf certificate, issued by ``intermediate``.
    public let rsaLeaf: Certificate

    /// The subject and issuer name of both roots.
    public static let rootName = try! DistinguishedName {
        CountryName("US")
        OrganizationName("Fixture Inc.")
        OrganizationalUnitName("Fixture Certification Authority")
        CommonName("Fixture Root CA - G3")
    }

    /// The intermediate's subject name (the leaves' issuer).
    public static let intermediateName = try! DistinguishedName {
        CountryName("US")
        OrganizationName("Fixture Inc.")
        OrganizationalUnitName("Fixture Certification Authority")
        CommonName("Fixture Application Integration CA - G3")
    }

    /// The default PKI (shared keys, every marker present, everything valid around ``epoch``).
    public static let standard: ApplePayFixturePKI = {
        do { return try ApplePayFixturePKI() } catch { fatalError("fixture PKI: \(error)") }
    }()

    /// Builds the root, other root, intermediate and leaves from `keys`, shaped by `options`.
    /// Throws when a certificate cannot be built or signed.
    public init(keys: Keys = .shared, options: Options = Options()) throws {
        self.keys = keys
        let rootValidity = (Self.epoch.addingTimeInterval(-2 * 86_400), Self.epoch.addingTimeInterval(25 * 365 * 86_400))
        self.root = try Self.makeRoot(key: keys.root, validity: rootValidity)
        self.otherRoot = try Self.makeRoot(key: keys.otherRoot, validity: rootValidity)

        var intermediateExtensions = Certificate.Extensions()
        try intermediateExtensions.append(Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: 0), critical: true))
        try intermediateExtensions.append(Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true))
        if options.intermediateMarker {
            try intermediateExtensions.append(Certificate.Extension(oid: ApplePayOID.intermediateMarker, critical: false, value: [0x05, 0x00]))
        }
        self.intermediate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(keys.intermediate.publicKey),
            notValidBefore: options.intermediateNotBefore,
            notValidAfter: options.intermediateNotAfter,
            issuer: Self.rootName,
            subject: Self.intermediateName,
            signatureAlgorithm: .ecdsaWithSHA384,
            extensions: intermediateExtensions,
            issuerPrivateKey: Certificate.PrivateKey(options.intermediateSignedByOtherRoot ? keys.otherRoot : keys.root)
        )

        func leafExtensions() throws -> Certificate.Extensions {
            var extensions = Certificate.Extensions()
            try extensions.append(Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true))
            try extensions.append(Certificate.Extension(KeyUsage(digitalSignature: true), critical: true))
            if options.leafMarker {
                try extensions.append(Certificate.Extension(oid: ApplePayOID.leafMarker, critical: false, value: [0x05, 0x00]))
            }
            return extensions
        }
        /// A broker signing certificate issued by the intermediate, named `commonName` (O=Fixture Inc., OU=iOS Systems).
        func leaf(_ publicKey: Certificate.PublicKey, commonName: String) throws -> Certificate {
            try Certificate(
                version: .v3,
                serialNumber: Certificate.SerialNumber(),
                publicKey: publicKey,
                notValidBefore: options.leafNotBefore,
                notValidAfter: options.leafNotAfter,
                issuer: Self.intermediateName,
                subject: try DistinguishedName {
                    CountryName("US")
                    OrganizationName("Fixture Inc.")
                    OrganizationalUnitName("iOS Systems")
                    CommonName(commonName)
                },
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try leafExtensions(),
                issuerPrivateKey: Certificate.PrivateKey(keys.intermediate)
            )
        }
        self.ecLeaf = try leaf(Certificate.PublicKey(keys.ecLeaf.publicKey), commonName: "ecc-fixture-broker-sign")
        self.rsaLeaf = try leaf(Certificate.PublicKey(keys.rsaLeaf.publicKey), commonName: "rsa-fixture-broker-sign")
    }

    private static func makeRoot(key: P384.Signing.PrivateKey, validity: (Date, Date)) throws -> Certificate {
        var extensions = Certificate.Extensions()
        try extensions.append(Certificate.Extension(BasicConstraints.isCertificateAuthority(maxPathLength: nil), critical: true))
        try extensions.append(Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true))
        try extensions.append(Certificate.Extension(SubjectKeyIdentifier(hash: Certificate.PublicKey(key.publicKey)), critical: false))
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: validity.0,
            notValidAfter: validity.1,
            issuer: rootName,
            subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA384,
            extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
    }

    /// The root as a trust anchor for the verifier.
    public func trustAnchor() throws -> ApplePayTrustAnchor {
        try ApplePayTrustAnchor(certificateDER: Self.der(root))
    }

    /// The other root (same name, other key): chains from this PKI must not validate against it.
    public func otherTrustAnchor() throws -> ApplePayTrustAnchor {
        try ApplePayTrustAnchor(certificateDER: Self.der(otherRoot))
    }

    /// A certificate's DER encoding.
    public static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// A certificate in PEM.
    public static func pem(_ certificate: Certificate) throws -> String {
        try certificate.serializeAsPEM().pemString
    }
}
