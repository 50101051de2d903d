import Crypto
import Foundation
import MdocVerifier
import SwiftASN1
import WalletCOSE
import X509

/// Reading certificates in tests.
public enum TestCertificates {
    /// The first certificate of a PEM file.
    public static func certificate(pemFile relativePath: String) throws -> Certificate {
        try Certificate(pemEncoded: try TestVectors.text(relativePath))
    }

    /// DER bytes of the first certificate in a PEM file.
    public static func der(pemFile relativePath: String) throws -> [UInt8] {
        let document = try PEMDocument(pemString: try TestVectors.text(relativePath))
        return document.derBytes
    }

    /// The certificate's public key as a COSE verification key (EC keys only).
    public static func cosePublicKey(_ certificate: Certificate) throws -> COSEPublicKey {
        guard let key = COSEPublicKey(certificate: certificate) else { throw VectorError("unsupported certificate key") }
        return key
    }
}
