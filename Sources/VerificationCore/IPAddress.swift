/// An IPv4 or IPv6 address as its bytes in network order (4 or 16), parsed from text without any
/// resolver: what an outbound fetch is about to connect to, or an entry of `--fetch-allow`.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address in network order: 4 bytes (IPv4) or 16 (IPv6).
    public let bytes: [UInt8]

    /// The address of `bytes` (4 or 16 of them), or nil for any other count.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses an address literal: IPv4 as four dotted decimal octets (`192.0.2.1`), or IPv6 as RFC 4291
    /// writes it (`fe80::1`, `::ffff:10.0.0.1`), with or without its URL brackets. A zone (`%eth0`),
    /// leading zeros in an IPv4 octet, or the older IPv4 forms (see ``init(legacyIPv4:)``) are refused.
    public init?<S: StringProtocol>(_ text: S) {
        var text = Substring(text)
        if text.hasPrefix("[") && text.hasSuffix("]") && text.count >= 2 { text = text.dropFirst().dropLast() }
        if let octets = LoopbackHost.ipv4Octets(text) {
            self.bytes = octets.map { UInt8($0) }
        } else if let bytes = Self.ipv6Bytes(text) {
            self.bytes = bytes
        } else {
            return nil
        }
    }

    /// Parses IPv4 the way the C library's `inet_aton` does (and so what a resolver connects to for a
    /// host written that way): one to four parts, each decimal, octal (leading `0`) or hexadecimal
    /// (`0x`), the last filling the remaining bytes — `127.1`, `0x7f000001`, `017700000001` and
    /// `2130706433` are all 127.0.0.1. Nil when `text` is not such a literal.
    public init?<S: StringProtocol>(legacyIPv4 text: S) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...4).contains(parts.count) else { return nil }
        var values: [UInt64] = []
        for part in parts {
            var digits = Substring(part)
            var radix = 10
            if digits.lowercased().hasPrefix("0x") {
                radix = 16
                digits = digits.dropFirst(2)
            } else if digits.count > 1 && digits.hasPrefix("0") {
                radix = 8
                digits = digits.dropFirst()
            }
            guard !digits.isEmpty || radix == 16, digits.count <= 32, digits.allSatisfy({ $0.isASCII && $0.isHexDigit }) else { return nil }
            guard let value = digits.isEmpty ? 0 : UInt64(digits, radix: radix) else { return nil }
            values.append(value)
        }
        // Every part but the last is one byte; the last fills what is left.
        let leading = values.dropLast()
        guard leading.allSatisfy({ $0 <= 255 }), let last = values.last else { return nil }
        let remaining = 4 - leading.count
        guard last < (UInt64(1) << (8 * UInt64(remaining))) else { return nil }
        var bytes = leading.map { UInt8($0) }
        for index in (0..<remaining).reversed() { bytes.append(UInt8((last >> (8 * UInt64(index))) & 0xff)) }
        self.bytes = bytes
    }

    /// Whether this is an IPv4 address (4 bytes).
    public var isIPv4: Bool { bytes.count == 4 }

    /// The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), which a dual-stack
    /// socket connects to as that IPv4 address; nil for any other address.
    public var mappedIPv4: IPAddress? {
        guard bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff else { return nil }
        return IPAddress(bytes: Array(bytes[12..<16]))
    }

    /// This IPv4 address as IPv4-mapped IPv6 (`::ffff:a.b.c.d`); an IPv6 address as it is.
    public var asIPv6: IPAddress {
        guard isIPv4 else { return self }
        return IPAddress(bytes: [UInt8](repeating: 0, count: 10) + [0xff, 0xff] + bytes) ?? self
    }

    /// Dotted decimal for IPv4; RFC 5952 for IPv6 (lower case, the longest run of zero groups as
    /// `::`, IPv4-mapped addresses as `::ffff:a.b.c.d`).
    public var description: String {
        if isIPv4 { return bytes.map(String.init).joined(separator: ".") }
        if let mapped = mappedIPv4 { return "::ffff:\(mapped)" }
        let groups = (0..<8).map { Int(bytes[2 * $0]) << 8 | Int(bytes[2 * $0 + 1]) }
        // The longest run of two or more zero groups (the first of equal runs) becomes "::".
        var best: Range<Int>?
        var index = 0
        while index < 8 {
            guard groups[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < 8 && groups[end] == 0 { end += 1 }
            if end - index >= 2 && (best == nil || end - index > best!.count) { best = index..<end }
            index = end
        }
        func hex(_ range: Range<Int>) -> String { range.map { String(groups[$0], radix: 16) }.joined(separator: ":") }
        guard let best else { return hex(0..<8) }
        return hex(0..<best.lowerBound) + "::" + hex(best.upperBound..<8)
    }

    /// The 16 bytes of an RFC 4291 IPv6 text form, or nil.
    static func ipv6Bytes(_ text: Substring) -> [UInt8]? {
        guard text.contains(":"), text.count <= 45 else { return nil }
        // At most one "::", splitting the groups before the gap from those after it.
        var halves: [Substring] = [text]
        if let gap = text.firstRange(of: "::") {
            halves = [text[..<gap.lowerBound], text[gap.upperBound...]]
            guard !halves[1].contains("::") else { return nil }
        }
        func groups(_ half: Substring, last: Bool) -> [Int]? {
            guard !half.isEmpty else { return [] }
            let pieces = half.split(separator: ":", omittingEmptySubsequences: false)
            var values: [Int] = []
            for (position, piece) in pieces.enumerated() {
                if piece.contains(".") {
                    // An IPv4 tail: the address's last 32 bits only.
                    guard last, position == pieces.count - 1, let octets = LoopbackHost.ipv4Octets(piece) else { return nil }
                    values += [octets[0] << 8 | octets[1], octets[2] << 8 | octets[3]]
                    continue
                }
                guard (1...4).contains(piece.count), piece.allSatisfy({ $0.isASCII && $0.isHexDigit }), let value = Int(piece, radix: 16)
                else { return nil }
                values.append(value)
            }
            return values
        }
        guard let head = groups(halves[0], last: halves.count == 1) else { return nil }
        var all = head
        if halves.count == 2 {
            guard let tail = groups(halves[1], last: true), head.count + tail.count <= 7 else { return nil }
            all = head + [Int](repeating: 0, count: 8 - head.count - tail.count) + tail
        }
        guard all.count == 8 else { return nil }
        return all.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] }
    }
}

/// A range of addresses written as CIDR (`169.254.0.0/16`, `fd00::/8`) or a single address (`10.0.0.5`,
/// `[fd00::5]`): an entry of `--fetch-allow`. An IPv4 range also holds the IPv4-mapped IPv6 forms
/// of its addresses.
public struct IPAddressRange: Hashable, Sendable, CustomStringConvertible {
    /// The first address of the range (its host bits cleared).
    public let network: IPAddress
    /// How many leading bits every address of the range shares with ``network``.
    public let prefixLength: Int

    /// Parses `ADDRESS` or `ADDRESS/PREFIX` (PREFIX 0–32 for IPv4, 0–128 for IPv6, decimal without
    /// leading zeros); nil for anything else.
    public init?<S: StringProtocol>(_ text: S) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = IPAddress(parts[0]) else { return nil }
        let width = address.bytes.count * 8
        var length = width
        if parts.count == 2 {
            let digits = parts[1]
            guard (1...3).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                digits.count == 1 || !digits.hasPrefix("0"), let value = Int(digits), value <= width
            else { return nil }
            length = value
        }
        prefixLength = length
        network = IPAddress(bytes: Self.masked(address.bytes, length)) ?? address
    }

    /// Whether `address` is in this range (an IPv4 range also matching `::ffff:a.b.c.d`, an IPv6
    /// range also matching an IPv4 address by its mapped form).
    public func contains(_ address: IPAddress) -> Bool {
        let candidate: IPAddress
        if network.isIPv4 {
            guard let v4 = address.isIPv4 ? address : address.mappedIPv4 else { return false }
            candidate = v4
        } else {
            candidate = address.asIPv6
        }
        return Self.masked(candidate.bytes, prefixLength) == network.bytes
    }

    /// `network/prefixLength`.
    public var description: String { "\(network)/\(prefixLength)" }

    static func masked(_ bytes: [UInt8], _ length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = max(0, min(8, length - index * 8))
            return kept == 8 ? byte : byte & ~(UInt8(0xff) >> kept)
        }
    }
}
