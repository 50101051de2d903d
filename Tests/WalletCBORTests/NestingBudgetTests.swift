import Foundation
import Testing
import WalletCBOR
import WalletVerifierTestSupport

/// One depth budget across nested decodes: tag-24 items inside tag-24 items (and CBOR maps inside byte
/// strings) are decoded again by whatever shows them; those decodes count against the budget of the
/// decode they came from, so 100,000 nested levels neither recurse 100,000 deep nor pass unnoticed.
@Suite struct NestingBudgetTests {
    @Test func deepTag24NestingExceedsTheBudget() throws {
        let node = try HostileCBOR.nestedTag24Node(levels: 100_000)
        #expect(throws: CBORError.self) { try node.checkEmbeddedNesting(depth: 1) }
        do {
            try node.checkEmbeddedNesting(depth: 1)
        } catch {
            #expect(error.code == .depthLimitExceeded)
            #expect(error.message.contains("tag-24"))
        }
    }

    @Test func theBudgetCountsEveryLevelOfEveryNestedDecode() throws {
        // Each tag-24 level is two levels (the tag and its byte string); the innermost text is one.
        // 31 levels reach depth 63 from depth 1, 32 reach 65.
        #expect(throws: Never.self) { try HostileCBOR.nestedTag24Node(levels: 31).checkEmbeddedNesting(depth: 1) }
        #expect(throws: CBORError.self) { try HostileCBOR.nestedTag24Node(levels: 32).checkEmbeddedNesting(depth: 1) }
        // Starting deeper leaves less: the same 31 levels fail when they start at depth 3.
        #expect(throws: CBORError.self) { try HostileCBOR.nestedTag24Node(levels: 31).checkEmbeddedNesting(depth: 3) }
        // A smaller budget is honoured.
        #expect(throws: CBORError.self) {
            try HostileCBOR.nestedTag24Node(levels: 4).checkEmbeddedNesting(depth: 1, limits: .init(maxDepth: 8))
        }
        #expect(throws: Never.self) {
            try HostileCBOR.nestedTag24Node(levels: 3).checkEmbeddedNesting(depth: 1, limits: .init(maxDepth: 8))
        }
    }

    @Test func contentThatIsNotCBORIsNotLookedInto() throws {
        // 24(h'ff'): not well-formed, shown as bytes elsewhere; not a nesting problem.
        let node = try CBORDecoder.decode([0xd8, 0x18, 0x41, 0xff])
        #expect(throws: Never.self) { try node.checkEmbeddedNesting(depth: 1) }
    }

    @Test func nestedLimitsLeaveTheRemainingBudget() {
        let limits = CBORDecoder.Limits(maxDepth: 64, maxItems: 10, maxInputSize: 100)
        let nested = limits.nested(belowDepth: 10)
        #expect(nested.maxDepth == 53)
        #expect(nested.maxItems == 10)
        #expect(nested.maxInputSize == 100)
        // No budget left: the nested decode fails at its first item.
        #expect(throws: CBORError.self) { try CBORDecoder(limits: limits.nested(belowDepth: 64)).decode([0x00]) }
    }

    @Test func diagnosticNotationStopsAtTheBudget() throws {
        let node = try HostileCBOR.nestedTag24Node(levels: 100_000)
        for style in [CBORDiagnostic.Style.pretty, .compact] {
            let text = CBORDiagnostic(style: style).format(node)
            #expect(text.hasPrefix("24(<< 24(<< "))
            #expect(text.contains("not decoded: nested deeper than 64 levels"))
            // Up to the budget the levels are shown decoded, then the rest as bytes.
            #expect(text.components(separatedBy: "24(<<").count - 1 == 31)
        }
        let maps = try CBORDecoder.decode(HostileCBOR.nestedMapsInByteStrings(levels: 100_000))
        let text = CBORDiagnostic(style: .compact).format(maps)
        #expect(text.hasPrefix("{0: << {0: << {0: "))
        #expect(text.components(separatedBy: "<< {").count - 1 < 64)
    }

    @Test func shallowNestingIsStillShownDecoded() throws {
        let text = CBORDiagnostic(style: .compact).format(try HostileCBOR.nestedTag24Node(levels: 3))
        #expect(text == #"24(<< 24(<< 24(<< "abc" >>) >>) >>)"#)
    }
}
