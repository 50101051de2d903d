/// Decodes RFC 8949 CBOR into a tree of ``CBORNode`` values that keep their received bytes.
///
/// The decoder accepts everything RFC 8949 calls well-formed (including indefinite-length strings,
/// arrays and maps, and non-preferred lengths), and enforces limits so that hostile input cannot cause
/// unbounded recursion or allocation:
/// - nesting depth (``Limits/maxDepth``),
/// - total number of items (``Limits/maxItems``),
/// - input size (``Limits/maxInputSize``),
/// - every declared length or count is checked against the bytes that remain before anything is
///   allocated.
///
/// Duplicate map keys and invalid UTF-8 in text strings are always rejected. With
/// ``decode(_:)`` the input must hold exactly one item; trailing bytes are an error.
public struct CBORDecoder: Sendable {
    public struct Limits: Sendable, Hashable {
        /// Maximum nesting of arrays, maps and tags. The top-level item is at depth 1.
        public var maxDepth: Int
        /// Maximum number of data items (every nested item and map key counts).
        public var maxItems: Int
        /// Maximum input length in bytes.
        public var maxInputSize: Int

        public init(maxDepth: Int = 64, maxItems: Int = 500_000, maxInputSize: Int = 16 * 1024 * 1024) {
            self.maxDepth = maxDepth
            self.maxItems = maxItems
            self.maxInputSize = maxInputSize
        }

        public static let `default` = Limits()
    }

    public var limits: Limits

    public init(limits: Limits = .default) {
        self.limits = limits
    }

    /// Decodes exactly one item; the whole input must be consumed.
    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORNode {
        try decode(bytes[...])
    }

    /// Decodes exactly one item from a slice; offsets in errors and nodes are indices of the slice's
    /// base buffer.
    public func decode(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> CBORNode {
        guard bytes.count <= limits.maxInputSize else {
            throw CBORError(code: .inputTooLarge, message: "input of \(bytes.count) bytes exceeds the limit of \(limits.maxInputSize)", offset: bytes.startIndex)
        }
        var parser = Parser(bytes: bytes, limits: limits)
        let node = try parser.parseItem(depth: 1)
        guard parser.position == bytes.endIndex else {
            throw CBORError(code: .trailingBytes, message: "\(bytes.endIndex - parser.position) bytes follow the top-level item", offset: parser.position)
        }
        return node
    }

    /// Decodes a sequence of items (RFC 8742 CBOR sequence) until the input is exhausted.
    public func decodeSequence(_ bytes: [UInt8]) throws(CBORError) -> [CBORNode] {
        guard bytes.count <= limits.maxInputSize else {
            throw CBORError(code: .inputTooLarge, message: "input of \(bytes.count) bytes exceeds the limit of \(limits.maxInputSize)", offset: 0)
        }
        var parser = Parser(bytes: bytes[...], limits: limits)
        var items: [CBORNode] = []
        while parser.position < bytes.endIndex {
            items.append(try parser.parseItem(depth: 1))
        }
        return items
    }
}

extension CBORDecoder {
    /// A convenience for `CBORDecoder().decode(bytes)`.
    public static func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORNode {
        try CBORDecoder().decode(bytes)
    }

    public static func decode(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> CBORNode {
        try CBORDecoder().decode(bytes)
    }
}

private struct Parser {
    let bytes: ArraySlice<UInt8>
    let limits: CBORDecoder.Limits
    var position: Int
    var itemCount = 0

    init(bytes: ArraySlice<UInt8>, limits: CBORDecoder.Limits) {
        self.bytes = bytes
        self.limits = limits
        self.position = bytes.startIndex
    }

    var remaining: Int { bytes.endIndex - position }

    private struct Head {
        let start: Int
        let major: UInt8
        let additional: UInt8
        /// The argument; `nil` for the indefinite-length marker (additional information 31).
        let argument: UInt64?
    }

    mutating func readByte() throws(CBORError) -> UInt8 {
        guard position < bytes.endIndex else {
            throw CBORError(code: .truncated, message: "input ends inside an item", offset: position)
        }
        let byte = bytes[position]
        position += 1
        return byte
    }

    private mutating func readHead() throws(CBORError) -> Head {
        let start = position
        let initial = try readByte()
        let major = initial >> 5
        let additional = initial & 0x1f
        let argument: UInt64?
        switch additional {
        case 0..<24:
            argument = UInt64(additional)
        case 24, 25, 26, 27:
            let width = 1 << Int(additional - 24)
            guard remaining >= width else {
                throw CBORError(code: .truncated, message: "input ends inside an item head", offset: start)
            }
            var value: UInt64 = 0
            for _ in 0..<width { value = (value << 8) | UInt64(bytes[position]); position += 1 }
            argument = value
        case 31:
            argument = nil
        default:
            throw CBORError(code: .malformedHead, message: "reserved additional information \(additional) in initial byte 0x\(hexByte(initial))", offset: start)
        }
        return Head(start: start, major: major, additional: additional, argument: argument)
    }

    private mutating func countItem(at offset: Int) throws(CBORError) {
        itemCount += 1
        guard itemCount <= limits.maxItems else {
            throw CBORError(code: .itemLimitExceeded, message: "more than \(limits.maxItems) data items", offset: offset)
        }
    }

    private func node(_ value: CBORValue, from start: Int) -> CBORNode {
        CBORNode(value: value, encodedBytes: bytes[start..<position])
    }

    mutating func parseItem(depth: Int) throws(CBORError) -> CBORNode {
        guard depth <= limits.maxDepth else {
            throw CBORError(code: .depthLimitExceeded, message: "nesting deeper than \(limits.maxDepth) levels", offset: position)
        }
        let head = try readHead()
        try countItem(at: head.start)
        switch head.major {
        case 0, 1:
            guard let argument = head.argument else {
                throw CBORError(code: .malformedHead, message: "integers have no indefinite-length form", offset: head.start)
            }
            return node(head.major == 0 ? .unsignedInt(argument) : .negativeInt(argument), from: head.start)
        case 2:
            // Evaluate the content first: `node(_:from:)` reads `position`, which the content advances.
            let content = try stringContent(head: head, major: 2)
            return node(.byteString(content), from: head.start)
        case 3:
            let content = try stringContent(head: head, major: 3)
            let text = try validatedText(content, offset: head.start)
            return node(.textString(text), from: head.start)
        case 4:
            var items: [CBORNode] = []
            if let count = head.argument {
                try checkCount(count, minimumBytesEach: 1, head: head)
                items.reserveCapacity(Int(count))
                for _ in 0..<count { items.append(try parseItem(depth: depth + 1)) }
            } else {
                while try !atBreak() { items.append(try parseItem(depth: depth + 1)) }
            }
            return node(.array(items), from: head.start)
        case 5:
            var entries: [CBORMap.Entry] = []
            // Two keys are equal in the data model exactly when their deterministic encodings are.
            // Keys already in preferred form (definite-length strings and integers, the usual case) are
            // compared by their received bytes without re-encoding; small maps compare pairwise and
            // large maps use a set, so duplicate detection stays linear.
            var keyBytes: [ArraySlice<UInt8>] = []
            var keySet: Set<ArraySlice<UInt8>>?
            func add(_ key: CBORNode, _ value: CBORNode) throws(CBORError) {
                let canonical = Self.hasPreferredScalarEncoding(key) ? key.encodedBytes : key.deterministicallyReencoded().encodedBytes
                let duplicate: Bool
                if keySet != nil {
                    duplicate = !keySet!.insert(canonical).inserted
                } else {
                    duplicate = keyBytes.contains { $0.elementsEqual(canonical) }
                    keyBytes.append(canonical)
                    if keyBytes.count > 16 { keySet = Set(keyBytes) }
                }
                guard !duplicate else {
                    throw CBORError(code: .duplicateMapKey, message: "map key appears twice", offset: key.offset)
                }
                entries.append(.init(key: key, value: value))
            }
            if let count = head.argument {
                try checkCount(count, minimumBytesEach: 2, head: head)
                entries.reserveCapacity(Int(count))
                for _ in 0..<count {
                    let key = try parseItem(depth: depth + 1)
                    let value = try parseItem(depth: depth + 1)
                    try add(key, value)
                }
            } else {
                while try !atBreak() {
                    let key = try parseItem(depth: depth + 1)
                    guard position < bytes.endIndex, bytes[position] != 0xff else {
                        throw CBORError(code: position < bytes.endIndex ? .unexpectedBreak : .truncated, message: "indefinite-length map ends after a key without a value", offset: position)
                    }
                    let value = try parseItem(depth: depth + 1)
                    try add(key, value)
                }
            }
            return node(.map(CBORMap(entries: entries)), from: head.start)
        case 6:
            guard let tag = head.argument else {
                throw CBORError(code: .malformedHead, message: "tags have no indefinite-length form", offset: head.start)
            }
            let content = try parseItem(depth: depth + 1)
            return node(.tagged(tag, content), from: head.start)
        default: // 7
            let value = try simpleOrFloat(head: head)
            return node(value, from: head.start)
        }
    }

    /// Whether a key is an integer or a definite-length string whose head has the preferred (shortest)
    /// length: two such keys are equal in the data model exactly when their encodings are equal.
    static func hasPreferredScalarEncoding(_ node: CBORNode) -> Bool {
        let argument: UInt64
        switch node.value {
        case .unsignedInt(let v), .negativeInt(let v): argument = v
        case .byteString(let b):
            guard node.encodedBytes.first.map({ $0 & 0x1f != 31 }) == true else { return false }
            argument = UInt64(b.count)
        case .textString(let t):
            guard node.encodedBytes.first.map({ $0 & 0x1f != 31 }) == true else { return false }
            argument = UInt64(t.utf8.count)
        default:
            return false
        }
        let headLength = node.encodedBytes.count - (node.value.isString ? Int(argument) : 0)
        let preferred: Int
        switch argument {
        case 0..<24: preferred = 1
        case 24...0xff: preferred = 2
        case 0x100...0xffff: preferred = 3
        case 0x1_0000...0xffff_ffff: preferred = 5
        default: preferred = 9
        }
        return headLength == preferred
    }

    /// Consumes a break code if one is next. Throws if the input ends first.
    private mutating func atBreak() throws(CBORError) -> Bool {
        guard position < bytes.endIndex else {
            throw CBORError(code: .truncated, message: "indefinite-length item has no break code", offset: position)
        }
        if bytes[position] == 0xff {
            position += 1
            return true
        }
        return false
    }

    private func checkCount(_ count: UInt64, minimumBytesEach: UInt64, head: Head) throws(CBORError) {
        // Each element needs at least one byte (two for a map entry), so a count that cannot fit in the
        // remaining input is rejected before anything is allocated.
        let (needed, overflow) = count.multipliedReportingOverflow(by: minimumBytesEach)
        guard !overflow, needed <= UInt64(remaining) else {
            throw CBORError(code: .lengthExceedsInput, message: "declared \(count) elements but only \(remaining) bytes remain", offset: head.start)
        }
    }

    private mutating func stringContent(head: Head, major: UInt8) throws(CBORError) -> ArraySlice<UInt8> {
        if let length = head.argument {
            guard length <= UInt64(remaining) else {
                throw CBORError(code: .lengthExceedsInput, message: "declared length \(length) but only \(remaining) bytes remain", offset: head.start)
            }
            let start = position
            position += Int(length)
            return bytes[start..<position]
        }
        // Indefinite length: definite-length chunks of the same major type until a break.
        var joined: [UInt8] = []
        while try !atBreak() {
            let chunkHead = try readHead()
            try countItem(at: chunkHead.start)
            guard chunkHead.major == major, let length = chunkHead.argument else {
                throw CBORError(code: .invalidChunk, message: "a chunk of an indefinite-length string must be a definite-length string of the same type", offset: chunkHead.start)
            }
            guard length <= UInt64(remaining) else {
                throw CBORError(code: .lengthExceedsInput, message: "declared chunk length \(length) but only \(remaining) bytes remain", offset: chunkHead.start)
            }
            let chunk = bytes[position..<(position + Int(length))]
            if major == 3 { _ = try validatedText(chunk, offset: chunkHead.start) }
            joined.append(contentsOf: chunk)
            position += Int(length)
        }
        return joined[...]
    }

    private func validatedText(_ content: ArraySlice<UInt8>, offset: Int) throws(CBORError) -> String {
        guard let text = String(validating: content, as: UTF8.self) else {
            throw CBORError(code: .invalidUTF8, message: "text string is not valid UTF-8", offset: offset)
        }
        return text
    }

    private func simpleOrFloat(head: Head) throws(CBORError) -> CBORValue {
        switch head.additional {
        case 0..<20: return .simple(head.additional)
        case 20: return .boolean(false)
        case 21: return .boolean(true)
        case 22: return .null
        case 23: return .undefined
        case 24:
            let value = UInt8(head.argument!)
            guard value >= 32 else {
                throw CBORError(code: .invalidSimpleValue, message: "simple value \(value) must use the one-byte form", offset: head.start)
            }
            return .simple(value)
        case 25: return .float(Double(halfBitsToFloat(UInt16(head.argument!))))
        case 26: return .float(Double(Float(bitPattern: UInt32(head.argument!))))
        case 27: return .float(Double(bitPattern: head.argument!))
        default: // 31
            throw CBORError(code: .unexpectedBreak, message: "break code outside an indefinite-length item", offset: head.start)
        }
    }
}

func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
}

/// IEEE 754 binary16 to binary32, done by hand so it works on every platform.
func halfBitsToFloat(_ bits: UInt16) -> Float {
    let sign: Float = (bits & 0x8000) != 0 ? -1 : 1
    let exponent = Int((bits >> 10) & 0x1f)
    let mantissa = Float(bits & 0x3ff)
    switch exponent {
    case 0: return sign * mantissa * 0x1p-24
    case 31: return mantissa == 0 ? sign * .infinity : .nan
    default: return sign * (1 + mantissa / 1024) * Float(sign: .plus, exponent: exponent - 15, significand: 1)
    }
}
