import Foundation
import WalletJSON

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

    /// Decodes standard base64 with padding, as Apple writes it (``Base64Decoding/strict(_:)``): line
    /// breaks, the URL-safe alphabet and "=" in the middle are refused.
    static func base64Decode(_ text: String) -> [UInt8]? {
        Base64Decoding.strict(text)
    }

    static func base64Encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
    }
}
