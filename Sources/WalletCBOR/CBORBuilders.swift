/// Building nodes in code. Every builder encodes its item once, with RFC 8949 §4.2.1 core
/// deterministic encoding (shortest heads, definite lengths, map keys sorted by their encoded bytes,
/// floats in the shortest width that keeps the value). Children are spliced in as their own
/// ``CBORNode/encodedBytes``: a decoded child keeps the bytes it was received with.
extension CBORNode {
    /// An integer item, with the shortest head.
    public static func int(_ value: Int) -> CBORNode { int(Int64(value)) }

    /// An unsigned integer item (major type 0), with the shortest head.
    public static func unsigned(_ value: UInt64) -> CBORNode {
        var out: [UInt8] = []
        CBORHead.write(major: 0, argument: value, into: &out)
        return CBORNode(value: .unsignedInt(value), encodedBytes: out[...])
    }

    /// An integer item: major type 0 when non-negative, major type 1 when negative.
    public static func int(_ value: Int64) -> CBORNode {
        if value >= 0 { return unsigned(UInt64(value)) }
        // -1 - n == value  =>  n == -1 - value, computed without overflow for Int64.min.
        let n = UInt64(-(value + 1))
        var out: [UInt8] = []
        CBORHead.write(major: 1, argument: n, into: &out)
        return CBORNode(value: .negativeInt(n), encodedBytes: out[...])
    }

    /// A negative integer given by its CBOR argument: the value is `-1 - argument`.
    public static func negative(argument: UInt64) -> CBORNode {
        var out: [UInt8] = []
        CBORHead.write(major: 1, argument: argument, into: &out)
        return CBORNode(value: .negativeInt(argument), encodedBytes: out[...])
    }

    /// A definite-length byte string holding a copy of `content`.
    public static func bytes<C: Collection<UInt8>>(_ content: C) -> CBORNode {
        var out: [UInt8] = []
        out.reserveCapacity(content.count + 9)
        CBORHead.write(major: 2, argument: UInt64(content.count), into: &out)
        let start = out.count
        out.append(contentsOf: content)
        return CBORNode(value: .byteString(out[start...]), encodedBytes: out[...])
    }

    /// A definite-length text string of the string's UTF-8 bytes.
    public static func text(_ text: String) -> CBORNode {
        var out: [UInt8] = []
        CBORHead.write(major: 3, argument: UInt64(text.utf8.count), into: &out)
        out.append(contentsOf: text.utf8)
        return CBORNode(value: .textString(text), encodedBytes: out[...])
    }

    /// A definite-length array of the items, each spliced in as its own ``encodedBytes``.
    public static func array(_ items: [CBORNode]) -> CBORNode {
        var out: [UInt8] = []
        out.reserveCapacity(items.reduce(9) { $0 + $1.encodedBytes.count })
        CBORHead.write(major: 4, argument: UInt64(items.count), into: &out)
        for item in items { out.append(contentsOf: item.encodedBytes) }
        return CBORNode(value: .array(items), encodedBytes: out[...])
    }

    /// A map with keys in deterministic order (bytewise lexicographic order of their encodings).
    /// Throws ``CBORError/Code/duplicateMapKey`` if two keys are equal.
    public static func map(_ pairs: [(CBORNode, CBORNode)]) throws(CBORError) -> CBORNode {
        let sorted = pairs.sorted { $0.0.encodedBytes.lexicographicallyPrecedes($1.0.encodedBytes) }
        var seen = Set<CBORNode>()
        for (key, _) in sorted where !seen.insert(key).inserted {
            throw CBORError(code: .duplicateMapKey, message: "map built with the same key twice")
        }
        var out: [UInt8] = []
        CBORHead.write(major: 5, argument: UInt64(sorted.count), into: &out)
        for (key, value) in sorted {
            out.append(contentsOf: key.encodedBytes)
            out.append(contentsOf: value.encodedBytes)
        }
        let entries = sorted.map { CBORMap.Entry(key: $0.0, value: $0.1) }
        return CBORNode(value: .map(CBORMap(entries: entries)), encodedBytes: out[...])
    }

    /// A map with text keys, in deterministic order.
    public static func map(_ pairs: KeyValuePairs<String, CBORNode>) throws(CBORError) -> CBORNode {
        try map(pairs.map { (CBORNode.text($0.key), $0.value) })
    }

    /// The item `content` under tag number `tag`.
    public static func tagged(_ tag: UInt64, _ content: CBORNode) -> CBORNode {
        var out: [UInt8] = []
        CBORHead.write(major: 6, argument: tag, into: &out)
        out.append(contentsOf: content.encodedBytes)
        return CBORNode(value: .tagged(tag, content), encodedBytes: out[...])
    }

    /// `#6.24(bstr .cbor item)`: the item's bytes (as received or as built) wrapped in a byte string
    /// and tagged 24.
    public static func embedded(_ item: CBORNode) -> CBORNode {
        tagged(24, bytes(item.encodedBytes))
    }

    /// The simple value `true` (0xf5) or `false` (0xf4).
    public static func bool(_ value: Bool) -> CBORNode {
        CBORNode(value: .boolean(value), encodedBytes: [value ? 0xf5 : 0xf4][...])
    }

    /// The simple value null (0xf6).
    public static let null = CBORNode(value: .null, encodedBytes: [0xf6][...])
    /// The simple value undefined (0xf7).
    public static let undefined = CBORNode(value: .undefined, encodedBytes: [0xf7][...])

    /// A simple value other than false/true/null/undefined (0...19 or 32...255).
    public static func simple(_ value: UInt8) throws(CBORError) -> CBORNode {
        switch value {
        case 0..<20: return CBORNode(value: .simple(value), encodedBytes: [0xe0 | value][...])
        case 32...255: return CBORNode(value: .simple(value), encodedBytes: [0xf8, value][...])
        default: throw CBORError(code: .invalidSimpleValue, message: "simple value \(value) is reserved")
        }
    }

    /// A float in the shortest of half, single and double precision that represents it exactly.
    /// NaN is always encoded as the half-precision quiet NaN 0xf97e00.
    public static func float(_ value: Double) -> CBORNode {
        CBORNode(value: .float(value.isNaN ? .nan : value), encodedBytes: CBORHead.shortestFloat(value)[...])
    }

    /// Re-encodes this item and everything in it with core deterministic encoding. Use this only to
    /// compare against the received bytes (for example, to warn about a non-deterministic encoding);
    /// never hash or sign the result in place of received bytes.
    public func deterministicallyReencoded() -> CBORNode {
        switch value {
        case .unsignedInt(let v): return .unsigned(v)
        case .negativeInt(let v): return .negative(argument: v)
        case .byteString(let v): return .bytes(v)
        case .textString(let v): return .text(v)
        case .array(let items): return .array(items.map { $0.deterministicallyReencoded() })
        case .map(let map):
            // Keys were unique when decoded and stay unique after re-encoding.
            return (try? .map(map.entries.map { ($0.key.deterministicallyReencoded(), $0.value.deterministicallyReencoded()) })) ?? self
        case .tagged(let tag, let content): return .tagged(tag, content.deterministicallyReencoded())
        case .simple, .boolean, .null, .undefined: return (try? Self.simpleNode(value)) ?? self
        case .float(let v): return .float(v)
        }
    }

    private static func simpleNode(_ value: CBORValue) throws(CBORError) -> CBORNode {
        switch value {
        case .simple(let v): return try simple(v)
        case .boolean(let v): return bool(v)
        case .null: return null
        default: return undefined
        }
    }

    /// Whether the received bytes are already the core deterministic encoding of this item.
    public var isDeterministicallyEncoded: Bool {
        deterministicallyReencoded().encodedBytes.elementsEqual(encodedBytes)
    }
}

/// Writing CBOR straight into a byte buffer, for structures that are built once to be signed or
/// hashed (Sig_structure, DeviceAuthenticationBytes). The heads are the same shortest forms the
/// ``CBORNode`` builders write, so the bytes are identical to building the nodes and taking
/// ``CBORNode/encodedBytes``, without the intermediate nodes and copies.
public enum CBORWriter {
    /// The length of the shortest head for an argument (1, 2, 3, 5 or 9 bytes).
    public static func headLength(_ argument: UInt64) -> Int {
        switch argument {
        case 0..<24: return 1
        case 24...0xff: return 2
        case 0x100...0xffff: return 3
        case 0x1_0000...0xffff_ffff: return 5
        default: return 9
        }
    }

    /// Appends the shortest head of a major type (0...7) with an argument.
    public static func appendHead(major: UInt8, argument: UInt64, to out: inout [UInt8]) {
        CBORHead.write(major: major, argument: argument, into: &out)
    }

    /// Appends a definite-length byte string.
    public static func appendBytes<C: Collection<UInt8>>(_ content: C, to out: inout [UInt8]) {
        CBORHead.write(major: 2, argument: UInt64(content.count), into: &out)
        out.append(contentsOf: content)
    }

    /// Appends a definite-length text string.
    public static func appendText(_ text: String, to out: inout [UInt8]) {
        CBORHead.write(major: 3, argument: UInt64(text.utf8.count), into: &out)
        out.append(contentsOf: text.utf8)
    }

    /// The encoded length of a byte or text string with `count` content bytes.
    public static func stringLength(_ count: Int) -> Int { headLength(UInt64(count)) + count }
}

enum CBORHead {
    static func write(major: UInt8, argument: UInt64, into out: inout [UInt8]) {
        let m = major << 5
        switch argument {
        case 0..<24:
            out.append(m | UInt8(argument))
        case 24...0xff:
            out.append(m | 24)
            out.append(UInt8(argument))
        case 0x100...0xffff:
            out.append(m | 25)
            out.append(UInt8(argument >> 8))
            out.append(UInt8(truncatingIfNeeded: argument))
        case 0x1_0000...0xffff_ffff:
            out.append(m | 26)
            for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift))) }
        default:
            out.append(m | 27)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: argument >> UInt64(shift))) }
        }
    }

    static func shortestFloat(_ value: Double) -> [UInt8] {
        if value.isNaN { return [0xf9, 0x7e, 0x00] }
        let single = Float(value)
        if Double(single) == value {
            if let half = exactHalfBits(single) {
                return [0xf9, UInt8(half >> 8), UInt8(truncatingIfNeeded: half)]
            }
            let bits = single.bitPattern
            return [0xfa] + (0..<4).map { UInt8(truncatingIfNeeded: bits >> UInt32(24 - 8 * $0)) }
        }
        let bits = value.bitPattern
        return [0xfb] + (0..<8).map { UInt8(truncatingIfNeeded: bits >> UInt64(56 - 8 * $0)) }
    }

    /// The binary16 encoding of a float if it represents the value exactly.
    static func exactHalfBits(_ value: Float) -> UInt16? {
        if value.isInfinite { return value < 0 ? 0xfc00 : 0x7c00 }
        let sign: UInt16 = value.sign == .minus ? 0x8000 : 0
        if value == 0 { return sign }
        let magnitude = value.magnitude
        let exponent = Int(magnitude.exponent)
        if exponent >= -14 && exponent <= 15 {
            // Normal half: 10 mantissa bits.
            let scaled = magnitude.significand * 1024  // in [1024, 2048)
            guard scaled == scaled.rounded() else { return nil }
            let mantissa = UInt16(scaled) - 1024
            return sign | UInt16(exponent + 15) << 10 | mantissa
        }
        if exponent < -14 && exponent >= -24 {
            // Subnormal half: value = m * 2^-24.
            let m = magnitude * 0x1p24
            guard m == m.rounded(), m < 1024 else { return nil }
            return sign | UInt16(m)
        }
        return nil
    }
}
