import SwiftASN1
import X509

/// Google's relying-party certificates for OpenID4VP request signing: the leaf carries the extension
/// 1.3.6.1.4.1.11129.10.1, whose value is the SHA-256 of CBOR `RelyingPartyMetadataBytes`.
public enum RelyingPartyCertificate {
    /// The relying-party metadata extension, 1.3.6.1.4.1.11129.10.1.
    public static let metadataExtension: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 11129, 10, 1]

    /// The metadata hash the extension carries: the content of its OCTET STRING, or, when the
    /// extension's value is not one OCTET STRING, its raw bytes. Nil without the extension.
    public static func metadataHash(_ certificate: Certificate) -> [UInt8]? {
        guard let value = certificate.extensions[oid: metadataExtension]?.value else { return nil }
        if let octets = try? ASN1OctetString(derEncoded: value) { return Array(octets.bytes) }
        return Array(value)
    }
}
