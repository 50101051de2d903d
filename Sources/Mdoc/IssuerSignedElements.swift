import WalletCBOR

/// The issuer-signed elements of a document as the verifier reads them: for each item, its
/// namespace, digestID, identifier and value, and where its tag-24 bytes (what the value digest is
/// computed over) are in ``bytes``. One table per document instead of an item structure, a node and
/// slices per element: the checks and ``ElementValue`` read it without copying or counting a
/// reference per element.
///
/// ``IssuerSigned`` builds it as it decodes; the items of ``IssuerSigned/nameSpaces`` hold the same
/// elements.
public struct IssuerSignedElements: Sendable {
    /// One issuer-signed item.
    public struct Element: Sendable {
        /// Index of its namespace in ``IssuerSignedElements/nameSpaces``.
        public let nameSpace: Int
        /// The key of its digest in the MSO's valueDigests for its namespace.
        public let digestID: UInt64
        /// The element identifier.
        public let identifier: String
        /// The element value.
        public let value: ElementValue
        /// Where the item's tag-24 bytes (`IssuerSignedItemBytes`, as received) are in ``IssuerSignedElements/bytes``.
        public let taggedRange: Range<Int>
    }

    /// Namespace identifiers in received order; a namespace without items is listed too.
    public let nameSpaces: [String]
    /// Every item, namespace by namespace, in received order.
    public let elements: [Element]
    /// The bytes the items' ranges index: the received response itself, or a copy of the items'
    /// tag-24 bytes for a document decoded the generic way.
    public let bytes: ArraySlice<UInt8>

    init(nameSpaces: [String], elements: [Element], bytes: ArraySlice<UInt8>) {
        self.nameSpaces = nameSpaces
        self.elements = elements
        self.bytes = bytes
    }

    /// The table of items decoded the generic way: their tag-24 bytes are copied into one buffer
    /// (they may come from different buffers), their values converted from their nodes.
    init(_ spaces: [IssuerSigned.NameSpace]) {
        var buffer: [UInt8] = []
        var elements: [Element] = []
        for (index, space) in spaces.enumerated() {
            for item in space.items {
                let start = buffer.count
                buffer.append(contentsOf: item.taggedBytes)
                elements.append(
                    Element(
                        nameSpace: index, digestID: item.value.digestID, identifier: item.value.elementIdentifier,
                        value: ElementValue(item.value.elementValue, depth: IssuerSignedItem.elementValueDepth, limits: .default),
                        taggedRange: start..<buffer.count))
            }
        }
        self.init(nameSpaces: spaces.map(\.name), elements: elements, bytes: buffer[...])
    }

    /// The item's tag-24 bytes as received.
    public func taggedBytes(of element: Element) -> ArraySlice<UInt8> { bytes[element.taggedRange] }

    /// The items as the public model's namespaces, each item decoded again from its bytes (with the
    /// limits it was read with, so it decodes as it did).
    func decodedNameSpaces() -> [IssuerSigned.NameSpace] {
        var items = Array(repeating: [EmbeddedCBOR<IssuerSignedItem>](), count: nameSpaces.count)
        let decoder = CBORDecoder(knownTexts: .iso18013_5)
        for element in elements {
            guard let node = try? decoder.decode(bytes[element.taggedRange]),
                let item = try? EmbeddedCBOR<IssuerSignedItem>(cbor: node, limits: .default)
            else { continue }
            items[element.nameSpace].append(item)
        }
        return zip(nameSpaces, items).map { IssuerSigned.NameSpace(name: $0, items: $1) }
    }
}
