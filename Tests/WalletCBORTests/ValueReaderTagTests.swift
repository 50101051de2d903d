import Testing
import WalletCBOR

/// `CBORValueReader.tagged(_:)` and `byteStringRange()`: what they read, and that a refusal fails the
/// whole read as the other accessors do.
@Suite struct ValueReaderTagTests {
    // {"t": 1(5), "b": h'0102', "u": 0("x"), "n": 7}
    let bytes: ArraySlice<UInt8> = [
        0xA4, 0x61, 0x74, 0xC1, 0x05,
        0x61, 0x62, 0x42, 0x01, 0x02,
        0x61, 0x75, 0xC0, 0x61, 0x78,
        0x61, 0x6E, 0x07,
    ]

    @Test func readsTagsAndByteStringRanges() {
        var tags: [UInt64] = []
        var seconds: UInt64?
        var range: Range<Int>?
        let read = CBORDecoder().readTextKeyedMap(bytes) { key, value in
            switch String(decoding: key, as: UTF8.self) {
            case "t":
                return value.tagged { tag, content in
                    tags.append(tag)
                    seconds = content.unsignedInt()
                    return seconds != nil
                }
            case "b":
                range = value.byteStringRange()
                return range != nil
            case "u":
                // Content left unread is decoded and dropped.
                return value.tagged { tag, _ in
                    tags.append(tag)
                    return true
                }
            default:
                return true
            }
        }
        #expect(read)
        #expect(tags == [1, 0])
        #expect(seconds == 5)
        #expect(range.map { Array(bytes[$0]) } == [0x01, 0x02])
    }

    @Test func aValueOfAnotherKindFailsTheRead() {
        // "n" is not a tag; "t" is not a byte string.
        #expect(!CBORDecoder().readTextKeyedMap(bytes) { key, value in key.first != 0x6E || value.tagged { _, _ in true } })
        #expect(!CBORDecoder().readTextKeyedMap(bytes) { key, value in key.first != 0x74 || value.byteStringRange() != nil })
        // The content's reader refusing fails the read too.
        #expect(!CBORDecoder().readTextKeyedMap(bytes) { key, value in key.first != 0x74 || value.tagged { _, _ in false } })
    }

    @Test func tagContentKeepsTheDepthLimit() {
        // [1(5)] at depth 1 puts the tag's content at depth 3: a limit of 2 refuses it.
        let nested: ArraySlice<UInt8> = [0xA1, 0x61, 0x74, 0xC1, 0x05]
        let shallow = CBORDecoder(limits: .init(maxDepth: 2))
        #expect(!shallow.readTextKeyedMap(nested) { _, value in value.tagged { _, content in content.unsignedInt() != nil } })
        #expect((try? shallow.decode(nested)) == nil)
        #expect(
            CBORDecoder(limits: .init(maxDepth: 3)).readTextKeyedMap(nested) { _, value in value.tagged { _, content in content.unsignedInt() != nil }
            })
    }
}
