import Crypto
import Foundation
import SwiftASN1
import VerificationCore
import WalletEncoding
import X509

/// The parts of a CMS SignedData (RFC 5652) that an Apple Pay signature check needs, read from BER
/// as received.
///
/// Apple writes the SignedData with indefinite lengths, lists the leaf before the intermediate and
/// gives sha256 explicit NULL parameters; all of that is accepted here. Nothing is re-encoded: the
/// signed attributes keep their received bytes, certificates keep their DER, attribute values are
/// the received elements.
struct CMSSignedData: Sendable {
    var version: Int
    var encapsulatedContentType: RawOID
    /// True when the SignedData carries its content (Apple's signatures are detached).
    var hasEncapsulatedContent: Bool
    /// The DER of every certificate in `certificates`, in received order.
    var certificates: [ArraySlice<UInt8>]
    var signers: [CMSSignerInfo]
}

/// An object identifier as its encoded content octets: compared without decoding, decoded only for
/// messages.
struct RawOID: Hashable, Sendable, CustomStringConvertible {
    let content: ArraySlice<UInt8>

    init(content: ArraySlice<UInt8>) {
        self.content = content
    }

    init(_ oid: ASN1ObjectIdentifier) {
        var serializer = DER.Serializer()
        try? serializer.serialize(oid)
        // Tag and a one-byte length precede the content for every OID used here.
        self.content = serializer.serializedBytes.dropFirst(2)
    }

    /// From a whole OBJECT IDENTIFIER element (tag 06).
    init(element: ArraySlice<UInt8>) throws(CMSParseError) {
        let scanner = BERScanner(bytes: Array(element))
        let parsed = try scanner.root()
        guard parsed.tag == 0x06, !parsed.content.isEmpty else { throw CMSParseError(.malformedCMS, "an object identifier was expected") }
        self.content = ArraySlice(scanner.bytes[parsed.content])
    }

    static func == (lhs: RawOID, rhs: RawOID) -> Bool { lhs.content.elementsEqual(rhs.content) }
    func hash(into hasher: inout Hasher) {
        hasher.combine(content.count)
        for byte in content { hasher.combine(byte) }
    }

    var description: String {
        if let name = CMSOID.names[self] { return name }
        var element: [UInt8] = [0x06, UInt8(truncatingIfNeeded: content.count)]
        element += content
        guard content.count < 0x80, let node = try? BER.parse(element), let oid = try? ASN1ObjectIdentifier(berEncoded: node) else {
            return "OID(\(Hex.encode(content)))"
        }
        return String(describing: oid)
    }
}

struct CMSAlgorithmIdentifier: Sendable, Hashable, CustomStringConvertible {
    var algorithm: RawOID
    /// The encoded parameters, when present (`05 00` for an explicit NULL).
    var parameters: ArraySlice<UInt8>?

    var parametersAbsentOrNull: Bool {
        guard let parameters else { return true }
        return parameters.elementsEqual([0x05, 0x00])
    }

    var description: String {
        let name = algorithm.description
        guard parameters != nil else { return name }
        return parametersAbsentOrNull ? name + " (NULL parameters)" : name + " (with parameters)"
    }
}

enum CMSSignerIdentifier: Sendable, Hashable {
    /// The issuer's Name as received (DER) and the serial number's content octets.
    case issuerAndSerialNumber(issuer: ArraySlice<UInt8>, serialNumber: ArraySlice<UInt8>)
    case subjectKeyIdentifier(ArraySlice<UInt8>)
}

struct CMSAttribute: Sendable {
    var type: RawOID
    /// Each value's whole element, as received.
    var values: [ArraySlice<UInt8>]
}

/// A class: the checks share one instance instead of copying its many slices.
final class CMSSignerInfo: Sendable {
    let version: Int
    let signerIdentifier: CMSSignerIdentifier
    let digestAlgorithm: CMSAlgorithmIdentifier
    /// The `[0] IMPLICIT SignedAttributes` element exactly as received, tag included.
    let signedAttributesReceived: ArraySlice<UInt8>?
    let signedAttributes: [CMSAttribute]
    let signatureAlgorithm: CMSAlgorithmIdentifier
    let signature: ArraySlice<UInt8>

    init(
        version: Int, signerIdentifier: CMSSignerIdentifier, digestAlgorithm: CMSAlgorithmIdentifier,
        signedAttributesReceived: ArraySlice<UInt8>?, signedAttributes: [CMSAttribute],
        signatureAlgorithm: CMSAlgorithmIdentifier, signature: ArraySlice<UInt8>
    ) {
        self.version = version
        self.signerIdentifier = signerIdentifier
        self.digestAlgorithm = digestAlgorithm
        self.signedAttributesReceived = signedAttributesReceived
        self.signedAttributes = signedAttributes
        self.signatureAlgorithm = signatureAlgorithm
        self.signature = signature
    }

    /// What the signature covers (RFC 5652 §5.4): the received signed attributes with their
    /// `[0] IMPLICIT` tag replaced by the SET tag 0x31. Every other byte is as received.
    var signedAttributesForSignature: [UInt8]? {
        guard let received = signedAttributesReceived, !received.isEmpty else { return nil }
        var bytes = [UInt8](received)
        bytes[0] = 0x31
        return bytes
    }

    func attributes(_ type: RawOID) -> [CMSAttribute] {
        signedAttributes.filter { $0.type == type }
    }

    /// SHA-256 of ``signedAttributesForSignature``, hashed in place: the SET tag, then the
    /// received bytes after the `[0]` tag.
    var signedAttributesDigest: SHA256.Digest? {
        guard let received = signedAttributesReceived, !received.isEmpty else { return nil }
        var hasher = SHA256()
        hasher.update(data: [0x31])
        hasher.update(data: received.dropFirst())
        return hasher.finalize()
    }
}

/// The SignedData could not be read.
struct CMSParseError: Error, CheckFailureDescribing {
    var reasonCode: ReasonCode
    var checkMessage: String

    init(_ reason: ReasonCode = .malformedCMS, _ message: String) {
        self.reasonCode = reason
        self.checkMessage = message
    }
}

enum CMSOID {
    static let signedData = RawOID([1, 2, 840, 113549, 1, 7, 2])
    static let data = RawOID([1, 2, 840, 113549, 1, 7, 1])
    static let contentType = RawOID([1, 2, 840, 113549, 1, 9, 3])
    static let messageDigest = RawOID([1, 2, 840, 113549, 1, 9, 4])
    static let signingTime = RawOID([1, 2, 840, 113549, 1, 9, 5])
    static let algorithmProtection = RawOID([1, 2, 840, 113549, 1, 9, 52])
    static let sha256 = RawOID([2, 16, 840, 1, 101, 3, 4, 2, 1])
    static let ecdsaWithSHA256 = RawOID([1, 2, 840, 10045, 4, 3, 2])
    static let sha256WithRSAEncryption = RawOID([1, 2, 840, 113549, 1, 1, 11])
    static let rsaEncryption = RawOID([1, 2, 840, 113549, 1, 1, 1])

    static let names: [RawOID: String] = [
        sha256: "sha256", ecdsaWithSHA256: "ecdsa-with-SHA256", sha256WithRSAEncryption: "sha256WithRSAEncryption",
        rsaEncryption: "rsaEncryption", data: "id-data", signedData: "id-signedData",
        RawOID([1, 3, 14, 3, 2, 26]): "sha1", RawOID([2, 16, 840, 1, 101, 3, 4, 2, 2]): "sha384",
        RawOID([2, 16, 840, 1, 101, 3, 4, 2, 3]): "sha512", RawOID([1, 2, 840, 10045, 4, 3, 3]): "ecdsa-with-SHA384",
        RawOID([1, 2, 840, 113549, 1, 1, 5]): "sha1WithRSAEncryption",
    ]
}

extension CMSSignedData {
    /// Parses a ContentInfo holding a SignedData, in BER (DER is BER too).
    ///
    /// The structure is walked with ``BERScanner``: certificates are sliced, not parsed (the caller
    /// parses each distinct certificate once), and values are kept as received elements for the
    /// checks to decode with swift-asn1.
    init(berEncoded bytes: [UInt8]) throws(CMSParseError) {
        let scanner = BERScanner(bytes: bytes)
        let contentInfo = try scanner.root()
        guard contentInfo.tag == 0x30 else { throw CMSParseError(.malformedCMS, "the signature is not a ContentInfo SEQUENCE") }
        let contentInfoFields = try scanner.children(of: contentInfo)
        guard let typeField = contentInfoFields.first, typeField.tag == 0x06 else {
            throw CMSParseError(.malformedCMS, "the ContentInfo does not start with a content type")
        }
        let contentType = RawOID(content: scanner.bytes[typeField.content])
        guard contentType == CMSOID.signedData else {
            throw CMSParseError(.notSignedData, "the signature's ContentInfo has content type \(contentType), not id-signedData")
        }
        guard contentInfoFields.count == 2, contentInfoFields[1].tag == 0xA0 else {
            throw CMSParseError(.malformedCMS, "the ContentInfo must hold a content type and a [0] content")
        }
        let explicit = try scanner.children(of: contentInfoFields[1], depth: 2)
        guard explicit.count == 1, explicit[0].tag == 0x30 else {
            throw CMSParseError(.malformedCMS, "the ContentInfo's [0] content must hold exactly one SignedData")
        }
        var fields = try scanner.children(of: explicit[0], depth: 3)[...]

        guard let versionField = fields.popFirst(), versionField.tag == 0x02 else { throw CMSParseError(.malformedCMS, "SignedData has no version") }
        let version = Self.smallInteger(scanner.bytes[versionField.content])
        guard let digestField = fields.popFirst(), digestField.tag == 0x31 else {
            throw CMSParseError(.malformedCMS, "SignedData.digestAlgorithms is not a SET")
        }
        guard let encapField = fields.popFirst(), encapField.tag == 0x30 else {
            throw CMSParseError(.malformedCMS, "SignedData has no encapContentInfo")
        }
        let encapChildren = try scanner.children(of: encapField, depth: 4)
        guard (1...2).contains(encapChildren.count), encapChildren[0].tag == 0x06 else {
            throw CMSParseError(.malformedCMS, "encapContentInfo must hold a content type and at most an [0] content")
        }
        if encapChildren.count == 2, encapChildren[1].tag != 0xA0 {
            throw CMSParseError(.malformedCMS, "encapContentInfo.eContent is not tagged [0]")
        }
        let eContentType = RawOID(content: scanner.bytes[encapChildren[0].content])

        var certificates: [ArraySlice<UInt8>] = []
        if let certificateField = fields.first, certificateField.tag == 0xA0 {
            fields = fields.dropFirst()
            for certificate in try scanner.children(of: certificateField, depth: 4) where certificate.tag == 0x30 {
                // Other CertificateChoices (attribute certificates, ...) are ignored.
                certificates.append(scanner.slice(certificate))
            }
        }
        if let crlField = fields.first, crlField.tag == 0xA1 {
            fields = fields.dropFirst()
        }
        guard let signerField = fields.popFirst(), signerField.tag == 0x31 else {
            throw CMSParseError(.malformedCMS, "SignedData.signerInfos is missing or not a SET")
        }
        guard fields.isEmpty else { throw CMSParseError(.malformedCMS, "SignedData has trailing elements") }
        var signers: [CMSSignerInfo] = []
        for signer in try scanner.children(of: signerField, depth: 4) {
            signers.append(try Self.signerInfo(signer, scanner: scanner))
        }
        self.init(
            version: version,
            encapsulatedContentType: eContentType,
            hasEncapsulatedContent: encapChildren.count == 2,
            certificates: certificates,
            signers: signers
        )
    }

    /// A non-negative INTEGER that fits in an Int, else -1 (only reported, never trusted).
    static func smallInteger(_ content: ArraySlice<UInt8>) -> Int {
        guard !content.isEmpty, content.count <= 4, let first = content.first, first & 0x80 == 0 else { return -1 }
        return content.reduce(0) { $0 << 8 | Int($1) }
    }

    static func algorithmIdentifier(_ element: BERScanner.Element, scanner: BERScanner, depth: Int) throws(CMSParseError) -> CMSAlgorithmIdentifier {
        guard element.tag == 0x30 else { throw CMSParseError(.malformedCMS, "an AlgorithmIdentifier is not a SEQUENCE") }
        let children = try scanner.children(of: element, depth: depth)
        guard (1...2).contains(children.count), children[0].tag == 0x06, !children[0].content.isEmpty else {
            throw CMSParseError(.malformedCMS, "an AlgorithmIdentifier must hold an algorithm and at most parameters")
        }
        return CMSAlgorithmIdentifier(
            algorithm: RawOID(content: scanner.bytes[children[0].content]),
            parameters: children.count == 2 ? scanner.slice(children[1]) : nil
        )
    }

    private static func signerInfo(_ element: BERScanner.Element, scanner: BERScanner) throws(CMSParseError) -> CMSSignerInfo {
        guard element.tag == 0x30 else { throw CMSParseError(.malformedCMS, "a SignerInfo is not a SEQUENCE") }
        var fields = try scanner.children(of: element, depth: 5)[...]
        guard let versionField = fields.popFirst(), versionField.tag == 0x02 else { throw CMSParseError(.malformedCMS, "SignerInfo has no version") }
        let version = smallInteger(scanner.bytes[versionField.content])

        guard let sidField = fields.popFirst() else { throw CMSParseError(.malformedCMS, "SignerInfo has no signer identifier") }
        let sid: CMSSignerIdentifier
        switch sidField.tag {
        case 0x30:
            let parts = try scanner.children(of: sidField, depth: 6)
            guard parts.count == 2, parts[0].tag == 0x30, parts[1].tag == 0x02, !parts[1].content.isEmpty else {
                throw CMSParseError(.malformedCMS, "IssuerAndSerialNumber must hold an issuer Name and a serial number")
            }
            sid = .issuerAndSerialNumber(issuer: scanner.slice(parts[0]), serialNumber: scanner.bytes[parts[1].content])
        case 0x80:
            sid = .subjectKeyIdentifier(scanner.bytes[sidField.content])
        default:
            throw CMSParseError(.malformedCMS, "SignerInfo.sid is neither IssuerAndSerialNumber nor [0] SubjectKeyIdentifier")
        }

        guard let digestField = fields.popFirst() else { throw CMSParseError(.malformedCMS, "SignerInfo has no digestAlgorithm") }
        let digestAlgorithm = try algorithmIdentifier(digestField, scanner: scanner, depth: 6)

        var signedAttributesReceived: ArraySlice<UInt8>?
        var signedAttributes: [CMSAttribute] = []
        if let attributesField = fields.first, attributesField.tag == 0xA0 {
            fields = fields.dropFirst()
            signedAttributesReceived = scanner.slice(attributesField)
            for attribute in try scanner.children(of: attributesField, depth: 6) {
                guard attribute.tag == 0x30 else { throw CMSParseError(.malformedCMS, "a signed attribute is not a SEQUENCE") }
                let parts = try scanner.children(of: attribute, depth: 7)
                guard parts.count == 2, parts[0].tag == 0x06, !parts[0].content.isEmpty, parts[1].tag == 0x31 else {
                    throw CMSParseError(.malformedCMS, "a signed attribute must hold a type and a SET of values")
                }
                let values = try scanner.children(of: parts[1], depth: 8).map { scanner.slice($0) }
                signedAttributes.append(CMSAttribute(type: RawOID(content: scanner.bytes[parts[0].content]), values: values))
            }
        }

        guard let signatureAlgorithmField = fields.popFirst() else { throw CMSParseError(.malformedCMS, "SignerInfo has no signatureAlgorithm") }
        let signatureAlgorithm = try algorithmIdentifier(signatureAlgorithmField, scanner: scanner, depth: 6)

        guard let signatureField = fields.popFirst() else { throw CMSParseError(.malformedCMS, "SignerInfo has no signature") }
        let signature: ArraySlice<UInt8>
        switch signatureField.tag {
        case 0x04:
            signature = scanner.bytes[signatureField.content]
        case 0x24:
            // A constructed (BER) OCTET STRING: let swift-asn1 join the pieces.
            guard let node = try? BER.parse(scanner.slice(signatureField)), let octets = try? ASN1OctetString(berEncoded: node) else {
                throw CMSParseError(.malformedCMS, "SignerInfo.signature is not a valid OCTET STRING")
            }
            signature = octets.bytes
        default:
            throw CMSParseError(.malformedCMS, "SignerInfo.signature is not an OCTET STRING")
        }
        if let unsigned = fields.popFirst(), unsigned.tag != 0xA1 {
            throw CMSParseError(.malformedCMS, "SignerInfo has an unexpected element after the signature")
        }
        guard fields.isEmpty else { throw CMSParseError(.malformedCMS, "SignerInfo has trailing elements") }
        return CMSSignerInfo(
            version: version,
            signerIdentifier: sid,
            digestAlgorithm: digestAlgorithm,
            signedAttributesReceived: signedAttributesReceived,
            signedAttributes: signedAttributes,
            signatureAlgorithm: signatureAlgorithm,
            signature: signature
        )
    }
}

extension BERScanner {
    /// The content octets of a primitive OCTET STRING element, or the joined pieces of a
    /// constructed one.
    static func octetString(_ element: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let scanner = BERScanner(bytes: Array(element))
        guard let root = try? scanner.root() else { return nil }
        if root.tag == 0x04 { return scanner.bytes[root.content] }
        guard root.tag == 0x24, let node = try? BER.parse(scanner.bytes), let octets = try? ASN1OctetString(berEncoded: node) else { return nil }
        return octets.bytes
    }
}
