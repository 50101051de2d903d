import WalletCBOR

/// ISO 18013-5 §8.3.2.1.2.2 DeviceResponse:
/// `{"version": tstr, ? "documents": [+Document], ? "documentErrors": [+DocumentError], "status": uint}`.
///
/// Decoding is in two steps so that one malformed document does not hide the others: the envelope
/// (version, status, the list) decodes here; each document decodes on its own (``documentResults``).
public struct DeviceResponse: Sendable {
    /// The version as received; the verifier parses it as an ``MdocVersion`` and requires at least 1.0.
    public let version: String
    /// The response status: 0 is OK, any other value an error reported by the holder's device.
    public let status: UInt64
    /// Each received document, decoded or with the reason it could not be.
    public let documentResults: [Result<Document, MdocDecodingError>]
    /// docType → error code, for documents the holder did not return.
    public let documentErrors: [String: Int64]
    /// The response as received.
    public let encodedBytes: ArraySlice<UInt8>

    /// The response as a node, decoded again from ``encodedBytes``.
    public var node: CBORNode {
        get throws(CBORError) { try CBORDecoder(knownTexts: .iso18013_5).decode(encodedBytes) }
    }

    /// The documents that decoded, in received order; those that did not are only in ``documentResults``.
    public var documents: [Document] { documentResults.compactMap { try? $0.get() } }

    /// Whether a document that decoded satisfies `predicate`, read in place: ``documents`` would copy
    /// every decoded document out.
    public func containsDocument(where predicate: (Document) -> Bool) -> Bool {
        documentResults.contains { result in
            guard case .success(let document) = result else { return false }
            return predicate(document)
        }
    }

    /// Decodes a response from a node; a document that does not decode is kept as a failure in ``documentResults``.
    /// Throws ``MdocDecodingError`` when the envelope (version, status, the documents list, documentErrors) is malformed.
    public init(cbor node: CBORNode) throws(MdocDecodingError) {
        let map = try decoding("DeviceResponse") { () throws(CBORError) in try node.map("DeviceResponse") }
        version = try decoding("DeviceResponse") { () throws(CBORError) in try map.required("version", in: "DeviceResponse").text("version") }
        status = try decoding("DeviceResponse") { () throws(CBORError) in try map.required("status", in: "DeviceResponse").uint("status") }
        var results: [Result<Document, MdocDecodingError>] = []
        if let documentsNode = map["documents"] {
            let list = try decoding("DeviceResponse.documents") { () throws(CBORError) in try documentsNode.array("documents") }
            for item in list {
                do { results.append(.success(try Document(cbor: item))) } catch { results.append(.failure(error)) }
            }
        }
        documentResults = results
        var errors: [String: Int64] = [:]
        if let errorsNode = map["documentErrors"] {
            let list = try decoding("DeviceResponse.documentErrors") { () throws(CBORError) in try errorsNode.array("documentErrors") }
            for item in list {
                let entries = try decoding("DocumentError") { () throws(CBORError) in try item.map("DocumentError") }
                for entry in entries {
                    let docType = try decoding("DocumentError") { () throws(CBORError) in try entry.key.text("docType") }
                    errors[docType] = try decoding("DocumentError") { () throws(CBORError) in try entry.value.int("error code") }
                }
            }
        }
        documentErrors = errors
        self.encodedBytes = node.encodedBytes
    }

    /// Decodes a response from its encoded bytes: the usual shape in place, anything else through ``init(cbor:)``.
    /// Throws ``MdocDecodingError`` when the bytes are not CBOR or the envelope is malformed.
    public init(cborBytes bytes: [UInt8]) throws(MdocDecodingError) {
        // The usual response reads in place; anything else (and every error) goes the generic way.
        var inPlace: DeviceResponse?
        if CBORDecoder(knownTexts: .iso18013_5).read(
            bytes[...],
            {
                guard let read = DeviceResponse(reading: &$0) else { return false }
                inPlace = read
                return true
            }), let inPlace = inPlace.take()
        {
            self = inPlace
            return
        }
        let node = try decoding("DeviceResponse") { () throws(CBORError) in try CBORDecoder.decode(bytes) }
        try self.init(cbor: node)
    }

    /// Reads a response in place, without a node tree for its documents' namespaces and items (each
    /// document: see ``Document``). Nil for anything unusual or wrong, including `documentErrors` and a
    /// document that does not decode: ``init(cbor:)`` accepts every input this accepts, with the same
    /// result, and reports what the others lack.
    public init?(reading reader: inout CBORValueReader) {
        var version: String?
        var status: UInt64?
        var results: [Result<Document, MdocDecodingError>] = []
        let bytes = reader.capturing { response in
            response.textKeyedMap { key, value in
                switch key.count {
                case 7 where TextKeys.equal(key, "version"):
                    guard let read = value.textString() else { return false }
                    version = read
                    return true
                case 6 where TextKeys.equal(key, "status"):
                    guard let read = value.unsignedInt() else { return false }
                    status = read
                    return true
                case 9 where TextKeys.equal(key, "documents"):
                    results.reserveCapacity(min(value.definiteArrayCount() ?? 0, 64))
                    return value.array(maxItems: 64) { item in
                        guard let document = Document.read(&item) else { return false }
                        results.append(.success(document))
                        return true
                    }
                case 14 where TextKeys.equal(key, "documentErrors"):
                    return false
                default:
                    return true
                }
            }
        }
        guard let bytes, let version = version.take(), let status else { return nil }
        self.version = version
        self.status = status
        self.documentResults = results
        self.documentErrors = [:]
        self.encodedBytes = bytes
    }
}

/// `"1.0"`-style versions compared numerically (major, then minor).
public struct MdocVersion: Comparable, Sendable, CustomStringConvertible {
    /// The number before the dot.
    public let major: Int
    /// The number after the dot.
    public let minor: Int

    /// Parses `major.minor`, two non-negative integers separated by one dot; nil for any other text.
    public init?(_ text: String) {
        // The usual form, a one-digit major and minor ("1.0"), read from the bytes.
        if let fast = text.utf8.withContiguousStorageIfAvailable({ b -> (Int, Int)? in
            guard b.count == 3, b[1] == 0x2e, (0x30...0x39).contains(b[0]), (0x30...0x39).contains(b[2]) else { return nil }
            return (Int(b[0] - 0x30), Int(b[2] - 0x30))
        }), let (major, minor) = fast {
            self.major = major
            self.minor = minor
            return
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let major = Int(parts[0]), let minor = Int(parts[1]), major >= 0, minor >= 0,
            parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) })
        else { return nil }
        self.major = major
        self.minor = minor
    }

    /// Orders by major version, then by minor version.
    public static func < (lhs: MdocVersion, rhs: MdocVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    /// Version 1.0, the lowest the verifier accepts for a DeviceResponse and for an MSO.
    public static let v1_0 = MdocVersion("1.0")!

    /// The version as `major.minor`.
    public var description: String { "\(major).\(minor)" }
}
