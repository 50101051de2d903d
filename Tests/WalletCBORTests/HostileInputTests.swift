import Testing
import WalletCBOR
import WalletVerifierTestSupport

private let samplePlaintext = "mdoc/apple-verify-with-wallet-sample/sample/plaintext_topics.cbor"

@Suite struct HostileInputTests {
    @Test func realVectorTruncatedAtEveryOffsetIsAnErrorNeverACrash() throws {
        let bytes = try TestVectors.hex(samplePlaintext)
        #expect(bytes.count == 6148)
        _ = try CBORDecoder.decode(bytes)  // the whole thing is fine
        for length in 0..<bytes.count {
            do {
                _ = try CBORDecoder.decode(Array(bytes[..<length]))
                Issue.record("prefix of \(length) bytes decoded")
            } catch {
                #expect(error.code == .truncated || error.code == .lengthExceedsInput, "prefix \(length): \(error)")
            }
        }
    }

    @Test(arguments: [
        "5bffffffffffffffff", "5b7fffffffffffffff", "7bffffffffffffffff", "9bffffffffffffffff",
        "bbffffffffffffffff", "9b00000000ffffffff", "ba7fffffff", "5a7fffffff00",
        "5f5bffffffffffffffffff", "bb8000000000000000",
    ])
    func hugeDeclaredLengthsAreRejectedWithoutAllocating(_ input: String) {
        #expect(throws: CBORError(code: .lengthExceedsInput)) { try CBORDecoder.decode(hex(input)) }
    }

    @Test func tenThousandLevelsOfNestingAreRejected() {
        for opener: UInt8 in [0x81, 0x9f, 0xc1, 0xa1] {
            var bytes = [UInt8](repeating: opener, count: 10_000)
            if opener == 0xa1 {
                // a map whose value is a map...: key 0 then the nested map
                bytes = Array([[UInt8]](repeating: [0xa1, 0x00], count: 10_000).joined())
            }
            bytes.append(0x00)
            #expect(throws: CBORError(code: .depthLimitExceeded)) { try CBORDecoder.decode(bytes) }
        }
        // Just within the limit is fine.
        let ok = [UInt8](repeating: 0x81, count: 63) + [0x00]
        #expect(throws: Never.self) { try CBORDecoder.decode(ok) }
        let tooDeep = [UInt8](repeating: 0x81, count: 64) + [0x00]
        #expect(throws: CBORError(code: .depthLimitExceeded)) { try CBORDecoder.decode(tooDeep) }
    }

    @Test(arguments: ["62c328", "62c080", "63eda080", "61ff", "64f8888080", "7f61c3ff", "7f62c328ff", "a162c3280001"])
    func invalidUTF8IsRejected(_ input: String) {
        #expect(throws: CBORError(code: .invalidUTF8)) { try CBORDecoder.decode(hex(input)) }
    }

    @Test func textChunksMustEachBeValidUTF8() {
        // "ä" (c3 a4) split across two chunks.
        #expect(throws: CBORError(code: .invalidUTF8)) { try CBORDecoder.decode(hex("7f61c361a4ff")) }
    }

    @Test(arguments: ["ff", "81ff", "a1ff", "a201ff", "bf01ff", "8201ff", "c6ff", "9f01ffff"])
    func misplacedBreakCodes(_ input: String) {
        #expect(throws: (any Error).self) { try CBORDecoder.decode(hex(input)) }
        do {
            _ = try CBORDecoder.decode(hex(input))
        } catch {
            #expect([.unexpectedBreak, .trailingBytes, .lengthExceedsInput].contains(error.code), "\(input): \(error)")
        }
    }

    @Test(arguments: ["a2010201 03", "a201021801 03", "a2616101616102", "bf01020103ff", "a2f4 00 f4 01", "a2 f93c00 00 fb3ff0000000000000 01"])
    func duplicateMapKeysAreRejected(_ input: String) {
        #expect(throws: CBORError(code: .duplicateMapKey)) { try CBORDecoder.decode(hex(input)) }
    }

    @Test func largeMapsDetectDuplicatesInLinearTime() throws {
        // 100,000 distinct keys in non-preferred form (two-byte heads for small values), then a repeat.
        var bytes: [UInt8] = [0xba] + withUnsafeBytes(of: UInt32(100_001).bigEndian) { Array($0) }
        for key in 0..<100_000 { bytes += [0x1a] + withUnsafeBytes(of: UInt32(key).bigEndian) { Array($0) } + [0xf6] }
        let distinct = Array(bytes.prefix(5)).with(count: 100_000) + Array(bytes.dropFirst(5))
        let start = ContinuousClock.now
        #expect(throws: Never.self) { try CBORDecoder.decode(distinct) }
        bytes += [0x03, 0xf6]  // key 3, preferred form, equal to 1a00000003
        #expect(throws: CBORError(code: .duplicateMapKey)) { try CBORDecoder.decode(bytes) }
        #expect(ContinuousClock.now - start < .seconds(20))
    }

    /// Arrays, maps and tags as map keys are refused at the first one: checking them for duplicates
    /// meant re-encoding each key at every level it is nested in, and the fuzzer found 900 bytes of map
    /// keys nested in map keys that took seconds (TestVectors/fuzz-regressions/).
    @Test(arguments: ["a1 8101 00", "a2 8101 00 9f01ff 01", "a1 a10000 00", "a1 c100 00", "bf 8100 00 ff", "a1 01 a1 8100 00"])
    func arraysMapsAndTagsAreNotMapKeys(_ input: String) {
        #expect(throws: CBORError(code: .unsupportedMapKey)) { try CBORDecoder.decode(hex(input)) }
    }

    @Test func nestedMapKeysStopAtTheFirstKey() throws {
        let found = try TestVectors.data("fuzz-regressions/cose-key-nested-map-keys.cbor")
        #expect(throws: CBORError(code: .unsupportedMapKey)) { try CBORDecoder.decode(found) }
        // 60 levels of map keys, 2,000 times over (≈ 250 KB): refused at the first key, whatever follows.
        let chain = [UInt8](repeating: 0xa1, count: 60) + [UInt8](repeating: 0x00, count: 61)
        let many: [UInt8] = [0x99, 0x07, 0xd0] + Array([[UInt8]](repeating: chain, count: 2_000).joined())
        do {
            _ = try CBORDecoder.decode(many)
            Issue.record("nested map keys must be refused")
        } catch {
            #expect(error.code == .unsupportedMapKey)
            // The innermost map used as a key, inside the first item: nothing after it is read.
            #expect(error.offset == 62)
        }
        #expect(try CBORDecoder.decode(hex("a1 01 a1 01 81 00")).mapValue?.count == 1)
    }

    @Test func distinctKeysOfDifferentTypesAreNotDuplicates() throws {
        // 1 and "1" and h'01' and 1.5 are different keys.
        let node = try CBORDecoder.decode(hex("a4 01 00 6131 00 4101 00 f93e00 00"))
        #expect(node.mapValue?.count == 4)
    }

    @Test(arguments: ["0102", "a0a0", "8000", "f6f6"])
    func trailingBytesAtTopLevelAreRejected(_ input: String) {
        #expect(throws: CBORError(code: .trailingBytes)) { try CBORDecoder.decode(hex(input)) }
    }

    @Test(arguments: ["1c", "1d", "1e", "1f", "3f", "df00", "fc", "fd", "fe", "5c", "9c", "bc", "7e"])
    func reservedAndInvalidHeadsAreRejected(_ input: String) {
        #expect(throws: CBORError(code: .malformedHead)) { try CBORDecoder.decode(hex(input)) }
    }

    @Test(arguments: ["5f01ff", "5f5f4100ffff", "5f6161ff", "7f4161ff", "7f7f6161ffff"])
    func invalidIndefiniteChunks(_ input: String) {
        #expect(throws: CBORError(code: .invalidChunk)) { try CBORDecoder.decode(hex(input)) }
    }

    @Test func emptyInputIsTruncated() {
        #expect(throws: CBORError(code: .truncated)) { try CBORDecoder.decode([]) }
    }

    @Test func itemAndSizeLimits() {
        let many = [0x99, 0x27, 0x10] + [UInt8](repeating: 0, count: 10_000)  // array of 10,000 zeros
        #expect(throws: Never.self) { try CBORDecoder.decode(many) }
        let strict = CBORDecoder(limits: .init(maxItems: 1_000))
        #expect(throws: CBORError(code: .itemLimitExceeded)) { try strict.decode(many) }
        let small = CBORDecoder(limits: .init(maxInputSize: 100))
        #expect(throws: CBORError(code: .inputTooLarge)) { try small.decode(many) }
    }

    @Test func errorsCarryTheOffset() {
        do {
            _ = try CBORDecoder.decode(hex("83 01 02 62c328"))
            Issue.record("decoded")
        } catch {
            #expect(error.code == .invalidUTF8)
            #expect(error.offset == 3)
            #expect(error.description.contains("at byte 3"))
        }
    }

    @Test func randomMutationsOfARealVectorNeverCrash() throws {
        let bytes = try TestVectors.hex(samplePlaintext)
        var generator = SystemRandomNumberGenerator()
        var decodedCount = 0
        for _ in 0..<3_000 {
            var mutated = bytes
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                let index = Int.random(in: 0..<mutated.count, using: &generator)
                mutated[index] = UInt8.random(in: 0...255, using: &generator)
            }
            if let node = try? CBORDecoder.decode(mutated) {
                decodedCount += 1
                // Whatever decodes keeps its exact bytes and can be printed.
                #expect(Array(node.encodedBytes) == mutated)
                _ = CBORDiagnostic().format(node)
            }
        }
        #expect(decodedCount >= 0)
    }
}

private extension Array where Element == UInt8 {
    /// Replaces the 32-bit map count of a `ba` head.
    func with(count: UInt32) -> [UInt8] {
        [0xba] + Swift.withUnsafeBytes(of: count.bigEndian) { Array($0) }
    }
}
