import Testing
import WalletJSON

/// The string scanner skips sixteen, then eight bytes at a time while none of them needs a look: a
/// byte that does (the closing quote, a backslash, a control character, a non-ASCII byte, invalid
/// UTF-8) must be found at every offset of those blocks, with the same result as anywhere else.
@Suite struct StringScanTests {
    func parse(_ bytes: [UInt8]) -> Result<StrictJSON.Value, StrictJSON.ParseError> {
        do throws(StrictJSON.ParseError) {
            return .success(try StrictJSON.parse(bytes))
        } catch {
            return .failure(error)
        }
    }

    @Test func specialBytesAtEveryOffset() throws {
        for prefixLength in 0..<40 {
            for suffixLength in [0, 1, 7, 8, 9, 15, 16, 17, 23] {
                let prefix = [UInt8](repeating: UInt8(ascii: "A"), count: prefixLength)
                let suffix = [UInt8](repeating: UInt8(ascii: "z"), count: suffixLength)
                func document(_ middle: [UInt8]) -> [UInt8] { Array("[\"".utf8) + prefix + middle + suffix + Array("\"]".utf8) }
                let text = String(decoding: prefix, as: UTF8.self)
                let tail = String(decoding: suffix, as: UTF8.self)

                // The closing quote right after the prefix, then another string.
                let quoted = Array("[\"".utf8) + prefix + Array("\",\"".utf8) + suffix + Array("\"]".utf8)
                #expect(try parse(quoted).get() == .array([.string(text), .string(tail)]))
                // Escapes.
                #expect(try parse(document(Array("\\n".utf8))).get() == .array([.string(text + "\n" + tail)]))
                #expect(try parse(document(Array("\\\"".utf8))).get() == .array([.string(text + "\"" + tail)]))
                #expect(try parse(document(Array("\\u00e9".utf8))).get() == .array([.string(text + "é" + tail)]))
                // Non-ASCII UTF-8.
                #expect(try parse(document([0xC3, 0xA9])).get() == .array([.string(text + "é" + tail)]))
                #expect(try parse(document([0xF0, 0x9F, 0x98, 0x80])).get() == .array([.string(text + "😀" + tail)]))
                // Refused: control characters, invalid UTF-8, an unterminated string.
                for bad: [UInt8] in [[0x00], [0x01], [0x1F], [0x0A], [0xFF], [0xC3], [0x80], [0xED, 0xA0, 0x80]] {
                    guard case .failure(let error) = parse(document(bad)) else {
                        Issue.record("accepted \(bad) after \(prefixLength) bytes")
                        continue
                    }
                    #expect(error.code == .invalidString)
                }
                guard case .failure(let error) = parse(Array("[\"".utf8) + prefix + suffix) else {
                    Issue.record("accepted an unterminated string of \(prefixLength + suffixLength) bytes")
                    continue
                }
                #expect(error.code == .unexpectedEnd)
                // Bytes next to the special ones (0x1F, 0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F) pass through.
                let neighbours: [UInt8] = [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F]
                #expect(try parse(document(neighbours)).get() == .array([.string(text + String(decoding: neighbours, as: UTF8.self) + tail)]))
            }
        }
    }
}
