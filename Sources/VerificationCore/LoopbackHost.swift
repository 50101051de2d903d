/// Which hosts count as loopback where plain `http` is allowed (revocation-list and VICAL URLs, web
/// origins): a host is parsed, never matched by prefix, so `127.attacker.example` or
/// `localhost.attacker.example` (names anyone can point anywhere) are not loopback.
public enum LoopbackHost {
    /// Whether `host` is exactly `localhost` (any case), `::1` (with or without its URL brackets), or
    /// an IPv4 literal in 127.0.0.0/8 written as four dotted decimal octets, each 0–255 without
    /// leading zeros. Every other form (names, other IPv6 spellings, octal, hexadecimal, fewer
    /// octets, a trailing dot) is not loopback.
    public static func isLoopback<S: StringProtocol>(_ host: S) -> Bool {
        var text = Substring(host)
        if text.hasPrefix("[") && text.hasSuffix("]") && text.count >= 2 { text = text.dropFirst().dropLast() }
        if text.lowercased() == "localhost" || text == "::1" { return true }
        guard let octets = ipv4Octets(text) else { return false }
        return octets[0] == 127
    }

    /// The four octets of a dotted-decimal IPv4 literal (`a.b.c.d`, each 0–255, no leading zeros,
    /// digits only), or nil.
    static func ipv4Octets(_ text: Substring) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var octets: [Int] = []
        for part in parts {
            guard (1...3).contains(part.utf8.count), part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            if part.utf8.count > 1 && part.utf8.first == 0x30 { return nil }
            guard let value = Int(part), value <= 255 else { return nil }
            octets.append(value)
        }
        return octets
    }
}
