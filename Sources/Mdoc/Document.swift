import WalletCBOR

/// ISO 18013-5 Document:
/// `{"docType": tstr, "issuerSigned": IssuerSigned, ? "deviceSigned": DeviceSigned, ? "errors": Errors}`.
///
/// A class (immutable): a verification hands the decoded document from check to check, and a
/// reference is one retain where a value copy retains each of its many parts.
public final class Document: Sendable {
    /// The document type, such as `org.iso.18013.5.1.mDL`; `mdoc.docType` compares it with the MSO's.
    public let docType: String
    /// The issuer-signed items and the issuer's signature over the MSO.
    public let issuerSigned: IssuerSigned
    /// Required by ISO 18013-5 for device retrieval; the verifier fails device authentication when absent.
    public let deviceSigned: DeviceSigned?
    /// Element errors reported by the holder: namespace → identifier → error code.
    public let errors: [String: [String: Int64]]
    /// The whole document as received.
    public let encodedBytes: ArraySlice<UInt8>

    /// The whole document as a node, decoded again from ``encodedBytes``.
    public var node: CBORNode {
        get throws(CBORError) { try CBORDecoder(knownTexts: .iso18013_5).decode(encodedBytes) }
    }

    private init(docType: String, issuerSigned: IssuerSigned, deviceSigned: DeviceSigned?, encodedBytes: ArraySlice<UInt8>) {
        self.docType = docType
        self.issuerSigned = issuerSigned
        self.deviceSigned = deviceSigned
        self.errors = [:]
        self.encodedBytes = encodedBytes
    }

    /// Reads a document in place (see ``IssuerSigned``); nil for anything unusual or wrong, including a
    /// document with `errors` (the caller then decodes generically, which accepts the same inputs).
    static func read(_ reader: inout CBORValueReader) -> Document? {
        var docType: String?
        var issuerSigned: IssuerSigned?
        var deviceSigned: DeviceSigned?
        let bytes = reader.capturing { document in
            document.textKeyedMap { key, value in
                switch key.count {
                case 7 where TextKeys.equal(key, "docType"):
                    guard let read = value.textString() else { return false }
                    docType = read
                    return true
                case 12 where TextKeys.equal(key, "issuerSigned"):
                    guard let read = IssuerSigned(reading: &value) else { return false }
                    issuerSigned = read
                    return true
                case 12 where TextKeys.equal(key, "deviceSigned"):
                    guard let read = DeviceSigned(reading: &value) else { return false }
                    deviceSigned = read
                    return true
                case 6 where TextKeys.equal(key, "errors"):
                    return false
                default:
                    return true
                }
            }
        }
        // Moved out of the optionals (`take()`), not copied: a copy retains every part of the structure.
        guard let bytes, let docType = docType.take(), let issuerSigned = issuerSigned.take() else { return nil }
        return Document(docType: docType, issuerSigned: issuerSigned, deviceSigned: deviceSigned.take(), encodedBytes: bytes)
    }

    /// Decodes a Document from a node, keeping its encoded bytes.
    /// Throws ``MdocDecodingError`` when docType or issuerSigned is missing, or any part (issuerSigned, deviceSigned, errors) is malformed.
    public init(cbor node: CBORNode) throws(MdocDecodingError) {
        let map = try decoding("Document") { () throws(CBORError) in try node.map("Document") }
        docType = try decoding("Document") { () throws(CBORError) in try map.required("docType", in: "Document").text("docType") }
        let issuerSignedNode = try decoding("Document") { () throws(CBORError) in try map.required("issuerSigned", in: "Document") }
        issuerSigned = try IssuerSigned(cbor: issuerSignedNode)
        deviceSigned = try map["deviceSigned"].map { (n) throws(MdocDecodingError) in try DeviceSigned(cbor: n) }
        var errors: [String: [String: Int64]] = [:]
        if let errorsNode = map["errors"] {
            let spaces = try decoding("Document.errors") { () throws(CBORError) in try errorsNode.map("errors") }
            for space in spaces {
                let name = try decoding("Document.errors") { () throws(CBORError) in try space.key.text("namespace") }
                let entries = try decoding("Document.errors") { () throws(CBORError) in try space.value.map("error items") }
                for entry in entries {
                    let id = try decoding("Document.errors") { () throws(CBORError) in try entry.key.text("element identifier") }
                    errors[name, default: [:]][id] = try decoding("Document.errors") { () throws(CBORError) in try entry.value.int("error code") }
                }
            }
        }
        self.errors = errors
        self.encodedBytes = node.encodedBytes
    }
}
