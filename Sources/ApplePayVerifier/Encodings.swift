import Foundation

/// Hex and base64 as Apple Pay tokens use them.
enum TokenEncoding {
    /// Decodes hex text (either case). Returns nil for an odd length or a non-hex character.
    static func hexDecode(_ text: String) -> [UInt8]? {
        let utf8 = text.utf8
        guard utf8.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var high: UInt8 = 0
        var isHigh = true
        for c in utf8 {
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            if isHigh { high = v } else { out.append(high << 4 | v) }
            isHigh.toggle()
        }
        return out
    }

    static func hexEncode<Bytes: Sequence>(_ bytes: Bytes, uppercase: Bool = false) -> String where Bytes.Element == UInt8 {
        let digits: [UInt8] = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Decodes standard base64 with padding, as Apple writes it. Line breaks and other characters are
    /// not accepted: a token field with them was altered on the way.
    /// Standard alphabet, length a multiple of 4, at most two "=" and only at the end. (Foundation's
    /// decoder also takes "=" in the middle; a token field with that was not written by Apple.)
    static func base64Decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { input in
            base64Table.withUnsafeBufferPointer { table in base64Decode(input, table: table) }
        }
    }

    private static func base64Decode(_ input: UnsafeBufferPointer<UInt8>, table: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        let count = input.count
        guard count > 0, count % 4 == 0 else { return nil }
        let padding = input[count - 1] == 0x3D ? (input[count - 2] == 0x3D ? 2 : 1) : 0
        let groups = count / 4
        let outputCount = groups * 3 - padding
        var invalid: UInt8 = 0
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, initialized in
            // Every group but the last: no padding possible.
            var o = 0
            for g in 0..<(groups - 1) {
                let i = g * 4
                let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                invalid |= a | b | c | d
                buffer[o] = a << 2 | b >> 4
                buffer[o + 1] = b << 4 | c >> 2
                buffer[o + 2] = c << 6 | d
                o += 3
            }
            let i = count - 4
            let a = table[Int(input[i])], b = table[Int(input[i + 1])]
            let c = padding == 2 ? 0 : table[Int(input[i + 2])]
            let d = padding >= 1 ? 0 : table[Int(input[i + 3])]
            invalid |= a | b | c | d
            buffer[o] = a << 2 | b >> 4
            if padding < 2 { buffer[o + 1] = b << 4 | c >> 2 }
            if padding < 1 { buffer[o + 2] = c << 6 | d }
            initialized = outputCount
        }
        return invalid & 0x80 == 0 ? output : nil
    }

    /// 0x80 marks characters outside the alphabet (including "=", handled as padding above).
    private static let base64Table: [UInt8] = {
        var table = [UInt8](repeating: 0x80, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    static func base64Encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
    }
}
