/// Hexadecimal helpers shared by every layer (inputs, diagnostics, reports).
package enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)
    private static let upperDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Hex of the bytes, lower case unless `uppercase`.
    package static func encode<S: Sequence<UInt8>>(_ bytes: S, uppercase: Bool = false) -> String {
        if let text = bytes.withContiguousStorageIfAvailable({ encode(contiguous: $0, uppercase: uppercase) }) { return text }
        return Array(bytes).withUnsafeBufferPointer { encode(contiguous: $0, uppercase: uppercase) }
    }

    /// Writes the digits straight into the string's storage (it runs for every transaction id the
    /// replay checks record).
    private static func encode(contiguous bytes: UnsafeBufferPointer<UInt8>, uppercase: Bool) -> String {
        (uppercase ? upperDigits : digits).withUnsafeBufferPointer { digits in
            String(unsafeUninitializedCapacity: bytes.count * 2) { out in
                var index = 0
                for byte in bytes {
                    out[index] = digits[Int(byte >> 4)]
                    out[index + 1] = digits[Int(byte & 0x0f)]
                    index += 2
                }
                return index
            }
        }
    }

    /// The value of one hex digit (either case), or nil for any other byte.
    @inline(__always)
    private static func digit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Decodes hex text (upper or lower case). Whitespace is ignored; an optional `0x` prefix is
    /// allowed. Returns nil for an odd number of digits or any other character.
    package static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        var utf8 = Array(text.utf8)
        if utf8.count >= 2, utf8[0] == UInt8(ascii: "0"), utf8[1] | 0x20 == UInt8(ascii: "x") { utf8.removeFirst(2) }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var high: UInt8?
        for c in utf8 {
            if c == UInt8(ascii: " ") || c == UInt8(ascii: "\n") || c == UInt8(ascii: "\r") || c == UInt8(ascii: "\t") { continue }
            guard let v = digit(c) else { return nil }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return high == nil ? out : nil
    }

    /// Each byte's value as a hex digit (either case), 0xFF for any other byte.
    private static let digitValues: [UInt8] = (0...255).map { digit(UInt8($0)) ?? 0xFF }

    /// Decodes hex text (either case) with nothing else in it: no whitespace, no `0x`. Returns nil for
    /// an odd length or any other character (Apple Pay's transaction ids and hashes). Read where the
    /// text is, one table lookup per digit, written straight into the result.
    package static func decodeStrict(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { input -> [UInt8]? in
            guard input.count % 2 == 0 else { return nil }
            return digitValues.withUnsafeBufferPointer { values -> [UInt8]? in
                var valid = true
                let out = [UInt8](unsafeUninitializedCapacity: input.count / 2) { buffer, count in
                    var index = 0
                    while index < buffer.count {
                        let high = values[Int(input[2 * index])]
                        let low = values[Int(input[2 * index + 1])]
                        // 0xFF marks a byte that is not a digit; digits are below 0x10.
                        guard (high | low) & 0xF0 == 0 else {
                            valid = false
                            break
                        }
                        buffer[index] = high << 4 | low
                        index += 1
                    }
                    count = valid ? index : 0
                }
                return valid ? out : nil
            }
        }
    }
}
