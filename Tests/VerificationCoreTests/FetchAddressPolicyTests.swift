import Testing
import VerificationCore

/// Which addresses a revocation-list or VICAL fetch may connect to: the classification of IPv4, IPv6
/// and mapped forms, the parsing of odd spellings, `--fetch-allow` ranges, and the loopback exception
/// (consistent with ``LoopbackHost``).
struct FetchAddressPolicyTests {
    static func address(_ text: String) -> IPAddress {
        guard let parsed = IPAddress(text) else {
            Issue.record("\(text) does not parse")
            return IPAddress(bytes: [0, 0, 0, 0])!
        }
        return parsed
    }

    @Test func ipv4AddressesAreClassed() {
        let cases: [(String, FetchAddressPolicy.AddressClass)] = [
            ("8.8.8.8", .global), ("1.1.1.1", .global), ("172.15.255.255", .global), ("172.32.0.0", .global),
            ("100.63.255.255", .global), ("100.128.0.0", .global), ("169.253.255.255", .global), ("223.255.255.255", .global),
            ("192.169.0.1", .global),
            ("10.0.0.1", .privateNetwork), ("10.255.255.255", .privateNetwork), ("172.16.0.1", .privateNetwork),
            ("172.31.255.255", .privateNetwork), ("192.168.1.1", .privateNetwork),
            ("100.64.0.1", .sharedAddressSpace), ("100.127.255.255", .sharedAddressSpace),
            ("169.254.169.254", .linkLocal), ("169.254.0.0", .linkLocal),
            ("127.0.0.1", .loopback), ("127.255.255.254", .loopback),
            ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified),
            ("224.0.0.1", .multicast), ("239.255.255.255", .multicast),
            ("255.255.255.255", .broadcast), ("240.0.0.1", .reserved), ("255.255.255.254", .reserved),
            ("192.0.0.8", .reserved), ("198.18.0.1", .reserved), ("198.19.255.255", .reserved),
        ]
        for (text, expected) in cases {
            #expect(FetchAddressPolicy.classify(Self.address(text)) == expected, "\(text)")
        }
    }

    @Test func ipv6AddressesAreClassedAndCarriedIPv4IsClassedAsIPv4() {
        let cases: [(String, FetchAddressPolicy.AddressClass)] = [
            ("2001:4860:4860::8888", .global), ("2606:4700::1111", .global),
            ("::", .unspecified), ("::1", .loopback), ("0:0:0:0:0:0:0:1", .loopback), ("[::1]", .loopback),
            ("fe80::1", .linkLocal), ("febf:ffff::1", .linkLocal), ("fec0::1", .privateNetwork),
            ("fc00::1", .uniqueLocal), ("fd12:3456:789a::1", .uniqueLocal), ("FD00::1", .uniqueLocal),
            ("ff02::1", .multicast), ("2001:db8::1", .reserved), ("100::1", .reserved), ("::2", .reserved),
            // IPv4-mapped: what a dual-stack socket connects to as IPv4.
            ("::ffff:169.254.169.254", .linkLocal), ("::ffff:a9fe:a9fe", .linkLocal), ("::FFFF:10.0.0.1", .privateNetwork),
            ("::ffff:127.0.0.1", .loopback), ("::ffff:0.0.0.0", .unspecified), ("::ffff:8.8.8.8", .global),
            ("0:0:0:0:0:ffff:192.168.0.1", .privateNetwork),
            // NAT64 and 6to4 carry an IPv4 address too.
            ("64:ff9b::a9fe:a9fe", .linkLocal), ("64:ff9b::8.8.8.8", .global), ("2002:0a00:0001::1", .privateNetwork),
            ("2002:0808:0808::1", .global),
            // IPv4-compatible (deprecated) is reserved.
            ("::169.254.169.254", .reserved),
        ]
        for (text, expected) in cases {
            #expect(FetchAddressPolicy.classify(Self.address(text)) == expected, "\(text)")
        }
    }

    @Test func addressLiteralsParseStrictly() {
        for bad in [
            "", "1.2.3", "1.2.3.4.5", "01.2.3.4", "1.2.3.256", "0x7f.0.0.1", "1.2.3.4 ", " ::1", ":::", "1:::2", ":1::2", "1::2::3",
            "12345::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "g::1", "fe80::1%eth0", "::1.2.3", "::1.2.3.4:5", "1.2.3.4::", "[::1",
            "::ffff:01.2.3.4", "localhost", "example.com",
        ] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
        #expect(IPAddress("1:2:3:4:5:6:7::")?.description == "1:2:3:4:5:6:7:0")
        #expect(IPAddress("::2:3:4:5:6:7:8")?.description == "0:2:3:4:5:6:7:8")
        #expect(IPAddress("2001:DB8:0:0:1:0:0:1")?.description == "2001:db8::1:0:0:1")
        #expect(IPAddress("fe80:0:0:0:0:0:0:1")?.description == "fe80::1")
        #expect(IPAddress("::ffff:a9fe:a9fe")?.description == "::ffff:169.254.169.254")
        #expect(IPAddress("::")?.description == "::")
        #expect(IPAddress("169.254.169.254")?.bytes == [169, 254, 169, 254])
    }

    @Test func legacyIPv4SpellingsParseAsTheResolverReadsThem() {
        let loopback = IPAddress("127.0.0.1")
        for spelling in ["127.1", "127.0.1", "0x7f.1", "0x7f000001", "017700000001", "2130706433", "0177.0.0.01", "0X7F.0.0.1"] {
            #expect(IPAddress(legacyIPv4: spelling) == loopback, "\(spelling)")
        }
        #expect(IPAddress(legacyIPv4: "0xa9fea9fe") == IPAddress("169.254.169.254"))
        #expect(IPAddress(legacyIPv4: "2852039166") == IPAddress("169.254.169.254"))
        for bad in ["", "1.2.3.4.5", "256.1", "1.2.3.256", "0x100000000", "4294967296", "08", "1..2", "a.b.c.d", "1.2.3.4."] {
            #expect(IPAddress(legacyIPv4: bad) == nil, "\(bad)")
        }
    }

    @Test func rangesParseAndMatchMappedForms() throws {
        let link = try #require(IPAddressRange("169.254.0.0/16"))
        #expect(link.contains(Self.address("169.254.169.254")))
        #expect(link.contains(Self.address("::ffff:169.254.169.254")))
        #expect(!link.contains(Self.address("169.255.0.1")))
        #expect(!link.contains(Self.address("fe80::1")))
        let host = try #require(IPAddressRange("10.1.2.3"))
        #expect(host.prefixLength == 32 && host.contains(Self.address("10.1.2.3")) && !host.contains(Self.address("10.1.2.4")))
        // Host bits are cleared; /0 holds everything of its family.
        #expect(IPAddressRange("10.1.2.3/8")?.description == "10.0.0.0/8")
        #expect(IPAddressRange("0.0.0.0/0")?.contains(Self.address("8.8.8.8")) == true)
        let unique = try #require(IPAddressRange("fd00::/8"))
        #expect(unique.contains(Self.address("fd12::1")) && !unique.contains(Self.address("fc00::1")))
        let mappedRange = try #require(IPAddressRange("::ffff:10.0.0.0/104"))
        #expect(mappedRange.contains(Self.address("10.9.9.9")))
        #expect(IPAddressRange("[fe80::1]")?.contains(Self.address("fe80::1")) == true)
        for bad in ["", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/08", "10.0.0.0/-1", "fd00::/129", "10.0.0.0/8/8", "example.com/8", "10/8"] {
            #expect(IPAddressRange(bad) == nil, "\(bad)")
        }
    }

    @Test func thePolicyRefusesNonPublicAddressesUnlessAllowed() throws {
        let policy = FetchAddressPolicy()
        #expect(policy.refusal(host: "lists.example", address: Self.address("93.184.216.34")) == nil)
        #expect(policy.refusal(host: "169.254.169.254", address: Self.address("169.254.169.254")) == .linkLocal)
        #expect(policy.refusal(host: "metadata.example", address: Self.address("169.254.169.254")) == .linkLocal)
        #expect(policy.refusal(host: "::ffff:10.0.0.1", address: Self.address("::ffff:10.0.0.1")) == .privateNetwork)
        #expect(policy.refusal(host: "fd00::1", address: Self.address("fd00::1")) == .uniqueLocal)
        #expect(policy.refusal(host: "0.0.0.0", address: Self.address("0.0.0.0")) == .unspecified)
        let allowing = FetchAddressPolicy(allowed: [try #require(IPAddressRange("169.254.0.0/16")), try #require(IPAddressRange("fd00::/8"))])
        #expect(allowing.refusal(host: "169.254.169.254", address: Self.address("169.254.169.254")) == nil)
        #expect(allowing.refusal(host: "fd00::1", address: Self.address("fd00::1")) == nil)
        #expect(allowing.refusal(host: "10.0.0.1", address: Self.address("10.0.0.1")) == .privateNetwork)
    }

    /// Loopback is fetched only when the uri names it as ``LoopbackHost`` parses it; a name or an odd
    /// spelling that reaches loopback is refused.
    @Test func loopbackIsFetchedOnlyWhenNamedLiterally() {
        let policy = FetchAddressPolicy()
        for host in ["127.0.0.1", "127.0.0.2", "localhost", "LocalHost", "::1", "[::1]"] {
            let address = host.contains(":") ? Self.address("::1") : Self.address("127.0.0.1")
            #expect(LoopbackHost.isLoopback(host))
            #expect(policy.refusal(host: host, address: address) == nil, "\(host)")
        }
        for host in ["127.attacker.example", "localhost.attacker.example", "0x7f.1", "2130706433", "127.1", "::ffff:127.0.0.1", "0:0:0:0:0:0:0:1"] {
            #expect(!LoopbackHost.isLoopback(host), "\(host)")
            #expect(policy.refusal(host: host, address: Self.address("127.0.0.1")) == .loopback, "\(host)")
        }
        // Named literally as loopback, but resolving elsewhere (never by this resolver): judged by that address.
        #expect(policy.refusal(host: "localhost", address: Self.address("10.0.0.1")) == .privateNetwork)
    }

    @Test func theRefusalSaysTheClassTheAddressAndTheRemedy() {
        let message = FetchAddressPolicy.refusalMessage(.linkLocal, address: Self.address("169.254.169.254"), host: "169.254.169.254")
        #expect(message.contains("link-local address 169.254.169.254"))
        #expect(message.contains("--fetch-allow"))
        let named = FetchAddressPolicy.refusalMessage(.privateNetwork, address: Self.address("10.0.0.1"), host: "lists.example")
        #expect(named.contains("private address 10.0.0.1 (lists.example resolves to it)"))
    }
}
