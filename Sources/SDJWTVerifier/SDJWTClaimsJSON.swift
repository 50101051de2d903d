import WalletJSON

/// Claims as JSON text: the rebuilt object, numbers as written, members in their order.
public enum SDJWTClaimsJSON {
    /// The JSON text of `value`.
    public static func text(_ value: StrictJSON.Value) -> String {
        var writer = JSONWriter(capacity: 512)
        write(value, to: &writer)
        return writer.text
    }

    static func write(_ value: StrictJSON.Value, to writer: inout JSONWriter) {
        switch value {
        case .string(let text): writer.string(text)
        case .number(let text): writer.raw(text)
        case .bool(let flag): writer.bool(flag)
        case .null: writer.raw("null")
        case .array(let elements):
            writer.raw("[")
            for (index, element) in elements.enumerated() {
                if index > 0 { writer.raw(",") }
                write(element, to: &writer)
            }
            writer.raw("]")
        case .object(let object):
            writer.raw("{")
            for (index, member) in object.members.enumerated() {
                if index > 0 { writer.raw(",") }
                writer.key(member.name)
                write(member.value, to: &writer)
            }
            writer.raw("}")
        }
    }
}
