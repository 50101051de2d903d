/// One nesting budget across nested decodes.
///
/// A tag-24 item (`#6.24(bstr .cbor any)`) carries CBOR inside a byte string: the decoder sees a byte
/// string, and its depth limit does not count what the string holds. Whatever decodes that content
/// again (an element value shown as JSON, diagnostic notation) must not start a fresh limit, or
/// 20,000 tag-24 items nested inside each other (≈114 KB) recurse 20,000 levels deep. The functions
/// here count the levels of every nested decode against the budget of the outer one: a tag-24 item
/// at depth `d` leaves its content `budget − d − 1` levels.
extension CBORDecoder.Limits {
    /// The limits for decoding the content of a byte string whose tag-24 item sits at `depth` of a
    /// decode made with these limits: the remaining depth, the same item and size limits. A
    /// `maxDepth` of zero or less makes the nested decode fail at its first item.
    public func nested(belowDepth depth: Int) -> CBORDecoder.Limits {
        CBORDecoder.Limits(maxDepth: maxDepth - depth - 1, maxItems: maxItems, maxInputSize: maxInputSize)
    }
}

extension CBORNode {
    /// Checks that this item, read at `depth` of a decode with `limits`, stays inside the depth budget
    /// when the content of every tag-24 item in it is decoded in turn (and the tag-24 items in that
    /// content, and so on). Content that is not well-formed CBOR is not looked into (it stays a byte
    /// string wherever it is shown).
    ///
    /// Throws ``CBORError/Code/depthLimitExceeded`` when the nesting goes deeper than
    /// `limits.maxDepth`. The work is bounded by the budget: at most `limits.maxDepth` levels of
    /// recursion, and each nested decode reads a part of the input once.
    public func checkEmbeddedNesting(depth: Int, limits: CBORDecoder.Limits = .default) throws(CBORError) {
        guard depth <= limits.maxDepth else {
            throw CBORError(
                code: .depthLimitExceeded, message: "nesting deeper than \(limits.maxDepth) levels, counting the content of tag-24 items",
                offset: offset)
        }
        switch value {
        case .array(let items):
            for item in items { try item.checkEmbeddedNesting(depth: depth + 1, limits: limits) }
        case .map(let map):
            for entry in map.entries {
                try entry.key.checkEmbeddedNesting(depth: depth + 1, limits: limits)
                try entry.value.checkEmbeddedNesting(depth: depth + 1, limits: limits)
            }
        case .tagged(24, let content):
            guard case .byteString(let inner) = content.value else {
                try content.checkEmbeddedNesting(depth: depth + 1, limits: limits)
                return
            }
            let nested: CBORNode
            do {
                nested = try CBORDecoder(limits: limits.nested(belowDepth: depth)).decode(inner)
            } catch {
                if error.code == .depthLimitExceeded {
                    throw CBORError(
                        code: .depthLimitExceeded, message: "nesting deeper than \(limits.maxDepth) levels, counting the content of tag-24 items",
                        offset: error.offset)
                }
                return
            }
            // The content's top item sits two levels below the tag (tag, byte string, item).
            try nested.checkEmbeddedNesting(depth: depth + 2, limits: limits)
        case .tagged(_, let content):
            try content.checkEmbeddedNesting(depth: depth + 1, limits: limits)
        default:
            return
        }
    }
}
