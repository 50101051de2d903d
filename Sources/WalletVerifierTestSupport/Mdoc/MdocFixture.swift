import Crypto
import Foundation
import Mdoc
import WalletCBOR
import WalletCOSE

/// Builds DeviceResponses signed by an ``MdocPKI`` and a device key, for every negative path.
public struct MdocFixture: Sendable {
    /// One data element to disclose: its namespace, identifier and value.
    public struct Element: Sendable {
        /// The namespace the element belongs to.
        public var nameSpace: String
        /// The data element identifier, such as `family_name`.
        public var identifier: String
        /// The element value as it goes into `elementValue`.
        public var value: CBORNode
        /// Creates an element in the given namespace.
        public init(_ nameSpace: String, _ identifier: String, _ value: CBORNode) {
            self.nameSpace = nameSpace
            self.identifier = identifier
            self.value = value
        }
    }

    /// The mDL document type.
    public static let mDL = "org.iso.18013.5.1.mDL"
    /// The mDL namespace of ISO/IEC 18013-5.
    public static let isoNameSpace = "org.iso.18013.5.1"

    /// The mDL elements the fixture discloses unless told otherwise: names, birth date, age, portrait and document number.
    public static var defaultElements: [Element] {
        [
            Element(isoNameSpace, "family_name", .text("Mustermann")),
            Element(isoNameSpace, "given_name", .text("Erika")),
            Element(isoNameSpace, "birth_date", .tagged(1004, .text("1984-01-26"))),
            Element(isoNameSpace, "age_over_21", .bool(true)),
            Element(isoNameSpace, "age_in_years", .int(40)),
            Element(isoNameSpace, "portrait", .bytes([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4])),
            Element(isoNameSpace, "document_number", .text("D1234567")),
        ]
    }

    /// The docType of the Document (and of the MSO, unless ``msoDocType`` is set).
    public var docType = mDL
    /// A different docType for the MSO than the Document's, when set.
    public var msoDocType: String?
    /// The issuer-signed elements to disclose, in order.
    public var elements = MdocFixture.defaultElements
    /// Digests the MSO carries for elements that are not disclosed (normal).
    public var undisclosedDigests = 3
    /// The MSO digest algorithm name: "SHA-256", "SHA-384" or "SHA-512" (anything else digests with SHA-256 but is written as given).
    public var digestAlgorithm = "SHA-256"
    /// The MSO `version` string.
    public var msoVersion = "1.0"
    /// The DeviceResponse `version` string.
    public var responseVersion = "1.0"
    /// The DeviceResponse `status` code (0 is OK).
    public var status: UInt64 = 0
    /// The MSO `status` entry (a revocation list reference), when set.
    public var msoStatus: CBORNode?
    /// How many documents the DeviceResponse holds, each built and signed anew (default 1).
    public var documentCount = 1
    /// The MSO `validityInfo.signed` time.
    public var signed = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14T22:13:20Z
    /// The MSO `validityInfo.validFrom` time.
    public var validFrom = Date(timeIntervalSince1970: 1_700_000_000)
    /// The MSO `validityInfo.validUntil` time: a year after signing by default.
    public var validUntil = Date(timeIntervalSince1970: 1_700_000_000 + 365 * 86400)
    /// Put the document signer certificate (x5chain, label 33) in issuerAuth's unprotected header.
    public var includeX5Chain = true
    /// Further DER certificates after the document signer in x5chain.
    public var additionalCertificates: [[UInt8]] = []
    /// The iOS Simulator's responses: all-zero issuer and device signatures, no issuer certificate.
    public var simulatorStyle = false
    /// Replace this element's value after the digests were computed.
    public var tamperedElement: String?
    /// Leave this element out of valueDigests.
    public var undigestedElement: String?
    /// Give the second element the first one's digestID.
    public var duplicateDigestID = false
    /// Wrap the MSO in tag 24 (`#6.24(bstr)`) as the issuerAuth payload; false puts the bare MSO there.
    public var wrapMSOInTag24 = true
    /// Replace issuerAuth's protected header with `{1: issuerAlgorithm}` after signing, when set.
    public var issuerAlgorithm: Int64?
    /// Re-encode the issuer signature as DER instead of the raw r‖s form COSE requires.
    public var derIssuerSignature = false
    /// Device-signed elements (in DeviceNameSpaces).
    public var deviceSignedElements: [Element] = []
    /// The MSO `deviceKeyInfo.keyAuthorizations` (namespaces and per-namespace elements), when set; empty parts are left out.
    public var keyAuthorizations: (nameSpaces: [String], dataElements: [String: [String]])?
    /// Authenticate with deviceMac for this reader key instead of deviceSignature.
    public var macReaderKey: P256.KeyAgreement.PublicKey?
    /// Sign DeviceAuthentication over this transcript instead of the verifier's.
    public var deviceSignsTranscript: SessionTranscript?
    /// Leave `deviceSigned` out of the Document.
    public var omitDeviceSigned = false

    /// A fixture that builds a valid mDL DeviceResponse; change its properties to break one rule at a time.
    public init() {}

    /// The DeviceResponse bytes.
    public func deviceResponse(pki: MdocPKI, deviceKey: P256.Signing.PrivateKey, transcript: SessionTranscript) throws -> [UInt8] {
        Array(try deviceResponseNode(pki: pki, deviceKey: deviceKey, transcript: transcript).encodedBytes)
    }

    /// The Document (docType, issuerSigned, deviceSigned) as a CBOR node.
    /// Element `random` values are fresh on each call, so two calls give different bytes.
    public func document(pki: MdocPKI, deviceKey: P256.Signing.PrivateKey, transcript: SessionTranscript) throws -> CBORNode {
        // IssuerSignedItems and their digests.
        var byNameSpace: [(String, [CBORNode])] = []
        var digests: [String: [(UInt64, [UInt8])]] = [:]
        var nextID: UInt64 = 7
        for (position, element) in elements.enumerated() {
            let digestID = (duplicateDigestID && position == 1) ? 7 : nextID
            nextID += 3
            let item = try CBORNode.map([
                "digestID": .unsigned(digestID),
                "random": .bytes((0..<16).map { _ in UInt8.random(in: 0...255) }),
                "elementIdentifier": .text(element.identifier),
                "elementValue": element.value,
            ])
            var tagged = CBORNode.embedded(item)
            let digest = Self.digest(digestAlgorithm, tagged.encodedBytes)
            if element.identifier != undigestedElement, !(duplicateDigestID && position == 1) {
                digests[element.nameSpace, default: []].append((digestID, digest))
            }
            if element.identifier == tamperedElement {
                let altered = try CBORNode.map([
                    "digestID": .unsigned(digestID), "random": item.mapValue!["random"]!,
                    "elementIdentifier": .text(element.identifier), "elementValue": .text("Tampered"),
                ])
                tagged = CBORNode.embedded(altered)
            }
            if let index = byNameSpace.firstIndex(where: { $0.0 == element.nameSpace }) {
                byNameSpace[index].1.append(tagged)
            } else {
                byNameSpace.append((element.nameSpace, [tagged]))
            }
        }
        for extra in 0..<undisclosedDigests {
            digests[Self.isoNameSpace, default: []].append((1000 + UInt64(extra), Self.digest(digestAlgorithm, [UInt8(extra)])))
        }

        var deviceKeyInfo: [(CBORNode, CBORNode)] = [(.text("deviceKey"), COSESigningKey.p256(deviceKey).publicKey.coseKey())]
        if let authorizations = keyAuthorizations {
            var entries: [(CBORNode, CBORNode)] = []
            if !authorizations.nameSpaces.isEmpty { entries.append((.text("nameSpaces"), .array(authorizations.nameSpaces.map { .text($0) }))) }
            if !authorizations.dataElements.isEmpty {
                entries.append(
                    (.text("dataElements"), try .map(authorizations.dataElements.map { (.text($0.key), .array($0.value.map { .text($0) })) })))
            }
            deviceKeyInfo.append((.text("keyAuthorizations"), try .map(entries)))
        }
        var mso = try CBORNode.map([
            "version": .text(msoVersion),
            "digestAlgorithm": .text(digestAlgorithm),
            "valueDigests": try .map(digests.map { space in (.text(space.key), try .map(space.value.map { (.unsigned($0.0), .bytes($0.1)) })) }),
            "deviceKeyInfo": try .map(deviceKeyInfo),
            "docType": .text(msoDocType ?? docType),
            "validityInfo": try .map([
                "signed": CBORDateTime(date: signed).cborNode(),
                "validFrom": CBORDateTime(date: validFrom).cborNode(),
                "validUntil": CBORDateTime(date: validUntil).cborNode(),
            ]),
        ])
        if let msoStatus, let entries = mso.mapValue?.entries {
            mso = try CBORNode.map(entries.map { ($0.key, $0.value) } + [(.text("status"), msoStatus)])
        }
        let payload = wrapMSOInTag24 ? Array(CBORNode.embedded(mso).encodedBytes) : Array(mso.encodedBytes)
        let x5chain: CBORNode =
            additionalCertificates.isEmpty ? .bytes(pki.dsDER) : .array([.bytes(pki.dsDER)] + additionalCertificates.map { .bytes($0) })
        let unprotected: [(CBORNode, CBORNode)] = (includeX5Chain && !simulatorStyle) ? [(.int(33), x5chain)] : []
        var protected: [(CBORNode, CBORNode)] = []
        var issuerAuth = try COSESign1.sign(payload: payload, key: .p256(pki.dsKey), unprotected: unprotected).node
        if let algorithm = issuerAlgorithm {
            protected = [(.int(1), .int(algorithm))]
            let items = try issuerAuth.array()
            issuerAuth = .array([.bytes(try CBORNode.map(protected).encodedBytes), items[1], items[2], items[3]])
        }
        if simulatorStyle || derIssuerSignature {
            let items = try issuerAuth.array()
            let signature: [UInt8] =
                simulatorStyle
                ? [UInt8](repeating: 0, count: 64)
                : Array(try P256.Signing.ECDSASignature(rawRepresentation: items[3].bytes()).derRepresentation)
            issuerAuth = .array([items[0], items[1], items[2], .bytes(signature)])
        }
        let issuerSigned = try CBORNode.map([
            "nameSpaces": try .map(byNameSpace.map { (.text($0.0), .array($0.1)) }),
            "issuerAuth": issuerAuth,
        ])

        var entries: [(CBORNode, CBORNode)] = [(.text("docType"), .text(docType)), (.text("issuerSigned"), issuerSigned)]
        if !omitDeviceSigned {
            var deviceSpaces: [(String, [(CBORNode, CBORNode)])] = []
            for element in deviceSignedElements {
                if let index = deviceSpaces.firstIndex(where: { $0.0 == element.nameSpace }) {
                    deviceSpaces[index].1.append((.text(element.identifier), element.value))
                } else {
                    deviceSpaces.append((element.nameSpace, [(.text(element.identifier), element.value)]))
                }
            }
            let deviceNameSpaces = try CBORNode.map(deviceSpaces.map { (.text($0.0), try CBORNode.map($0.1)) })
            let deviceNameSpacesBytes = CBORNode.embedded(deviceNameSpaces)
            let authentication = DeviceAuthentication.bytes(
                transcript: deviceSignsTranscript ?? transcript, docType: docType, deviceNameSpacesBytes: deviceNameSpacesBytes)
            let deviceAuth: CBORNode
            if let readerKey = macReaderKey {
                let agreementKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: deviceKey.rawRepresentation)
                let shared = try agreementKey.sharedSecretFromKeyAgreement(with: readerKey)
                let salt = Array(SHA256.hash(data: (deviceSignsTranscript ?? transcript).taggedBytes))
                let macKey = shared.hkdfDerivedSymmetricKey(using: SHA256.self, salt: salt, sharedInfo: Array("EMacKey".utf8), outputByteCount: 32)
                deviceAuth = try .map(["deviceMac": try COSEMac0.mac(payload: authentication, key: macKey, detached: true).node])
            } else {
                var signature = try COSESign1.sign(payload: authentication, key: .p256(deviceKey), detached: true).node
                if simulatorStyle {
                    let items = try signature.array()
                    signature = .array([items[0], items[1], items[2], .bytes([UInt8](repeating: 0, count: 64))])
                }
                deviceAuth = try .map(["deviceSignature": signature])
            }
            entries.append((.text("deviceSigned"), try .map(["nameSpaces": deviceNameSpacesBytes, "deviceAuth": deviceAuth])))
        }
        return try .map(entries)
    }

    /// The DeviceResponse (version, ``documentCount`` documents, status) as a CBOR node.
    public func deviceResponseNode(pki: MdocPKI, deviceKey: P256.Signing.PrivateKey, transcript: SessionTranscript) throws -> CBORNode {
        var documents: [CBORNode] = []
        for _ in 0..<max(documentCount, 1) { documents.append(try document(pki: pki, deviceKey: deviceKey, transcript: transcript)) }
        return try .map([
            "version": .text(responseVersion),
            "documents": .array(documents),
            "status": .unsigned(status),
        ])
    }

    static func digest<C: Collection<UInt8>>(_ algorithm: String, _ bytes: C) -> [UInt8] {
        let data = Array(bytes)
        switch algorithm {
        case "SHA-384": return Array(SHA384.hash(data: data))
        case "SHA-512": return Array(SHA512.hash(data: data))
        default: return Array(SHA256.hash(data: data))
        }
    }
}
