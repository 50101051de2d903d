/// Lower-case hex of bytes, the same text as `Hex.encode(_:)`, written straight into the string's
/// storage: the replay check encodes every token's transactionId, and the generic encoder appends
/// byte by byte.
enum LowercaseHex {
    private static let digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (
        0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66
    )

    static func encode(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            withUnsafeBytes(of: digits) { digits in
                var out = 0
                for byte in bytes {
                    buffer[out] = digits[Int(byte >> 4)]
                    buffer[out + 1] = digits[Int(byte & 0x0F)]
                    out += 2
                }
                return out
            }
        }
    }
}
