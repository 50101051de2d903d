/// Decodes RFC 8949 CBOR into a tree of ``CBORNode`` values that keep their received bytes.
///
/// The decoder accepts everything RFC 8949 calls well-formed (including indefinite-length strings,
/// arrays and maps, and non-preferred lengths), and enforces limits so that hostile input cannot cause
/// unbounded recursion or allocation:
/// - nesting depth (``Limits/maxDepth``),
/// - total number of items (``Limits/maxItems``),
/// - input size (``Limits/maxInputSize``),
/// - every declared length or count is checked against the bytes that remain before anything is
///   allocated.
///
/// Duplicate map keys and invalid UTF-8 in text strings are always rejected. With
/// ``decode(_:)`` the input must hold exactly one item; trailing bytes are an error.
public struct CBORDecoder: Sendable {
    /// The bounds on what one decode may read: nesting depth, item count and input size.
    public struct Limits: Sendable, Hashable {
        /// Maximum nesting of arrays, maps and tags. The top-level item is at depth 1.
        public var maxDepth: Int
        /// Maximum number of data items (every nested item and map key counts).
        public var maxItems: Int
        /// Maximum input length in bytes.
        public var maxInputSize: Int

        /// Limits with the given bounds; the defaults suit a whole DeviceResponse.
        public init(maxDepth: Int = 64, maxItems: Int = 500_000, maxInputSize: Int = 16 * 1024 * 1024) {
            self.maxDepth = maxDepth
            self.maxItems = maxItems
            self.maxInputSize = maxInputSize
        }

        /// Depth 64, 500,000 items, 16 MiB.
        public static let `default` = Limits()
    }

    /// The bounds every decode of this decoder keeps.
    public var limits: Limits
    /// Texts returned from static storage instead of being allocated (``CBORKnownTexts``).
    public var knownTexts: CBORKnownTexts

    /// A decoder with `limits`, and a table of texts its format repeats (none by default).
    public init(limits: Limits = .default, knownTexts: CBORKnownTexts = .none) {
        self.limits = limits
        self.knownTexts = knownTexts
    }

    /// Decodes exactly one item; the whole input must be consumed.
    public func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORNode {
        try decode(bytes[...])
    }

    /// Decodes exactly one item from a slice; offsets in errors and nodes are indices of the slice's
    /// base buffer.
    public func decode(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> CBORNode {
        guard bytes.count <= limits.maxInputSize else {
            throw CBORError(
                code: .inputTooLarge, message: "input of \(bytes.count) bytes exceeds the limit of \(limits.maxInputSize)", offset: bytes.startIndex)
        }
        return try Parser.withParser(bytes, limits: limits, knownTexts: knownTexts) { (parser) throws(CBORError) in
            let node = try parser.parseItem(depth: 1)
            guard parser.position == bytes.endIndex else {
                throw CBORError(
                    code: .trailingBytes, message: "\(bytes.endIndex - parser.position) bytes follow the top-level item", offset: parser.position)
            }
            return node
        }
    }

    /// Decodes a sequence of items (RFC 8742 CBOR sequence) until the input is exhausted.
    public func decodeSequence(_ bytes: [UInt8]) throws(CBORError) -> [CBORNode] {
        guard bytes.count <= limits.maxInputSize else {
            throw CBORError(code: .inputTooLarge, message: "input of \(bytes.count) bytes exceeds the limit of \(limits.maxInputSize)", offset: 0)
        }
        return try Parser.withParser(bytes[...], limits: limits, knownTexts: knownTexts) { (parser) throws(CBORError) in
            var items: [CBORNode] = []
            while parser.position < bytes.endIndex {
                items.append(try parser.parseItem(depth: 1))
            }
            return items
        }
    }
}

extension CBORDecoder {
    /// A convenience for `CBORDecoder().decode(bytes)`.
    public static func decode(_ bytes: [UInt8]) throws(CBORError) -> CBORNode {
        try CBORDecoder().decode(bytes)
    }

    /// A convenience for `CBORDecoder().decode(bytes)` on a slice; offsets are indices of its base buffer.
    public static func decode(_ bytes: ArraySlice<UInt8>) throws(CBORError) -> CBORNode {
        try CBORDecoder().decode(bytes)
    }
}
