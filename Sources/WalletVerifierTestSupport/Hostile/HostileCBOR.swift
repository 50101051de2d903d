import WalletCBOR

/// Hostile CBOR shapes for the hardening tests, built as bytes (building them as nodes would recurse
/// as deep as the attack).
public enum HostileCBOR {
    /// `levels` tag-24 items, each holding the next in its byte string, around `innermost`:
    /// `24(<< 24(<< … innermost … >>) >>)`. 20,000 levels are ≈114 KB; 100,000 ≈ 700 KB.
    public static func nestedTag24(levels: Int, innermost: [UInt8] = [0x63, 0x61, 0x62, 0x63]) -> [UInt8] {
        // Built back to front: each level's head is written reversed after its content.
        var reversed = Array(innermost.reversed())
        reversed.reserveCapacity(innermost.count + levels * 7)
        for _ in 0..<levels {
            let length = reversed.count
            reversed.append(contentsOf: head(major: 2, length: length).reversed())
            reversed.append(contentsOf: [0x18, 0xd8])
        }
        return reversed.reversed()
    }

    /// `levels` byte strings, each holding a one-entry map whose value is the next byte string:
    /// `{0: << {0: << … >>} >>}`: what diagnostic notation decodes as "likely embedded CBOR".
    public static func nestedMapsInByteStrings(levels: Int) -> [UInt8] {
        var reversed: [UInt8] = [0x00, 0x00, 0xa1]
        for _ in 0..<levels {
            let length = reversed.count
            reversed.append(contentsOf: head(major: 2, length: length).reversed())
            reversed.append(contentsOf: [0x00, 0xa1])
        }
        return reversed.reversed()
    }

    /// The tag-24 nesting as an element value node (decoding it reads only the outermost level).
    public static func nestedTag24Node(levels: Int) throws -> CBORNode {
        try CBORDecoder.decode(nestedTag24(levels: levels))
    }

    static func head(major: UInt8, length: Int) -> [UInt8] {
        let type = major << 5
        switch length {
        case 0..<24: return [type | UInt8(length)]
        case 24..<256: return [type | 24, UInt8(length)]
        case 256..<65536: return [type | 25, UInt8(length >> 8), UInt8(length & 0xff)]
        default: return [type | 26, UInt8(length >> 24 & 0xff), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)]
        }
    }
}
