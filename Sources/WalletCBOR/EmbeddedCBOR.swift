/// `#6.24(bstr .cbor T)`: a CBOR item carried inside a byte string tagged 24.
///
/// It keeps ``node``, the complete tag-24 item exactly as received (tag head, byte-string head and
/// content: what ISO 18013-5 digests such as `IssuerSignedItemBytes` are computed over), whose content
/// is ``innerBytes``, the embedded encoding; and the decoded ``value``. Building one from a value
/// encodes it once; after that the bytes never change, so hashing or signing them always covers what
/// is transmitted.
public struct EmbeddedCBOR<Value: CBORDecodable>: Sendable, CBORDecodable, CBOREncodable {
    // A struct: an mdoc carries one per disclosed element, and a value in the items array costs no
    // allocation (or generic class metadata) of its own.
    /// The whole tag-24 item: `d8 18` + byte-string head + inner bytes.
    public let node: CBORNode
    public let value: Value
    /// The limits the inner item was decoded with (``innerNode`` decodes it again with them).
    @usableFromInline let limits: CBORDecoder.Limits

    public var taggedBytes: ArraySlice<UInt8> { node.encodedBytes }

    /// The embedded encoding (the content of the tagged byte string), as received.
    public var innerBytes: ArraySlice<UInt8> {
        guard case .tagged(_, let content) = node.value, case .byteString(let inner) = content.value else { return [] }
        return inner
    }

    /// The embedded item as a node. A value type that reads its bytes directly keeps no node, so this
    /// decodes ``innerBytes`` (which decoded when this was made, with the same limits); for
    /// `EmbeddedCBOR<CBORNode>` it is the value.
    public var innerNode: CBORNode {
        get throws(CBORError) {
            if let node = value as? CBORNode { return node }
            return try CBORDecoder(limits: limits).decode(innerBytes)
        }
    }

    @inlinable
    public init(cbor node: CBORNode) throws(CBORError) {
        try self.init(cbor: node, limits: .default)
    }

    @inlinable
    public init(cbor node: CBORNode, limits: CBORDecoder.Limits) throws(CBORError) {
        let content = try node.tagged(24, "embedded CBOR")
        let inner = try content.bytes("content of tag 24")
        // The inner slice shares the buffer, so offsets in errors stay absolute.
        self.value = try Value(embeddedCBOR: inner, limits: limits)
        self.limits = limits
        self.node = node
    }

    public func cborNode() -> CBORNode { node }
}

extension EmbeddedCBOR where Value: CBOREncodable {
    /// Encodes `value` deterministically once and wraps it.
    public init(wrapping value: Value) throws(CBORError) {
        let inner = try value.cborNode()
        let node = CBORNode.embedded(inner)
        // Re-decode so innerNode is a slice of node's own buffer.
        try self.init(cbor: CBORDecoder().decode(Array(node.encodedBytes)))
    }
}
