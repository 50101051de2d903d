import SwiftASN1
import X509

/// The extensions ISO/IEC 18013-5 Annex B asks of issuer certificates that swift-certificates has no
/// builder for, encoded by hand: issuerAltName and a CRL distribution point.
public enum AnnexBExtensions {
    /// issuerAltName (2.5.29.18) with one rfc822Name.
    public static func issuerAltName(email: String) -> Certificate.Extension {
        let name = tlv(0x81, Array(email.utf8))
        return Certificate.Extension(oid: [2, 5, 29, 18], critical: false, value: tlv(0x30, name)[...])
    }

    /// cRLDistributionPoints (2.5.29.31) with one fullName URI.
    public static func crlDistributionPoint(_ uri: String) -> Certificate.Extension {
        let fullName = tlv(0xA0, tlv(0x86, Array(uri.utf8)))
        let point = tlv(0x30, tlv(0xA0, fullName))
        return Certificate.Extension(oid: [2, 5, 29, 31], critical: false, value: tlv(0x30, point)[...])
    }

    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        let count = content.count
        let length: [UInt8] = count < 128 ? [UInt8(count)] : count < 256 ? [0x81, UInt8(count)] : [0x82, UInt8(count >> 8), UInt8(count & 0xff)]
        return [tag] + length + content
    }
}
