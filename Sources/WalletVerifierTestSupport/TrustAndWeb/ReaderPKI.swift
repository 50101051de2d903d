import Crypto
import Foundation
import SwiftASN1
import WalletCOSE
import X509

/// A relying party's reader-authentication PKI made in code: a root, an optional intermediate and a
/// reader certificate (ISO/IEC 18013-5 Annex B: EKU 1.0.18013.5.1.6, digitalSignature), on P-256 or
/// P-384, with knobs to break the profile.
public struct ReaderPKI: Sendable {
    /// The curve of the reader key.
    public enum Curve: Sendable { case p256, p384 }

    /// Which profile rules the built certificates keep or break.
    public struct Options: Sendable {
        /// The curve of the reader key; the root and intermediate are always P-256.
        public var curve: Curve = .p256
        /// Put an intermediate CA between the root and the reader certificate.
        public var intermediate = false
        /// Give the reader certificate the mdoc reader authentication extended key usage (1.0.18013.5.1.6).
        public var readerHasEKU = true
        /// The start of every certificate's validity (2020-09-13 by default).
        public var notBefore = Date(timeIntervalSince1970: 1_600_000_000)
        /// The end of every certificate's validity (2033-05-18 by default).
        public var notAfter = Date(timeIntervalSince1970: 2_000_000_000)
        /// The Annex B profile on P-256, without an intermediate.
        public init() {}
    }

    /// The self-signed root certificate, the trust anchor a verifier is given.
    public let root: Certificate
    /// The intermediate CA certificate, or nil when the options asked for none.
    public let intermediate: Certificate?
    /// The reader certificate, issued by the intermediate when there is one, else by the root.
    public let reader: Certificate
    /// The reader certificate's private key, which signs ReaderAuthentication.
    public let readerKey: COSESigningKey

    /// Generates fresh keys and builds the root, optional intermediate and reader certificate, shaped by `options`.
    /// Throws when a certificate cannot be built or signed.
    public init(_ options: Options = Options()) throws {
        let rootKey = P256.Signing.PrivateKey()
        let rootName = try FixtureCertificates.name("Test Relying Party", "Test Reader Root")
        let validity = (options.notBefore, options.notAfter)
        root = try FixtureCertificates.issue(
            .authority(pathLength: 1), .init(rootKey.publicKey), subject: rootName, validity: validity, issuer: rootName, issuerKey: .init(rootKey))
        var issuerKey = Certificate.PrivateKey(rootKey)
        var issuerName = rootName
        if options.intermediate {
            let intermediateKey = P256.Signing.PrivateKey()
            let name = try FixtureCertificates.name("Test Relying Party", "Test Reader Intermediate")
            intermediate = try FixtureCertificates.issue(
                .authority(pathLength: 0), .init(intermediateKey.publicKey), subject: name, validity: validity, issuer: rootName,
                issuerKey: .init(rootKey))
            issuerKey = .init(intermediateKey)
            issuerName = name
        } else {
            intermediate = nil
        }
        let publicKey: Certificate.PublicKey
        switch options.curve {
        case .p256:
            let key = P256.Signing.PrivateKey()
            readerKey = .p256(key)
            publicKey = .init(key.publicKey)
        case .p384:
            let key = P384.Signing.PrivateKey()
            readerKey = .p384(key)
            publicKey = .init(key.publicKey)
        }
        reader = try FixtureCertificates.issue(
            .signer(extendedKeyUsage: options.readerHasEKU ? [1, 0, 18013, 5, 1, 6] : nil), publicKey,
            subject: try FixtureCertificates.name("Test Relying Party", "Test Reader"), validity: validity, issuer: issuerName, issuerKey: issuerKey)
    }

    /// DER of the reader certificate, then the intermediate if any (x5chain order).
    public var chainDER: [[UInt8]] {
        ([reader] + (intermediate.map { [$0] } ?? [])).map(Self.der)
    }

    /// A certificate's DER encoding.
    public static func der(_ certificate: Certificate) -> [UInt8] { FixtureCertificates.der(certificate) }

    /// A certificate in PEM.
    public static func pem(_ certificate: Certificate) -> String { try! certificate.serializeAsPEM().pemString }

    /// The reader key as PEM (PKCS#8).
    /// The reader key as SEC1 PEM ("EC PRIVATE KEY", RFC 5915), the form `openssl ecparam -genkey`
    /// writes; `readerKeyPEM` is PKCS#8.
    public var readerKeySEC1PEM: String {
        let (scalar, point, curve): ([UInt8], [UInt8], ASN1ObjectIdentifier)
        switch readerKey {
        case .p256(let key):
            (scalar, point, curve) = (Array(key.rawRepresentation), Array(key.publicKey.x963Representation), [1, 2, 840, 10045, 3, 1, 7])
        case .p384(let key): (scalar, point, curve) = (Array(key.rawRepresentation), Array(key.publicKey.x963Representation), [1, 3, 132, 0, 34])
        default: return ""
        }
        var serializer = DER.Serializer()
        try? serializer.appendConstructedNode(identifier: .sequence) { coder in
            try coder.serialize(1)
            try coder.serialize(ASN1OctetString(contentBytes: ArraySlice(scalar)))
            try coder.serialize(explicitlyTaggedWithTagNumber: 0, tagClass: .contextSpecific) { try $0.serialize(curve) }
            try coder.serialize(explicitlyTaggedWithTagNumber: 1, tagClass: .contextSpecific) {
                try $0.serialize(ASN1BitString(bytes: ArraySlice(point)))
            }
        }
        return PEMDocument(type: "EC PRIVATE KEY", derBytes: serializer.serializedBytes).pemString
    }

    /// The reader key as PKCS#8 PEM ("PRIVATE KEY").
    public var readerKeyPEM: String {
        switch readerKey {
        case .p256(let key): return key.pemRepresentation
        case .p384(let key): return key.pemRepresentation
        case .p521(let key): return key.pemRepresentation
        case .ed25519: return ""
        }
    }
}
