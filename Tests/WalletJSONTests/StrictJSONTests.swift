import Foundation
import Testing
import WalletJSON

/// The JSON reader used for tokens, decrypted payment data and request bodies.
@Suite struct StrictJSONTests {
    func parse(_ text: String) throws(StrictJSON.ParseError) -> StrictJSON.Value {
        try StrictJSON.parse(Array(text.utf8))
    }

    @Test func valuesAndEscapes() throws {
        let value = try parse(#" {"a": "x\/y\"z\\\u00e9\ud83d\ude00\n", "n": -12.5e3, "t": true, "f": false, "z": null, "l": [1, [], {}]} "#)
        let object = try #require(value.object)
        #expect(object["a"] == .string("x/y\"z\\é😀\n"))
        #expect(object["n"] == .number("-12.5e3"))
        #expect(object["t"] == .bool(true))
        #expect(object["f"] == .bool(false))
        #expect(object["z"] == .null)
        #expect(object["l"] == .array([.number("1"), .array([]), .object([:])]))
        #expect(try parse(#""é""#) == .string("é"))
    }

    @Test(arguments: [
        "", " ", "{", "}", "{\"a\":1,}", "{\"a\" 1}", "[1,]", "01", "-", "1.", "1e", "+1", "\"abc", "\"a\u{01}b\"",
        "{\"a\":1,\"a\":2}", "tru", "nul", "{} {}", "\"\\x\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\u12\"", "[1 2]",
        "{\"a\":1 \"b\":2}", "NaN",
    ])
    func rejects(text: String) {
        #expect(throws: StrictJSON.ParseError.self) { try parse(text) }
    }

    /// Each rejection has a code, a message and the offset where reading stopped.
    @Test(arguments: [
        ("", StrictJSON.ParseError.Code.unexpectedEnd, 0), ("{\"a\":1,\"a\":2}", .duplicateMember, 12), ("{} {}", .trailingContent, 3),
        ("tru", .unexpectedEnd, 0), ("nul ", .invalidLiteral, 0), ("[1 2]", .unexpectedCharacter, 3), ("-", .invalidNumber, 1),
        ("\"a\u{01}b\"", .invalidString, 2), ("\"\\ud800\"", .invalidString, 7), ("\"abc", .unexpectedEnd, 4), ("@", .unexpectedCharacter, 0),
    ])
    func rejectionCodes(text: String, code: StrictJSON.ParseError.Code, offset: Int) {
        #expect {
            try parse(text)
        } throws: { error in
            guard let error = error as? StrictJSON.ParseError else { return false }
            return error.code == code && error.offset == offset && error.description == "\(error.message) at byte \(offset)"
                && !error.message.isEmpty
        }
    }

    /// Long strings take the word-at-a-time path.
    @Test func longStrings() throws {
        let long = String(repeating: "abcdefgh", count: 20)
        #expect(try parse("\"\(long)é\(long)\"") == .string(long + "é" + long))
        for position in [0, 7, 8, 9, 63, 100, 159] {
            var bytes = Array("\"\(long)\"".utf8)
            bytes[1 + position] = 0x1F
            #expect(throws: StrictJSON.ParseError.self) { try StrictJSON.parse(bytes) }
            bytes[1 + position] = 0xFF
            #expect(throws: StrictJSON.ParseError.self) { try StrictJSON.parse(bytes) }
            bytes[1 + position] = 0x7F
            #expect(try StrictJSON.parse(bytes).string?.count == long.count)
        }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: StrictJSON.ParseError.self) { try StrictJSON.parse([0x22, 0xFF, 0xFE, 0x22]) }
        #expect(throws: StrictJSON.ParseError.self) { try StrictJSON.parse([0x22, 0x5C, 0x2F, 0xC3, 0x22]) }
    }

    @Test func nestingIsLimited() throws {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: StrictJSON.ParseError(.tooDeep, "nesting deeper than 64", offset: 65)) { try parse(deep) }
        let ok = String(repeating: "[", count: 60) + String(repeating: "]", count: 60)
        _ = try parse(ok)
    }

    /// Numbers keep their text: an amount is never rounded through a Double.
    @Test func numbersKeepTheirText() throws {
        #expect(try parse("12345678901234567890.123") == .number("12345678901234567890.123"))
    }

    /// Member names compare code unit by code unit (RFC 8259 §8.3): names that differ only in Unicode
    /// normalization are two members, and a lookup finds only the name with the same bytes; the same
    /// in small objects (searched in order) and large ones (indexed).
    @Test func memberNamesCompareByTheirBytes() throws {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        #expect(composed == decomposed)  // String equality is canonical equivalence...
        for filler in [0, 20] {
            let others = (0..<filler).map { "\"m\($0)\": \($0)" }
            let text = "{" + (others + ["\"\(composed)\": 1", "\"\(decomposed)\": 2"]).joined(separator: ", ") + "}"
            let object = try #require(try parse(text).object)  // ...but these are not duplicates.
            #expect(object.count == filler + 2)
            #expect(object[composed] == .number("1"))
            #expect(object[decomposed] == .number("2"))
            #expect(object["cafe"] == nil)
            let duplicate = "{" + (others + ["\"\(composed)\": 1", "\"\(composed)\": 2"]).joined(separator: ", ") + "}"
            #expect(throws: StrictJSON.ParseError.self) { try parse(duplicate) }
            // Long names (not stored inline in a String) too.
            let long = String(repeating: "transactionAmount", count: 3)
            let longText = "{" + (others + ["\"\(long)\": 1", "\"\(long)x\": 2"]).joined(separator: ", ") + "}"
            let longObject = try #require(try parse(longText).object)
            #expect(longObject[long] == .number("1"))
            #expect(longObject[long + "x"] == .number("2"))
        }
    }
}
