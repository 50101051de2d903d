#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small, strict JSON reader (RFC 8259) for tokens, decrypted payment data and HTTP request bodies.
///
/// Strict where laxness would be ambiguous: duplicate member names, invalid UTF-8, control
/// characters in strings, leading zeros and trailing content are errors. Numbers keep their text
/// (an amount is never rounded through a Double). Nesting is limited, so hostile input cannot
/// exhaust the stack. Each object remembers where its members' values were in the input
/// (``Object/range(of:)``), so a caller can pass on a value's bytes exactly as received.
public enum StrictJSON {
    /// A parsed JSON value.
    ///
    /// Not `indirect`: arrays and objects keep their elements in arrays already, so a value needs
    /// no box of its own (a parse allocates one less block per value).
    public enum Value: Equatable, Sendable {
        case string(String)
        /// The number as written.
        case number(String)
        case bool(Bool)
        case null
        case array([Value])
        case object(Object)

        /// The members, if this is an object.
        public var object: Object? {
            if case .object(let members) = self { return members }
            return nil
        }

        /// The text, if this is a string.
        public var string: String? {
            if case .string(let text) = self { return text }
            return nil
        }

        /// The number's text as written, for a number.
        public var number: String? {
            if case .number(let text) = self { return text }
            return nil
        }

        /// The elements, if this is an array.
        public var array: [Value]? {
            if case .array(let elements) = self { return elements }
            return nil
        }

        /// A short name of the type, for messages.
        public var typeName: String {
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
    public struct Object: Equatable, Sendable, ExpressibleByDictionaryLiteral {
        /// The members in input (or insertion) order; names are unique.
        public private(set) var members: [(name: String, value: Value)] = []
        /// Where each member's value was in the parsed input (empty ranges for built objects).
        private var valueRanges: [Range<Int>] = []
        private var index: [Name: Int]?

        /// An object with no members, for building one in code.
        public init() {}

        /// An object of the given members in order; of a repeated name, only the first is kept.
        public init(dictionaryLiteral elements: (String, Value)...) {
            for (name, value) in elements { _ = insert(name, value) }
        }

        /// The number of members.
        public var count: Int { members.count }

        /// The value of the member with this name, or nil if there is none.
        public subscript(name: String) -> Value? {
            position(of: name).map { members[$0].value }
        }

        /// The byte range of the member's value in the input it was parsed from.
        public func range(of name: String) -> Range<Int>? {
            position(of: name).map { valueRanges[$0] }
        }

        private func position(of name: String) -> Int? {
            if let index { return index[Name(name)] }
            return Self.position(of: name, in: members)
        }

        /// The position of the member with this name, searched in place (a search that copies each
        /// member retains its name and value).
        private static func position(of name: String, in members: [(name: String, value: Value)]) -> Int? {
            members.withUnsafeBufferPointer { all in
                for index in all.indices where Name.equal(all[index].name, name) { return index }
                return nil
            }
        }

        /// False if the name is already present.
        public mutating func insert(_ name: String, _ value: Value, range: Range<Int> = 0..<0) -> Bool {
            if index == nil, members.count >= 16 {
                var built: [Name: Int] = [:]
                for (offset, member) in members.enumerated() { built[Name(member.name)] = offset }
                index = built
            }
            if index != nil {
                guard index?[Name(name)] == nil else { return false }
                index?[Name(name)] = members.count
            } else if Self.position(of: name, in: members) != nil {
                return false
            }
            members.append((name, value))
            valueRanges.append(range)
            return true
        }

        /// Equal when both have the same names with equal values, in any order.
        public static func == (lhs: Object, rhs: Object) -> Bool {
            lhs.count == rhs.count && lhs.members.allSatisfy { rhs[$0.name] == $0.value }
        }

        /// A member name compared and hashed by its UTF-8 bytes. RFC 8259 §8.3 compares names code
        /// unit by code unit; `String`'s `==` and hash follow canonical equivalence, which would make
        /// two names that differ only in Unicode normalization duplicates (and costs a normalization
        /// check for every name longer than 15 bytes).
        struct Name: Hashable {
            let text: String

            init(_ text: String) { self.text = text }

            static func == (lhs: Name, rhs: Name) -> Bool { equal(lhs.text, rhs.text) }

            func hash(into hasher: inout Hasher) {
                var text = text
                text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            }

            /// Whether two names have the same UTF-8 bytes.
            @inline(__always)
            static func equal(_ lhs: String, _ rhs: String) -> Bool {
                let a = lhs.utf8, b = rhs.utf8
                guard a.count == b.count else { return false }
                if let same = a.withContiguousStorageIfAvailable({ pa in
                    b.withContiguousStorageIfAvailable { pb in pa.count == 0 || memcmp(pa.baseAddress!, pb.baseAddress!, pa.count) == 0 }
                }), let same {
                    return same
                }
                return a.elementsEqual(b)
            }
        }
    }

    /// Why and where ``StrictJSON/parse(_:)`` rejected its input: a code, a message and a byte offset,
    /// in the shape of the other error types of the project.
    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What kind of error this is; extensible, compare with the constants.
        public struct Code: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
            /// The code as written in logs and tests.
            public let rawValue: String
            /// A code with this raw value.
            public init(rawValue: String) { self.rawValue = rawValue }
            /// The raw value.
            public var description: String { rawValue }

            /// The input ended inside a value.
            public static let unexpectedEnd = Code(rawValue: "unexpectedEnd")
            /// A byte that cannot start or continue the value here.
            public static let unexpectedCharacter = Code(rawValue: "unexpectedCharacter")
            /// `true`, `false` or `null` misspelt.
            public static let invalidLiteral = Code(rawValue: "invalidLiteral")
            /// A number that does not follow the JSON grammar.
            public static let invalidNumber = Code(rawValue: "invalidNumber")
            /// A string with a control character, a bad escape, an unpaired surrogate or invalid UTF-8.
            public static let invalidString = Code(rawValue: "invalidString")
            /// An object that names a member twice.
            public static let duplicateMember = Code(rawValue: "duplicateMember")
            /// Nesting deeper than ``StrictJSON/maximumDepth``.
            public static let tooDeep = Code(rawValue: "tooDeep")
            /// Something other than whitespace after the value.
            public static let trailingContent = Code(rawValue: "trailingContent")
        }

        /// What kind of error this is.
        public var code: Code
        /// What was wrong, as a phrase to put inside a sentence (for example "unexpected end of input").
        public var message: String
        /// The byte offset where reading failed.
        public var offset: Int

        /// Creates an error of a code, with a message, at a byte offset.
        public init(_ code: Code, _ message: String, offset: Int) {
            self.code = code
            self.message = message
            self.offset = offset
        }

        /// The message and the byte offset, for messages.
        public var description: String { "\(message) at byte \(offset)" }
    }

    /// The nesting limit: a value inside more than this many arrays and objects is a ``ParseError``.
    public static let maximumDepth = 64

    /// Parses exactly one JSON value from UTF-8 bytes; whitespace may surround it.
    /// Throws ``ParseError`` for anything else, including trailing content and nesting beyond ``maximumDepth``.
    public static func parse(_ input: [UInt8]) throws(ParseError) -> Value {
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
            guard reader.offset == buffer.count else {
                return .failure(ParseError(.trailingContent, "content after the JSON value", offset: reader.offset))
            }
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

        func fail(_ code: ParseError.Code, _ message: String) -> ParseError {
            ParseError(code, message, offset: offset)
        }

        mutating func value(depth: Int) throws(ParseError) -> Value {
            guard depth <= StrictJSON.maximumDepth else { throw fail(.tooDeep, "nesting deeper than \(StrictJSON.maximumDepth)") }
            guard offset < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
            switch bytes[offset] {
            case UInt8(ascii: "{"): return try object(depth: depth)
            case UInt8(ascii: "["): return try array(depth: depth)
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"):
                try literal("true")
                return .bool(true)
            case UInt8(ascii: "f"):
                try literal("false")
                return .bool(false)
            case UInt8(ascii: "n"):
                try literal("null")
                return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
            default: throw fail(.unexpectedCharacter, "unexpected character")
            }
        }

        mutating func literal(_ word: StaticString) throws(ParseError) {
            let count = word.utf8CodeUnitCount
            guard offset + count <= bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
            let matches = word.withUTF8Buffer { expected in
                (0..<count).allSatisfy { bytes[offset + $0] == expected[$0] }
            }
            guard matches else { throw fail(.invalidLiteral, "invalid literal") }
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
                guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw fail(.unexpectedCharacter, "expected a member name") }
                let name = try string()
                skipWhitespace()
                guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw fail(.unexpectedCharacter, "expected ':'") }
                offset += 1
                skipWhitespace()
                let valueStart = offset
                let member = try value(depth: depth + 1)
                guard members.insert(name, member, range: valueStart..<offset) else {
                    throw fail(.duplicateMember, "duplicate member \"\(name.prefix(40))\"")
                }
                skipWhitespace()
                guard offset < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
                if bytes[offset] == UInt8(ascii: ",") {
                    offset += 1
                    continue
                }
                if bytes[offset] == UInt8(ascii: "}") {
                    offset += 1
                    return .object(members)
                }
                throw fail(.unexpectedCharacter, "expected ',' or '}'")
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
                guard offset < bytes.count else { throw fail(.unexpectedEnd, "unexpected end of input") }
                if bytes[offset] == UInt8(ascii: ",") {
                    offset += 1
                    continue
                }
                if bytes[offset] == UInt8(ascii: "]") {
                    offset += 1
                    return .array(elements)
                }
                throw fail(.unexpectedCharacter, "expected ',' or ']'")
            }
        }

        mutating func number() throws(ParseError) -> String {
            let start = offset
            if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            guard offset < bytes.count else { throw fail(.invalidNumber, "invalid number") }
            if bytes[offset] == UInt8(ascii: "0") {
                offset += 1
            } else if isDigit(bytes[offset]) {
                while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
            } else {
                throw fail(.invalidNumber, "invalid number")
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
                offset += 1
                guard offset < bytes.count, isDigit(bytes[offset]) else { throw fail(.invalidNumber, "invalid number") }
                while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
            }
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
                offset += 1
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
                guard offset < bytes.count, isDigit(bytes[offset]) else { throw fail(.invalidNumber, "invalid number") }
                while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        /// The index of the first byte at or after `index` that is a quote, a backslash, below
        /// 0x20 or 0x80 and above (or `bytes.count`): sixteen bytes at a time while none of them is,
        /// then eight, then one (base64 fields of a few kilobytes are most of a payment token).
        func nextSpecial(from index: Int) -> Int {
            var i = index
            if let base = UnsafeRawPointer(bytes.baseAddress) {
                while i + 16 <= bytes.count {
                    let first = base.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    let second = base.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)
                    if (Self.specialBytes(first) | Self.specialBytes(second)) & Self.high != 0 { break }
                    i += 16
                }
                while i + 8 <= bytes.count {
                    if Self.specialBytes(base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) & Self.high != 0 { break }
                    i += 8
                }
            }
            while i < bytes.count {
                let byte = bytes[i]
                if byte == 0x22 || byte == 0x5C || byte < 0x20 || byte >= 0x80 { return i }
                i += 1
            }
            return i
        }

        static let ones: UInt64 = 0x0101_0101_0101_0101
        static let high: UInt64 = 0x8080_8080_8080_8080

        /// A word whose high bits (``high``) are all clear when none of the eight bytes of `x` is a
        /// quote, a backslash, below 0x20 or 0x80 and above (a bit may be set for a byte that is
        /// not, after one that is: the byte-at-a-time loop then finds the exact one).
        @inline(__always)
        static func specialBytes(_ x: UInt64) -> UInt64 {
            let quote = x ^ (ones &* 0x22)
            let backslash = x ^ (ones &* 0x5C)
            return ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((x &- ones &* 0x20) & ~x) | x
        }

        /// A string starting at the opening quote.
        mutating func string() throws(ParseError) -> String {
            offset += 1
            let start = offset
            var ascii = true
            var utf8: [UInt8] = []
            var escaped = false
            var runStart = start
            while true {
                offset = nextSpecial(from: offset)
                guard offset < bytes.count else { throw fail(.unexpectedEnd, "unterminated string") }
                let byte = bytes[offset]
                if byte >= 0x80 {
                    ascii = false
                    offset += 1
                    continue
                }
                guard byte >= 0x20 else { throw fail(.invalidString, "control character in a string") }
                if byte == UInt8(ascii: "\"") {
                    let run = UnsafeBufferPointer(rebasing: bytes[runStart..<offset])
                    offset += 1
                    if !escaped {
                        if ascii { return String(decoding: run, as: UTF8.self) }
                        guard let text = String(validating: run, as: UTF8.self) else { throw fail(.invalidString, "invalid UTF-8 in a string") }
                        return text
                    }
                    utf8.append(contentsOf: run)
                    guard let text = String(validating: utf8, as: UTF8.self) else { throw fail(.invalidString, "invalid UTF-8 in a string") }
                    return text
                }
                // A backslash: escapes (serializers that write "\/" put them in every base64 field).
                if !escaped {
                    escaped = true
                    utf8.reserveCapacity(offset - start + 64)
                }
                utf8.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<offset]))
                offset += 1
                guard offset < bytes.count else { throw fail(.unexpectedEnd, "unterminated string") }
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
                            throw fail(.invalidString, "unpaired surrogate")
                        }
                        offset += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail(.invalidString, "unpaired surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw fail(.invalidString, "unpaired surrogate")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw fail(.invalidString, "invalid \\u escape") }
                    utf8.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw fail(.invalidString, "invalid escape")
                }
                runStart = offset
            }
        }

        mutating func hex4() throws(ParseError) -> UInt32 {
            guard offset + 4 <= bytes.count else { throw fail(.unexpectedEnd, "truncated \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[offset]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw fail(.invalidString, "invalid \\u escape")
                }
                value = value << 4 | digit
                offset += 1
            }
            return value
        }
    }
}
