import WalletCBOR

/// ISO 18013-5 §8.3.2.1.2.2 IssuerSignedItem:
/// `{"digestID": uint, "random": bstr, "elementIdentifier": tstr, "elementValue": any}`.
/// Carried as `IssuerSignedItemBytes = #6.24(bstr .cbor IssuerSignedItem)`.
public struct IssuerSignedItem: Sendable, CBORDecodable {
    public let digestID: UInt64
    public let random: ArraySlice<UInt8>
    public let elementIdentifier: String
    /// The value as received.
    public let elementValue: CBORNode

    public init(cbor node: CBORNode) throws(CBORError) {
        guard case .map(let map) = node.value else { throw CBORError(code: .typeMismatch, message: "IssuerSignedItem: expected a map, found \(node.value.kindDescription)", offset: node.offset) }
        // One pass over the entries finds the four fields (each key at most once: keys are unique);
        // then they are checked in the same order, with the same errors, as one lookup each.
        var fields: (Int?, Int?, Int?, Int?) = (nil, nil, nil, nil)
        map.entries.withUnsafeBufferPointer { entries in
            for index in entries.indices {
                guard case .textString(let key) = entries[index].key.value else { continue }
                switch key {
                case _ where Self.utf8Equal(key, "digestID"): fields.0 = index
                case _ where Self.utf8Equal(key, "random"): fields.1 = index
                case _ where Self.utf8Equal(key, "elementIdentifier"): fields.2 = index
                case _ where Self.utf8Equal(key, "elementValue"): fields.3 = index
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
    }

    /// Reads the item from its encoded bytes in place (no nodes for the map, its keys or the three
    /// scalar fields: an mdoc carries one item per disclosed element). Anything unusual, and every
    /// error, goes through the generic decoder and ``init(cbor:)``, so the result and the errors are
    /// the same as theirs.
    public init(embeddedCBOR bytes: ArraySlice<UInt8>, limits: CBORDecoder.Limits) throws(CBORError) {
        var digestID: UInt64?
        var random: ArraySlice<UInt8>?
        var elementIdentifier: String?
        var elementValue: CBORNode?
        let decoder = CBORDecoder(limits: limits)
        let read = decoder.readTextKeyedMap(bytes) { key, value in
            // A field seen twice is a duplicate key, which the reader already rejects.
            switch key.count {
            case 8 where Self.equal(key, "digestID"):
                digestID = value.unsignedInt()
                return digestID != nil
            case 6 where Self.equal(key, "random"):
                random = value.byteString()
                return random != nil
            case 17 where Self.equal(key, "elementIdentifier"):
                elementIdentifier = value.textString()
                return elementIdentifier != nil
            case 12 where Self.equal(key, "elementValue"):
                elementValue = value.node()
                return elementValue != nil
            default:
                return true
            }
        }
        if read, let digestID, let random, let elementIdentifier, let elementValue {
            self.init(digestID: digestID, random: random, elementIdentifier: elementIdentifier, elementValue: elementValue)
        } else {
            try self.init(cbor: decoder.decode(bytes))
        }
    }

    private init(digestID: UInt64, random: ArraySlice<UInt8>, elementIdentifier: String, elementValue: CBORNode) {
        self.digestID = digestID
        self.random = random
        self.elementIdentifier = elementIdentifier
        self.elementValue = elementValue
    }

    private static func equal(_ a: UnsafeRawBufferPointer, _ b: StaticString) -> Bool {
        let count = b.utf8CodeUnitCount
        guard a.count == count else { return false }
        for i in 0..<count where a[i] != b.utf8Start[i] { return false }
        return true
    }

    private static func utf8Equal(_ a: String, _ b: StaticString) -> Bool {
        let count = b.utf8CodeUnitCount
        guard a.utf8.count == count else { return false }
        return a.utf8.withContiguousStorageIfAvailable { bytes in
            for i in 0..<count where bytes[i] != b.utf8Start[i] { return false }
            return true
        } ?? a.utf8.elementsEqual(UnsafeBufferPointer(start: b.utf8Start, count: count))
    }
}
