/// Text strings that recur in a format (map keys, namespaces, type names). A decoded text of more than
/// 15 bytes is a heap allocation as a `String`; when it equals one of these, the decoder returns the
/// table's string instead. Shorter texts are stored inline anyway, so they are not kept. The format's
/// module owns its table (Mdoc has ISO/IEC 18013-5's) and passes it to ``CBORDecoder``.
public struct CBORKnownTexts: Sendable {
    private let table: [(count: Int, bytes: [UInt8], string: String)]

    /// A table of `strings`; those of 15 bytes or fewer are left out (they never allocate).
    public init(_ strings: [String]) {
        table = strings.filter { $0.utf8.count > 15 }.map { ($0.utf8.count, Array($0.utf8), $0) }
    }

    /// No known texts: every text is decoded into a new string.
    public static let none = CBORKnownTexts([])

    /// The text of valid UTF-8 bytes (a map key the in-place reader passed, say): the table's string
    /// when it holds these bytes, else a new string.
    public func text(utf8 content: UnsafeRawBufferPointer) -> String {
        let bytes = content.assumingMemoryBound(to: UInt8.self)
        return string(for: bytes) ?? String(decoding: bytes, as: UTF8.self)
    }

    /// The known string with exactly these UTF-8 bytes, or nil.
    func string(for content: UnsafeBufferPointer<UInt8>) -> String? {
        let count = content.count
        guard count > 15 else { return nil }
        for entry in table where entry.count == count {
            if entry.bytes.withUnsafeBufferPointer({ known in
                for i in 0..<count where known[i] != content[i] { return false }
                return true
            }) {
                return entry.string
            }
        }
        return nil
    }
}
