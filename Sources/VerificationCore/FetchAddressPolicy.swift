/// Which addresses an outbound fetch (a revocation list, a VICAL) may connect to. The uri comes from
/// a document or a configuration, so without this a document could make the service request its
/// own network: a cloud metadata endpoint (169.254.169.254), an admin interface on 10.0.0.1. Only
/// public addresses are fetched, plus:
/// - loopback, when the uri names it literally as ``LoopbackHost/isLoopback(_:)`` parses it
///   (`localhost`, `127.0.0.1`, `[::1]`: the list servers of tests and local setups); a name that
///   merely resolves to loopback is refused;
/// - whatever the operator allows (`serve --fetch-allow`, addresses or CIDR ranges).
///
/// A pure decision on an address already resolved: the transport resolves a host once, asks this,
/// and connects to the very address that was allowed.
public struct FetchAddressPolicy: Sendable, Hashable {
    /// What kind of address a fetch would connect to.
    public enum AddressClass: String, Sendable, Hashable, CaseIterable {
        /// A globally routable unicast address: fetched.
        case global = "public"
        /// 127.0.0.0/8, ::1.
        case loopback
        /// 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, and the deprecated IPv6 site-local fec0::/10.
        case privateNetwork = "private"
        /// 100.64.0.0/10, the shared address space of carrier-grade NAT.
        case sharedAddressSpace = "shared (CGNAT)"
        /// 169.254.0.0/16, fe80::/10 (where cloud metadata services answer).
        case linkLocal = "link-local"
        /// fc00::/7.
        case uniqueLocal = "unique-local"
        /// 0.0.0.0/8, :: (a connection to them reaches this host).
        case unspecified
        /// 224.0.0.0/4, ff00::/8.
        case multicast
        /// 255.255.255.255.
        case broadcast
        /// Not for the public internet: 192.0.0.0/24, 198.18.0.0/15 (benchmarking), 240.0.0.0/4, the
        /// IPv6 documentation, discard and IPv4-compatible ranges.
        case reserved
    }

    /// The ranges the operator allows beyond public addresses (`--fetch-allow`).
    public var allowed: [IPAddressRange]

    /// A policy that fetches public addresses, literal loopback hosts and `allowed`.
    public init(allowed: [IPAddressRange] = []) {
        self.allowed = allowed
    }

    /// The class of `address`. An IPv6 address that carries an IPv4 one the network delivers to it
    /// (IPv4-mapped `::ffff:0:0/96`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) is classed as that IPv4
    /// address.
    public static func classify(_ address: IPAddress) -> AddressClass {
        let b = address.bytes
        if address.isIPv4 { return classifyIPv4(b) }
        if let mapped = address.mappedIPv4 { return classifyIPv4(mapped.bytes) }
        if b[0..<12] == [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] { return classifyIPv4(Array(b[12..<16])) }
        if b[0] == 0x20 && b[1] == 0x02 { return classifyIPv4(Array(b[2..<6])) }
        if b[0..<15].allSatisfy({ $0 == 0 }) {
            if b[15] == 0 { return .unspecified }
            if b[15] == 1 { return .loopback }
        }
        // The rest of ::/96 (IPv4-compatible, deprecated) and ::/8 generally.
        if b[0] == 0 { return .reserved }
        if b[0] == 0xff { return .multicast }
        if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return .linkLocal }
        if b[0] == 0xfe && b[1] & 0xc0 == 0xc0 { return .privateNetwork }
        if b[0] & 0xfe == 0xfc { return .uniqueLocal }
        // 100::/64 (discard) and 2001:db8::/32 (documentation).
        if b[0] == 0x01 && b[1] == 0 && b[2..<8].allSatisfy({ $0 == 0 }) { return .reserved }
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8 { return .reserved }
        return .global
    }

    static func classifyIPv4(_ b: [UInt8]) -> AddressClass {
        switch (b[0], b[1]) {
        case (0, _): return .unspecified
        case (10, _): return .privateNetwork
        case (100, 64...127): return .sharedAddressSpace
        case (127, _): return .loopback
        case (169, 254): return .linkLocal
        case (172, 16...31): return .privateNetwork
        case (192, 168): return .privateNetwork
        case (192, 0) where b[2] == 0: return .reserved
        case (198, 18...19): return .reserved
        case (224...239, _): return .multicast
        case (255, 255) where b[2] == 255 && b[3] == 255: return .broadcast
        case (240...255, _): return .reserved
        default: return .global
        }
    }

    /// Whether a fetch of a uri whose host is `host` may connect to `address` (one the host resolved
    /// to): nil when it may, otherwise the class that refuses it.
    public func refusal<S: StringProtocol>(host: S, address: IPAddress) -> AddressClass? {
        let kind = Self.classify(address)
        if kind == .global { return nil }
        if kind == .loopback && LoopbackHost.isLoopback(host) { return nil }
        if allowed.contains(where: { $0.contains(address) }) { return nil }
        return kind
    }

    /// The sentence that explains a refusal: which class and address, and how an operator allows it.
    public static func refusalMessage(_ kind: AddressClass, address: IPAddress, host: String) -> String {
        let named = IPAddress(host)?.bytes == address.bytes ? "" : " (\(host) resolves to it)"
        return "the \(kind.rawValue) address \(address)\(named) is not fetched from; to allow it, start serve with --fetch-allow \(address)"
            + " (or a CIDR range holding it)."
    }
}
