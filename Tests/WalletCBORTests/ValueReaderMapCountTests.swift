import Testing
import WalletCBOR

/// `CBORValueReader.definiteMapCount()` tells a definite-length map's entry count without reading it.
@Suite struct ValueReaderMapCountTests {
    @Test func countsDefiniteMapsOnlyAndConsumesNothing() throws {
        // {"a": {1: h'00', 2: h'01'}, "b": [1], "c": {_ 1: 2}, "d": {}}
        let bytes: ArraySlice<UInt8> = [
            0xA4, 0x61, 0x61, 0xA2, 0x01, 0x41, 0x00, 0x02, 0x41, 0x01,
            0x61, 0x62, 0x81, 0x01,
            0x61, 0x63, 0xBF, 0x01, 0x02, 0xFF,
            0x61, 0x64, 0xA0,
        ]
        var counts: [String: Int?] = [:]
        var digests: [UInt64: ArraySlice<UInt8>] = [:]
        let read = CBORDecoder().readTextKeyedMap(bytes) { key, value in
            let name = String(decoding: key, as: UTF8.self)
            counts[name] = value.definiteMapCount()
            if name == "a" {
                // Still readable after the count.
                return value.unsignedIntKeyedMap { id, digest in
                    digests[id] = digest.byteString()
                    return digests[id] != nil
                }
            }
            return true
        }
        #expect(read)
        #expect(counts["a"] == .some(2))
        #expect(counts["b"] == .some(nil))
        #expect(counts["c"] == .some(nil))
        #expect(counts["d"] == .some(0))
        #expect(digests == [1: [0x00], 2: [0x01]])
    }
}
