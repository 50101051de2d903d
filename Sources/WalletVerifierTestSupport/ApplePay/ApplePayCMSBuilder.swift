import Crypto
import CryptoExtras
import Foundation
import SwiftASN1
import X509

/// Encodes a detached CMS SignedData the way Apple does (BER with indefinite lengths, leaf before
/// intermediate, sha256 with NULL parameters, contentType/signingTime/messageDigest signed) or in
/// DER, with a knob for every way a signature can be wrong.
public struct ApplePayCMSBuilder {
    /// The leaf's private key, which also decides the signature algorithm.
    public enum SignerKey {
        /// An EC P-256 key: ECDSA with SHA-256.
        case p256(P256.Signing.PrivateKey)
        /// An RSA key: PKCS#1 v1.5 with SHA-256.
        case rsa(_RSA.Signing.PrivateKey)
    }

    /// The signer certificate; its issuer and serial number name the signer.
    public var leaf: Certificate
    /// The intermediate certificate to include.
    public var intermediate: Certificate
    /// The key that signs.
    public var signerKey: SignerKey
    /// The time in the signingTime attribute.
    public var signingTime: Date

    /// Indefinite lengths on the outer structures, like Apple. False: plain DER.
    public var indefiniteLengths = true
    /// List the leaf before the intermediate, as Apple does; false reverses them.
    public var leafFirst = true
    /// Include the intermediate in `certificates`.
    public var includeIntermediate = true
    /// Include the leaf in `certificates`.
    public var includeLeaf = true
    /// Further DER certificates after the leaf and the intermediate.
    public var extraCertificates: [[UInt8]] = []
    /// Give the digest AlgorithmIdentifier NULL parameters, as Apple does; false leaves them absent.
    public var digestAlgorithmNullParameters = true
    /// The digest algorithm OID named in SignedData and SignerInfo; sha256 by default (the message digest is always SHA-256).
    public var digestAlgorithm: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    /// Default: ecdsa-with-SHA256 for a P-256 key, sha256WithRSAEncryption for RSA.
    public var signatureAlgorithm: ASN1ObjectIdentifier?
    /// Include the contentType signed attribute.
    public var includeContentType = true
    /// The value of the contentType signed attribute; id-data by default.
    public var contentType: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]
    /// The eContentType of the encapsulated content; id-data by default.
    public var encapsulatedContentType: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]
    /// Include the signingTime signed attribute.
    public var includeSigningTime = true
    /// Add a second signingTime attribute, a second later.
    public var duplicateSigningTime = false
    /// Include the messageDigest signed attribute.
    public var includeMessageDigest = true
    /// Replaces SHA-256 of the content in the message-digest attribute.
    public var messageDigestOverride: [UInt8]?
    /// Include the CMSAlgorithmProtection signed attribute (RFC 6211).
    public var includeAlgorithmProtection = false
    /// Name this digest algorithm in CMSAlgorithmProtection instead of the one used.
    public var algorithmProtectionDigest: ASN1ObjectIdentifier?
    /// Put the content inside the SignedData (not detached).
    public var attachContent = false
    /// Sign without signed attributes (signature over the content itself).
    public var omitSignedAttributes = false
    /// Flip a bit of the signature value after signing.
    public var corruptSignature = false
    /// Name a serial number no included certificate has.
    public var wrongSignerSerial = false
    /// Two SignerInfos.
    public var duplicateSigner = false
    /// Encode signingTime as GeneralizedTime instead of UTCTime.
    public var generalizedSigningTime = false

    /// A builder for a valid Apple-style signature by `leaf`, with every knob at its default.
    public init(leaf: Certificate, intermediate: Certificate, signerKey: SignerKey, signingTime: Date) {
        self.leaf = leaf
        self.intermediate = intermediate
        self.signerKey = signerKey
        self.signingTime = signingTime
    }

    static let signedDataOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    static let contentTypeOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 3]
    static let messageDigestOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 4]
    static let signingTimeOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 5]
    static let algorithmProtectionOID: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 52]
    static let ecdsaWithSHA256: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 2]
    static let sha256WithRSA: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 11]

    /// The SignedData (in a ContentInfo) over `content`.
    public func build(content: [UInt8]) throws -> [UInt8] {
        let signatureOID =
            signatureAlgorithm
            ?? {
                switch signerKey {
                case .p256: return Self.ecdsaWithSHA256
                case .rsa: return Self.sha256WithRSA
                }
            }()
        let digestAlgorithmDER = try Self.algorithmIdentifier(digestAlgorithm, nullParameters: digestAlgorithmNullParameters)
        let signatureAlgorithmDER = try Self.algorithmIdentifier(signatureOID, nullParameters: signatureOID == Self.sha256WithRSA)

        // Signed attributes, DER (sorted, as SET OF requires).
        var attributes: [[UInt8]] = []
        if includeContentType {
            attributes.append(try Self.attribute(Self.contentTypeOID, values: [try Self.der(contentType)]))
        }
        if includeSigningTime {
            let time = try generalizedSigningTime ? Self.generalizedTime(signingTime) : Self.utcTime(signingTime)
            attributes.append(try Self.attribute(Self.signingTimeOID, values: [time]))
            if duplicateSigningTime {
                attributes.append(try Self.attribute(Self.signingTimeOID, values: [try Self.utcTime(signingTime.addingTimeInterval(1))]))
            }
        }
        if includeMessageDigest {
            let digest = messageDigestOverride ?? Array(SHA256.hash(data: content))
            attributes.append(try Self.attribute(Self.messageDigestOID, values: [Self.tlv(0x04, digest)]))
        }
        if includeAlgorithmProtection {
            let protectedDigest =
                try algorithmProtectionDigest.map { try Self.algorithmIdentifier($0, nullParameters: digestAlgorithmNullParameters) }
                ?? digestAlgorithmDER
            let protection = Self.tlv(0x30, protectedDigest + Self.tlv(0xA1, Array(signatureAlgorithmDER.dropFirst(2))))
            attributes.append(try Self.attribute(Self.algorithmProtectionOID, values: [protection]))
        }
        attributes.sort { $0.lexicographicallyPrecedes($1) }
        let attributeContent = attributes.flatMap { $0 }
        let signedAttributesForSigning = Self.tlv(0x31, attributeContent)
        let signedAttributesField = Self.tlv(0xA0, attributeContent)

        let toSign = omitSignedAttributes ? content : signedAttributesForSigning
        var signature: [UInt8]
        switch signerKey {
        case .p256(let key):
            signature = Array(try key.signature(for: toSign).derRepresentation)
        case .rsa(let key):
            signature = Array(try key.signature(for: toSign, padding: .insecurePKCS1v1_5).rawRepresentation)
        }
        if corruptSignature, !signature.isEmpty {
            signature[signature.count / 2] ^= 0x01
        }

        // INTEGER content octets: two's complement, so a leading 00 when the high bit is set.
        var serial = Array(leaf.serialNumber.bytes)
        if let first = serial.first, first & 0x80 != 0 { serial.insert(0, at: 0) }
        if wrongSignerSerial { serial = [0x01, 0x02, 0x03] }
        let sid = Self.tlv(0x30, try Self.der(leaf.issuer) + Self.tlv(0x02, serial))
        let signerInfo = Self.tlv(
            0x30,
            try Self.der(1) + sid + digestAlgorithmDER
                + (omitSignedAttributes ? [] : signedAttributesField)
                + signatureAlgorithmDER + Self.tlv(0x04, signature))
        let signerInfos = Self.tlv(0x31, duplicateSigner ? signerInfo + signerInfo : signerInfo)

        var certificates: [[UInt8]] = []
        if includeLeaf { certificates.append(try ApplePayFixturePKI.der(leaf)) }
        if includeIntermediate { certificates.append(try ApplePayFixturePKI.der(intermediate)) }
        if !leafFirst { certificates.reverse() }
        certificates += extraCertificates

        let eContent = attachContent ? constructed(0xA0, Self.tlv(0x04, content)) : []
        let encapsulated = constructed(0x30, try Self.der(encapsulatedContentType) + eContent)
        let signedData = constructed(
            0x30,
            try Self.der(1)
                + Self.tlv(0x31, digestAlgorithmDER)
                + encapsulated
                + constructed(0xA0, certificates.flatMap { $0 })
                + signerInfos)
        return constructed(0x30, try Self.der(Self.signedDataOID) + constructed(0xA0, signedData))
    }

    /// A constructed element, indefinite-length when ``indefiniteLengths`` is set.
    private func constructed(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        indefiniteLengths ? [tag, 0x80] + content + [0x00, 0x00] : Self.tlv(tag, content)
    }

    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [tag]
        let length = content.count
        if length < 0x80 {
            out.append(UInt8(length))
        } else {
            var bytes: [UInt8] = []
            var remaining = length
            while remaining > 0 {
                bytes.insert(UInt8(remaining & 0xFF), at: 0)
                remaining >>= 8
            }
            out.append(0x80 | UInt8(bytes.count))
            out += bytes
        }
        return out + content
    }

    static func der<T: DERSerializable>(_ value: T) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(value)
        return serializer.serializedBytes
    }

    static func algorithmIdentifier(_ oid: ASN1ObjectIdentifier, nullParameters: Bool) throws -> [UInt8] {
        tlv(0x30, try der(oid) + (nullParameters ? [0x05, 0x00] : []))
    }

    static func attribute(_ oid: ASN1ObjectIdentifier, values: [[UInt8]]) throws -> [UInt8] {
        tlv(0x30, try der(oid) + tlv(0x31, values.flatMap { $0 }))
    }

    static func components(_ date: Date) -> DateComponents {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
    }

    static func utcTime(_ date: Date) throws -> [UInt8] {
        let c = components(date)
        return try der(try UTCTime(year: c.year!, month: c.month!, day: c.day!, hours: c.hour!, minutes: c.minute!, seconds: c.second!))
    }

    static func generalizedTime(_ date: Date) throws -> [UInt8] {
        let c = components(date)
        return try der(
            try GeneralizedTime(
                year: c.year!, month: c.month!, day: c.day!, hours: c.hour!, minutes: c.minute!, seconds: c.second!, fractionalSeconds: 0))
    }
}
