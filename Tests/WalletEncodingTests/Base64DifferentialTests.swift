import Foundation
import Testing
import WalletEncoding

/// The base64 decoders against the byte-at-a-time decoder they replaced (kept here as the
/// reference): both must return the same bytes, and refuse the same texts, over valid encodings of
/// every length, every alphabet and padding form, and texts with one byte changed to each of the
/// 256 values.
@Suite struct Base64DifferentialTests {
    /// The previous decoder: sextet values (0x80 outside the alphabet), one character at a time.
    enum Reference {
        static let standard = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        static let url = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

        static func table(_ alphabets: [[UInt8]]) -> [UInt8] {
            var table = [UInt8](repeating: 0x80, count: 256)
            for alphabet in alphabets {
                for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
            }
            return table
        }

        static let strictTable = table([standard])
        static let urlTable = table([url])
        static let lenientTable = table([standard, url])

        static func decode(_ input: ArraySlice<UInt8>, table: [UInt8]) -> [UInt8]? {
            let input = Array(input)
            guard !input.isEmpty, input.count % 4 != 1 else { return nil }
            var output: [UInt8] = []
            var invalid: UInt8 = 0
            var index = 0
            while index + 4 <= input.count {
                let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                let c = table[Int(input[index + 2])], d = table[Int(input[index + 3])]
                invalid |= a | b | c | d
                output += [a << 2 | b >> 4, b << 4 | c >> 2, c << 6 | d]
                index += 4
            }
            let rest = input.count - index
            if rest >= 2 {
                let a = table[Int(input[index])], b = table[Int(input[index + 1])]
                invalid |= a | b
                output.append(a << 2 | b >> 4)
                if rest == 3 {
                    let c = table[Int(input[index + 2])]
                    invalid |= c
                    output.append(b << 4 | c >> 2)
                }
            }
            return invalid & 0x80 == 0 ? output : nil
        }

        static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }

        static func strict(_ text: [UInt8]) -> [UInt8]? {
            guard text.count % 4 == 0 else { return nil }
            var end = text.count
            if end > 0, text[end - 1] == UInt8(ascii: "=") { end -= 1 }
            if end > 0, text[end - 1] == UInt8(ascii: "=") { end -= 1 }
            return decode(text[0..<end], table: strictTable)
        }

        static func lenient(_ text: [UInt8]) -> [UInt8]? {
            var start = 0
            var end = text.count
            while start < end, isWhitespace(text[start]) { start += 1 }
            while end > start, isWhitespace(text[end - 1]) { end -= 1 }
            var padding = 0
            while end > start, padding < 2, text[end - 1] == UInt8(ascii: "=") {
                end -= 1
                padding += 1
            }
            if padding > 0, (end - start + padding) % 4 != 0 { return nil }
            return decode(text[start..<end], table: lenientTable)
        }

        static func url(_ text: [UInt8]) -> [UInt8]? {
            if text.isEmpty { return [] }
            if let bytes = decode(text[...], table: urlTable) { return bytes }
            var unpadded: [UInt8] = []
            for byte in text where byte != UInt8(ascii: "=") {
                guard urlTable[Int(byte)] & 0x80 == 0 else { return nil }
                unpadded.append(byte)
            }
            if unpadded.isEmpty { return [] }
            return decode(unpadded[...], table: lenientTable)
        }

        static func urlUnpadded(_ text: [UInt8]) -> [UInt8]? {
            text.isEmpty ? [] : decode(text[...], table: urlTable)
        }
    }

    /// Every decoder on `text` (as UTF-8 bytes; texts that are not UTF-8 are skipped for the `String` entry points).
    func expectAgreement(_ text: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let unpadded = text.withUnsafeBufferPointer { Base64.decodeURLUnpadded($0) }
        #expect(unpadded == Reference.urlUnpadded(text), "decodeURLUnpadded \(text)", sourceLocation: sourceLocation)
        guard let string = String(validating: text, as: UTF8.self) else { return }
        #expect(Base64.decodeStrict(string) == Reference.strict(text), "decodeStrict \(text)", sourceLocation: sourceLocation)
        #expect(Base64.decodeLenient(string) == Reference.lenient(text), "decodeLenient \(text)", sourceLocation: sourceLocation)
        #expect(Base64.decodeURL(string) == Reference.url(text), "decodeURL \(text)", sourceLocation: sourceLocation)
    }

    /// Valid texts of every length up to 200 bytes, in each alphabet, padded and unpadded.
    func validTexts() -> [[UInt8]] {
        var random = SystemRandomNumberGenerator()
        var texts: [[UInt8]] = []
        for length in 0..<200 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let standard = Data(bytes).base64EncodedString()
            let url = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            for text in [standard, url, standard.replacingOccurrences(of: "=", with: ""), url.replacingOccurrences(of: "=", with: "")] {
                texts.append(Array(text.utf8))
            }
        }
        return texts
    }

    @Test func validTextsAgree() {
        for text in validTexts() { expectAgreement(text) }
        // Every character of both alphabets in every position of a group, and the non-canonical
        // last characters (bits a canonical encoder leaves zero).
        let all = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/-_".utf8)
        for offset in 0..<4 {
            expectAgreement(Array(all.dropFirst(offset)))
        }
        for text in ["AB==", "AB", "ABC=", "ABC", "AB/=", "AP==", "AP", "ABd=", "ABf"] { expectAgreement(Array(text.utf8)) }
    }

    @Test func edgeTextsAgree() {
        let texts = [
            "", "=", "==", "===", "====", "A", "AB", "ABC", "ABCD", "A=", "AB=", "AB==", "AB===", "A===", "AB=C", "ABCD=", "ABCD==",
            " ABCD", "ABCD ", "\tAB==\n", "AB CD", "AB\nCD", "ABC\r\n", "AB-_", "AB+/", "AB-/", "=ABC", "A=BC", "é123", "ABCDE",
        ]
        for text in texts { expectAgreement(Array(text.utf8)) }
        // Every byte value in a short text, alone and in each position of the last group.
        for value in 0...255 {
            let byte = UInt8(value)
            expectAgreement([byte])
            for position in 0..<8 {
                var text = Array("QUJDREVG".utf8)
                text[position] = byte
                expectAgreement(text)
                expectAgreement(Array(text.prefix(position + 1)))
            }
        }
    }

    @Test func mutatedTextsAgree() {
        var random = SystemRandomNumberGenerator()
        let texts = validTexts()
        for _ in 0..<4000 {
            var text = texts[Int.random(in: 0..<texts.count, using: &random)]
            guard !text.isEmpty else { continue }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: text[Int.random(in: 0..<text.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            case 1: text.remove(at: Int.random(in: 0..<text.count, using: &random))
            default: text.insert(UInt8.random(in: 0...255, using: &random), at: Int.random(in: 0...text.count, using: &random))
            }
            expectAgreement(text)
        }
    }
}
