import Crypto
import Mdoc
import Testing
import WalletCBOR
import WalletCOSE
import WalletEncoding
import WalletVerifierTestSupport

/// `IssuerSignedItem(embeddedCBOR:limits:)` reads the map in place; it must give exactly what the
/// generic decoder followed by `init(cbor:)` gives: the same item, or the same error.
@Suite struct IssuerSignedItemFastPathTests {
    static func outcome(_ run: () throws(CBORError) -> IssuerSignedItem) -> String {
        do {
            let item = try run()
            return
                "item \(item.digestID) \(Array(item.random)) \(item.elementIdentifier) \(Array(item.elementValue.encodedBytes)) at \(item.elementValue.offset)"
        } catch {
            return "error \(error.code) \(error.message) at \(error.offset.map(String.init) ?? "-")"
        }
    }

    static func compare(_ bytes: [UInt8], limits: CBORDecoder.Limits = .default) {
        // A slice that does not start at 0, as inside a response.
        let buffer = [0xAA, 0xBB] + bytes
        let slice = buffer[2...]
        let fast = outcome { () throws(CBORError) in try IssuerSignedItem(embeddedCBOR: slice, limits: limits) }
        let generic = outcome { () throws(CBORError) in try IssuerSignedItem(cbor: CBORDecoder(limits: limits).decode(slice)) }
        #expect(fast == generic, "input \(Hex.encode(bytes))")
    }

    static let item: [UInt8] = hex(
        "a4 6864696765737449441803 6672616e646f6d43010203 71656c656d656e744964656e7469666965726a66616d696c795f6e616d65 6c656c656d656e7456616c756563446f65"
    )

    @Test func validAndUnusualItemsAgree() throws {
        Self.compare(Self.item)
        let cases = [
            // Extra key, keys in another order, a nested value.
            "a5 6178 01 6c656c656d656e7456616c7565 a1 6161 82 01 02 6864696765737449441803 6672616e646f6d40 71656c656d656e744964656e7469666965726161",
            // Duplicate key.
            "a5 6864696765737449441803 6864696765737449441804 6672616e646f6d40 71656c656d656e744964656e7469666965726161 6c656c656d656e7456616c756501",
            // Missing field, wrong types.
            "a3 6864696765737449441803 6672616e646f6d40 71656c656d656e744964656e7469666965726161",
            "a4 686469676573744944 6133 6672616e646f6d40 71656c656d656e744964656e7469666965726161 6c656c656d656e7456616c756501",
            "a4 6864696765737449441803 6672616e646f6d 6161 71656c656d656e744964656e7469666965726161 6c656c656d656e7456616c756501",
            "a4 6864696765737449441803 6672616e646f6d40 71656c656d656e744964656e746966696572 01 6c656c656d656e7456616c756501",
            // Non-preferred key head, indefinite map, indefinite string value, integer key.
            "a4 786864696765737449441803 6672616e646f6d40 71656c656d656e744964656e7469666965726161 6c656c656d656e7456616c756501",
            "bf 6864696765737449441803 6672616e646f6d40 71656c656d656e744964656e7469666965726161 6c656c656d656e7456616c756501 ff",
            "a4 6864696765737449441803 6672616e646f6d 5f 4101 ff 71656c656d656e744964656e7469666965726161 6c656c656d656e7456616c756501",
            "a5 01 02 6864696765737449441803 6672616e646f6d40 71656c656d656e744964656e7469666965726161 6c656c656d656e7456616c756501",
            // Invalid UTF-8 in a key and in the identifier; trailing bytes; not a map.
            "a5 62ff00 01 6864696765737449441803 6672616e646f6d40 71656c656d656e744964656e7469666965726161 6c656c656d656e7456616c756501",
            "a4 6864696765737449441803 6672616e646f6d40 71656c656d656e744964656e74696669657261ff 6c656c656d656e7456616c756501",
            "a4 6864696765737449441803 6672616e646f6d40 71656c656d656e744964656e7469666965726161 6c656c656d656e7456616c756501 00",
            "82 01 02",
        ]
        for text in cases { Self.compare(hex(text)) }
    }

    /// Element values of every kind (scalars at their boundaries, malformed simple values, tags with
    /// good and bad content, nested tag 24, containers, indefinite strings): the same node and bytes
    /// as the generic path, or the same error.
    @Test(arguments: [
        "63446f65", "60", "62c3a9", "62ff00", "7f6161ff", "00", "17", "1818", "1b7fffffffffffffff", "1b8000000000000000", "1bffffffffffffffff",
        "1900ff", "43010203", "40", "5f4101ff", "f4", "f5", "f6", "f7", "f814", "f815", "f90014", "f90015", "fa00000015", "20", "3b7fffffffffffffff",
        "3bffffffffffffffff", "d903ec6a323032302d30312d3031", "d903ec6a323032302d30322d3330", "d903ec6a323032302d31332d3031",
        "d903ec6a313939392d31322d3331", "d903ec01", "d903ec7f6a323032302d30312d3031ff", "d903ec6b323032302d30312d303120",
        "d903ed6a323032302d30312d3031",
        "da000003ec6a323032302d30312d3031", "d903ec", "6a323032302d30312d3031", "c074323032302d30312d30315430303a30303a30305a", "c11a5e0be100",
        "d8184101", "d818420102", "80", "a0", "8101", "a1616101", "1c", "63446f",
    ])
    func elementValuesAgree(_ valueHex: String) {
        let prefix = "a4 6864696765737449441803 6672616e646f6d40 71656c656d656e744964656e7469666965726161 6c656c656d656e7456616c7565 "
        Self.compare(hex(prefix + valueHex))
    }

    @Test func limitsAgree() {
        for depth in 0...3 { Self.compare(Self.item, limits: .init(maxDepth: depth)) }
        for items in [1, 5, 8, 9, 10] { Self.compare(Self.item, limits: .init(maxItems: items)) }
        Self.compare(Self.item, limits: .init(maxInputSize: Self.item.count - 1))
    }

    @Test func mutatedItemsAgree() {
        var random = MutationGenerator(state: 18_013_5)
        for _ in 0..<20_000 {
            var bytes = Self.item
            for _ in 0..<(1 + Int(random.next() % 3)) {
                random.mutate(&bytes)
                if bytes.isEmpty { break }
            }
            Self.compare(bytes)
        }
    }

    static func msoOutcome(_ run: () throws(CBORError) -> MobileSecurityObject) -> String {
        do {
            let mso = try run()
            let digests = mso.valueDigests.sorted { $0.key < $1.key }.map { space in
                space.key + ":"
                    + space.value.sorted { $0.key < $1.key }.map { "\($0.key)=\(Hex.encode($0.value))@\($0.value.startIndex)" }.joined(separator: ",")
            }
            // The table the verifier reads: every digest found where the dictionary has it, none elsewhere.
            let table = mso.digests
            let looked = mso.valueDigests.sorted { $0.key < $1.key }.map { space in
                let index = table.nameSpaceIndex(space.key)
                let found = space.value.keys.sorted().map { id in
                    index.flatMap { table.digestRange(nameSpace: $0, id: id) }.map { Hex.encode(table.bytes[$0]) } ?? "none"
                }
                let absent = [UInt64.max, (space.value.keys.max() ?? 0) &+ 1].filter { space.value[$0] == nil }
                    .map { id in index.flatMap { table.digestRange(nameSpace: $0, id: id) } == nil }
                return "\(space.key):\(found.joined(separator: ","))\(absent.allSatisfy { $0 } ? "" : " FOUND A DIGEST THAT IS NOT THERE")"
            }
            let key: String
            switch mso.deviceKey {
            case .success(let k): key = k.curveName
            case .failure(let e): key = "\(e.code)"
            }
            return
                "mso \(mso.version) \(mso.digestAlgorithm) \(mso.docType) \(digests) table \(table.nameSpaces.sorted()) \(looked) \(Hex.encode(mso.deviceKeyNode.encodedBytes)) \(key) "
                + "\(mso.keyAuthorizations.map { "\($0.nameSpaces) \($0.dataElements)" } ?? "-") \(mso.validityInfo) \(mso.status.map { Hex.encode($0.encodedBytes) } ?? "-")"
        } catch {
            return "error \(error.code) \(error.message) at \(error.offset.map(String.init) ?? "-")"
        }
    }

    /// The issuerAuth payload (the tag-24 MobileSecurityObjectBytes) of a fixture mDL.
    static func fixtureMSOPayload() throws -> ArraySlice<UInt8> {
        let pki = try MdocPKI()
        let transcript = SessionTranscript.appleInApp(
            nonce: [1, 2, 3], merchantID: "m", teamID: "t", recipientKeyHash: Array(repeating: 2, count: 32))
        let bytes = try MdocFixture().deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        return try #require(DeviceResponse(cborBytes: bytes).documents.first?.issuerSigned.issuerAuth.payload)
    }

    /// The MSO reads its value digests in place; mutations of a real MSO give the same result or error
    /// as the generic decoder and `MobileSecurityObject(cbor:)`.
    @Test func mutatedMobileSecurityObjectsAgree() throws {
        let mso = Array(try EmbeddedCBOR<CBORNode>(cbor: CBORDecoder.decode(Self.fixtureMSOPayload())).innerBytes)
        var random = MutationGenerator(state: 9_1_2_4)
        for round in 0..<3_000 {
            var mutated = mso
            if round > 0 {
                for _ in 0..<(1 + Int(random.next() % 2)) {
                    random.mutate(&mutated)
                    if mutated.isEmpty { break }
                }
            }
            let buffer = [0x00] + mutated
            let slice = buffer[1...]
            let fast = Self.msoOutcome { () throws(CBORError) in try MobileSecurityObject(embeddedCBOR: slice, limits: .default) }
            let generic = Self.msoOutcome { () throws(CBORError) in try MobileSecurityObject(cbor: CBORDecoder.decode(slice)) }
            #expect(fast == generic, "round \(round)")
            if round == 0 { #expect(fast.hasPrefix("mso ")) }
        }
    }

    /// validityInfo is read in place (tag 0 text or tag 1 unsigned seconds); every other form, and every
    /// malformed one, must give what the generic decoder gives.
    @Test func validityInfoFormsAgree() throws {
        let mso = try EmbeddedCBOR<CBORNode>(cbor: CBORDecoder.decode(Self.fixtureMSOPayload())).value
        let entries = try #require(mso.mapValue).entries
        let text = CBORNode.tagged(0, .text("2024-01-01T00:00:00Z"))
        let variants: [(String, [(CBORNode, CBORNode)])] = [
            ("tag 0", [(.text("signed"), text), (.text("validFrom"), text), (.text("validUntil"), .tagged(0, .text("2030-01-01T00:00:00Z")))]),
            ("tag 1 unsigned", [(.text("signed"), .tagged(1, .unsigned(1_700_000_000))), (.text("validFrom"), text), (.text("validUntil"), text)]),
            ("tag 1 negative", [(.text("signed"), .tagged(1, .int(-5))), (.text("validFrom"), text), (.text("validUntil"), text)]),
            ("tag 1 float", [(.text("signed"), .tagged(1, .float(1.5))), (.text("validFrom"), text), (.text("validUntil"), text)]),
            ("tag 1 too large", [(.text("signed"), .tagged(1, .unsigned(UInt64.max))), (.text("validFrom"), text), (.text("validUntil"), text)]),
            ("tag 1 text", [(.text("signed"), .tagged(1, .text("1"))), (.text("validFrom"), text), (.text("validUntil"), text)]),
            ("tag 2", [(.text("signed"), .tagged(2, .unsigned(1))), (.text("validFrom"), text), (.text("validUntil"), text)]),
            ("untagged", [(.text("signed"), .text("2024-01-01T00:00:00Z")), (.text("validFrom"), text), (.text("validUntil"), text)]),
            ("bad text", [(.text("signed"), .tagged(0, .text("2024-13-01T00:00:00Z"))), (.text("validFrom"), text), (.text("validUntil"), text)]),
            ("missing", [(.text("signed"), text), (.text("validFrom"), text)]),
            ("expectedUpdate", [(.text("signed"), text), (.text("validFrom"), text), (.text("validUntil"), text), (.text("expectedUpdate"), text)]),
            (
                "bad expectedUpdate",
                [(.text("signed"), text), (.text("validFrom"), text), (.text("validUntil"), text), (.text("expectedUpdate"), .int(1))]
            ),
            ("extra key", [(.text("signed"), text), (.text("validFrom"), text), (.text("validUntil"), text), (.text("note"), .array([.int(1)]))]),
            ("integer key", [(.text("signed"), text), (.text("validFrom"), text), (.text("validUntil"), text), (.int(1), .int(1))]),
        ]
        for (name, validity) in variants {
            let rebuilt = try CBORNode.map(
                entries.map { entry in (entry.key, entry.key.textValue == "validityInfo" ? try CBORNode.map(validity) : entry.value) })
            let slice = Array(rebuilt.encodedBytes)[...]
            let fast = Self.msoOutcome { () throws(CBORError) in try MobileSecurityObject(embeddedCBOR: slice, limits: .default) }
            let generic = Self.msoOutcome { () throws(CBORError) in try MobileSecurityObject(cbor: CBORDecoder.decode(slice)) }
            #expect(fast == generic, "\(name)")
            if name.hasPrefix("tag 0") || name == "tag 1 unsigned" || name.hasPrefix("expectedUpdate") { #expect(fast.hasPrefix("mso "), "\(name)") }
        }
    }
}
