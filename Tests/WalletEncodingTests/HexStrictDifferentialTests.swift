import Testing

@testable import WalletEncoding

/// `Hex.decodeStrict` against a plain reference: every pair of bytes, and random texts with and
/// without a stray character, must give the same bytes or the same refusal.
@Suite struct HexStrictDifferentialTests {
    static func reference(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return nil
            }
        }
        var out: [UInt8] = []
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    @Test func everyPairOfBytes() {
        for first in 0...127 {
            for second in 0...127 {
                let text = String(decoding: [UInt8(first), UInt8(second)], as: UTF8.self)
                #expect(Hex.decodeStrict(text) == Self.reference(text), "\(first) \(second)")
            }
        }
        for text in ["", "0", "é0", "0é", "00é", "ÿÿ", "0x00", " 00", "00 ", "AbCdEf0123456789"] {
            #expect(Hex.decodeStrict(text) == Self.reference(text), "\(text)")
        }
    }

    @Test func randomTexts() {
        var state: UInt64 = 0x4845_58
        let alphabet = Array("0123456789abcdefABCDEF".utf8)
        let strays = Array("gG xX-\u{0}".utf8)
        for round in 0..<5_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var bytes = (0..<Int(state >> 58)).map { index in alphabet[Int((state >> UInt64(index % 50)) % UInt64(alphabet.count))] }
            if round % 3 == 0, !bytes.isEmpty { bytes[Int(state % UInt64(bytes.count))] = strays[Int(state >> 40) % strays.count] }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(Hex.decodeStrict(text) == Self.reference(text), "\(text)")
        }
    }
}
