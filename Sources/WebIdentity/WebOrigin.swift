import VerificationCore

/// A web origin as browsers serialize it (RFC 6454): `scheme://host[:port]`, nothing else.
///
/// The DC API session transcript binds the response to the origin (ISO/IEC 18013-7 Annex C), so an
/// origin must be exactly what the browser reports: `https`, or `http` for loopback hosts only
/// (localhost, 127.0.0.0/8, [::1]); a host of letters, digits, dots and hyphens (lower-cased) or a
/// bracketed IPv6 address; an optional port (1–65535; the scheme's default port is dropped, as
/// browsers drop it). No path, query, fragment, userinfo, whitespace or control characters; a single
/// trailing `/` is dropped.
public enum WebOrigin {
    /// The origin in its serialized form: scheme and host lower-cased, a default port and a trailing `/` dropped.
    /// Throws ``WebRequestError`` naming the problem when `text` is not an origin by the rules above.
    public static func parse(_ text: String) throws(WebRequestError) -> String {
        func refuse(_ why: String) -> WebRequestError {
            WebRequestError(
                "\"\(String(text.unicodeScalars.prefix(80).map { $0.value < 0x20 || $0.value == 0x7f ? "?" : Character($0) }))\" is not a web origin: \(why)"
            )
        }
        guard !text.isEmpty, text.utf8.count <= 512 else { throw refuse("it must be 1 to 512 characters") }
        guard text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f }) else {
            throw refuse("it holds whitespace, control or non-ASCII characters")
        }
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") {
            scheme = "https"
        } else if lower.hasPrefix("http://") {
            scheme = "http"
        } else {
            throw refuse("the scheme must be https (or http for a loopback host)")
        }
        var rest = Substring(lower.dropFirst(scheme.count + 3))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.contains(where: { "/?#@\\".contains($0) }) else {
            throw refuse("an origin has no path, query, fragment or userinfo")
        }
        var host: Substring
        var port: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw refuse("the IPv6 address has no closing bracket") }
            host = rest[...close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw refuse("unexpected text after the IPv6 address") }
                port = after.dropFirst()
            }
            let inner = host.dropFirst().dropLast()
            guard !inner.isEmpty, inner.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { throw refuse("the IPv6 address is malformed") }
        } else {
            let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            host = parts[0]
            if parts.count == 2 { port = parts[1] }
            guard !host.isEmpty, host.allSatisfy({ ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") || $0 == "." || $0 == "-" }),
                !host.hasPrefix("."), !host.hasSuffix("."), !host.contains("..")
            else {
                throw refuse("the host must be a domain name or an IP address")
            }
        }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0 >= "0" && $0 <= "9" }), let number = Int(port), (1...65535).contains(number)
            else {
                throw refuse("the port must be a number from 1 to 65535")
            }
            let isDefault = (scheme == "https" && number == 443) || (scheme == "http" && number == 80)
            if isDefault { return "\(scheme)://\(host)" }
            if scheme == "http" && !isLoopback(host) {
                throw refuse("http is allowed only for loopback hosts (localhost, 127.0.0.0/8, [::1]); use https")
            }
            return "\(scheme)://\(host):\(number)"
        }
        if scheme == "http" && !isLoopback(host) {
            throw refuse("http is allowed only for loopback hosts (localhost, 127.0.0.0/8, [::1]); use https")
        }
        return "\(scheme)://\(host)"
    }

    static func isLoopback(_ host: Substring) -> Bool {
        LoopbackHost.isLoopback(host)
    }
}
