import WalletCBOR

/// ISO 18013-5 §8.3.2.1.2.2 IssuerSignedItem:
/// `{"digestID": uint, "random": bstr, "elementIdentifier": tstr, "elementValue": any}`.
/// Carried as `IssuerSignedItemBytes = #6.24(bstr .cbor IssuerSignedItem)`.
public struct IssuerSignedItem: Sendable, CBORDecodable {
    /// The key of this item's digest in the MSO's valueDigests for its namespace.
    public let digestID: UInt64
    /// Random bytes from the issuer, so that the digest does not reveal the value it covers.
    public let random: ArraySlice<UInt8>
    /// The data element's identifier within its namespace.
    public let elementIdentifier: String
    /// The value as received.
    public let elementValue: CBORNode

    /// The depth of an element value in a DeviceResponse (DeviceResponse, documents, Document,
    /// issuerSigned, nameSpaces, the items array, tag 24, its byte string, the item, its value):
    /// tag-24 items inside a value are decoded against the budget that is left below it, so the
    /// whole response shares one depth limit.
    public static let elementValueDepth = 10

    /// Decodes an item from its map node.
    /// Throws `CBORError` when it is not a map, a field is missing or of the wrong type, or the value nests too deep.
    public init(cbor node: CBORNode) throws(CBORError) {
        guard case .map(let map) = node.value else {
            throw CBORError(
                code: .typeMismatch, message: "IssuerSignedItem: expected a map, found \(node.value.kindDescription)", offset: node.offset)
        }
        // One pass over the entries finds the four fields (each key at most once: keys are unique);
        // then they are checked in the same order, with the same errors, as one lookup each.
        var fields: (Int?, Int?, Int?, Int?) = (nil, nil, nil, nil)
        map.entries.withUnsafeBufferPointer { entries in
            for index in entries.indices {
                guard case .textString(let key) = entries[index].key.value else { continue }
                switch key {
                case _ where TextKeys.equal(key, "digestID"): fields.0 = index
                case _ where TextKeys.equal(key, "random"): fields.1 = index
                case _ where TextKeys.equal(key, "elementIdentifier"): fields.2 = index
                case _ where TextKeys.equal(key, "elementValue"): fields.3 = index
                default: break
                }
            }
        }
        func field(_ slot: Int?, _ name: String) throws(CBORError) -> CBORNode {
            guard let index = slot else {
                throw CBORError(code: .missingField, message: "missing \"\(name)\" in IssuerSignedItem", offset: nil)
            }
            return map.entries[index].value
        }
        digestID = try field(fields.0, "digestID").uint("digestID")
        random = try field(fields.1, "random").bytes("random")
        elementIdentifier = try field(fields.2, "elementIdentifier").text("elementIdentifier")
        elementValue = try field(fields.3, "elementValue")
        try elementValue.checkEmbeddedNesting(depth: Self.elementValueDepth)
    }

    /// Reads the item from its encoded bytes in place (no nodes for the map, its keys or the three
    /// scalar fields: an mdoc carries one item per disclosed element). Anything unusual, and every
    /// error, goes through the generic decoder and ``init(cbor:)``, so the result and the errors are
    /// the same as theirs.
    public init(embeddedCBOR bytes: ArraySlice<UInt8>, limits: CBORDecoder.Limits) throws(CBORError) {
        var digestID: UInt64?
        // The random bytes' range: one slice of `bytes` is taken at the end.
        var random: Range<Int>?
        var elementIdentifier: String?
        var elementValue: CBORNode?
        let decoder = CBORDecoder(limits: limits, knownTexts: .iso18013_5)
        let read = decoder.readTextKeyedMap(bytes) { key, value in
            // A field seen twice is a duplicate key, which the reader already rejects.
            switch key.count {
            case 8 where TextKeys.equal(key, "digestID"):
                guard let read = value.unsignedInt() else { return false }
                digestID = read
                return true
            case 6 where TextKeys.equal(key, "random"):
                guard let read = value.byteStringRange() else { return false }
                random = read
                return true
            case 17 where TextKeys.equal(key, "elementIdentifier"):
                guard let read = value.textString() else { return false }
                elementIdentifier = read
                return true
            case 12 where TextKeys.equal(key, "elementValue"):
                guard let read = value.node() else { return false }
                elementValue = read
                return true
            default:
                return true
            }
        }
        // Moved out of the optionals (`take()`), not copied: each copy would retain the value's parts.
        guard read, let digestID, let random, let identifier = elementIdentifier.take(), let value = elementValue.take() else {
            self = try IssuerSignedItem(cbor: decoder.decode(bytes))
            return
        }
        try value.checkEmbeddedNesting(depth: Self.elementValueDepth, limits: limits)
        self.digestID = digestID
        self.random = bytes[random]
        self.elementIdentifier = identifier
        self.elementValue = value
    }
}
