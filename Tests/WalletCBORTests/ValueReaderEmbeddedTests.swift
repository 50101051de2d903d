import Testing
import WalletCBOR

/// `CBORValueReader.readEmbedded(_:limits:_:)` and the accessors the element reader uses
/// (`majorType`, `negativeInt()`, `simpleValue()`, `embeddedItemRanges()`).
@Suite struct ValueReaderEmbeddedTests {
    /// `{"e": 24(<<{"a": -3, "b": true}>>), "n": 7}`
    static let outer: [UInt8] = {
        let inner: [UInt8] = [0xA2, 0x61, 0x61, 0x22, 0x61, 0x62, 0xF5]
        return [0xA2, 0x61, 0x65, 0xD8, 0x18, 0x40 | UInt8(inner.count)] + inner + [0x61, 0x6E, 0x07]
    }()

    /// Reads the outer map: the embedded item's fields on the same parser, then the key after it.
    static func read(
        _ bytes: [UInt8], limits: CBORDecoder.Limits = .default, decoder: CBORDecoder = CBORDecoder()
    ) -> (negative: UInt64?, simple: UInt8?, after: UInt64?, tagged: Range<Int>?)? {
        var negative: UInt64?, simple: UInt8?, after: UInt64?, tagged: Range<Int>?
        let read = decoder.readTextKeyedMap(bytes[...]) { key, value in
            switch key.first {
            case 0x65:
                guard let ranges = value.embeddedItemRanges() else { return false }
                tagged = ranges.tagged
                return value.readEmbedded(ranges.inner, limits: limits) { item in
                    item.textKeyedMap { key, field in
                        #expect(field.majorType == (key.first == 0x61 ? 1 : 7))
                        if key.first == 0x61 { negative = field.negativeInt() } else { simple = field.simpleValue() }
                        return true
                    }
                }
            default:
                after = value.unsignedInt()
                return after != nil
            }
        }
        return read ? (negative, simple, after, tagged) : nil
    }

    @Test func readsTheEmbeddedItemInPlaceAndGoesOnAfterIt() throws {
        let read = try #require(Self.read(Self.outer))
        #expect(read.negative == 2)
        #expect(read.simple == 21)
        #expect(read.after == 7)
        #expect(read.tagged == 3..<(6 + 7))
    }

    @Test func theEmbeddedItemHasItsOwnLimits() {
        // Depth: the embedded map's values sit at depth 2 of their own read, whatever the outer depth.
        #expect(Self.read(Self.outer, limits: .init(maxDepth: 2)) != nil)
        #expect(Self.read(Self.outer, limits: .init(maxDepth: 1)) == nil)
        // Items: five in the embedded map (the map, two keys, two values).
        #expect(Self.read(Self.outer, limits: .init(maxItems: 5)) != nil)
        #expect(Self.read(Self.outer, limits: .init(maxItems: 4)) == nil)
        // Size: the embedded bytes alone.
        #expect(Self.read(Self.outer, limits: .init(maxInputSize: 7)) != nil)
        #expect(Self.read(Self.outer, limits: .init(maxInputSize: 6)) == nil)
        // And the outer read keeps its own count: the embedded items do not use it up.
        #expect(Self.read(Self.outer, decoder: CBORDecoder(limits: .init(maxItems: 7))) != nil)
    }

    @Test func theEmbeddedItemMustFillItsBytes() {
        // One byte more inside the byte string (a second item, 0x00, after the map).
        var bytes = Self.outer
        bytes[5] += 1
        bytes.insert(0x00, at: 6 + 7)
        #expect(Self.read(bytes) == nil)
        #expect(throws: CBORError.self) { _ = try CBORDecoder().decode(Array(bytes[6..<(6 + 8)])) }
    }

    @Test func theAccessorsTakeOnlyTheirKinds() {
        // A float is not a one-byte simple value, and a positive integer is not a negative one:
        // nothing is consumed, so the entry is left to be decoded and dropped.
        var kinds: [UInt8?] = []
        let read = CBORDecoder().readTextKeyedMap([0xA2, 0x61, 0x66, 0xF9, 0x3C, 0x00, 0x61, 0x69, 0x05]) { _, value in
            kinds.append(value.majorType)
            return value.simpleValue() == nil && value.negativeInt() == nil
        }
        #expect(read)
        #expect(kinds == [7, 0])
    }
}

extension ValueReaderEmbeddedTests {
    @Test func textStringBytesAreValidatedAndNotCopiedIntoAString() {
        // {"d": "2024-01-01T00:00:00Z"}
        let text = Array("2024-01-01T00:00:00Z".utf8)
        let good: [UInt8] = [0xA1, 0x61, 0x64, 0x60 | UInt8(text.count)] + text
        var seen: [UInt8] = []
        #expect(
            CBORDecoder().readTextKeyedMap(good[...]) { _, value in
                value.withTextString { seen = Array($0) } != nil
            })
        #expect(seen == text)
        // Invalid UTF-8 fails the whole read; another kind is left unread.
        var bad = good
        bad[5] = 0xff
        #expect(!CBORDecoder().readTextKeyedMap(bad[...]) { _, value in value.withTextString { _ in () } != nil || true })
        #expect((try? CBORDecoder().decode(bad)) == nil)
        let number: [UInt8] = [0xA1, 0x61, 0x64, 0x05]
        #expect(CBORDecoder().readTextKeyedMap(number[...]) { _, value in value.withTextString { _ in () } == nil })
    }
}
