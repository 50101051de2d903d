import Foundation
import Testing
import WalletCBOR
import WalletVerifierTestSupport

/// Every example of RFC 8949 Appendix A (also published as cbor/test-vectors appendix_a.json, which
/// still carries RFC 7049's `f818` simple(24): RFC 8949 §3.3 made that encoding not well-formed, and
/// it is tested as an error below).
/// `deterministic` marks the examples whose bytes are the core deterministic encoding of the value:
/// those must re-encode to exactly the same bytes.
struct AppendixAExample: Sendable, CustomTestStringConvertible {
    enum Expected: Sendable {
        case diag(String)
        case float(Double)
    }

    let hex: String
    let expected: Expected
    let deterministic: Bool

    var testDescription: String { hex }
}

private func d(_ hex: String, _ diag: String, deterministic: Bool = true) -> AppendixAExample {
    AppendixAExample(hex: hex, expected: .diag(diag), deterministic: deterministic)
}

private func f(_ hex: String, _ value: Double, deterministic: Bool = true) -> AppendixAExample {
    AppendixAExample(hex: hex, expected: .float(value), deterministic: deterministic)
}

let appendixA: [AppendixAExample] = [
    d("00", "0"), d("01", "1"), d("0a", "10"), d("17", "23"), d("1818", "24"), d("1819", "25"),
    d("1864", "100"), d("1903e8", "1000"), d("1a000f4240", "1000000"), d("1b000000e8d4a51000", "1000000000000"),
    d("1bffffffffffffffff", "18446744073709551615"),
    d("c249010000000000000000", "2(h'010000000000000000')"),
    d("3bffffffffffffffff", "-18446744073709551616"),
    d("c349010000000000000000", "3(h'010000000000000000')"),
    d("20", "-1"), d("29", "-10"), d("3863", "-100"), d("3903e7", "-1000"),
    f("f90000", 0.0), f("f98000", -0.0), f("f93c00", 1.0), f("fb3ff199999999999a", 1.1), f("f93e00", 1.5),
    f("f97bff", 65504.0), f("fa47c35000", 100000.0), f("fa7f7fffff", 3.4028234663852886e+38),
    f("fb7e37e43c8800759c", 1.0e+300), f("f90001", 5.960464477539063e-08), f("f90400", 6.103515625e-05),
    f("f9c400", -4.0), f("fbc010666666666666", -4.1),
    d("f97c00", "Infinity"), d("f97e00", "NaN"), d("f9fc00", "-Infinity"),
    d("fa7f800000", "Infinity", deterministic: false), d("fa7fc00000", "NaN", deterministic: false),
    d("faff800000", "-Infinity", deterministic: false), d("fb7ff0000000000000", "Infinity", deterministic: false),
    d("fb7ff8000000000000", "NaN", deterministic: false), d("fbfff0000000000000", "-Infinity", deterministic: false),
    d("f4", "false"), d("f5", "true"), d("f6", "null"), d("f7", "undefined"),
    d("f0", "simple(16)"), d("f8ff", "simple(255)"),
    d("c074323031332d30332d32315432303a30343a30305a", "0(\"2013-03-21T20:04:00Z\")"),
    d("c11a514b67b0", "1(1363896240)"), d("c1fb41d452d9ec200000", "1(1363896240.5)"),
    d("d74401020304", "23(h'01020304')"), d("d818456449455446", "24(h'6449455446')"),
    d("d82076687474703a2f2f7777772e6578616d706c652e636f6d", "32(\"http://www.example.com\")"),
    d("40", "h''"), d("4401020304", "h'01020304'"),
    d("60", "\"\""), d("6161", "\"a\""), d("6449455446", "\"IETF\""), d("62225c", "\"\\\"\\\\\""),
    d("62c3bc", "\"ü\""), d("63e6b0b4", "\"水\""), d("64f0908591", "\"𐅑\""),
    d("80", "[]"), d("83010203", "[1, 2, 3]"), d("8301820203820405", "[1, [2, 3], [4, 5]]"),
    d(
        "98190102030405060708090a0b0c0d0e0f101112131415161718181819",
        "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]"),
    d("a0", "{}"), d("a201020304", "{1: 2, 3: 4}"), d("a26161016162820203", "{\"a\": 1, \"b\": [2, 3]}"),
    d("826161a161626163", "[\"a\", {\"b\": \"c\"}]"),
    d("a56161614161626142616361436164614461656145", "{\"a\": \"A\", \"b\": \"B\", \"c\": \"C\", \"d\": \"D\", \"e\": \"E\"}"),
    d("5f42010243030405ff", "h'0102030405'", deterministic: false),
    d("7f657374726561646d696e67ff", "\"streaming\"", deterministic: false),
    d("9fff", "[]", deterministic: false),
    d("9f018202039f0405ffff", "[1, [2, 3], [4, 5]]", deterministic: false),
    d("9f01820203820405ff", "[1, [2, 3], [4, 5]]", deterministic: false),
    d("83018202039f0405ff", "[1, [2, 3], [4, 5]]", deterministic: false),
    d("83019f0203ff820405", "[1, [2, 3], [4, 5]]", deterministic: false),
    d(
        "9f0102030405060708090a0b0c0d0e0f101112131415161718181819ff",
        "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25]", deterministic: false),
    d("bf61610161629f0203ffff", "{\"a\": 1, \"b\": [2, 3]}", deterministic: false),
    d("826161bf61626163ff", "[\"a\", {\"b\": \"c\"}]", deterministic: false),
    d("bf6346756ef563416d7421ff", "{\"Fun\": true, \"Amt\": -2}", deterministic: false),
]

@Suite struct AppendixATests {
    @Test func allExamplesArePresent() {
        #expect(appendixA.count == 81)
    }

    @Test func twoByteSimpleValueBelow32IsNotWellFormed() {
        #expect(throws: CBORError(code: .invalidSimpleValue)) { try CBORDecoder.decode(hex("f818")) }
        #expect(throws: CBORError(code: .invalidSimpleValue)) { try CBORDecoder.decode(hex("f81f")) }
        #expect(throws: Never.self) { try CBORDecoder.decode(hex("f820")) }
    }

    @Test(arguments: appendixA)
    func decodes(_ example: AppendixAExample) throws {
        let bytes = hex(example.hex)
        let node = try CBORDecoder.decode(bytes)
        // The node keeps exactly the bytes it came from.
        #expect(Array(node.encodedBytes) == bytes)
        switch example.expected {
        case .diag(let expected):
            #expect(CBORDiagnostic(style: .compact, decodeEmbedded: false).format(node) == expected)
        case .float(let expected):
            guard case .float(let value) = node.value else {
                Issue.record("expected a float, got \(node.value.kindDescription)")
                return
            }
            #expect(value == expected)
            #expect(value.sign == expected.sign)
        }
    }

    @Test(arguments: appendixA.filter(\.deterministic))
    func deterministicExamplesReencodeToTheSameBytes(_ example: AppendixAExample) throws {
        let bytes = hex(example.hex)
        let node = try CBORDecoder.decode(bytes)
        #expect(Array(node.deterministicallyReencoded().encodedBytes) == bytes)
        #expect(node.isDeterministicallyEncoded)
    }

    @Test(arguments: appendixA.filter { !$0.deterministic })
    func nonDeterministicExamplesAreRecognised(_ example: AppendixAExample) throws {
        let node = try CBORDecoder.decode(hex(example.hex))
        #expect(!node.isDeterministicallyEncoded)
        // Re-encoding keeps the value.
        let reencoded = try CBORDecoder.decode(Array(node.deterministicallyReencoded().encodedBytes))
        #expect(reencoded == node)
    }

    @Test func builtValuesMatchAppendixEncodings() throws {
        #expect(Array(CBORNode.int(-1000).encodedBytes) == hex("3903e7"))
        #expect(Array(CBORNode.int(Int64.min).encodedBytes) == hex("3b7fffffffffffffff"))
        #expect(Array(CBORNode.unsigned(UInt64.max).encodedBytes) == hex("1bffffffffffffffff"))
        #expect(Array(CBORNode.float(100000.0).encodedBytes) == hex("fa47c35000"))
        #expect(Array(CBORNode.float(5.960464477539063e-08).encodedBytes) == hex("f90001"))
        #expect(Array(CBORNode.float(.infinity).encodedBytes) == hex("f97c00"))
        #expect(Array(CBORNode.float(-.infinity).encodedBytes) == hex("f9fc00"))
        #expect(Array(CBORNode.float(.nan).encodedBytes) == hex("f97e00"))
        #expect(Array(CBORNode.float(-0.0).encodedBytes) == hex("f98000"))
        #expect(Array(try CBORNode.simple(255).encodedBytes) == hex("f8ff"))
        #expect(throws: CBORError(code: .invalidSimpleValue)) { try CBORNode.simple(24) }
        let map = try CBORNode.map(["e": .text("E"), "a": .text("A"), "c": .text("C"), "b": .text("B"), "d": .text("D")])
        #expect(Array(map.encodedBytes) == hex("a56161614161626142616361436164614461656145"))
        // Deterministic key order is by encoded bytes: shorter keys first, integers before text.
        let mixed = try CBORNode.map([(.text("aa"), .int(1)), (.text("b"), .int(2)), (.int(-1), .int(3)), (.int(10), .int(4))])
        #expect(Array(mixed.encodedBytes) == hex("a40a0420036162026261610 1".replacingOccurrences(of: " ", with: "")))
        #expect(throws: CBORError(code: .duplicateMapKey)) { try CBORNode.map([(.int(1), .null), (.int(1), .null)]) }
    }
}
