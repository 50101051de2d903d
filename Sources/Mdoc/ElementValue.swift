import WalletCBOR
import WalletEncoding

// Not `indirect`: arrays and maps already hold their elements on the heap, and a box per value
// would cost an allocation for every disclosed element.
/// A data element's value as a typed value, and as JSON for reports and the API:
/// tstr → string, int → number, bool, full-date (tag 1004) → "YYYY-MM-DD", tdate (tag 0) → RFC 3339,
/// bstr → base64, arrays and maps recursively.
///
/// `description` never shows the value: element values are personal data.
public enum ElementValue: Sendable, Hashable, CustomStringConvertible {
    /// A text string.
    case text(String)
    /// An integer that fits in Int64.
    case integer(Int64)
    /// An integer outside Int64 (kept as its decimal text).
    case bigInteger(String)
    /// A boolean.
    case bool(Bool)
    /// A full-date (tag 1004).
    case fullDate(CBORFullDate)
    /// A date-time: tdate (tag 0) or epoch seconds (tag 1).
    case dateTime(CBORDateTime)
    /// A byte string.
    case bytes([UInt8])
    /// A floating-point number.
    case float(Double)
    /// An array, each item converted in turn.
    case array([ElementValue])
    /// Keys rendered as strings (text keys as is, others in diagnostic notation).
    case map([(key: String, value: ElementValue)])
    /// CBOR null or undefined.
    case null
    /// Anything else (other tags, simple values), in diagnostic notation.
    case other(String)

    /// The value of a node decoded at the top of a decode with default limits.
    public init(_ node: CBORNode) {
        self.init(node, depth: 1, limits: .default)
    }

    /// The value of a node that sits at `depth` of a decode made with `limits`. The content of tag-24
    /// items is decoded and shown as its value, counted against the same depth budget (see
    /// ``WalletCBOR/CBORNode/checkEmbeddedNesting(depth:limits:)``): past the budget it is shown in
    /// diagnostic notation, undecoded, so no value recurses deeper than `limits.maxDepth` levels.
    public init(_ node: CBORNode, depth: Int, limits: CBORDecoder.Limits) {
        guard depth <= limits.maxDepth else {
            self = .other("/ nested deeper than \(limits.maxDepth) levels /")
            return
        }
        func diagnostic() -> String {
            CBORDiagnostic(style: .compact, maxDepth: limits.maxDepth - depth + 1).format(node)
        }
        switch node.value {
        case .textString(let t): self = .text(t)
        case .unsignedInt(let v): self = .unsigned(v)
        case .negativeInt(let v): self = .negative(v)
        case .boolean(let b): self = .bool(b)
        case .byteString(let b): self = .bytes(Array(b))
        case .float(let d): self = .float(d)
        case .null, .undefined: self = .null
        case .array(let items): self = .array(items.map { ElementValue($0, depth: depth + 1, limits: limits) })
        case .map(let map):
            self = .map(
                map.map { entry in
                    (
                        key: entry.key.textValue ?? CBORDiagnostic(style: .compact, maxDepth: limits.maxDepth - depth).format(entry.key),
                        value: ElementValue(entry.value, depth: depth + 1, limits: limits)
                    )
                })
        case .tagged(1004, _):
            if let date = try? CBORFullDate(cbor: node) { self = .fullDate(date) } else { self = .other(diagnostic()) }
        case .tagged(0, _), .tagged(1, _):
            if let date = try? CBORDateTime(cbor: node) { self = .dateTime(date) } else { self = .other(diagnostic()) }
        case .tagged(24, let content):
            // The content's top item sits two levels below the tag (tag, byte string, item).
            if let inner = content.bytesValue,
                let decoded = try? CBORDecoder(limits: limits.nested(belowDepth: depth), knownTexts: .iso18013_5).decode(inner)
            {
                self = ElementValue(decoded, depth: depth + 2, limits: limits)
            } else {
                self = .other(diagnostic())
            }
        default:
            self = .other(diagnostic())
        }
    }

    /// The integer of major type 0 with this argument.
    static func unsigned(_ v: UInt64) -> ElementValue {
        v <= UInt64(Int64.max) ? .integer(Int64(v)) : .bigInteger(String(v))
    }

    /// The integer of major type 1 with this argument (`-1 - v`).
    static func negative(_ v: UInt64) -> ElementValue {
        v < UInt64(Int64.max) ? .integer(-1 - Int64(v)) : .bigInteger("-" + String(v == UInt64.max ? "18446744073709551616" : String(v + 1)))
    }

    /// Reads a value in place, giving what ``init(_:depth:limits:)`` gives for its node: integers,
    /// byte and text strings, booleans, null and undefined, full-dates (tag 1004) and arrays and
    /// text-keyed maps of those, within the same depth budget. Nil for anything else (floats, other
    /// tags and simple values, tag-24 content, a form the reader does not take): the caller then
    /// decodes the value as a node, and the whole read it is part of goes the generic way.
    static func read(_ reader: inout CBORValueReader, depth: Int, limits: CBORDecoder.Limits) -> ElementValue? {
        guard depth <= limits.maxDepth, let major = reader.majorType else { return nil }
        switch major {
        case 0: return reader.unsignedInt().map(unsigned)
        case 1: return reader.negativeInt().map(negative)
        case 2: return reader.byteString().map { .bytes(Array($0)) }
        case 3: return reader.textString().map { .text($0) }
        case 4:
            var items: [ElementValue] = []
            items.reserveCapacity(min(reader.definiteArrayCount() ?? 0, 256))
            let complete = reader.array(maxItems: 256) { item in
                guard let value = read(&item, depth: depth + 1, limits: limits) else { return false }
                items.append(value)
                return true
            }
            return complete ? .array(items) : nil
        case 5:
            var entries: [(key: String, value: ElementValue)] = []
            entries.reserveCapacity(min(reader.definiteMapCount() ?? 0, 16))
            let complete = reader.textKeyedMap(maxEntries: 16) { key, value in
                guard let read = read(&value, depth: depth + 1, limits: limits) else { return false }
                entries.append((key: CBORKnownTexts.iso18013_5.text(utf8: key), value: read))
                return true
            }
            return complete ? .map(entries) : nil
        case 6:
            // The content sits one level below the tag, inside the same budget.
            guard depth + 1 <= limits.maxDepth else { return nil }
            var date: CBORFullDate?
            let complete = reader.tagged { tag, content in
                guard tag == 1004, let text = content.textString(), let parts = RFC3339.parseFullDate(text[...]) else { return false }
                date = CBORFullDate(year: parts.year, month: parts.month, day: parts.day)
                return date != nil
            }
            return complete ? date.map { .fullDate($0) } : nil
        default:
            switch reader.simpleValue() {
            case 20: return .bool(false)
            case 21: return .bool(true)
            case 22, 23: return .null
            default: return nil
            }
        }
    }

    /// Equal when the ``json`` renderings are, so values of different cases that render alike compare equal
    /// (a full-date and the same date as text, bytes and their base64 text).
    public static func == (lhs: ElementValue, rhs: ElementValue) -> Bool {
        lhs.json == rhs.json
    }

    /// Hashes the ``json`` rendering, consistently with equality.
    public func hash(into hasher: inout Hasher) { hasher.combine(json) }

    /// A fixed text that never shows the value.
    public var description: String { "ElementValue(redacted)" }

    /// The value as JSON text.
    public var json: String {
        switch self {
        case .text(let t): return JSONText.quote(t)
        case .integer(let v): return String(v)
        case .bigInteger(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .fullDate(let d): return JSONText.quote(d.description)
        case .dateTime(let d): return JSONText.quote(d.rfc3339)
        case .bytes(let b): return JSONText.quote(Base64.encode(b))
        case .float(let d): return d.isFinite ? "\(d)" : JSONText.quote("\(d)")
        case .array(let items): return "[" + items.map(\.json).joined(separator: ",") + "]"
        case .map(let entries): return "{" + entries.map { JSONText.quote($0.key) + ":" + $0.value.json }.joined(separator: ",") + "}"
        case .null: return "null"
        case .other(let diag): return JSONText.quote(diag)
        }
    }

    /// The text of a `.text` value; nil for any other case.
    public var stringValue: String? {
        if case .text(let t) = self { return t }
        return nil
    }
    /// The integer of an `.integer` value; nil for any other case, `.bigInteger` included.
    public var integerValue: Int64? {
        if case .integer(let v) = self { return v }
        return nil
    }
    /// The boolean of a `.bool` value; nil for any other case.
    public var boolValue: Bool? {
        if case .bool(let v) = self { return v }
        return nil
    }
    /// The bytes of a `.bytes` value; nil for any other case.
    public var bytesValue: [UInt8]? {
        if case .bytes(let v) = self { return v }
        return nil
    }
    /// The date of a `.fullDate` value; nil for any other case, a date given as text included.
    public var fullDateValue: CBORFullDate? {
        if case .fullDate(let v) = self { return v }
        return nil
    }
}
