import Foundation
import Testing
import WalletJSON
import WalletEncoding

@Suite struct JSONWriterTests {
    /// Whatever the text, the written string reads back as the same text.
    @Test func stringsRoundTrip() throws {
        var samples = ["", "plain", "\"", "\\", "/", "é", "😀", "\u{2028}\u{2029}", "a\u{0}b", String(repeating: "x\n", count: 100)]
        samples += (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            let scalars = (0..<Int.random(in: 0...40, using: &random)).compactMap { _ in
                Unicode.Scalar(UInt32.random(in: 0...0x2FFFF, using: &random))
            }
            samples.append(String(String.UnicodeScalarView(scalars)))
        }
        for text in samples {
            var writer = JSONWriter()
            writer.string(text)
            #expect(!writer.bytes.contains { $0 < 0x20 })
            let parsed = try StrictJSON.parse(writer.bytes)
            #expect(parsed == .string(text))
            let foundation = try JSONSerialization.jsonObject(with: Data(writer.bytes), options: .fragmentsAllowed) as? String
            #expect(foundation == text)
        }
    }

    /// Every character that needs an escape, at every position of a longer string (the scan reads
    /// eight bytes at a time).
    @Test func escapesAtEveryPosition() throws {
        let base = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNé€".unicodeScalars)
        for special in ["\"", "\\", "\n", "\u{0}", "\u{1F}", "\u{7F}", "/"] {
            for position in 0...base.count {
                var scalars = base
                scalars.insert(contentsOf: special.unicodeScalars, at: position)
                let text = String(String.UnicodeScalarView(scalars))
                var writer = JSONWriter()
                writer.string(text)
                #expect(try StrictJSON.parse(writer.bytes) == .string(text))
            }
        }
    }

    @Test func objectsHaveSortedMembers() throws {
        var writer = JSONWriter()
        writer.sortedStringObject(["b": "2", "a": "1", "c\"": "3"])
        #expect(writer.text == #"{"a":"1","b":"2","c\"":"3"}"#)
        var empty = JSONWriter()
        empty.sortedStringObject([:])
        #expect(empty.text == "{}")
    }
}

/// Values keep where they were in the input, so they can be passed on as received.
@Suite struct StrictJSONRangeTests {
    @Test func memberRangesAreTheBytesAsReceived() throws {
        let text = #"{ "token" : {"paymentData": {"data":"a\/b"}, "x": [1, 2.50]} , "n": -0.0e+1, "s":"\u00e9" }"#
        let bytes = Array(text.utf8)
        let object = try #require(try StrictJSON.parse(bytes).object)
        func raw(_ name: String) throws -> String {
            String(decoding: bytes[try #require(object.range(of: name))], as: UTF8.self)
        }
        #expect(try raw("token") == #"{"paymentData": {"data":"a\/b"}, "x": [1, 2.50]}"#)
        #expect(try raw("n") == "-0.0e+1")
        #expect(try raw("s") == #""\u00e9""#)
        #expect(object.range(of: "missing") == nil)
        // Nested objects know their own ranges too.
        let token = try #require(object["token"]?.object)
        #expect(String(decoding: bytes[try #require(token.range(of: "x"))], as: UTF8.self) == "[1, 2.50]")
    }

    @Test func largeObjectsUseTheIndex() throws {
        let members = (0..<100).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let bytes = Array("{\(members)}".utf8)
        let object = try #require(try StrictJSON.parse(bytes).object)
        #expect(object["k77"] == .number("77"))
        #expect(String(decoding: bytes[try #require(object.range(of: "k77"))], as: UTF8.self) == "77")
    }
}

@Suite struct Base64DecodingTests {
    @Test func readsBothAlphabetsPaddedOrNot() {
        var random = SystemRandomNumberGenerator()
        for length in 1..<120 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let standard = Data(bytes).base64EncodedString()
            let url = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            #expect(Base64.decodeLenient(standard) == bytes)
            #expect(Base64.decodeLenient(url) == bytes)
            #expect(Base64.decodeLenient(url.replacingOccurrences(of: "=", with: "")) == bytes)
            #expect(Base64.decodeLenient("  \(standard)\n") == bytes)
        }
    }

    @Test(arguments: ["", "A", "=", "AB=C", "A===", "AB C", "AB\nCD", "AB*D", "é123", "ABCDE", "ABC==", "AAAA=", "===="])
    func refuses(text: String) {
        #expect(Base64.decodeLenient(text) == nil)
    }
}

@Suite struct StrictBase64Tests {
    @Test func agreesWithFoundationOnPaddedStandardBase64() {
        var random = SystemRandomNumberGenerator()
        for length in 1..<150 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(Base64.decodeStrict(Data(bytes).base64EncodedString()) == bytes)
        }
    }

    @Test(arguments: ["", "A", "AB", "ABC", "AB=C", "A===", "====", "AB C", "AB\nCD==", "ABC-", "ABC_", "AAA=AAAA", "é123", " QUJD", "QUJD "])
    func refuses(text: String) {
        #expect(Base64.decodeStrict(text) == nil)
    }
}
