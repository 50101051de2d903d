/// Writes JSON text straight into a byte buffer: no Foundation, no intermediate dictionaries.
///
/// The caller decides the member order (the project's outputs sort their keys); strings are
/// escaped as RFC 8259 requires (quote, backslash and control characters), `/` is left alone.
public struct JSONWriter: Sendable {
    /// The JSON written so far, as UTF-8 bytes.
    public private(set) var bytes: [UInt8] = []

    /// An empty writer with room reserved for `capacity` bytes.
    public init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    /// The text written so far.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Appends JSON (or punctuation) verbatim; the caller vouches that it is valid where it goes.
    public mutating func raw(_ json: String) {
        var json = json
        json.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Appends one byte verbatim, typically punctuation such as a comma or a brace.
    public mutating func raw(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends bytes verbatim; the caller vouches that they are valid JSON where they go.
    public mutating func raw(bytes json: some Collection<UInt8>) {
        bytes.append(contentsOf: json)
    }

    /// A quoted, escaped JSON string.
    public mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            bytes.append(0x22)
            var runStart = 0
            var index = 0
            while true {
                index = Self.nextToEscape(utf8, from: index)
                guard index < utf8.count else { break }
                let byte = utf8[index]
                defer { index += 1 }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                runStart = index + 1
                bytes.append(0x5C)
                switch byte {
                case 0x22: bytes.append(0x22)
                case 0x5C: bytes.append(0x5C)
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    let digits: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30, digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
            bytes.append(0x22)
        }
    }

    /// The first index at or after `start` of a quote, a backslash or a control character (or the
    /// count), eight bytes at a time.
    private static func nextToEscape(_ utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        if let base = UnsafeRawPointer(utf8.baseAddress) {
            let ones: UInt64 = 0x0101_0101_0101_0101
            let high: UInt64 = 0x8080_8080_8080_8080
            while index + 8 <= utf8.count {
                let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                let quote = word ^ (ones &* 0x22)
                let backslash = word ^ (ones &* 0x5C)
                // A byte below 0x20, or equal to a quote or backslash, sets its high bit here (bytes
                // of 0x80 and above are masked out by `~word`).
                let hits = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | (word &- ones &* 0x20)) & ~word & high
                if hits != 0 { break }
                index += 8
            }
        }
        while index < utf8.count {
            let byte = utf8[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C { return index }
            index += 1
        }
        return index
    }

    /// `"name":`
    public mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Appends `true` or `false`.
    public mutating func bool(_ value: Bool) {
        raw(value ? "true" : "false")
    }

    /// A JSON object of string values, members in the order of their names.
    public mutating func sortedStringObject(_ members: [String: String]) {
        bytes.append(UInt8(ascii: "{"))
        if members.count <= 2 {
            // Most objects written here (a report's details) have one or two members: ordered without
            // sorting an array of the keys or looking each one up again.
            var pair = members.makeIterator()
            if let first = pair.next() {
                if let second = pair.next() {
                    let (a, b) = first.key < second.key ? (first, second) : (second, first)
                    key(a.key)
                    string(a.value)
                    bytes.append(UInt8(ascii: ","))
                    key(b.key)
                    string(b.value)
                } else {
                    key(first.key)
                    string(first.value)
                }
            }
        } else {
            for (offset, name) in members.keys.sorted().enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                key(name)
                string(members[name] ?? "")
            }
        }
        bytes.append(UInt8(ascii: "}"))
    }
}
