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
        return try Parser.withParser(bytes, limits: limits) { (parser) throws(CBORError) in
            let node = try parser.parseItem(depth: 1)
            guard parser.position == bytes.endIndex else {
                throw CBORError(code: .trailingBytes, message: "\(bytes.endIndex - parser.position) bytes follow the top-level item", offset: parser.position)
            }
            return node
        }
    }

    /// Decodes a sequence of items (RFC 8742 CBOR sequence) until the input is exhausted.
    public func decodeSequence(_ bytes: [UInt8]) throws(CBORError) -> [CBORNode] {
        guard bytes.count <= limits.maxInputSize else {
            throw CBORError(code: .inputTooLarge, message: "input of \(bytes.count) bytes exceeds the limit of \(limits.maxInputSize)", offset: 0)
        }
        return try Parser.withParser(bytes[...], limits: limits) { (parser) throws(CBORError) in
            var items: [CBORNode] = []
            while parser.position < bytes.endIndex {
                items.append(try parser.parseItem(depth: 1))
            }
            return items
        }
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
    /// The input: nodes keep slices of it.
    let bytes: ArraySlice<UInt8>
    /// The same bytes, read through a pointer while parsing (`bytes` stays alive for the whole parse).
    let buffer: UnsafeBufferPointer<UInt8>
    /// `bytes.startIndex`: positions are indices of the slice's base buffer.
    let base: Int
    /// `bytes.endIndex`, kept as a plain integer: reading it through the parse pointer then never
    /// touches the slice's buffer reference.
    let end: Int
    let limits: CBORDecoder.Limits
    var position: Int
    var itemCount = 0

    private init(bytes: ArraySlice<UInt8>, buffer: UnsafeBufferPointer<UInt8>, limits: CBORDecoder.Limits) {
        self.bytes = bytes
        self.buffer = buffer
        self.base = bytes.startIndex
        self.end = bytes.endIndex
        self.limits = limits
        self.position = bytes.startIndex
    }

    /// Runs `body` with a parser over `bytes`; the pointer it reads through is valid only inside.
    static func withParser<R>(_ bytes: ArraySlice<UInt8>, limits: CBORDecoder.Limits, _ body: (inout Parser) throws(CBORError) -> R) throws(CBORError) -> R {
        let result: Result<R, CBORError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: bytes, buffer: buffer, limits: limits)
            do throws(CBORError) { return .success(try body(&parser)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The byte at an index of the base buffer (the caller checked it is before `bytes.endIndex`).
    @inline(__always)
    func byte(at index: Int) -> UInt8 { buffer[index - base] }

    var remaining: Int { end - position }

    private struct Head {
        let start: Int
        let major: UInt8
        let additional: UInt8
        /// The argument; `nil` for the indefinite-length marker (additional information 31).
        let argument: UInt64?
    }

    mutating func readByte() throws(CBORError) -> UInt8 {
        guard position < end else {
            throw CBORError(code: .truncated, message: "input ends inside an item", offset: position)
        }
        let byte = self.byte(at: position)
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
            for _ in 0..<width { value = (value << 8) | UInt64(byte(at: position)); position += 1 }
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
            if let length = head.argument {
                // Definite length (the usual case): validated and converted in place, no slice.
                guard length <= UInt64(remaining) else {
                    throw CBORError(code: .lengthExceedsInput, message: "declared length \(length) but only \(remaining) bytes remain", offset: head.start)
                }
                let start = position
                position += Int(length)
                let text = try validatedText(UnsafeBufferPointer(rebasing: buffer[(start - base)..<(position - base)]), offset: head.start)
                return node(.textString(text), from: head.start)
            }
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
            var keys = MapKeyTracker()
            if let count = head.argument {
                try checkCount(count, minimumBytesEach: 2, head: head)
                entries.reserveCapacity(Int(count))
                for _ in 0..<count {
                    let keyStart = position
                    let key = try parseItem(depth: depth + 1)
                    try Self.checkMapKey(key)
                    let keyEnd = position
                    let value = try parseItem(depth: depth + 1)
                    try keys.add(key, at: keyStart..<keyEnd, entries: entries, in: self)
                    entries.append(CBORMap.Entry(key: key, value: value))
                }
            } else {
                while try !atBreak() {
                    let keyStart = position
                    let key = try parseItem(depth: depth + 1)
                    try Self.checkMapKey(key)
                    let keyEnd = position
                    guard position < end, byte(at: position) != 0xff else {
                        throw CBORError(code: position < end ? .unexpectedBreak : .truncated, message: "indefinite-length map ends after a key without a value", offset: position)
                    }
                    let value = try parseItem(depth: depth + 1)
                    try keys.add(key, at: keyStart..<keyEnd, entries: entries, in: self)
                    entries.append(CBORMap.Entry(key: key, value: value))
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

    /// Whether the item whose encoding starts at `start` is an integer or a definite-length string whose
    /// head has the preferred (shortest) length: two such keys are equal in the data model exactly when
    /// their encodings are. Read from the head (the item was decoded already, so it is complete).
    func hasPreferredScalarEncoding(at start: Int) -> Bool {
        let initial = byte(at: start)
        let major = initial >> 5
        let additional = initial & 0x1f
        guard major <= 3 else { return false }
        let argument: UInt64
        let headLength: Int
        switch additional {
        case 0..<24:
            return true
        case 24, 25, 26, 27:
            let width = 1 << Int(additional - 24)
            var value: UInt64 = 0
            for i in 1...width { value = (value << 8) | UInt64(byte(at: start + i)) }
            argument = value
            headLength = 1 + width
        default:
            return false
        }
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

    /// Whether two ranges of the input hold the same bytes.
    @inline(__always)
    func inputBytesEqual(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
        guard a.count == b.count else { return false }
        var i = a.lowerBound - base, j = b.lowerBound - base
        let end = a.upperBound - base
        while i < end {
            if buffer[i] != buffer[j] { return false }
            i += 1; j += 1
        }
        return true
    }

    /// The bytes of a range of the input, through the parse pointer.
    func inputBytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[(range.lowerBound - base)..<(range.upperBound - base)])
    }

    /// Consumes a break code if one is next. Throws if the input ends first.
    private mutating func atBreak() throws(CBORError) -> Bool {
        guard position < end else {
            throw CBORError(code: .truncated, message: "indefinite-length item has no break code", offset: position)
        }
        if byte(at: position) == 0xff {
            position += 1
            return true
        }
        return false
    }

    /// Map keys are integers, strings, floats and simple values. An array, map or tag as a key is
    /// refused: COSE, CWT and ISO 18013-5 use none, and checking such keys for duplicates means
    /// re-encoding each one, at every level it is nested in (found by fuzzing: 900 bytes of map keys
    /// nested in map keys took seconds).
    static func checkMapKey(_ key: CBORNode) throws(CBORError) {
        switch key.value {
        case .array, .map, .tagged:
            throw CBORError(code: .unsupportedMapKey, message: "a map key is \(key.value.kindDescription); only integers, strings, floats and simple values are accepted as keys", offset: key.offset)
        default:
            return
        }
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
        let text: String? = content.withUnsafeBufferPointer { buffer in
            UTF8Validation.isValid(buffer) ? String(decoding: buffer, as: UTF8.self) : nil
        }
        guard let text else {
            throw CBORError(code: .invalidUTF8, message: "text string is not valid UTF-8", offset: offset)
        }
        return text
    }

    private func validatedText(_ content: UnsafeBufferPointer<UInt8>, offset: Int) throws(CBORError) -> String {
        if let known = KnownText.string(for: content) { return known }
        guard UTF8Validation.isValid(content) else {
            throw CBORError(code: .invalidUTF8, message: "text string is not valid UTF-8", offset: offset)
        }
        return String(decoding: content, as: UTF8.self)
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

/// Duplicate-key detection for one map being decoded.
///
/// Two keys are equal in the data model exactly when their deterministic encodings are. Keys already
/// in preferred form (definite-length strings and integers, the usual case) are compared by their
/// received bytes, read in place, without re-encoding. Once a key that is not in preferred form
/// appears, the map switches to canonical encodings (re-encoding such keys). Large maps (more than
/// 16 keys) use a set, so duplicate detection stays linear.
private struct MapKeyTracker {
    /// While every key is in preferred form and the map is small, earlier keys are read from
    /// `entries` (their received bytes are canonical) and nothing is stored here.
    private var rangeSet: Set<InputKeyBytes>?
    /// After a key not in preferred form: the canonical encodings of all keys so far.
    private var canonicalKeys: [ArraySlice<UInt8>]?
    private var keySet: Set<CanonicalKeyBytes>?

    /// Throws ``CBORError/Code/duplicateMapKey`` if `key` (encoded at `range` of the input) equals an
    /// earlier key of the map, whose entries so far are `entries`.
    mutating func add(_ key: CBORNode, at range: Range<Int>, entries: [CBORMap.Entry], in parser: Parser) throws(CBORError) {
        let preferred = parser.hasPreferredScalarEncoding(at: range.lowerBound)
        let duplicate: Bool
        if canonicalKeys == nil && keySet == nil && preferred {
            if rangeSet != nil {
                duplicate = !rangeSet!.insert(InputKeyBytes(bytes: parser.inputBytes(range))).inserted
            } else {
                duplicate = entries.withUnsafeBufferPointer { earlier in
                    for i in 0..<earlier.count where parser.inputBytesEqual(earlier[i].key.encodedBytes.indices, range) { return true }
                    return false
                }
                if entries.count + 1 > 16 {
                    var set = Set(entries.map { InputKeyBytes(bytes: parser.inputBytes($0.key.encodedBytes.indices)) })
                    set.insert(InputKeyBytes(bytes: parser.inputBytes(range)))
                    rangeSet = set
                }
            }
        } else {
            if canonicalKeys == nil && keySet == nil {
                // Every earlier key was in preferred form: its received bytes are canonical.
                let earlier = entries.map(\.key.encodedBytes)
                if rangeSet != nil { keySet = Set(earlier.map { CanonicalKeyBytes(bytes: $0) }) } else { canonicalKeys = earlier }
                rangeSet = nil
            }
            let canonical = preferred ? key.encodedBytes : key.deterministicallyReencoded().encodedBytes
            if keySet != nil {
                duplicate = !keySet!.insert(CanonicalKeyBytes(bytes: canonical)).inserted
            } else {
                duplicate = canonicalKeys!.contains { bytesEqual($0, canonical) }
                canonicalKeys!.append(canonical)
                if canonicalKeys!.count > 16 {
                    keySet = Set(canonicalKeys!.map { CanonicalKeyBytes(bytes: $0) })
                    canonicalKeys = nil
                }
            }
        }
        guard !duplicate else {
            throw CBORError(code: .duplicateMapKey, message: "map key appears twice", offset: key.offset)
        }
    }
}

/// Key bytes read in place from the input being parsed (valid only during the parse).
private struct InputKeyBytes: Hashable {
    let bytes: UnsafeRawBufferPointer

    static func == (lhs: InputKeyBytes, rhs: InputKeyBytes) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        for i in 0..<lhs.bytes.count where lhs.bytes[i] != rhs.bytes[i] { return false }
        return true
    }

    func hash(into hasher: inout Hasher) { hasher.combine(bytes: bytes) }
}

/// Encoded key bytes hashed as a block (the generic `ArraySlice` hashing feeds the hasher one byte
/// at a time).
private struct CanonicalKeyBytes: Hashable {
    let bytes: ArraySlice<UInt8>

    static func == (lhs: CanonicalKeyBytes, rhs: CanonicalKeyBytes) -> Bool { bytesEqual(lhs.bytes, rhs.bytes) }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

/// Byte-wise equality of two slices.
@inline(__always)
func bytesEqual(_ lhs: ArraySlice<UInt8>, _ rhs: ArraySlice<UInt8>) -> Bool {
    guard lhs.count == rhs.count else { return false }
    return lhs.withUnsafeBufferPointer { a in
        rhs.withUnsafeBufferPointer { b in
            for i in 0..<a.count where a[i] != b[i] { return false }
            return true
        }
    }
}

/// Long map keys that recur in every ISO 18013-5 response (IssuerSignedItem, namespaces, MSO). A
/// text of more than 15 bytes is a heap allocation as a `String`; these come from static storage
/// instead. Shorter strings are stored inline anyway.
enum KnownText {
    static let strings: [String] = [
        "elementIdentifier", "org.iso.18013.5.1", "org.iso.18013.5.1.mDL", "keyAuthorizations",
        "MobileSecurityObject", "DeviceAuthentication", "org.iso.23220.photoid.1", "org.iso.23220.1",
    ]
    private static let table: [(count: Int, bytes: [UInt8], string: String)] = strings.map { ($0.utf8.count, Array($0.utf8), $0) }

    static func string(for content: UnsafeBufferPointer<UInt8>) -> String? {
        let count = content.count
        guard count > 15 else { return nil }
        for entry in table where entry.count == count {
            if entry.bytes.withUnsafeBufferPointer({ known in
                for i in 0..<count where known[i] != content[i] { return false }
                return true
            }) { return entry.string }
        }
        return nil
    }
}

/// UTF-8 well-formedness (Unicode 15, Table 3-7): no overlong forms, no surrogates, nothing above
/// U+10FFFF, no truncated sequences. The same rule as the standard library's validating initializers.
enum UTF8Validation {
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        var i = 0
        while i < count {
            let b0 = bytes[i]
            if b0 < 0x80 { i += 1; continue }
            if b0 < 0xc2 { return false }
            if b0 < 0xe0 {
                guard i + 1 < count, bytes[i + 1] & 0xc0 == 0x80 else { return false }
                i += 2
            } else if b0 < 0xf0 {
                guard i + 2 < count else { return false }
                let b1 = bytes[i + 1]
                switch b0 {
                case 0xe0: guard b1 >= 0xa0 && b1 <= 0xbf else { return false }
                case 0xed: guard b1 >= 0x80 && b1 <= 0x9f else { return false }
                default: guard b1 & 0xc0 == 0x80 else { return false }
                }
                guard bytes[i + 2] & 0xc0 == 0x80 else { return false }
                i += 3
            } else if b0 < 0xf5 {
                guard i + 3 < count else { return false }
                let b1 = bytes[i + 1]
                switch b0 {
                case 0xf0: guard b1 >= 0x90 && b1 <= 0xbf else { return false }
                case 0xf4: guard b1 >= 0x80 && b1 <= 0x8f else { return false }
                default: guard b1 & 0xc0 == 0x80 else { return false }
                }
                guard bytes[i + 2] & 0xc0 == 0x80, bytes[i + 3] & 0xc0 == 0x80 else { return false }
                i += 4
            } else {
                return false
            }
        }
        return true
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

// MARK: - Reading a text-keyed map in place

/// The value of one map entry, read in place by a ``CBORDecoder/readTextKeyedMap(_:maxEntries:_:)``
/// callback. Each accessor consumes the value when it is of the requested kind and returns nil
/// (consuming nothing) when it is of another kind; a value of the requested kind that is malformed
/// or breaks a limit makes the whole read fail. Valid only inside the callback.
public struct CBORValueReader {
    fileprivate let parser: UnsafeMutablePointer<Parser>
    /// The depth of the value this reader reads.
    fileprivate let depth: Int
    fileprivate var consumed = false
    fileprivate var failed = false

    private func peek(major: UInt8) -> PeekedHead? {
        guard !consumed, !failed, depth <= parser.pointee.limits.maxDepth else { return nil }
        return parser.pointee.peekDefiniteHead(major: major)
    }

    /// The number of entries of the definite-length map at the reader, without reading it (nil for
    /// anything else, and for a count the remaining input cannot hold: each entry takes at least two
    /// bytes). For sizing what the entries are read into; the read itself checks every limit. A
    /// declared count is the input's word: size with `min(count, what the read accepts)`.
    public func definiteMapCount() -> Int? {
        guard let head = peek(major: 5), let count = head.argument, count <= UInt64(parser.pointee.remaining) / 2 else { return nil }
        return Int(count)
    }

    /// The number of items of the definite-length array at the reader, without reading it (nil when
    /// the remaining input cannot hold that many items).
    public func definiteArrayCount() -> Int? {
        guard let head = peek(major: 4), let count = head.argument, count <= UInt64(parser.pointee.remaining) else { return nil }
        return Int(count)
    }

    /// An unsigned integer (major type 0).
    public mutating func unsignedInt() -> UInt64? {
        guard let head = peek(major: 0) else { return nil }
        guard parser.pointee.consume(head) else { failed = true; return nil }
        consumed = true
        return head.argument
    }

    /// A definite-length byte string, as a slice of the input.
    public mutating func byteString() -> ArraySlice<UInt8>? {
        guard let head = peek(major: 2) else { return nil }
        guard let range = parser.pointee.consumeString(head) else { failed = true; return nil }
        consumed = true
        return parser.pointee.bytes[range]
    }

    /// A definite-length, valid UTF-8 text string.
    public mutating func textString() -> String? {
        guard let head = peek(major: 3) else { return nil }
        guard let range = parser.pointee.consumeString(head), let text = parser.pointee.text(in: range) else { failed = true; return nil }
        consumed = true
        return text
    }

    /// A definite-length map of at most `maxEntries` entries whose keys are text strings in preferred
    /// encoding, read like ``CBORDecoder/readTextKeyedMap(_:maxEntries:_:)``. False when the value is
    /// not such a map or the read fails (then the whole read fails).
    public mutating func textKeyedMap(maxEntries: Int = 16, _ entry: (UnsafeRawBufferPointer, inout CBORValueReader) -> Bool) -> Bool {
        guard peek(major: 5) != nil else { failed = true; return false }
        let read = Parser.readMap(parser, depth: depth, maxEntries: maxEntries, textKeys: true) { key, _, reader in entry(key, &reader) }
        guard read else { failed = true; return false }
        consumed = true
        return true
    }

    /// A definite-length map of at most `maxEntries` entries whose keys are unsigned integers in
    /// preferred encoding. False when the value is not such a map or the read fails.
    public mutating func unsignedIntKeyedMap(maxEntries: Int = 256, _ entry: (UInt64, inout CBORValueReader) -> Bool) -> Bool {
        guard peek(major: 5) != nil else { failed = true; return false }
        let read = Parser.readMap(parser, depth: depth, maxEntries: maxEntries, textKeys: false) { _, key, reader in entry(key, &reader) }
        guard read else { failed = true; return false }
        consumed = true
        return true
    }

    /// A definite-length array of at most `maxItems` items: `item` is called with a reader at each
    /// item in turn and may read it (an item it does not read is decoded and dropped). False when the
    /// value is not such an array, an item breaks a rule, or `item` returns false (then the whole
    /// read fails).
    public mutating func array(maxItems: Int = 256, _ item: (inout CBORValueReader) -> Bool) -> Bool {
        guard let head = peek(major: 4), let count = head.argument, count <= UInt64(maxItems),
              count <= UInt64(parser.pointee.remaining - head.length), parser.pointee.consume(head) else { failed = true; return false }
        for _ in 0..<count {
            var reader = CBORValueReader(parser: parser, depth: depth + 1)
            guard item(&reader), !reader.failed else { failed = true; return false }
            if !reader.consumed {
                guard reader.node() != nil else { failed = true; return false }
            }
        }
        consumed = true
        return true
    }

    /// `#6.24(bstr .cbor T)` with a definite-length byte string: the tag-24 item's bytes as received,
    /// the index where its byte string starts, and the embedded bytes. Nil for any other item: nothing
    /// is consumed unless it is tag 24 with other content, which fails the whole read.
    public mutating func embeddedItem() -> (tagged: ArraySlice<UInt8>, contentStart: Int, inner: ArraySlice<UInt8>)? {
        guard let tag = peek(major: 6), tag.argument == 24, depth + 1 <= parser.pointee.limits.maxDepth else { return nil }
        let start = tag.start
        guard parser.pointee.consume(tag) else { failed = true; return nil }
        guard let content = parser.pointee.peekDefiniteHead(major: 2) else { failed = true; return nil }
        guard let range = parser.pointee.consumeString(content) else { failed = true; return nil }
        consumed = true
        let bytes = parser.pointee.bytes
        return (bytes[start..<range.upperBound], content.start, bytes[range])
    }

    /// Reads the value with `body` (which must consume it) and returns the value's bytes as received.
    public mutating func capturing(_ body: (inout CBORValueReader) -> Bool) -> ArraySlice<UInt8>? {
        guard !consumed, !failed else { return nil }
        let start = parser.pointee.position
        guard body(&self), consumed, !failed else { failed = true; return nil }
        return parser.pointee.bytes[start..<parser.pointee.position]
    }

    /// Any item, decoded into a node with the decoder's rules and limits.
    public mutating func node() -> CBORNode? {
        guard !consumed, !failed else { return nil }
        do {
            let node = try parser.pointee.parseItem(depth: depth)
            consumed = true
            return node
        } catch {
            failed = true
            return nil
        }
    }
}

extension CBORDecoder {
    /// Reads `bytes` as exactly one definite-length map of at most `maxEntries` entries whose keys are
    /// text strings in preferred encoding, without building nodes for the map or its keys: `entry` is
    /// called with each key's UTF-8 bytes (valid UTF-8) and a reader at its value, and may read the
    /// value (a value it does not read is decoded and dropped). The same limits and rules apply as for
    /// ``decode(_:)`` (depth, item count, UTF-8, unique keys, no trailing bytes).
    ///
    /// Returns false when the input is anything else, breaks a rule, or `entry` returns false: the
    /// caller then decodes generically, which gives the precise error (or handles the unusual form).
    /// It never accepts input that ``decode(_:)`` rejects.
    public func readTextKeyedMap(_ bytes: ArraySlice<UInt8>, maxEntries: Int = 16,
                                 _ entry: (UnsafeRawBufferPointer, inout CBORValueReader) -> Bool) -> Bool {
        read(bytes) { $0.textKeyedMap(maxEntries: maxEntries, entry) }
    }

    /// Reads `bytes` as exactly one item with `read` (which must consume it), in place, under the same
    /// rules and limits as ``decode(_:)``. False when `read` returns false or anything is left over.
    public func read(_ bytes: ArraySlice<UInt8>, _ read: (inout CBORValueReader) -> Bool) -> Bool {
        guard bytes.count <= limits.maxInputSize else { return false }
        let result: Result<Bool, CBORError> = Result { () throws(CBORError) -> Bool in
            try Parser.withParser(bytes, limits: limits) { (parser: inout Parser) throws(CBORError) -> Bool in
                withUnsafeMutablePointer(to: &parser) { pointer in
                    var reader = CBORValueReader(parser: pointer, depth: 1)
                    return read(&reader) && reader.consumed && !reader.failed && pointer.pointee.position == bytes.endIndex
                }
            }
        }
        return (try? result.get()) ?? false
    }
}

extension Parser {
    /// Reads a definite-length map at `depth` whose keys are text strings (`textKeys`) or unsigned
    /// integers, in preferred encoding, at most `maxEntries` (at most 256) of them. See
    /// ``CBORDecoder/readTextKeyedMap(_:maxEntries:_:)``.
    fileprivate static func readMap(_ parser: UnsafeMutablePointer<Parser>, depth: Int, maxEntries: Int, textKeys: Bool,
                                    _ entry: (UnsafeRawBufferPointer, UInt64, inout CBORValueReader) -> Bool) -> Bool {
        guard maxEntries <= 256, depth + 1 <= parser.pointee.limits.maxDepth,
              let head = parser.pointee.peekDefiniteHead(major: 5), let count = head.argument, parser.pointee.consume(head),
              count <= UInt64(maxEntries), UInt64(parser.pointee.remaining) >= 2 * count else { return false }
        return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: max(maxEntries, 1)) { (keys: UnsafeMutableBufferPointer<Range<Int>>) -> Bool in
            for index in 0..<Int(count) {
                guard let keyHead = parser.pointee.peekDefiniteHead(major: textKeys ? 3 : 0),
                      parser.pointee.hasPreferredScalarEncoding(at: keyHead.start) else { return false }
                let keyRange: Range<Int>
                if textKeys {
                    guard let range = parser.pointee.consumeString(keyHead) else { return false }
                    keyRange = range
                } else {
                    guard parser.pointee.consume(keyHead) else { return false }
                    keyRange = keyHead.start..<parser.pointee.position
                }
                // Keys in preferred form are equal exactly when their bytes are.
                for earlier in 0..<index where parser.pointee.inputBytesEqual(keys[earlier], keyRange) { return false }
                keys[index] = keyRange
                var reader = CBORValueReader(parser: parser, depth: depth + 1)
                // Text keys are passed as their bytes, integer keys as their value.
                let keyBytes = parser.pointee.inputBytes(keyRange)
                if textKeys {
                    guard UTF8Validation.isValid(keyBytes.assumingMemoryBound(to: UInt8.self)) else { return false }
                }
                guard entry(keyBytes, keyHead.argument!, &reader) else { return false }
                guard !reader.failed else { return false }
                if !reader.consumed {
                    guard reader.node() != nil else { return false }
                }
            }
            return true
        }
    }
}

extension Parser {
    /// The head at the current position if it is a definite-length head of `major` whose argument
    /// (for strings, the length) fits; nothing is consumed.
    fileprivate mutating func peekDefiniteHead(major: UInt8) -> PeekedHead? {
        guard position < end else { return nil }
        let initial = byte(at: position)
        guard initial >> 5 == major else { return nil }
        let additional = initial & 0x1f
        switch additional {
        case 0..<24:
            return PeekedHead(start: position, length: 1, argument: UInt64(additional))
        case 24, 25, 26, 27:
            let width = 1 << Int(additional - 24)
            guard remaining > width else { return nil }
            var value: UInt64 = 0
            for i in 1...width { value = (value << 8) | UInt64(byte(at: position + i)) }
            return PeekedHead(start: position, length: 1 + width, argument: value)
        default:
            return nil
        }
    }

    /// Consumes a peeked head, counting it as an item. False when the item limit is exceeded.
    fileprivate mutating func consume(_ head: PeekedHead) -> Bool {
        itemCount += 1
        guard itemCount <= limits.maxItems else { return false }
        position = head.start + head.length
        return true
    }

    /// Consumes a peeked string head and its content; the content's range, or nil if it does not fit.
    fileprivate mutating func consumeString(_ head: PeekedHead) -> Range<Int>? {
        guard head.argument! <= UInt64(remaining - head.length), consume(head) else { return nil }
        let start = position
        position += Int(head.argument!)
        return start..<position
    }

    /// The text of a range of the input, or nil if it is not valid UTF-8.
    fileprivate mutating func text(in range: Range<Int>) -> String? {
        try? validatedText(UnsafeBufferPointer(rebasing: buffer[(range.lowerBound - base)..<(range.upperBound - base)]), offset: range.lowerBound)
    }
}

/// A head read without consuming it.
private struct PeekedHead {
    let start: Int
    let length: Int
    let argument: UInt64?
}
