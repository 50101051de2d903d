import Foundation
import SwiftASN1
import VerificationCore
import X509

/// The parts of a CMS SignedData (RFC 5652) that an Apple Pay signature check needs, read from BER
/// as received.
///
/// Apple writes the SignedData with indefinite lengths, lists the leaf before the intermediate and
/// gives sha256 explicit NULL parameters; all of that is accepted here. Nothing is re-encoded: the
/// signed attributes keep their received bytes, certificates keep their DER.
struct CMSSignedData: Sendable {
    var version: Int
    var digestAlgorithms: [CMSAlgorithmIdentifier]
    var encapsulatedContentType: ASN1ObjectIdentifier
    /// True when the SignedData carries its content (Apple's signatures are detached).
    var hasEncapsulatedContent: Bool
    /// The DER of every certificate in `certificates`, in received order.
    var certificates: [ArraySlice<UInt8>]
    var signers: [CMSSignerInfo]
}

struct CMSAlgorithmIdentifier: Sendable, Hashable, CustomStringConvertible {
    var algorithm: ASN1ObjectIdentifier
    /// The encoded parameters, when present (`05 00` for an explicit NULL).
    var parameters: ArraySlice<UInt8>?

    var parametersAbsentOrNull: Bool {
        guard let parameters else { return true }
        return parameters.elementsEqual([0x05, 0x00])
    }

    var description: String {
        let name = CMSOID.names[algorithm] ?? String(describing: algorithm)
        guard let parameters else { return name }
        return parametersAbsentOrNull ? name + " (NULL parameters)" : name + " (with parameters)"
    }
}

enum CMSSignerIdentifier: Sendable, Hashable {
    /// The issuer's Name as received (DER) and the serial number's content octets.
    case issuerAndSerialNumber(issuer: ArraySlice<UInt8>, serialNumber: ArraySlice<UInt8>)
    case subjectKeyIdentifier(ArraySlice<UInt8>)
}

struct CMSAttribute: Sendable {
    var type: ASN1ObjectIdentifier
    var values: [ASN1Node]
}

struct CMSSignerInfo: Sendable {
    var version: Int
    var signerIdentifier: CMSSignerIdentifier
    var digestAlgorithm: CMSAlgorithmIdentifier
    /// The `[0] IMPLICIT SignedAttributes` element exactly as received, tag included.
    var signedAttributesReceived: ArraySlice<UInt8>?
    var signedAttributes: [CMSAttribute]
    var signatureAlgorithm: CMSAlgorithmIdentifier
    var signature: ArraySlice<UInt8>

    /// What the signature covers (RFC 5652 §5.4): the received signed attributes with their
    /// `[0] IMPLICIT` tag replaced by the SET tag 0x31. Every other byte is as received.
    var signedAttributesForSignature: [UInt8]? {
        guard let received = signedAttributesReceived, !received.isEmpty else { return nil }
        var bytes = [UInt8](received)
        bytes[0] = 0x31
        return bytes
    }

    func attributes(_ type: ASN1ObjectIdentifier) -> [CMSAttribute] {
        signedAttributes.filter { $0.type == type }
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
    static let signedData: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
    static let data: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 1]
    static let contentType: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 3]
    static let messageDigest: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 4]
    static let signingTime: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 5]
    static let algorithmProtection: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 52]
    static let sha256: ASN1ObjectIdentifier = [2, 16, 840, 1, 101, 3, 4, 2, 1]
    static let ecdsaWithSHA256: ASN1ObjectIdentifier = [1, 2, 840, 10045, 4, 3, 2]
    static let sha256WithRSAEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 11]
    static let rsaEncryption: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 1]

    static let names: [ASN1ObjectIdentifier: String] = [
        sha256: "sha256", ecdsaWithSHA256: "ecdsa-with-SHA256", sha256WithRSAEncryption: "sha256WithRSAEncryption",
        rsaEncryption: "rsaEncryption", data: "id-data", signedData: "id-signedData",
        [1, 3, 14, 3, 2, 26]: "sha1", [2, 16, 840, 1, 101, 3, 4, 2, 2]: "sha384", [2, 16, 840, 1, 101, 3, 4, 2, 3]: "sha512",
        [1, 2, 840, 10045, 4, 3, 3]: "ecdsa-with-SHA384", [1, 2, 840, 113549, 1, 1, 5]: "sha1WithRSAEncryption",
    ]
}

extension CMSSignedData {
    /// Parses a ContentInfo holding a SignedData, in BER (DER is BER too).
    init(berEncoded bytes: [UInt8]) throws(CMSParseError) {
        do {
            self = try Self.parse(bytes)
        } catch let error as CMSParseError {
            throw error
        } catch {
            throw CMSParseError(.malformedCMS, "the signature is not a readable CMS SignedData: \(Self.describe(error))")
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let asn1 = error as? ASN1Error { return String(describing: asn1.code) }
        return String(describing: type(of: error))
    }

    /// The outer layers are walked with ``BERScanner`` (certificates are sliced, not parsed: they
    /// are parsed once and cached by the caller); the signer infos, algorithm identifiers and
    /// content types are read with swift-asn1's `BER.parse`.
    private static func parse(_ bytes: [UInt8]) throws -> CMSSignedData {
        let scanner = BERScanner(bytes: bytes)
        let contentInfo = try scanner.root()
        guard contentInfo.tag == 0x30 else { throw CMSParseError(.malformedCMS, "the signature is not a ContentInfo SEQUENCE") }
        let contentInfoFields = try scanner.children(of: contentInfo)
        guard let typeField = contentInfoFields.first, typeField.tag == 0x06 else {
            throw CMSParseError(.malformedCMS, "the ContentInfo does not start with a content type")
        }
        let contentType = try ASN1ObjectIdentifier(berEncoded: try BER.parse(scanner.slice(typeField)))
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
        let version = try Int(berEncoded: try BER.parse(scanner.slice(versionField)))
        guard let digestField = fields.popFirst(), digestField.tag == 0x31 else {
            throw CMSParseError(.malformedCMS, "SignedData.digestAlgorithms is not a SET")
        }
        let digestSet = try BER.parse(scanner.slice(digestField))
        guard case .constructed(let digestNodes) = digestSet.content else { throw CMSParseError(.malformedCMS, "SignedData.digestAlgorithms is not a SET") }
        let digestAlgorithms = try digestNodes.map(parseAlgorithmIdentifier)

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
        let eContentType = try ASN1ObjectIdentifier(berEncoded: try BER.parse(scanner.slice(encapChildren[0])))

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
        let signerSet = try BER.parse(scanner.slice(signerField))
        guard case .constructed(let signerNodes) = signerSet.content else { throw CMSParseError(.malformedCMS, "SignedData.signerInfos is not a SET") }
        let signers = try signerNodes.map(parseSignerInfo)
        return CMSSignedData(
            version: version,
            digestAlgorithms: digestAlgorithms,
            encapsulatedContentType: eContentType,
            hasEncapsulatedContent: encapChildren.count == 2,
            certificates: certificates,
            signers: signers
        )
    }

    static func parseAlgorithmIdentifier(_ node: ASN1Node) throws -> CMSAlgorithmIdentifier {
        try BER.sequence(node, identifier: .sequence) { nodes in
            let oid = try ASN1ObjectIdentifier(berEncoded: &nodes)
            let parameters = nodes.next()?.encodedBytes
            guard nodes.next() == nil else { throw CMSParseError(.malformedCMS, "an AlgorithmIdentifier has trailing elements") }
            return CMSAlgorithmIdentifier(algorithm: oid, parameters: parameters)
        }
    }

    private static func parseSignerInfo(_ node: ASN1Node) throws -> CMSSignerInfo {
        try BER.sequence(node, identifier: .sequence) { nodes in
            let version = try Int(berEncoded: &nodes)
            guard let sidNode = nodes.next() else { throw CMSParseError(.malformedCMS, "SignerInfo has no signer identifier") }
            let sid: CMSSignerIdentifier
            if sidNode.identifier == .sequence {
                sid = try BER.sequence(sidNode, identifier: .sequence) { sidNodes in
                    guard let issuerNode = sidNodes.next(), issuerNode.identifier == .sequence else {
                        throw CMSParseError(.malformedCMS, "IssuerAndSerialNumber has no issuer")
                    }
                    guard let serialNode = sidNodes.next(), serialNode.identifier == .integer, case .primitive(let serial) = serialNode.content, !serial.isEmpty else {
                        throw CMSParseError(.malformedCMS, "IssuerAndSerialNumber has no serial number")
                    }
                    return .issuerAndSerialNumber(issuer: issuerNode.encodedBytes, serialNumber: serial)
                }
            } else if sidNode.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
                let ski = try ASN1OctetString(berEncoded: sidNode, withIdentifier: sidNode.identifier)
                sid = .subjectKeyIdentifier(ski.bytes)
            } else {
                throw CMSParseError(.malformedCMS, "SignerInfo.sid is neither IssuerAndSerialNumber nor [0] SubjectKeyIdentifier")
            }
            guard let digestNode = nodes.next() else { throw CMSParseError(.malformedCMS, "SignerInfo has no digestAlgorithm") }
            let digestAlgorithm = try parseAlgorithmIdentifier(digestNode)

            var next = nodes.next()
            var signedAttributesReceived: ArraySlice<UInt8>?
            var signedAttributes: [CMSAttribute] = []
            if let attrs = next, attrs.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
                guard case .constructed(let attributeNodes) = attrs.content else {
                    throw CMSParseError(.malformedCMS, "SignerInfo.signedAttrs is not constructed")
                }
                signedAttributesReceived = attrs.encodedBytes
                signedAttributes = try attributeNodes.map(parseAttribute)
                next = nodes.next()
            }
            guard let signatureAlgorithmNode = next else { throw CMSParseError(.malformedCMS, "SignerInfo has no signatureAlgorithm") }
            let signatureAlgorithm = try parseAlgorithmIdentifier(signatureAlgorithmNode)
            guard let signatureNode = nodes.next() else { throw CMSParseError(.malformedCMS, "SignerInfo has no signature") }
            let signature = try ASN1OctetString(berEncoded: signatureNode)
            if let unsigned = nodes.next(), unsigned.identifier != ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific) {
                throw CMSParseError(.malformedCMS, "SignerInfo has an unexpected element after the signature")
            }
            guard nodes.next() == nil else { throw CMSParseError(.malformedCMS, "SignerInfo has trailing elements") }
            return CMSSignerInfo(
                version: version,
                signerIdentifier: sid,
                digestAlgorithm: digestAlgorithm,
                signedAttributesReceived: signedAttributesReceived,
                signedAttributes: signedAttributes,
                signatureAlgorithm: signatureAlgorithm,
                signature: signature.bytes
            )
        }
    }

    private static func parseAttribute(_ node: ASN1Node) throws -> CMSAttribute {
        try BER.sequence(node, identifier: .sequence) { nodes in
            let type = try ASN1ObjectIdentifier(berEncoded: &nodes)
            guard let valuesNode = nodes.next(), valuesNode.identifier == .set, case .constructed(let values) = valuesNode.content else {
                throw CMSParseError(.malformedCMS, "attribute \(type) has no SET of values")
            }
            guard nodes.next() == nil else { throw CMSParseError(.malformedCMS, "attribute \(type) has trailing elements") }
            return CMSAttribute(type: type, values: Array(values))
        }
    }
}
