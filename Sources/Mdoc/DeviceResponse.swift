import WalletCBOR

/// ISO 18013-5 §8.3.2.1.2.2 DeviceResponse:
/// `{"version": tstr, ? "documents": [+Document], ? "documentErrors": [+DocumentError], "status": uint}`.
///
/// Decoding is in two steps so that one malformed document does not hide the others: the envelope
/// (version, status, the list) decodes here; each document decodes on its own (``documentResults``).
public struct DeviceResponse: Sendable {
    public let version: String
    public let status: UInt64
    /// Each received document, decoded or with the reason it could not be.
    public let documentResults: [Result<Document, MdocDecodingError>]
    /// docType → error code, for documents the holder did not return.
    public let documentErrors: [String: Int64]
    public let node: CBORNode

    public var documents: [Document] { documentResults.compactMap { try? $0.get() } }

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
        self.node = node
    }

    public init(cborBytes bytes: [UInt8]) throws(MdocDecodingError) {
        let node = try decoding("DeviceResponse") { () throws(CBORError) in try CBORDecoder.decode(bytes) }
        try self.init(cbor: node)
    }
}

/// `"1.0"`-style versions compared numerically (major, then minor).
public struct MdocVersion: Comparable, Sendable, CustomStringConvertible {
    public let major: Int
    public let minor: Int

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
              parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) }) else { return nil }
        self.major = major
        self.minor = minor
    }

    public static func < (lhs: MdocVersion, rhs: MdocVersion) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    public static let v1_0 = MdocVersion("1.0")!

    public var description: String { "\(major).\(minor)" }
}
