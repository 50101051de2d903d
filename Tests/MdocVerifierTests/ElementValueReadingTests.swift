import Foundation
import Testing
import WalletCBOR

@testable import Mdoc

/// `ElementValue.read` (an element value read in place, straight from the item's bytes) gives what
/// the node conversion gives, for every kind it takes, and leaves every other kind to it.
@Suite struct ElementValueReadingTests {
    /// The value read in place (nil when the reader does not take it), and the node conversion's.
    static func both(_ value: CBORNode, depth: Int = IssuerSignedItem.elementValueDepth) throws -> (read: String?, converted: String) {
        let bytes = value.encodedBytes
        var read: ElementValue?
        _ = CBORDecoder(knownTexts: .iso18013_5).read(bytes) { reader in
            read = ElementValue.read(&reader, depth: depth, limits: .default)
            return read != nil
        }
        let node = try CBORDecoder(knownTexts: .iso18013_5).decode(bytes)
        func structure(_ value: ElementValue) -> String {
            var text = ""
            dump(value, to: &text)
            return text
        }
        return (read.map(structure), structure(ElementValue(node, depth: depth, limits: .default)))
    }

    /// A value given by its encoding.
    static func raw(_ bytes: [UInt8]) -> CBORNode { try! CBORDecoder().decode(bytes) }

    /// The kinds an mdoc's values usually take (the map builder throws only for duplicate keys).
    static let usual: [CBORNode] = [
        .unsigned(0), .unsigned(23), .unsigned(UInt64(Int64.max)), .unsigned(UInt64(Int64.max) + 1), .unsigned(.max),
        .negative(argument: 0), .negative(argument: UInt64(Int64.max) - 1), .negative(argument: UInt64(Int64.max)), .negative(argument: .max),
        .bytes([]), .bytes([0, 1, 2, 0xff]), .text(""), .text("Erika"), .text("a text longer than fifteen bytes, ünïcødé"),
        .bool(true), .bool(false), .null, raw([0xf7]),
        .tagged(1004, .text("1971-09-01")), .tagged(1004, .text("2024-02-29")),
        .array([]), .array([.text("x"), .unsigned(1), .tagged(1004, .text("2030-01-31"))]),
        try! .map([
            "vehicle_category_code": .text("B"), "issue_date": .tagged(1004, .text("2020-01-01")),
            "codes": .array([try! .map(["code": .text("01")])]),
        ]),
        try! .map([:]),
    ]

    /// Kinds the reader leaves to the node conversion: a float, a simple value, other tags, a date the
    /// calendar refuses or in another form, tag 1004 around a number, tag 24, a map with an integer
    /// key, an indefinite-length array and text.
    static let unusual: [CBORNode] = [
        raw([0xf9, 0x3e, 0x00]), raw([0xf0]),
        .tagged(0, .text("2024-01-01T00:00:00Z")), .tagged(1, .unsigned(0)), .tagged(32, .text("https://example.com")),
        .tagged(1004, .text("2023-02-29")), .tagged(1004, .text("1971-9-1")), .tagged(1004, .unsigned(5)),
        .tagged(24, .bytes([0x01])), try! .map([(CBORNode.unsigned(1), CBORNode.text("x"))]),
        raw([0x9f, 0x01, 0xff]),
        raw([0x7f, 0x62, 0x61, 0x62, 0xff]),
    ]

    @Test(arguments: usual)
    func takesTheUsualKindsAsTheConversionDoes(_ value: CBORNode) throws {
        let (read, converted) = try Self.both(value)
        #expect(read == converted)
    }

    @Test(arguments: unusual)
    func leavesTheOtherKindsToTheConversion(_ value: CBORNode) throws {
        #expect(try Self.both(value).read == nil)
    }

    @Test func keepsTheDepthBudget() throws {
        // Arrays nested so that the innermost item sits exactly at the budget, then one level past it.
        func nested(_ levels: Int) -> CBORNode { levels == 0 ? .unsigned(1) : .array([nested(levels - 1)]) }
        let budget = CBORDecoder.Limits.default.maxDepth - IssuerSignedItem.elementValueDepth
        let (atBudget, converted) = try Self.both(nested(budget))
        #expect(atBudget == converted)
        #expect(try Self.both(nested(budget + 1)).read == nil)
    }
}

extension ElementValueReadingTests {
    /// The vectors' element values all read in place (so the verifier's table is built without a node
    /// per value), and as the conversion reads them.
    @Test func everyVectorValueReadsInPlace() throws {
        var values = 0
        for (name, bytes) in try DeviceResponseFastPathTests.vectorResponses() {
            guard let response = try? DeviceResponse(cborBytes: bytes) else { continue }
            for document in response.documents {
                for item in document.issuerSigned.nameSpaces.flatMap(\.items) {
                    let (read, converted) = try Self.both(item.value.elementValue)
                    #expect(read == converted, "\(name) \(item.value.elementIdentifier)")
                    values += 1
                }
            }
        }
        #expect(values >= 40)
    }
}

/// `MSOValueDigests`: the binary search finds every digest of a namespace and nothing else.
@Suite struct MSOValueDigestsTests {
    @Test func findsEveryDigestAndNoOther() throws {
        let ids: [UInt64] = [9, 0, 4, 1, 1000, 7, 2, UInt64.max]
        let bytes = ArraySlice(ids.flatMap { id in (0..<4).map { UInt8(truncatingIfNeeded: id &+ UInt64($0)) } })
        let spaces = [
            (name: "a", digests: ids.enumerated().map { (id: $0.element, range: ($0.offset * 4)..<($0.offset * 4 + 4)) }),
            (name: "b", digests: [(id: 3, range: 0..<4)]), (name: "c", digests: []),
        ]
        let table = MSOValueDigests(spaces, bytes: bytes)
        let a = try #require(table.nameSpaceIndex("a"))
        for (offset, id) in ids.enumerated() {
            #expect(table.digestRange(nameSpace: a, id: id) == (offset * 4)..<(offset * 4 + 4))
        }
        for id: UInt64 in [3, 5, 8, 10, 999, 1001, UInt64.max - 1] { #expect(table.digestRange(nameSpace: a, id: id) == nil) }
        #expect(table.digestRange(nameSpace: try #require(table.nameSpaceIndex("b")), id: 3) == 0..<4)
        #expect(table.digestRange(nameSpace: try #require(table.nameSpaceIndex("b")), id: 9) == nil)
        #expect(table.digestRange(nameSpace: try #require(table.nameSpaceIndex("c")), id: 0) == nil)
        #expect(table.nameSpaceIndex("d") == nil)
        #expect(table.dictionary()["a"]?[1000] == bytes[16..<20])
    }
}
