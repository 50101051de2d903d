import Crypto
import Foundation
import SwiftASN1
import X509

/// Certificates for the trust-source tests: what a publisher's URL might serve instead of a root.
public enum TrustRootFixtures {
    /// A self-signed certificate that is not a CA (a signer's profile): the wrong thing to pin.
    public static func selfSignedLeaf() throws -> Certificate {
        let key = P256.Signing.PrivateKey()
        let name = try FixtureCertificates.name("Test Publisher", "Not A Root")
        return try FixtureCertificates.issue(
            .signer(), .init(key.publicKey), subject: name,
            validity: (Date(timeIntervalSince1970: 1_600_000_000), Date(timeIntervalSince1970: 2_000_000_000)), issuer: name, issuerKey: .init(key))
    }

    /// A certificate's DER encoding.
    public static func der(_ certificate: Certificate) -> [UInt8] { FixtureCertificates.der(certificate) }

    /// A certificate in PEM, as bytes (what a publisher's page serves).
    public static func pem(_ certificate: Certificate) -> [UInt8] { Array(try! certificate.serializeAsPEM().pemString.utf8) }
}
