/// Base64 as bytes travel in JSON bodies: the standard (RFC 4648 §4) and the URL-safe (§5) alphabet,
/// padded or not, surrounding whitespace ignored. Anything else (a character outside both alphabets,
/// "=" before the end, an impossible length) is refused with nil.
public enum LenientBase64 {
    public static func decode(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode(bytes: $0) }
    }

    public static func decode(bytes input: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var start = 0
        var end = input.count
        while start < end, isWhitespace(input[start]) { start += 1 }
        while end > start, isWhitespace(input[end - 1]) { end -= 1 }
        var padding = 0
        while end > start, padding < 2, input[end - 1] == UInt8(ascii: "=") {
            end -= 1
            padding += 1
        }
        let count = end - start
        guard count > 0, count % 4 != 1 else { return nil }
        if padding > 0, (count + padding) % 4 != 0 { return nil }
        let outputCount = count / 4 * 3 + max(0, count % 4 - 1)
        var invalid: UInt8 = 0
        let output = [UInt8](unsafeUninitializedCapacity: outputCount) { buffer, initialized in
            var i = start
            var o = 0
            while i + 4 <= end {
                let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                let c = table[Int(input[i + 2])], d = table[Int(input[i + 3])]
                invalid |= a | b | c | d
                buffer[o] = a << 2 | b >> 4
                buffer[o + 1] = b << 4 | c >> 2
                buffer[o + 2] = c << 6 | d
                i += 4
                o += 3
            }
            let rest = end - i
            if rest >= 2 {
                let a = table[Int(input[i])], b = table[Int(input[i + 1])]
                invalid |= a | b
                buffer[o] = a << 2 | b >> 4
                if rest == 3 {
                    let c = table[Int(input[i + 2])]
                    invalid |= c
                    buffer[o + 1] = b << 4 | c >> 2
                }
            }
            initialized = outputCount
        }
        return invalid & 0x80 == 0 ? output : nil
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Sextet values of both alphabets; 0x80 marks every other byte (including "=").
    private static let table: [UInt8] = {
        var table = [UInt8](repeating: 0x80, count: 256)
        for (value, character) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        table[Int(UInt8(ascii: "-"))] = 62
        table[Int(UInt8(ascii: "_"))] = 63
        return table
    }()
}
