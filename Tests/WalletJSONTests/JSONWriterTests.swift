import Foundation
import Testing
import WalletJSON

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
        // One and two members take a path of their own: the same order and escapes as the sorted one.
        for (members, expected) in [
            (["only": "x\n"], #"{"only":"x\n"}"#), (["b": "2", "a": "1"], #"{"a":"1","b":"2"}"#),
            (["a": "1", "b": "2"], #"{"a":"1","b":"2"}"#), (["é": "1", "z": "2"], #"{"z":"2","é":"1"}"#),
        ] {
            var writer = JSONWriter()
            writer.sortedStringObject(members)
            #expect(writer.text == expected)
        }
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
