import WalletEncoding

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads the usual shapes of Apple Pay's JSON (a token, its decrypted payment data) where they are,
/// without a JSON tree or a `String` per value. It knows only a strict subset of JSON: objects with
/// known member names, each at most once; strings of ASCII (0x20–0x7F) whose only escape is `\/`;
/// whole numbers without sign, fraction, exponent or leading zero; JSON whitespace between the parts.
/// Whatever it does not know makes the read give up, and the caller then reads the input the general
/// way (``StrictJSON``), which decides and gives the precise error: a read that succeeds here is one
/// the general way succeeds in too, with the same values.
struct InPlaceJSONReader {
    let input: UnsafeBufferPointer<UInt8>
    var offset = 0

    /// A string's content as its range in the input, and whether it holds a `\/`.
    struct Text {
        let range: Range<Int>
        let escaped: Bool
    }

    // MARK: - Values

    /// The text's content with each `\/` read as `/`.
    func withContent<R>(_ text: Text, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let raw = UnsafeBufferPointer(rebasing: input[text.range])
        guard text.escaped, let source = raw.baseAddress else { return body(raw) }
        // Runs between escapes copied whole; the reader let a backslash through only before "/", and
        // nothing else that stops the scan.
        let unescaped = [UInt8](unsafeUninitializedCapacity: raw.count) { out, count in
            var from = 0
            count = 0
            while from < raw.count {
                // The next backslash, found by the C library's memchr (many bytes at a time).
                let found = memchr(source + from, Int32(UInt8(ascii: "\\")), raw.count - from)
                let stop = found.map { UnsafeRawPointer($0) - UnsafeRawPointer(source) } ?? raw.count
                (out.baseAddress! + count).initialize(from: source + from, count: stop - from)
                count += stop - from
                guard stop < raw.count else { break }
                out[count] = UInt8(ascii: "/")
                count += 1
                from = stop + 2
            }
        }
        return unescaped.withUnsafeBufferPointer(body)
    }

    func string(_ text: Text) -> String { withContent(text) { String(decoding: $0, as: UTF8.self) } }

    func base64(_ text: Text) -> [UInt8]? { withContent(text) { Base64.decodeStrict(utf8: $0) } }

    // MARK: - Syntax

    mutating func skipWhitespace() {
        while offset < input.count {
            switch input[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    /// Consumes `byte` (after whitespace) if it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard offset < input.count, input[offset] == byte else { return false }
        offset += 1
        return true
    }

    /// Whitespace, then the end of the input.
    mutating func atEnd() -> Bool {
        skipWhitespace()
        return offset == input.count
    }

    /// A string value stored into `slot`, which must be empty (a member named twice is refused).
    mutating func stringOnce(_ slot: inout Text?) -> Bool {
        guard slot == nil, let text = string() else { return false }
        slot = text
        return true
    }

    /// A string of ASCII (0x20–0x7F) without escapes other than `\/`. Its end is the first quote
    /// (an escaped quote is another escape, so the read gives up at the backslash before it); the
    /// C library's memchr finds it and each backslash, many bytes at a time, and the content is
    /// checked for control characters and non-ASCII bytes eight bytes at a time.
    mutating func string() -> Text? {
        guard consume(UInt8(ascii: "\"")), let base = input.baseAddress else { return nil }
        let start = offset
        guard let quote = memchr(base + start, Int32(UInt8(ascii: "\"")), input.count - start) else { return nil }
        let end = UnsafeRawPointer(quote) - UnsafeRawPointer(base)
        guard Self.isPlainASCII(UnsafeBufferPointer(rebasing: input[start..<end])) else { return nil }
        var escaped = false
        var from = start
        while from < end, let backslash = memchr(base + from, Int32(UInt8(ascii: "\\")), end - from) {
            let index = UnsafeRawPointer(backslash) - UnsafeRawPointer(base)
            guard index + 1 < end, input[index + 1] == UInt8(ascii: "/") else { return nil }
            escaped = true
            from = index + 2
        }
        offset = end + 1
        return Text(range: start..<end, escaped: escaped)
    }

    /// Whether every byte is at least 0x20 and below 0x80.
    static func isPlainASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = UnsafeRawPointer(bytes.baseAddress) else { return true }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        var seen: UInt64 = 0
        var index = 0
        while index + 8 <= bytes.count {
            let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            // A high bit where a byte is below 0x20 (exact when asking whether any is) or 0x80 and above.
            seen |= ((word &- ones &* 0x20) & ~word) | word
            index += 8
        }
        guard seen & high == 0 else { return false }
        while index < bytes.count {
            guard bytes[index] >= 0x20, bytes[index] < 0x80 else { return false }
            index += 1
        }
        return true
    }

    /// A whole number of 1 to 18 digits without a leading zero (unless it is "0"), as its text.
    mutating func wholeNumber() -> String? {
        skipWhitespace()
        let start = offset
        while offset < input.count, input[offset] >= UInt8(ascii: "0"), input[offset] <= UInt8(ascii: "9") { offset += 1 }
        let count = offset - start
        guard count >= 1, count <= 18, input[start] != UInt8(ascii: "0") || count == 1 else { return nil }
        // What follows must end the number: a fraction, an exponent or another character is the general reader's.
        if offset < input.count {
            switch input[offset] {
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ","), UInt8(ascii: "}"): break
            default: return nil
            }
        }
        return String(decoding: UnsafeBufferPointer(rebasing: input[start..<offset]), as: UTF8.self)
    }

    /// An object whose member names are plain ASCII; `member` reads each value and returns false to
    /// give up (an unknown or repeated name). An empty object is refused.
    mutating func object(_ member: (String, inout InPlaceJSONReader) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        repeat {
            guard let name = string(), !name.escaped, consume(UInt8(ascii: ":")) else { return false }
            let text = String(decoding: UnsafeBufferPointer(rebasing: input[name.range]), as: UTF8.self)
            guard member(text, &self) else { return false }
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "}"))
    }
}
