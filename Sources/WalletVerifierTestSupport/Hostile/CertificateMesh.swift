import Crypto
import Foundation
import SwiftASN1
import X509

/// The security review's certificate mesh: `depth` layers of `width` CA certificates, where every
/// certificate of a layer names the next layer as its issuer and is signed with the key all of that
/// layer shares, so each certificate of a layer validly issued each certificate of the layer below.
/// A path builder that takes them as intermediates explores width^depth paths before giving up (the
/// top layer chains to nothing trusted). A document signer / leaf issued by layer 0 sits on top.
public struct CertificateMesh: Sendable {
    /// Layer 0 first; each layer's certificates in order.
    public let layers: [[Certificate]]
    /// A leaf issued by layer 0 (a document signer: digitalSignature, EKU 1.0.18013.5.1.2).
    public let leaf: Certificate
    /// The leaf's private key, to sign with.
    public let leafKey: P256.Signing.PrivateKey

    /// How long one mesh submission may take end to end (the service's in-process HTTP stack, the
    /// command line), timed while the other suites run in parallel on two cores. The library-level
    /// tests hold the 50 ms target; the tests that use this one also assert the outcome (`chainTooLong`,
    /// a rejected token), and this bound catches a return of the path search, which took
    /// 5–9 s for one such request on an idle machine. One second was too tight under load: the
    /// fastest of three submissions once took 1.09 s in a full run, where alone one takes 1–3 ms (the
    /// other suites' work holds the two cores and the concurrency pool's two threads).
    public static let endToEndBound = Duration.seconds(3)

    /// Builds a mesh of `depth` layers of `width` CA certificates, plus the leaf, all valid from `notBefore` to `notAfter`.
    /// Generates a fresh key per layer; throws when a certificate cannot be built.
    public init(
        width: Int, depth: Int, notBefore: Date = Date(timeIntervalSince1970: 1_600_000_000),
        notAfter: Date = Date(timeIntervalSince1970: 2_000_000_000)
    ) throws {
        let keys = (0...depth).map { _ in P256.Signing.PrivateKey() }
        let names = try (0...depth).map { level in
            try DistinguishedName {
                CountryName("US")
                OrganizationName("Mesh")
                CommonName("Mesh layer \(level)")
            }
        }
        var layers: [[Certificate]] = []
        for level in 0..<depth {
            var layer: [Certificate] = []
            for _ in 0..<width {
                layer.append(
                    try Certificate(
                        version: .v3, serialNumber: .init(), publicKey: .init(keys[level].publicKey),
                        notValidBefore: notBefore, notValidAfter: notAfter,
                        issuer: names[level + 1], subject: names[level], signatureAlgorithm: .ecdsaWithSHA256,
                        extensions: try Certificate.Extensions {
                            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                            Critical(KeyUsage(keyCertSign: true))
                        },
                        issuerPrivateKey: .init(keys[level + 1])))
            }
            layers.append(layer)
        }
        self.layers = layers
        leafKey = P256.Signing.PrivateKey()
        leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
            notValidBefore: notBefore, notValidAfter: notAfter,
            issuer: names[0],
            subject: try DistinguishedName {
                CountryName("US")
                OrganizationName("Mesh")
                CommonName("Mesh document signer")
            },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(KeyUsage(digitalSignature: true))
                Critical(try ExtendedKeyUsage([ExtendedKeyUsage.Usage(oid: [1, 0, 18013, 5, 1, 2])]))
            },
            issuerPrivateKey: .init(keys[0]))
    }

    /// Every mesh certificate's DER, layer 0 first.
    public var meshDER: [[UInt8]] {
        layers.flatMap { $0 }.map { certificate in
            var serializer = DER.Serializer()
            try! serializer.serialize(certificate)
            return serializer.serializedBytes
        }
    }
}
