import WalletEncoding

/// RFC 8949 §8 diagnostic notation, for people reading CBOR (the CLI's `cbor inspect`).
///
/// Byte strings tagged 24 whose content is well-formed CBOR are shown decoded, nested as
/// `24(<< item >>)`, so a DeviceResponse's IssuerSignedItems and MSO are readable in place. Nested
/// decodes share one depth budget (``maxDepth``, counted from the item given to ``format(_:)``): content
/// that would go deeper is shown as its bytes, with a comment, so hostile nesting cannot recurse
/// without bound.
public struct CBORDiagnostic: Sendable {
    /// How containers are laid out: `compact` on one line, `pretty` with one entry per line.
    public enum Style: Sendable { case compact, pretty }

    /// The layout of arrays and maps.
    public var style: Style
    /// Whether tag-24 content, and byte strings that start like a map or a tag-24 item and decode completely, are shown
    /// decoded as `<< item >>` rather than as hex.
    public var decodeEmbedded: Bool
    /// The indentation added per nesting level in the `pretty` style.
    public var indent: String
    /// The depth budget for the item and everything decoded inside it (the item is at depth 1).
    public var maxDepth: Int

    /// Creates a formatter; `maxDepth` defaults to the decoder's default depth limit.
    public init(style: Style = .pretty, decodeEmbedded: Bool = true, indent: String = "  ", maxDepth: Int = CBORDecoder.Limits.default.maxDepth) {
        self.style = style
        self.decodeEmbedded = decodeEmbedded
        self.indent = indent
        self.maxDepth = maxDepth
    }

    /// The diagnostic notation of `node` and everything in it, within the ``maxDepth`` budget.
    public func format(_ node: CBORNode) -> String {
        var out = ""
        write(node, level: 0, depth: 1, into: &out)
        return out
    }

    /// The limits for decoding the content of a byte string at `depth` (its top item one level below).
    private func nestedDecoder(belowDepth depth: Int) -> CBORDecoder {
        CBORDecoder(limits: CBORDecoder.Limits(maxDepth: maxDepth - depth))
    }

    /// `level` is the indentation; `depth` counts every level, also those of decoded byte strings.
    private func write(_ node: CBORNode, level: Int, depth: Int, into out: inout String) {
        guard depth <= maxDepth else {
            out += "/ nested deeper than \(maxDepth) levels /"
            return
        }
        switch node.value {
        case .unsignedInt(let v): out += String(v)
        case .negativeInt(let v): out += v == UInt64.max ? "-18446744073709551616" : "-\(v + 1)"
        case .byteString(let b):
            if decodeEmbedded, let embedded = Self.likelyEmbeddedCBOR(b, decoder: nestedDecoder(belowDepth: depth)) {
                // A byte string that carries CBOR (a COSE payload holding a tag-24 MSO, a protected
                // header): shown decoded as << item >>.
                out += "<< "
                write(embedded, level: level, depth: depth + 1, into: &out)
                out += " >>"
            } else {
                out += "h'\(Hex.encode(b))'"
            }
        case .textString(let t): out += Self.quoted(t)
        case .array(let items):
            writeContainer(open: "[", close: "]", count: items.count, level: level, into: &out) { index, out in
                write(items[index], level: level + 1, depth: depth + 1, into: &out)
            }
        case .map(let map):
            writeContainer(open: "{", close: "}", count: map.count, level: level, into: &out) { index, out in
                write(map[index].key, level: level + 1, depth: depth + 1, into: &out)
                out += ": "
                write(map[index].value, level: level + 1, depth: depth + 1, into: &out)
            }
        case .tagged(let tag, let content):
            out += "\(tag)("
            if tag == 24, decodeEmbedded, let inner = content.bytesValue {
                // The content's top item sits two levels below the tag (tag, byte string, item).
                do {
                    let decoded = try nestedDecoder(belowDepth: depth + 1).decode(inner)
                    out += "<< "
                    write(decoded, level: level, depth: depth + 2, into: &out)
                    out += " >>"
                } catch {
                    write(content, level: level, depth: depth + 1, into: &out)
                    if error.code == .depthLimitExceeded { out += " / not decoded: nested deeper than \(maxDepth) levels /" }
                }
            } else {
                write(content, level: level, depth: depth + 1, into: &out)
            }
            out += ")"
        case .simple(let v): out += "simple(\(v))"
        case .boolean(let v): out += v ? "true" : "false"
        case .null: out += "null"
        case .undefined: out += "undefined"
        case .float(let v):
            if v.isNaN { out += "NaN" } else if v.isInfinite { out += v < 0 ? "-Infinity" : "Infinity" } else { out += "\(v)" }
        }
    }

    private func writeContainer(open: String, close: String, count: Int, level: Int, into out: inout String, element: (Int, inout String) -> Void) {
        out += open
        guard count > 0 else {
            out += close
            return
        }
        let multiline = style == .pretty
        for index in 0..<count {
            if multiline { out += "\n" + String(repeating: indent, count: level + 1) }
            element(index, &out)
            if index < count - 1 { out += multiline ? "," : ", " }
        }
        if multiline { out += "\n" + String(repeating: indent, count: level) }
        out += close
    }

    /// Byte-string content shown decoded: only content that starts like a tag-24 item or a map and
    /// decodes completely, so that digests, keys and images stay hex.
    static func likelyEmbeddedCBOR(_ bytes: ArraySlice<UInt8>, decoder: CBORDecoder) -> CBORNode? {
        guard let first = bytes.first else { return nil }
        let startsLikeTag24 = bytes.count > 2 && first == 0xd8 && bytes[bytes.startIndex + 1] == 0x18
        let startsLikeMap = first >> 5 == 5 && bytes.count >= 3
        guard startsLikeTag24 || startsLikeMap else { return nil }
        return try? decoder.decode(bytes)
    }

    static func quoted(_ text: String) -> String { JSONText.quote(text) }
}

extension CBORNode: CustomStringConvertible {
    /// The kind, size and position of the item, never its content: decoded mdocs and tokens carry
    /// personal data, and nodes end up in logs. Use ``CBORDiagnostic`` to show content on purpose.
    public var description: String {
        "CBORNode(\(value.kindDescription), \(encodedBytes.count) bytes at offset \(offset))"
    }
}

/// JSON string quoting (also used for text strings in diagnostic notation, whose escapes are JSON's).
public enum JSONText {
    /// A JSON string literal: quoted, with quote, backslash, control characters and DEL escaped.
    public static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7f {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
