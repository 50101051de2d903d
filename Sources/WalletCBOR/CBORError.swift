/// An error thrown by the CBOR codec for input that is not well-formed, exceeds a limit, or does not
/// have the shape a typed decoder expects.
///
/// Equality and hashing consider only ``code``, so tests can compare against `CBORError(code: ...)`
/// regardless of the message or position. ``offset`` is the index in the buffer that was decoded
/// (for data decoded from an `[UInt8]` that is the byte offset from its start).
public struct CBORError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, extensible error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible, RawRepresentable {
        /// The code's name, as shown in messages.
        public let rawValue: String
        /// Wraps a code name; prefer the static members.
        public init(rawValue: String) { self.rawValue = rawValue }
        /// The code's name.
        public var description: String { rawValue }

        /// The input ended in the middle of an item.
        public static let truncated = Code(rawValue: "truncated")
        /// Bytes follow the single top-level item.
        public static let trailingBytes = Code(rawValue: "trailingBytes")
        /// Nesting deeper than ``CBORDecoder/Limits/maxDepth``.
        public static let depthLimitExceeded = Code(rawValue: "depthLimitExceeded")
        /// More items than ``CBORDecoder/Limits/maxItems``.
        public static let itemLimitExceeded = Code(rawValue: "itemLimitExceeded")
        /// Input larger than ``CBORDecoder/Limits/maxInputSize``.
        public static let inputTooLarge = Code(rawValue: "inputTooLarge")
        /// A declared length or element count cannot fit in the remaining input.
        public static let lengthExceedsInput = Code(rawValue: "lengthExceedsInput")
        /// A text string is not valid UTF-8.
        public static let invalidUTF8 = Code(rawValue: "invalidUTF8")
        /// A break code (0xff) outside an indefinite-length item, or missing where one was required.
        public static let unexpectedBreak = Code(rawValue: "unexpectedBreak")
        /// Additional information 28, 29 or 30, or 31 on a major type that has no indefinite form.
        public static let malformedHead = Code(rawValue: "malformedHead")
        /// A simple value encoded with two bytes but below 32.
        public static let invalidSimpleValue = Code(rawValue: "invalidSimpleValue")
        /// A chunk of an indefinite-length string is not a definite string of the same major type.
        public static let invalidChunk = Code(rawValue: "invalidChunk")
        /// A map has the same key twice.
        public static let duplicateMapKey = Code(rawValue: "duplicateMapKey")
        /// A map key that is an array, a map or a tag. No structure this verifier reads has one, and
        /// comparing such keys for duplicates costs work that grows with their nesting.
        public static let unsupportedMapKey = Code(rawValue: "unsupportedMapKey")
        /// A typed decoder found a different major type or tag than it needed.
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// A typed decoder did not find a required map entry.
        public static let missingField = Code(rawValue: "missingField")
        /// A value is of the right type but not acceptable (out of range, bad date, ...).
        public static let invalidValue = Code(rawValue: "invalidValue")
        /// Input was required to be deterministically encoded and is not.
        public static let notDeterministic = Code(rawValue: "notDeterministic")
    }

    /// The category: the only part that equality and hashing consider.
    public let code: Code
    /// A human-readable explanation. Never contains decoded values of text or byte strings.
    public let message: String
    /// Index of the offending byte in the decoded buffer, when known.
    public let offset: Int?

    /// Creates an error of a category, with an optional explanation and byte offset.
    public init(code: Code, message: String = "", offset: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
    }

    /// The code, then the message and the offset when present, for logs.
    public var description: String {
        var text = "CBORError.\(code)"
        if !message.isEmpty { text += ": \(message)" }
        if let offset { text += " (at byte \(offset))" }
        return text
    }

    /// Compares ``code`` only; messages and offsets may differ.
    public static func == (lhs: CBORError, rhs: CBORError) -> Bool { lhs.code == rhs.code }
    /// Hashes ``code`` only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
