import Testing
import WalletCBOR
import WalletVerifierTestSupport

/// The decoder's and writer's fast paths give exactly what the general paths give.
@Suite struct FastPathTests {
    /// Text strings are accepted exactly when the standard library's validating initializer accepts
    /// them, and decode to the same string.
    @Test func textValidationAgreesWithTheStandardLibrary() throws {
        var random = SeededGenerator(seed: 18_013)
        // Lead bytes around every boundary of Table 3-7, followed by continuation-ish bytes.
        let interesting: [UInt8] = [
            0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xec, 0xed, 0xee,
            0xef, 0xf0, 0xf1, 0xf3, 0xf4, 0xf5, 0xff,
        ]
        for round in 0..<40_000 {
            // Up to 23 bytes, so that ASCII runs fill the eight-byte words the validator skips at once;
            // every other round is mostly ASCII, so the first non-ASCII byte falls at any position.
            let length = Int(random.next() % 24)
            let mostlyASCII = round % 2 == 0
            var content: [UInt8] = []
            for _ in 0..<length {
                let pick = random.next()
                if mostlyASCII, pick % 8 != 0 {
                    content.append(UInt8(truncatingIfNeeded: pick >> 8) & 0x7f)
                    continue
                }
                content.append(pick % 3 == 0 ? interesting[Int(pick / 3 % UInt64(interesting.count))] : UInt8(truncatingIfNeeded: pick >> 8))
            }
            let expected = String(validating: content, as: UTF8.self)
            let encoded = [0x60 | UInt8(content.count)] + content
            do {
                let node = try CBORDecoder.decode(encoded)
                #expect(expected != nil, "round \(round): \(content) decoded but is not valid UTF-8")
                #expect(node.textValue.map { Array($0.utf8) } == content, "round \(round)")
            } catch {
                #expect(expected == nil, "round \(round): \(content) rejected: \(error)")
                #expect(error.code == .invalidUTF8)
            }
        }
    }

    @Test(arguments: [
        "elementIdentifier", "org.iso.18013.5.1", "org.iso.18013.5.1.mDL", "elementIdentifieR", "org.iso.18013.5.2", "sixteen-bytes-xx",
        "ünïcödé-ünïcödé-ü",
    ])
    func longTextDecodesToItsBytes(_ text: String) throws {
        let known = CBORKnownTexts(["elementIdentifier", "org.iso.18013.5.1", "org.iso.18013.5.1.mDL", "sixteen-bytes-xy"])
        // A key's bytes as the in-place reader passes them, with and without a table.
        for table in [known, .none] {
            #expect(Array(text.utf8).withUnsafeBytes { table.text(utf8: $0) }.utf8.elementsEqual(text.utf8))
        }
        for decoder in [CBORDecoder(), CBORDecoder(knownTexts: known)] {
            let node = try decoder.decode(Array(CBORNode.text(text).encodedBytes))
            #expect(node.textValue.map { Array($0.utf8) } == Array(text.utf8))
            let map = try decoder.decode(Array(CBORNode.map([(.text(text), .int(1))]).encodedBytes)).mapValue
            #expect(map?[text]?.integerValue == 1)
            var inPlace: String?
            let bytes = Array(try CBORNode.map([(.text("k"), .text(text))]).encodedBytes)
            let read = decoder.readTextKeyedMap(bytes[...]) { _, value in
                inPlace = value.textString()
                return inPlace != nil
            }
            #expect(read)
            #expect(inPlace == text)
        }
    }

    /// Duplicate keys are found in small and large maps, in preferred and other forms, and whether
    /// the first key in another form comes before or after the map grows past the set threshold.
    @Test func duplicateKeysAreFoundInEveryMode() throws {
        func map(_ keys: [[UInt8]]) -> [UInt8] {
            var out: [UInt8] = [0xbf]
            for key in keys { out += key + [0xf6] }
            return out + [0xff]
        }
        func preferred(_ n: UInt8) -> [UInt8] { n < 24 ? [n] : [0x18, n] }
        func wide(_ n: UInt8) -> [UInt8] { [0x19, 0x00, n] }
        for size in [2, 5, 16, 17, 18, 40] {
            let distinct = (0..<size).map { preferred(UInt8($0)) }
            #expect(throws: Never.self) { try CBORDecoder.decode(map(distinct)) }
            for position in [0, size / 2, size - 1] {
                // The same key again, in preferred form and in a wider form.
                #expect(throws: CBORError(code: .duplicateMapKey)) { try CBORDecoder.decode(map(distinct + [preferred(UInt8(position))])) }
                #expect(throws: CBORError(code: .duplicateMapKey)) { try CBORDecoder.decode(map(distinct + [wide(UInt8(position))])) }
                // A wide key first, then the preferred form of the same value later.
                var keys = distinct
                keys[position] = wide(UInt8(position))
                #expect(throws: Never.self) { try CBORDecoder.decode(map(keys)) }
                #expect(throws: CBORError(code: .duplicateMapKey)) { try CBORDecoder.decode(map(keys + [preferred(UInt8(position))])) }
                #expect(throws: CBORError(code: .duplicateMapKey)) { try CBORDecoder.decode(map(keys + [wide(UInt8(position))])) }
                #expect(throws: Never.self) { try CBORDecoder.decode(map(keys + [preferred(200)])) }
            }
            // Text keys: same text, once with a one-byte head and once with a two-byte head.
            let texts = (0..<size).map { [0x62, 0x6b, 0x40 + UInt8($0)] }
            #expect(throws: Never.self) { try CBORDecoder.decode(map(texts)) }
            #expect(throws: CBORError(code: .duplicateMapKey)) { try CBORDecoder.decode(map(texts + [[0x78, 0x02, 0x6b, 0x40]])) }
            #expect(throws: CBORError(code: .duplicateMapKey)) { try CBORDecoder.decode(map(texts + [[0x62, 0x6b, 0x40 + UInt8(size - 1)]])) }
        }
    }

    /// CBORWriter writes the same bytes as the node builders.
    @Test func writerMatchesTheBuilders() throws {
        for length in [0, 1, 23, 24, 255, 256, 65_535, 65_536] {
            let content = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
            var out: [UInt8] = []
            CBORWriter.appendBytes(content, to: &out)
            #expect(out == Array(CBORNode.bytes(content).encodedBytes), "byte string of \(length)")
            #expect(CBORWriter.stringLength(length) == out.count)
            let text = String(repeating: "a", count: length)
            out = []
            CBORWriter.appendText(text, to: &out)
            #expect(out == Array(CBORNode.text(text).encodedBytes), "text of \(length)")
            out = []
            CBORWriter.appendHead(major: 4, argument: UInt64(length), to: &out)
            #expect(CBORWriter.headLength(UInt64(length)) == out.count)
        }
        for argument: UInt64 in [0, 23, 24, 0xff, 0x100, 0xffff, 0x1_0000, 0xffff_ffff, 0x1_0000_0000, .max] {
            var out: [UInt8] = []
            CBORWriter.appendHead(major: 0, argument: argument, to: &out)
            #expect(out == Array(CBORNode.unsigned(argument).encodedBytes))
            #expect(CBORWriter.headLength(argument) == out.count)
        }
    }
}
