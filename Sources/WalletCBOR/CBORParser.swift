// The generic parser behind CBORDecoder: heads, items, strings, limits and errors.

struct Parser {
    /// The input: nodes keep slices of it.
    let bytes: ArraySlice<UInt8>
    /// The same bytes, read through a pointer while parsing (`bytes` stays alive for the whole parse).
    let buffer: UnsafeBufferPointer<UInt8>
    /// `bytes.startIndex`: positions are indices of the slice's base buffer.
    let base: Int
    /// `bytes.endIndex`, kept as a plain integer: reading it through the parse pointer then never
    /// touches the slice's buffer reference. Narrowed while an embedded item is read in place
    /// (``CBORValueReader/readEmbedded(_:limits:_:)``).
    var end: Int
    var limits: CBORDecoder.Limits
    let knownTexts: CBORKnownTexts
    var position: Int
    var itemCount = 0

    init(bytes: ArraySlice<UInt8>, buffer: UnsafeBufferPointer<UInt8>, limits: CBORDecoder.Limits, knownTexts: CBORKnownTexts) {
        self.bytes = bytes
        self.buffer = buffer
        self.base = bytes.startIndex
        self.end = bytes.endIndex
        self.limits = limits
        self.knownTexts = knownTexts
        self.position = bytes.startIndex
    }

    /// Runs `body` with a parser over `bytes`; the pointer it reads through is valid only inside.
    static func withParser<R>(
        _ bytes: ArraySlice<UInt8>, limits: CBORDecoder.Limits, knownTexts: CBORKnownTexts,
        _ body: (inout Parser) throws(CBORError) -> R
    ) throws(CBORError) -> R {
        let result: Result<R, CBORError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(bytes: bytes, buffer: buffer, limits: limits, knownTexts: knownTexts)
            do throws(CBORError) { return .success(try body(&parser)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// The byte at an index of the base buffer (the caller checked it is before `bytes.endIndex`).
    @inline(__always)
    func byte(at index: Int) -> UInt8 { buffer[index - base] }

    var remaining: Int { end - position }

    struct Head {
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

    mutating func readHead() throws(CBORError) -> Head {
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
            for _ in 0..<width {
                value = (value << 8) | UInt64(byte(at: position))
                position += 1
            }
            argument = value
        case 31:
            argument = nil
        default:
            throw CBORError(
                code: .malformedHead, message: "reserved additional information \(additional) in initial byte 0x\(hexByte(initial))", offset: start)
        }
        return Head(start: start, major: major, additional: additional, argument: argument)
    }

    mutating func countItem(at offset: Int) throws(CBORError) {
        itemCount += 1
        guard itemCount <= limits.maxItems else {
            throw CBORError(code: .itemLimitExceeded, message: "more than \(limits.maxItems) data items", offset: offset)
        }
    }

    func node(_ value: CBORValue, from start: Int) -> CBORNode {
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
                let start = try skipContent(length, head: head)
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
                        throw CBORError(
                            code: position < end ? .unexpectedBreak : .truncated, message: "indefinite-length map ends after a key without a value",
                            offset: position)
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
        default:  // 7
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
            i += 1
            j += 1
        }
        return true
    }

    /// The bytes of a range of the input, through the parse pointer.
    func inputBytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(buffer)[(range.lowerBound - base)..<(range.upperBound - base)])
    }

    /// Consumes a break code if one is next. Throws if the input ends first.
    mutating func atBreak() throws(CBORError) -> Bool {
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
            throw CBORError(
                code: .unsupportedMapKey,
                message: "a map key is \(key.value.kindDescription); only integers, strings, floats and simple values are accepted as keys",
                offset: key.offset)
        default:
            return
        }
    }

    func checkCount(_ count: UInt64, minimumBytesEach: UInt64, head: Head) throws(CBORError) {
        // Each element needs at least one byte (two for a map entry), so a count that cannot fit in the
        // remaining input is rejected before anything is allocated.
        let (needed, overflow) = count.multipliedReportingOverflow(by: minimumBytesEach)
        guard !overflow, needed <= UInt64(remaining) else {
            throw CBORError(code: .lengthExceedsInput, message: "declared \(count) elements but only \(remaining) bytes remain", offset: head.start)
        }
    }

    /// Moves past the `length` content bytes of a definite-length string and returns where they
    /// start; throws when fewer remain.
    @inline(__always)
    mutating func skipContent(_ length: UInt64, head: Head) throws(CBORError) -> Int {
        guard length <= UInt64(remaining) else {
            throw CBORError(code: .lengthExceedsInput, message: "declared length \(length) but only \(remaining) bytes remain", offset: head.start)
        }
        let start = position
        position += Int(length)
        return start
    }

    mutating func stringContent(head: Head, major: UInt8) throws(CBORError) -> ArraySlice<UInt8> {
        if let length = head.argument {
            let start = try skipContent(length, head: head)
            return bytes[start..<position]
        }
        // Indefinite length: definite-length chunks of the same major type until a break.
        var joined: [UInt8] = []
        while try !atBreak() {
            let chunkHead = try readHead()
            try countItem(at: chunkHead.start)
            guard chunkHead.major == major, let length = chunkHead.argument else {
                throw CBORError(
                    code: .invalidChunk, message: "a chunk of an indefinite-length string must be a definite-length string of the same type",
                    offset: chunkHead.start)
            }
            guard length <= UInt64(remaining) else {
                throw CBORError(
                    code: .lengthExceedsInput, message: "declared chunk length \(length) but only \(remaining) bytes remain", offset: chunkHead.start)
            }
            let chunk = bytes[position..<(position + Int(length))]
            if major == 3 { _ = try validatedText(chunk, offset: chunkHead.start) }
            joined.append(contentsOf: chunk)
            position += Int(length)
        }
        return joined[...]
    }

    func validatedText(_ content: ArraySlice<UInt8>, offset: Int) throws(CBORError) -> String {
        let text: String? = content.withUnsafeBufferPointer { buffer in
            UTF8Validation.isValid(buffer) ? String(decoding: buffer, as: UTF8.self) : nil
        }
        guard let text else {
            throw CBORError(code: .invalidUTF8, message: "text string is not valid UTF-8", offset: offset)
        }
        return text
    }

    func validatedText(_ content: UnsafeBufferPointer<UInt8>, offset: Int) throws(CBORError) -> String {
        if let known = knownTexts.string(for: content) { return known }
        guard UTF8Validation.isValid(content) else {
            throw CBORError(code: .invalidUTF8, message: "text string is not valid UTF-8", offset: offset)
        }
        return String(decoding: content, as: UTF8.self)
    }

    func simpleOrFloat(head: Head) throws(CBORError) -> CBORValue {
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
        default:  // 31
            throw CBORError(code: .unexpectedBreak, message: "break code outside an indefinite-length item", offset: head.start)
        }
    }
}
