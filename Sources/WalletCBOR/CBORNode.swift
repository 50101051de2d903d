/// One CBOR data item together with the exact bytes it was encoded as.
///
/// A node decoded by ``CBORDecoder`` keeps, in ``encodedBytes``, the slice of the input it was decoded
/// from, and every child node keeps its own slice. A node built in code (``CBORNode/array(_:)`` and
/// friends) is encoded once, with RFC 8949 §4.2.1 core deterministic encoding, when it is built; a
/// decoded child placed inside a built node contributes its received bytes unchanged. Serializing a
/// node therefore never re-encodes anything that was received: the bytes are always
/// ``encodedBytes``.
///
/// Equality and hashing are semantic (the CBOR data model): `0x01` and `0x18 0x01` are equal nodes.
/// Compare ``encodedBytes`` when the exact encoding matters.
public struct CBORNode: Sendable, Hashable {
    // A struct: a decoded mdoc has hundreds of nodes, and a node that is a value costs no allocation
    // of its own (children live inline in their parent's array). Copying one retains the input buffer
    // and, for strings and containers, the payload.
    /// The decoded content; containers hold child nodes.
    public let value: CBORValue
    /// The complete encoding of this item (head and content), exactly as received or built.
    public let encodedBytes: ArraySlice<UInt8>

    /// Creates a node from a value and its encoding. The caller guarantees that `encodedBytes` is an
    /// encoding of `value`; decoders and the builders are the only callers in this package.
    @usableFromInline
    init(value: CBORValue, encodedBytes: ArraySlice<UInt8>) {
        self.value = value
        self.encodedBytes = encodedBytes
    }

    /// Index of the first byte of this item in the buffer it was decoded from.
    public var offset: Int { encodedBytes.startIndex }

    /// Semantic equality of the values; the encodings may differ.
    public static func == (lhs: CBORNode, rhs: CBORNode) -> Bool { lhs.value == rhs.value }
    /// Hashes the value, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(value) }
}

/// The content of a CBOR data item. Containers hold ``CBORNode`` children, so every nested item
/// keeps its received bytes too.
public enum CBORValue: Sendable, Hashable {
    /// Major type 0.
    case unsignedInt(UInt64)
    /// Major type 1: the value is `-1 - n`.
    case negativeInt(UInt64)
    /// Major type 2. For an indefinite-length string, the concatenated chunks.
    case byteString(ArraySlice<UInt8>)
    /// Major type 3. Always valid UTF-8.
    case textString(String)
    /// Major type 4.
    case array([CBORNode])
    /// Major type 5, entries in received order, keys unique.
    case map(CBORMap)
    /// Major type 6.
    indirect case tagged(UInt64, CBORNode)
    /// Major type 7, simple values other than false, true, null and undefined.
    case simple(UInt8)
    case boolean(Bool)
    case null
    case undefined
    /// Half, single or double precision; the width is visible in the node's bytes.
    case float(Double)

    /// Data-model equality: strings compare bytewise, maps ignore entry order, and every NaN equals every NaN.
    public static func == (lhs: CBORValue, rhs: CBORValue) -> Bool {
        switch (lhs, rhs) {
        case let (.unsignedInt(a), .unsignedInt(b)), let (.negativeInt(a), .negativeInt(b)): return a == b
        case let (.byteString(a), .byteString(b)): return a.elementsEqual(b)
        case let (.textString(a), .textString(b)): return utf8Equal(a, b)
        case let (.array(a), .array(b)): return a == b
        case let (.map(a), .map(b)): return a == b
        case let (.tagged(t1, a), .tagged(t2, b)): return t1 == t2 && a == b
        case let (.simple(a), .simple(b)): return a == b
        case let (.boolean(a), .boolean(b)): return a == b
        case (.null, .null), (.undefined, .undefined): return true
        case let (.float(a), .float(b)): return a == b || (a.isNaN && b.isNaN)
        default: return false
        }
    }

    /// Hashes consistently with `==` (one hash for all NaNs, and for 0 and -0).
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .unsignedInt(let v):
            hasher.combine(0)
            hasher.combine(v)
        case .negativeInt(let v):
            hasher.combine(1)
            hasher.combine(v)
        case .byteString(let v):
            hasher.combine(2)
            hasher.combine(v.count)
            v.withUnsafeBytes { hasher.combine(bytes: $0) }
        case .textString(let v):
            hasher.combine(3)
            var copy = v
            copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        case .array(let v):
            hasher.combine(4)
            hasher.combine(v)
        case .map(let v):
            hasher.combine(5)
            hasher.combine(v)
        case .tagged(let t, let v):
            hasher.combine(6)
            hasher.combine(t)
            hasher.combine(v)
        case .simple(let v):
            hasher.combine(7)
            hasher.combine(v)
        case .boolean(let v):
            hasher.combine(8)
            hasher.combine(v)
        case .null: hasher.combine(9)
        case .undefined: hasher.combine(10)
        case .float(let v):
            hasher.combine(11)
            hasher.combine(v.isNaN ? Double.nan.bitPattern : (v == 0 ? 0 : v.bitPattern))
        }
    }

    var isString: Bool {
        switch self {
        case .byteString, .textString: return true
        default: return false
        }
    }

    /// A short name of the kind of item, for error messages ("text string", "map", "tag 24", ...).
    public var kindDescription: String {
        switch self {
        case .unsignedInt, .negativeInt: return "integer"
        case .byteString: return "byte string"
        case .textString: return "text string"
        case .array: return "array"
        case .map: return "map"
        case .tagged(let tag, _): return "tag \(tag)"
        case .simple(let v): return "simple(\(v))"
        case .boolean: return "boolean"
        case .null: return "null"
        case .undefined: return "undefined"
        case .float: return "float"
        }
    }
}

/// The entries of a CBOR map in the order they were received (or, for a built map, in
/// deterministic key order). Keys are unique: the decoder rejects duplicates.
public struct CBORMap: Sendable, Hashable, RandomAccessCollection {
    /// One key–value pair of a map.
    public struct Entry: Sendable, Hashable {
        /// The key, with its own encoding.
        public let key: CBORNode
        /// The value, with its own encoding.
        public let value: CBORNode
    }

    /// The entries, in received order (in deterministic key order for a built map).
    public let entries: [Entry]

    init(entries: [Entry]) { self.entries = entries }

    /// A map with no entries, for example an empty protected header.
    public static let empty = CBORMap(entries: [])

    /// The position of the first entry.
    public var startIndex: Int { entries.startIndex }
    /// The position after the last entry.
    public var endIndex: Int { entries.endIndex }
    /// The entry at a position, in the order of ``entries``.
    public subscript(position: Int) -> Entry { entries[position] }

    /// The value stored under a text key.
    public subscript(key: String) -> CBORNode? {
        for entry in entries {
            if case .textString(let text) = entry.key.value, utf8Equal(text, key) { return entry.value }
        }
        return nil
    }

    /// The value stored under an integer key (COSE headers and keys use these).
    public subscript(key: Int64) -> CBORNode? {
        for entry in entries where entry.key.integerValue == key { return entry.value }
        return nil
    }

    /// The value stored under an arbitrary key, compared semantically.
    public subscript(key: CBORNode) -> CBORNode? {
        for entry in entries where entry.key == key { return entry.value }
        return nil
    }

    /// Data-model equality: the same entries, in any order.
    public static func == (lhs: CBORMap, rhs: CBORMap) -> Bool {
        // The data model treats maps as unordered.
        guard lhs.entries.count == rhs.entries.count else { return false }
        if lhs.entries == rhs.entries { return true }
        let right = Set(rhs.entries)
        return lhs.entries.allSatisfy { right.contains($0) }
    }

    /// An order-independent hash, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        // Order-independent: combine per-entry hashes commutatively.
        var combined = 0
        for entry in entries { combined ^= entry.hashValue }
        hasher.combine(entries.count)
        hasher.combine(combined)
    }
}

/// Whether two strings have the same UTF-8 bytes (`==` on `String` compares canonical equivalence,
/// which is not what CBOR equality means).
@inline(__always)
func utf8Equal(_ lhs: String, _ rhs: String) -> Bool {
    let a = lhs.utf8, b = rhs.utf8
    guard a.count == b.count else { return false }
    if let result = a.withContiguousStorageIfAvailable({ pa in
        b.withContiguousStorageIfAvailable { pb in
            for i in 0..<pa.count where pa[i] != pb[i] { return false }
            return true
        }
    }), let result {
        return result
    }
    return a.elementsEqual(b)
}
