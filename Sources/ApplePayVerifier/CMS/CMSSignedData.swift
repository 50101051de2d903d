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
    case issuerAndSerialNumber(issuer: DistinguishedName, serialNumber: Certificate.SerialNumber)
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

    private static func parse(_ bytes: [UInt8]) throws -> CMSSignedData {
        let root = try BER.parse(bytes)
        return try BER.sequence(root, identifier: .sequence) { nodes in
            let contentType = try ASN1ObjectIdentifier(berEncoded: &nodes)
            guard contentType == CMSOID.signedData else {
                throw CMSParseError(.notSignedData, "the signature's ContentInfo has content type \(contentType), not id-signedData")
            }
            guard let explicit = nodes.next(), explicit.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific),
                  case .constructed(let inner) = explicit.content
            else {
                throw CMSParseError(.malformedCMS, "the ContentInfo has no [0] content")
            }
            var innerNodes = inner.makeIterator()
            guard let signedDataNode = innerNodes.next(), innerNodes.next() == nil else {
                throw CMSParseError(.malformedCMS, "the ContentInfo's [0] content must hold exactly one SignedData")
            }
            guard nodes.next() == nil else {
                throw CMSParseError(.malformedCMS, "the ContentInfo has trailing elements")
            }
            return try parseSignedData(signedDataNode)
        }
    }

    private static func parseSignedData(_ node: ASN1Node) throws -> CMSSignedData {
        try BER.sequence(node, identifier: .sequence) { nodes in
            let version = try Int(berEncoded: &nodes)
            guard let digestSet = nodes.next(), digestSet.identifier == .set, case .constructed(let digestNodes) = digestSet.content else {
                throw CMSParseError(.malformedCMS, "SignedData.digestAlgorithms is not a SET")
            }
            let digestAlgorithms = try digestNodes.map(parseAlgorithmIdentifier)

            guard let encapNode = nodes.next() else { throw CMSParseError(.malformedCMS, "SignedData has no encapContentInfo") }
            let (eContentType, hasContent) = try BER.sequence(encapNode, identifier: .sequence) { encap in
                let type = try ASN1ObjectIdentifier(berEncoded: &encap)
                let content = encap.next()
                guard encap.next() == nil else { throw CMSParseError(.malformedCMS, "encapContentInfo has trailing elements") }
                if let content, content.identifier != ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
                    throw CMSParseError(.malformedCMS, "encapContentInfo.eContent is not tagged [0]")
                }
                return (type, content != nil)
            }

            var certificates: [ArraySlice<UInt8>] = []
            var next = nodes.next()
            if let certNode = next, certNode.identifier == ASN1Identifier(tagWithNumber: 0, tagClass: .contextSpecific) {
                guard case .constructed(let certNodes) = certNode.content else {
                    throw CMSParseError(.malformedCMS, "SignedData.certificates is not constructed")
                }
                for cert in certNodes where cert.identifier == .sequence {
                    // Other CertificateChoices (attribute certificates, ...) are ignored.
                    certificates.append(cert.encodedBytes)
                }
                next = nodes.next()
            }
            if let crlNode = next, crlNode.identifier == ASN1Identifier(tagWithNumber: 1, tagClass: .contextSpecific) {
                next = nodes.next()
            }
            guard let signerSet = next, signerSet.identifier == .set, case .constructed(let signerNodes) = signerSet.content else {
                throw CMSParseError(.malformedCMS, "SignedData.signerInfos is missing or not a SET")
            }
            let signers = try signerNodes.map(parseSignerInfo)
            guard nodes.next() == nil else { throw CMSParseError(.malformedCMS, "SignedData has trailing elements") }
            return CMSSignedData(
                version: version,
                digestAlgorithms: digestAlgorithms,
                encapsulatedContentType: eContentType,
                hasEncapsulatedContent: hasContent,
                certificates: certificates,
                signers: signers
            )
        }
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
                    guard let issuerNode = sidNodes.next() else { throw CMSParseError(.malformedCMS, "IssuerAndSerialNumber has no issuer") }
                    let issuer = try DistinguishedName(derEncoded: issuerNode)
                    guard let serialNode = sidNodes.next(), serialNode.identifier == .integer, case .primitive(let serial) = serialNode.content, !serial.isEmpty else {
                        throw CMSParseError(.malformedCMS, "IssuerAndSerialNumber has no serial number")
                    }
                    return .issuerAndSerialNumber(issuer: issuer, serialNumber: Certificate.SerialNumber(bytes: serial))
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
