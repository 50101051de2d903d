/// `#6.24(bstr .cbor T)`: a CBOR item carried inside a byte string tagged 24.
///
/// It keeps three things: ``taggedBytes``, the complete tag-24 item exactly as received (tag head,
/// byte-string head and content: what ISO 18013-5 digests such as `IssuerSignedItemBytes` are
/// computed over); ``innerBytes``, the embedded encoding; and the decoded ``value``. Building one from
/// a value encodes it once; after that the bytes never change, so hashing or signing them always
/// covers what is transmitted.
public struct EmbeddedCBOR<Value: CBORDecodable>: Sendable, CBORDecodable, CBOREncodable {
    // A struct: an mdoc carries one per disclosed element, and a value in the items array costs no
    // allocation (or generic class metadata) of its own.
    /// The whole tag-24 item: `d8 18` + byte-string head + inner bytes.
    public let node: CBORNode
    /// The decoded embedded item (with its own received bytes).
    public let innerNode: CBORNode
    public let value: Value

    public var taggedBytes: ArraySlice<UInt8> { node.encodedBytes }
    public var innerBytes: ArraySlice<UInt8> { innerNode.encodedBytes }

    @inlinable
    public init(cbor node: CBORNode) throws(CBORError) {
        try self.init(cbor: node, limits: .default)
    }

    @inlinable
    public init(cbor node: CBORNode, limits: CBORDecoder.Limits) throws(CBORError) {
        let content = try node.tagged(24, "embedded CBOR")
        let inner = try content.bytes("content of tag 24")
        // The inner slice shares the buffer, so offsets in errors stay absolute.
        let innerNode = try CBORDecoder(limits: limits).decode(inner)
        self.value = try Value(cbor: innerNode)
        self.innerNode = innerNode
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
