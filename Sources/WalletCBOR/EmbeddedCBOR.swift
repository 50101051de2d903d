/// `#6.24(bstr .cbor T)`: a CBOR item carried inside a byte string tagged 24.
///
/// It keeps ``node``, the complete tag-24 item exactly as received (tag head, byte-string head and
/// content: what ISO 18013-5 digests such as `IssuerSignedItemBytes` are computed over), whose content
/// is ``innerBytes``, the embedded encoding; and the decoded ``value``. Building one from a value
/// encodes it once; after that the bytes never change, so hashing or signing them always covers what
/// is transmitted.
public struct EmbeddedCBOR<Value: CBORDecodable>: Sendable, CBORDecodable, CBOREncodable {
    // A struct: an mdoc carries one per disclosed element, and a value in the items array costs no
    // allocation (or generic class metadata) of its own; ``node`` is built on demand, so a decoded item
    // holds no tag node either.
    /// The whole tag-24 item as received: `d8 18` + byte-string head + inner bytes.
    public let taggedBytes: ArraySlice<UInt8>
    /// Where, in ``taggedBytes``, the byte string (head and content) starts.
    @usableFromInline let contentStart: Int
    /// The embedded encoding (the content of the tagged byte string), as received.
    public let innerBytes: ArraySlice<UInt8>
    /// The decoded embedded item.
    public let value: Value
    /// The limits the inner item was decoded with (``innerNode`` decodes it again with them).
    @usableFromInline let limits: CBORDecoder.Limits

    /// The whole tag-24 item as a node (its bytes are ``taggedBytes``).
    public var node: CBORNode {
        CBORNode(value: .tagged(24, CBORNode(value: .byteString(innerBytes), encodedBytes: taggedBytes[contentStart...])), encodedBytes: taggedBytes)
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

    /// Reads a tag-24 item and decodes its content with the default limits.
    @inlinable
    public init(cbor node: CBORNode) throws(CBORError) {
        try self.init(cbor: node, limits: .default)
    }

    /// Reads a tag-24 item and decodes its content with `limits`.
    /// Throws ``CBORError/Code/typeMismatch`` unless the node is tag 24 around a byte string, or the content's decoding error.
    @inlinable
    public init(cbor node: CBORNode, limits: CBORDecoder.Limits) throws(CBORError) {
        let content = try node.tagged(24, "embedded CBOR")
        let inner = try content.bytes("content of tag 24")
        // The inner slice shares the buffer, so offsets in errors stay absolute.
        self.value = try Value(embeddedCBOR: inner, limits: limits)
        self.limits = limits
        self.taggedBytes = node.encodedBytes
        self.contentStart = content.encodedBytes.startIndex
        self.innerBytes = inner
    }

    /// Reads a tag-24 item in place (see ``CBORValueReader/embeddedItem()``) and decodes its content
    /// with `limits`. Nil when the item is not a tag-24 definite byte string or its
    /// content does not decode as `Value`: the caller then decodes generically, for the precise error.
    @inlinable
    public init?(reading reader: inout CBORValueReader, limits: CBORDecoder.Limits) {
        guard let item = reader.embeddedItem(), let value = try? Value(embeddedCBOR: item.inner, limits: limits) else { return nil }
        self.value = value
        self.limits = limits
        self.taggedBytes = item.tagged
        self.contentStart = item.contentStart
        self.innerBytes = item.inner
    }

    /// The tag-24 item with its received bytes (``node``).
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
