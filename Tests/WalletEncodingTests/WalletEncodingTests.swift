import Foundation
import Testing
import WalletEncoding

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

@Suite struct Base64URLAndEncodingTests {
    @Test func encodersAgreeWithFoundationAndRoundTrip() {
        var random = SystemRandomNumberGenerator()
        for length in 0..<100 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let standard = Data(bytes).base64EncodedString()
            #expect(Base64.encode(bytes) == standard)
            let url = Base64.encodeURL(bytes)
            #expect(
                url
                    == standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                    .replacingOccurrences(of: "=", with: ""))
            #expect(Base64.decodeURL(url) == bytes)
        }
    }

    @Test func urlDecodingRefusesTheStandardAlphabetAndImpossibleLengths() {
        #expect(Base64.decodeURL("ab+c") == nil)
        #expect(Base64.decodeURL("ab/c") == nil)
        #expect(Base64.decodeURL("abcde") == nil)
        #expect(Base64.decodeURL("") == [])
        #expect(Base64.decodeURL("_-8") == [0xFF, 0xEF])
    }

    @Test func unpaddedURLDecodingReadsOnlyTheURLAlphabet() {
        func decode(_ text: String) -> [UInt8]? {
            var text = text
            return text.withUTF8 { Base64.decodeURLUnpadded($0) }
        }
        var random = SystemRandomNumberGenerator()
        for length in 0..<70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            #expect(decode(Base64.encodeURL(bytes)) == bytes)
        }
        #expect(decode("") == [])
        #expect(decode("_-8") == [0xFF, 0xEF])
        // "=" anywhere (decodeURL skips it; the unpadded reader refuses it), the standard alphabet,
        // whitespace, an impossible length, bytes past ASCII.
        for refused in ["QQ==", "QQ=", "Q=Q", "ab+c", "ab/c", "ab c", "abcd\n", "abcde", "é", "abc\u{0}"] {
            #expect(decode(refused) == nil, "\(refused.debugDescription)")
        }
        #expect(Base64.decodeURL("QQ==") == [0x41])
    }

    @Test func wrappedTextMayBreakAnywhere() {
        #expect(Base64.decodeWrapped("QU\nJD\r\nRE VG\tRw==") == Array("ABCDEFG".utf8))
        #expect(Base64.decodeWrapped("QU*JD") == nil)
    }
}

@Suite struct HexTests {
    /// Every byte, from an array, a slice and a sequence without contiguous storage, both cases.
    @Test func encodingWritesTwoDigitsPerByte() {
        let all = (0...255).map(UInt8.init)
        let lower = all.map { String(format: "%02x", $0) }.joined()
        #expect(Hex.encode(all) == lower)
        #expect(Hex.encode(all[16..<32]) == String(lower.dropFirst(32).prefix(32)))
        #expect(Hex.encode(all.lazy.map { $0 }) == lower)
        #expect(Hex.encode(all, uppercase: true) == lower.uppercased())
        #expect(Hex.encode([UInt8]()) == "")
    }

    @Test func lenientAndStrictDecoding() {
        #expect(Hex.decode("0xDEad be\nEF") == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(Hex.decodeStrict("DEadbeEF") == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(Hex.decodeStrict("de ad") == nil)
        #expect(Hex.decodeStrict("0xdead") == nil)
        #expect(Hex.decodeStrict("abc") == nil)
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
    }

    @Test func encodesEitherCase() {
        #expect(Hex.encode([0x00, 0xAB, 0xFF]) == "00abff")
        #expect(Hex.encode([0x00, 0xAB, 0xFF], uppercase: true) == "00ABFF")
    }
}

@Suite struct PEMTests {
    static let one = "-----BEGIN CERTIFICATE-----\nQUJD\n-----END CERTIFICATE-----"
    static let two = "-----BEGIN EC PRIVATE KEY-----\r\nProc-Type: 4,ENCRYPTED\r\nREVG\r\n-----END EC PRIVATE KEY-----\r\n"

    @Test func readsEveryBlockWithTextAroundAndBetween() throws {
        let blocks = try PEM.blocks(in: "Bag Attributes\n    localKeyID: 01\n" + Self.one + "\nsubject=CN=x\n" + Self.two)
        #expect(blocks.map(\.label) == ["CERTIFICATE", "EC PRIVATE KEY"])
        #expect(blocks[0].der == Array("ABC".utf8))
        #expect(blocks[1].headers == ["Proc-Type: 4,ENCRYPTED"])
        #expect(blocks[1].der == Array("DEF".utf8))
        #expect(PEM.firstBlock(labeled: PEM.privateKeyLabels, in: Self.one + Self.two)?.der == Array("DEF".utf8))
    }

    @Test func blocksConcatenatedWithoutALineBreakStillSplit() throws {
        #expect(try PEM.blocks(in: Self.one + Self.one).count == 2)
    }

    @Test func namesWhatIsWrong() {
        #expect(throws: PEM.Error(message: "PEM block \"CERTIFICATE\" has no END line (truncated file?)")) {
            try PEM.blocks(in: "-----BEGIN CERTIFICATE-----\nQUJD\n")
        }
        #expect(throws: PEM.Error(message: "PEM block \"CERTIFICATE\" ends with \"PRIVATE KEY\"")) {
            try PEM.blocks(in: "-----BEGIN CERTIFICATE-----\nQUJD\n-----END PRIVATE KEY-----")
        }
        #expect(throws: PEM.Error(message: "PEM block \"CERTIFICATE\" is not valid base64")) {
            try PEM.blocks(in: "-----BEGIN CERTIFICATE-----\nQU*D\n-----END CERTIFICATE-----")
        }
        #expect((try? PEM.blocks(in: "no pem here")) == [])
    }
}

@Suite struct RFC3339Tests {
    /// A date-time is the whole text: trailing garbage (which the formatter alone ignored) is refused.
    @Test func parseTakesExactlyOneDateTime() {
        #expect(RFC3339.parse("2026-01-01T00:00:00Z") == Date(timeIntervalSince1970: 1_767_225_600))
        #expect(RFC3339.parse("2026-01-01T01:00:00.5+01:00") == Date(timeIntervalSince1970: 1_767_225_600.5))
        for text in [
            "2026-01-01T00:00:00Zjunk", "2026-01-01T00:00:00+01:00x", " 2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z ", "2026-01-01T00:00:00",
            "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00.1234567890Z", "2026-01-01 00:00:00Z", "2026-1-01T00:00:00Z", "",
            "2026-01-01t00:00:00z",
        ] {
            #expect(RFC3339.parse(text) == nil, "\(text)")
        }
    }

    @Test func reportAndTdateFormsAgreeOnWholeSeconds() {
        for seconds in stride(from: -2_000_000_000.0, to: 4_000_000_000.0, by: 86_399 * 997) {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(RFC3339.format(date) == RFC3339.formatWholeSeconds(date))
            #expect(RFC3339.parseDateTime(RFC3339.format(date)) == seconds)
            #expect(RFC3339.parse(RFC3339.format(date)) == date)
        }
    }

    @Test func bytesAndStringsParseAlike() {
        for text in [
            "2024-01-01T00:00:00Z", "2024-02-29T23:59:60z", "2023-02-29T00:00:00Z", "2024-01-01T00:00:00.5Z", "2024-01-01T00:00:00+02:00",
            "2024-01-01t00:00:00Z", "2024-13-01T00:00:00Z", "2024-01-01", "", "2024-01-01T00:00:0xZ",
        ] {
            let fromBytes = Array(text.utf8).withUnsafeBufferPointer { RFC3339.parseDateTime(utf8: $0) }
            #expect(fromBytes == RFC3339.parseDateTime(text), "\(text)")
        }
    }

    @Test func civilDaysRoundTrip() {
        for days in stride(from: -800_000, to: 800_000, by: 997) {
            let civil = RFC3339.civilFromDays(days)
            #expect(RFC3339.daysFromCivil(year: civil.year, month: civil.month, day: civil.day) == days)
        }
    }
}
