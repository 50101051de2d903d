/// UTF-8 well-formedness (Unicode 15, Table 3-7): no overlong forms, no surrogates, nothing above
/// U+10FFFF, no truncated sequences. The same rule as the standard library's validating initializers.
enum UTF8Validation {
    static func isValid(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        var i = 0
        // ASCII, eight bytes at a time (keys, identifiers and most values are ASCII); the byte loop
        // below takes over at the first word with a high bit, and for the last few bytes.
        if let base = bytes.baseAddress.map(UnsafeRawPointer.init) {
            while i + 8 <= count, base.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { i += 8 }
        }
        while i < count {
            let b0 = bytes[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            if b0 < 0xc2 { return false }
            if b0 < 0xe0 {
                guard i + 1 < count, bytes[i + 1] & 0xc0 == 0x80 else { return false }
                i += 2
            } else if b0 < 0xf0 {
                guard i + 2 < count else { return false }
                let b1 = bytes[i + 1]
                switch b0 {
                case 0xe0: guard b1 >= 0xa0 && b1 <= 0xbf else { return false }
                case 0xed: guard b1 >= 0x80 && b1 <= 0x9f else { return false }
                default: guard b1 & 0xc0 == 0x80 else { return false }
                }
                guard bytes[i + 2] & 0xc0 == 0x80 else { return false }
                i += 3
            } else if b0 < 0xf5 {
                guard i + 3 < count else { return false }
                let b1 = bytes[i + 1]
                switch b0 {
                case 0xf0: guard b1 >= 0x90 && b1 <= 0xbf else { return false }
                case 0xf4: guard b1 >= 0x80 && b1 <= 0x8f else { return false }
                default: guard b1 & 0xc0 == 0x80 else { return false }
                }
                guard bytes[i + 2] & 0xc0 == 0x80, bytes[i + 3] & 0xc0 == 0x80 else { return false }
                i += 4
            } else {
                return false
            }
        }
        return true
    }
}

func hexByte(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
}

/// IEEE 754 binary16 to binary32, done by hand so it works on every platform.
func halfBitsToFloat(_ bits: UInt16) -> Float {
    let sign: Float = (bits & 0x8000) != 0 ? -1 : 1
    let exponent = Int((bits >> 10) & 0x1f)
    let mantissa = Float(bits & 0x3ff)
    switch exponent {
    case 0: return sign * mantissa * 0x1p-24
    case 31: return mantissa == 0 ? sign * .infinity : .nan
    default: return sign * (1 + mantissa / 1024) * Float(sign: .plus, exponent: exponent - 15, significand: 1)
    }
}
