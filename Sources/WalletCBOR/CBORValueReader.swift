// MARK: - Reading a text-keyed map in place

/// The value of one map entry, read in place by a ``CBORDecoder/readTextKeyedMap(_:maxEntries:_:)``
/// callback. Each accessor consumes the value when it is of the requested kind and returns nil
/// (consuming nothing) when it is of another kind; a value of the requested kind that is malformed
/// or breaks a limit makes the whole read fail. Valid only inside the callback.
public struct CBORValueReader {
    let parser: UnsafeMutablePointer<Parser>
    /// The depth of the value this reader reads.
    let depth: Int
    var consumed = false
    var failed = false

    func peek(major: UInt8) -> PeekedHead? {
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
    public mutating func unsignedInt() -> UInt64? { headArgument(major: 0) }

    /// The argument of the head of `major` at the reader, which is consumed (the item has no content);
    /// with `oneByte`, only a head without argument bytes. Nil for another kind, nothing consumed.
    private mutating func headArgument(major: UInt8, oneByte: Bool = false) -> UInt64? {
        guard let head = peek(major: major), !oneByte || head.length == 1 else { return nil }
        guard parser.pointee.consume(head) else {
            failed = true
            return nil
        }
        consumed = true
        return head.argument
    }

    /// The major type (0 to 7) of the value at the reader, without reading it; nil once it was read
    /// or at the end of the input.
    public var majorType: UInt8? {
        guard !consumed, !failed, depth <= parser.pointee.limits.maxDepth, parser.pointee.position < parser.pointee.end else { return nil }
        return parser.pointee.byte(at: parser.pointee.position) >> 5
    }

    /// The whole input the reader reads (its indices are those of every range the reader returns).
    public var input: ArraySlice<UInt8> { parser.pointee.bytes }

    /// A negative integer (major type 1), as its argument `n` (the integer is `-1 - n`).
    public mutating func negativeInt() -> UInt64? { headArgument(major: 1) }

    /// A one-byte simple value (major type 7 with additional information 0 to 23: false is 20, true
    /// 21, null 22, undefined 23). Nil for floats and anything else.
    public mutating func simpleValue() -> UInt8? { headArgument(major: 7, oneByte: true).map { UInt8($0) } }

    /// `#6.24(bstr .cbor T)` with a definite-length byte string, as ranges of ``input`` (no slices):
    /// the whole tag-24 item, where its byte string starts, and the embedded bytes. Nil for any other
    /// item, as ``embeddedItem()``.
    public mutating func embeddedItemRanges() -> (tagged: Range<Int>, contentStart: Int, inner: Range<Int>)? {
        guard let tag = peek(major: 6), tag.argument == 24, depth + 1 <= parser.pointee.limits.maxDepth else { return nil }
        guard parser.pointee.consume(tag), let content = parser.pointee.peekDefiniteHead(major: 2),
            let range = parser.pointee.consumeString(content)
        else {
            failed = true
            return nil
        }
        consumed = true
        return (tag.start..<range.upperBound, content.start, range)
    }

    /// A definite-length byte string, as a slice of the input.
    public mutating func byteString() -> ArraySlice<UInt8>? {
        byteStringRange().map { parser.pointee.bytes[$0] }
    }

    /// A definite-length byte string's content, as indices of the input's base buffer (the caller
    /// slices the input it holds once, instead of the reader making a slice).
    public mutating func byteStringRange() -> Range<Int>? {
        guard let head = peek(major: 2) else { return nil }
        guard let range = parser.pointee.consumeString(head) else {
            failed = true
            return nil
        }
        consumed = true
        return range
    }

    /// A definite-length, valid UTF-8 text string.
    public mutating func textString() -> String? {
        guard let head = peek(major: 3) else { return nil }
        guard let range = parser.pointee.consumeString(head), let text = parser.pointee.text(in: range) else {
            failed = true
            return nil
        }
        consumed = true
        return text
    }

    /// A definite-length, valid UTF-8 text string given to `body` as its bytes, without a `String`
    /// (for text read once, such as a date); nil when the value is of another kind.
    public mutating func withTextString<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        guard let head = peek(major: 3) else { return nil }
        guard let range = parser.pointee.consumeString(head) else {
            failed = true
            return nil
        }
        let bytes = parser.pointee.inputBytes(range).assumingMemoryBound(to: UInt8.self)
        guard UTF8Validation.isValid(bytes) else {
            failed = true
            return nil
        }
        consumed = true
        return body(bytes)
    }

    /// A definite-length map of at most `maxEntries` entries whose keys are text strings in preferred
    /// encoding, read like ``CBORDecoder/readTextKeyedMap(_:maxEntries:_:)``. False when the value is
    /// not such a map or the read fails (then the whole read fails).
    public mutating func textKeyedMap(maxEntries: Int = 16, _ entry: (UnsafeRawBufferPointer, inout CBORValueReader) -> Bool) -> Bool {
        guard peek(major: 5) != nil else {
            failed = true
            return false
        }
        let read = Parser.readMap(parser, depth: depth, maxEntries: maxEntries, textKeys: true) { key, _, reader in entry(key, &reader) }
        guard read else {
            failed = true
            return false
        }
        consumed = true
        return true
    }

    /// A definite-length map of at most `maxEntries` entries whose keys are unsigned integers in
    /// preferred encoding. False when the value is not such a map or the read fails.
    public mutating func unsignedIntKeyedMap(maxEntries: Int = 256, _ entry: (UInt64, inout CBORValueReader) -> Bool) -> Bool {
        guard peek(major: 5) != nil else {
            failed = true
            return false
        }
        let read = Parser.readMap(parser, depth: depth, maxEntries: maxEntries, textKeys: false) { _, key, reader in entry(key, &reader) }
        guard read else {
            failed = true
            return false
        }
        consumed = true
        return true
    }

    /// A definite-length array of at most `maxItems` items: `item` is called with a reader at each
    /// item in turn and may read it (an item it does not read is decoded and dropped). False when the
    /// value is not such an array, an item breaks a rule, or `item` returns false (then the whole
    /// read fails).
    public mutating func array(maxItems: Int = 256, _ item: (inout CBORValueReader) -> Bool) -> Bool {
        guard let head = peek(major: 4), let count = head.argument, count <= UInt64(maxItems),
            count <= UInt64(parser.pointee.remaining - head.length), parser.pointee.consume(head)
        else {
            failed = true
            return false
        }
        for _ in 0..<count {
            var reader = CBORValueReader(parser: parser, depth: depth + 1)
            guard item(&reader), !reader.failed else {
                failed = true
                return false
            }
            if !reader.consumed {
                guard reader.node() != nil else {
                    failed = true
                    return false
                }
            }
        }
        consumed = true
        return true
    }

    /// A tag and its content: `content` is called with the tag number and a reader at the content, and
    /// may read it (content it does not read is decoded and dropped). False when the value is not a
    /// tag, the content breaks a rule, or `content` returns false (then the whole read fails).
    public mutating func tagged(_ content: (UInt64, inout CBORValueReader) -> Bool) -> Bool {
        guard let head = peek(major: 6), let tag = head.argument, parser.pointee.consume(head) else {
            failed = true
            return false
        }
        var reader = CBORValueReader(parser: parser, depth: depth + 1)
        guard content(tag, &reader), !reader.failed, reader.consumed || reader.node() != nil else {
            failed = true
            return false
        }
        consumed = true
        return true
    }

    /// `#6.24(bstr .cbor T)` with a definite-length byte string: the tag-24 item's bytes as received,
    /// the index where its byte string starts, and the embedded bytes. Nil for any other item: nothing
    /// is consumed unless it is tag 24 with other content, which fails the whole read.
    public mutating func embeddedItem() -> (tagged: ArraySlice<UInt8>, contentStart: Int, inner: ArraySlice<UInt8>)? {
        guard let ranges = embeddedItemRanges() else { return nil }
        let bytes = parser.pointee.bytes
        return (bytes[ranges.tagged], ranges.contentStart, bytes[ranges.inner])
    }

    /// Reads `range`, a part of the input such as the content of a tag-24 item just read (see
    /// ``embeddedItemRanges()``), as exactly one item with `read`, on the same parser: as
    /// `CBORDecoder(limits: limits).read(input[range], read)` would, with its own depth, item count
    /// and size limits, but without a decoder, a parser or a slice of its own. The reader's own
    /// position is unchanged. False when `read` returns false, the item breaks a rule or does not
    /// fill the range.
    public func readEmbedded(_ range: Range<Int>, limits: CBORDecoder.Limits, _ read: (inout CBORValueReader) -> Bool) -> Bool {
        guard !failed, range.count <= limits.maxInputSize, range.lowerBound >= parser.pointee.bytes.startIndex,
            range.upperBound <= parser.pointee.end
        else { return false }
        let saved = (parser.pointee.position, parser.pointee.end, parser.pointee.limits, parser.pointee.itemCount)
        parser.pointee.position = range.lowerBound
        parser.pointee.end = range.upperBound
        parser.pointee.limits = limits
        parser.pointee.itemCount = 0
        defer { (parser.pointee.position, parser.pointee.end, parser.pointee.limits, parser.pointee.itemCount) = saved }
        var reader = CBORValueReader(parser: parser, depth: 1)
        return read(&reader) && reader.consumed && !reader.failed && parser.pointee.position == range.upperBound
    }

    /// Reads the value with `body` (which must consume it) and returns the value's bytes as received.
    public mutating func capturing(_ body: (inout CBORValueReader) -> Bool) -> ArraySlice<UInt8>? {
        guard !consumed, !failed else { return nil }
        let start = parser.pointee.position
        guard body(&self), consumed, !failed else {
            failed = true
            return nil
        }
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
    public func readTextKeyedMap(
        _ bytes: ArraySlice<UInt8>, maxEntries: Int = 16,
        _ entry: (UnsafeRawBufferPointer, inout CBORValueReader) -> Bool
    ) -> Bool {
        read(bytes) { $0.textKeyedMap(maxEntries: maxEntries, entry) }
    }

    /// Reads `bytes` as exactly one item with `read` (which must consume it), in place, under the same
    /// rules and limits as ``decode(_:)``. False when `read` returns false or anything is left over.
    public func read(_ bytes: ArraySlice<UInt8>, _ read: (inout CBORValueReader) -> Bool) -> Bool {
        guard bytes.count <= limits.maxInputSize else { return false }
        let result: Result<Bool, CBORError> = Result { () throws(CBORError) -> Bool in
            try Parser.withParser(bytes, limits: limits, knownTexts: knownTexts) { (parser: inout Parser) throws(CBORError) -> Bool in
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
    static func readMap(
        _ parser: UnsafeMutablePointer<Parser>, depth: Int, maxEntries: Int, textKeys: Bool,
        _ entry: (UnsafeRawBufferPointer, UInt64, inout CBORValueReader) -> Bool
    ) -> Bool {
        guard maxEntries <= 256, depth + 1 <= parser.pointee.limits.maxDepth,
            let head = parser.pointee.peekDefiniteHead(major: 5), let count = head.argument, parser.pointee.consume(head),
            count <= UInt64(maxEntries), UInt64(parser.pointee.remaining) >= 2 * count
        else { return false }
        // Sized by the map's own count (at most `maxEntries`): a few entries' ranges stay on the stack,
        // where room for `maxEntries` of them would be a heap allocation per map.
        return withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: max(Int(count), 1)) {
            (keys: UnsafeMutableBufferPointer<Range<Int>>) -> Bool in
            for index in 0..<Int(count) {
                guard let keyHead = parser.pointee.peekDefiniteHead(major: textKeys ? 3 : 0),
                    parser.pointee.hasPreferredScalarEncoding(at: keyHead.start)
                else { return false }
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
    mutating func peekDefiniteHead(major: UInt8) -> PeekedHead? {
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
    mutating func consume(_ head: PeekedHead) -> Bool {
        itemCount += 1
        guard itemCount <= limits.maxItems else { return false }
        position = head.start + head.length
        return true
    }

    /// Consumes a peeked string head and its content; the content's range, or nil if it does not fit.
    mutating func consumeString(_ head: PeekedHead) -> Range<Int>? {
        guard head.argument! <= UInt64(remaining - head.length), consume(head) else { return nil }
        let start = position
        position += Int(head.argument!)
        return start..<position
    }

    /// The text of a range of the input, or nil if it is not valid UTF-8.
    mutating func text(in range: Range<Int>) -> String? {
        try? validatedText(UnsafeBufferPointer(rebasing: buffer[(range.lowerBound - base)..<(range.upperBound - base)]), offset: range.lowerBound)
    }
}

/// A head read without consuming it.
struct PeekedHead {
    let start: Int
    let length: Int
    let argument: UInt64?
}
