#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small, strict JSON reader (RFC 8259) for tokens and decrypted payment data.
///
/// Strict where laxness would be ambiguous: duplicate member names, invalid UTF-8, control
/// characters in strings, leading zeros and trailing content are errors. Numbers keep their text
/// (an amount is never rounded through a Double). Nesting is limited, so hostile input cannot
/// exhaust the stack.
enum StrictJSON {
    indirect enum Value: Equatable, Sendable {
        case string(String)
        /// The number as written.
        case number(String)
        case bool(Bool)
        case null
        case array([Value])
        case object(Object)

        var object: Object? {
            if case .object(let members) = self { return members }
            return nil
        }

        var string: String? {
            if case .string(let text) = self { return text }
            return nil
        }

        /// A short name of the type, for messages.
        var typeName: String {
            switch self {
            case .string: return "a string"
            case .number: return "a number"
            case .bool: return "a boolean"
            case .null: return "null"
            case .array: return "an array"
            case .object: return "an object"
            }
        }
    }

    /// Members of an object. Tokens have a handful, so they are kept in order in an array and
    /// looked up linearly; an index is built only for large objects (duplicate detection stays
    /// linear-time for hostile input).
    struct Object: Equatable, Sendable, ExpressibleByDictionaryLiteral {
        private(set) var members: [(name: String, value: Value)] = []
        private var index: [String: Int]?

        init() {}

        init(dictionaryLiteral elements: (String, Value)...) {
            for (name, value) in elements { _ = insert(name, value) }
        }

        var count: Int { members.count }

        subscript(name: String) -> Value? {
            if let index { return index[name].map { members[$0].value } }
            for member in members where member.name == name { return member.value }
            return nil
        }

        /// False if the name is already present.
        mutating func insert(_ name: String, _ value: Value) -> Bool {
            if index == nil, members.count >= 16 {
                var built: [String: Int] = [:]
                for (offset, member) in members.enumerated() { built[member.name] = offset }
                index = built
            }
            if index != nil {
                guard index?[name] == nil else { return false }
                index?[name] = members.count
            } else if members.contains(where: { $0.name == name }) {
                return false
            }
            members.append((name, value))
            return true
        }

        static func == (lhs: Object, rhs: Object) -> Bool {
            lhs.count == rhs.count && lhs.members.allSatisfy { rhs[$0.name] == $0.value }
        }
    }

    struct ParseError: Error, Equatable {
        var offset: Int
        var reason: String
    }

    static let maximumDepth = 64

    static func parse(_ input: [UInt8]) throws(ParseError) -> Value {
        let result: Result<Value, ParseError> = input.withUnsafeBufferPointer { buffer in
            var reader = Reader(bytes: buffer)
            reader.skipWhitespace()
            let value: Value
            do throws(ParseError) {
                value = try reader.value(depth: 0)
            } catch {
                return .failure(error)
            }
            reader.skipWhitespace()
            guard reader.offset == buffer.count else { return .failure(ParseError(offset: reader.offset, reason: "content after the JSON value")) }
            return .success(value)
        }
        return try result.get()
    }

    /// Reads from the caller's buffer, valid for the duration of ``parse(_:)``.
    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0

        mutating func skipWhitespace() {
            while offset < bytes.count {
                switch bytes[offset] {
                case 0x20, 0x09, 0x0A, 0x0D: offset += 1
                default: return
                }
            }
        }

        func fail(_ reason: String) -> ParseError {
            ParseError(offset: offset, reason: reason)
        }

        mutating func value(depth: Int) throws(ParseError) -> Value {
            guard depth <= StrictJSON.maximumDepth else { throw fail("nesting deeper than \(StrictJSON.maximumDepth)") }
            guard offset < bytes.count else { throw fail("unexpected end of input") }
            switch bytes[offset] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try literal("true"); return .bool(true)
            case UInt8(ascii: "f"): try literal("false"); return .bool(false)
            case UInt8(ascii: "n"): try literal("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw fail("unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws(ParseError) {
            let count = word.utf8CodeUnitCount
            guard offset + count <= bytes.count else { throw fail("unexpected end of input") }
            let matches = word.withUTF8Buffer { expected in
                (0..<count).allSatisfy { bytes[offset + $0] == expected[$0] }
            }
            guard matches else { throw fail("invalid literal") }
            offset += count
        }

        mutating func object(depth: Int) throws(ParseError) -> Value {
            offset += 1
            var members = Object()
            skipWhitespace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") {
                offset += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw fail("expected a member name") }
                let name = try string()
                skipWhitespace()
                guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw fail("expected ':'") }
                offset += 1
                skipWhitespace()
                let member = try value(depth: depth + 1)
                guard members.insert(name, member) else {
                    throw fail("duplicate member \"\(name.prefix(40))\"")
                }
                skipWhitespace()
                guard offset < bytes.count else { throw fail("unexpected end of input") }
                if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
                if bytes[offset] == UInt8(ascii: "}") { offset += 1; return .object(members) }
                throw fail("expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws(ParseError) -> Value {
            offset += 1
            var elements: [Value] = []
            skipWhitespace()
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") {
                offset += 1
                return .array(elements)
            }
            while true {
                skipWhitespace()
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                guard offset < bytes.count else { throw fail("unexpected end of input") }
                if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
                if bytes[offset] == UInt8(ascii: "]") { offset += 1; return .array(elements) }
                throw fail("expected ',' or ']'")
            }
        }

        mutating func number() throws(ParseError) -> String {
            let start = offset
            if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard offset < bytes.count else { throw fail("invalid number") }
            if bytes[offset] == UInt8(ascii: "0") {
                offset += 1
            } else if isDigit(bytes[offset]) {
                while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
            } else {
                throw fail("invalid number")
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
                offset += 1
                guard offset < bytes.count, isDigit(bytes[offset]) else { throw fail("invalid number") }
                while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
                offset += 1
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
                guard offset < bytes.count, isDigit(bytes[offset]) else { throw fail("invalid number") }
                while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        }

        /// Whether `content` has a byte below 0x20 and whether it has one of 0x80 or above, eight
        /// bytes at a time.
        static func classify(_ content: UnsafeBufferPointer<UInt8>) -> (control: Bool, high: Bool) {
            let high: UInt64 = 0x8080_8080_8080_8080
            let ones: UInt64 = 0x0101_0101_0101_0101
            var controlBits: UInt64 = 0
            var highBits: UInt64 = 0
            var index = 0
            if let base = UnsafeRawPointer(content.baseAddress) {
                while index + 8 <= content.count {
                    let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    highBits |= word & high
                    // A byte below 0x20 (with its high bit clear) borrows in word - 0x20…20.
                    controlBits |= (word &- ones &* 0x20) & ~word & high
                    index += 8
                }
            }
            var tailControl = false
            var tailHigh = false
            while index < content.count {
                let byte = content[index]
                tailControl = tailControl || byte < 0x20
                tailHigh = tailHigh || byte >= 0x80
                index += 1
            }
            return (controlBits != 0 || tailControl, highBits != 0 || tailHigh)
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        /// A string starting at the opening quote.
        mutating func string() throws(ParseError) -> String {
            offset += 1
            let start = offset
            // Fast path: find the closing quote and check there is no backslash before it.
            if let base = bytes.baseAddress, start < bytes.count,
               let quote = memchr(base + start, 0x22, bytes.count - start) {
                let end = base.distance(to: quote.assumingMemoryBound(to: UInt8.self))
                if memchr(base + start, 0x5C, end - start) == nil {
                    let content = UnsafeBufferPointer(rebasing: bytes[start..<end])
                    let (hasControl, hasHigh) = Self.classify(content)
                    guard !hasControl else {
                        offset = start + (content.firstIndex { $0 < 0x20 } ?? 0)
                        throw fail("control character in a string")
                    }
                    if !hasHigh {
                        offset = end + 1
                        return String(decoding: content, as: UTF8.self)
                    }
                    guard let text = String(validating: content, as: UTF8.self) else { throw fail("invalid UTF-8 in a string") }
                    offset = end + 1
                    return text
                }
            }
            // Find the first backslash (or the end) for the slow path.
            while offset < bytes.count, bytes[offset] != UInt8(ascii: "\\"), bytes[offset] != UInt8(ascii: "\"") {
                guard bytes[offset] >= 0x20 else { throw fail("control character in a string") }
                offset += 1
            }
            guard offset < bytes.count else { throw fail("unterminated string") }
            // Slow path: escapes (serializers that write "\/" put them in every base64 field).
            var utf8: [UInt8] = []
            utf8.reserveCapacity(offset - start + 64)
            var runStart = start
            while offset < bytes.count {
                let byte = bytes[offset]
                if byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                    guard byte >= 0x20 else { throw fail("control character in a string") }
                    offset += 1
                    continue
                }
                utf8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<offset]))
                if byte == UInt8(ascii: "\"") {
                    guard let text = String(validating: utf8, as: UTF8.self) else { throw fail("invalid UTF-8 in a string") }
                    offset += 1
                    return text
                }
                offset += 1
                guard offset < bytes.count else { throw fail("unterminated string") }
                let escape = bytes[offset]
                offset += 1
                switch escape {
                case UInt8(ascii: "\""): utf8.append(0x22)
                case UInt8(ascii: "\\"): utf8.append(0x5C)
                case UInt8(ascii: "/"): utf8.append(0x2F)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else {
                            throw fail("unpaired surrogate")
                        }
                        offset += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw fail("unpaired surrogate")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
                    utf8.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw fail("invalid escape")
                }
                runStart = offset
            }
            throw fail("unterminated string")
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard offset + 4 <= bytes.count else { throw fail("truncated \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[offset]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw fail("invalid \\u escape")
                }
                value = value << 4 | digit
                offset += 1
            }
            return value
        }
    }
}
