/// Text for a terminal from strings an attacker may control (certificate subjects, docTypes, element
/// identifiers and values, messages that quote them): control characters become visible escapes, so
/// no escape sequence reaches the operator's terminal (no cursor moves, no colours, no title
/// changes, no hidden text) and no line can be forged.
///
/// Escaped: C0 controls (U+0000–U+001F) but for the kept line breaks and tabs, DEL (U+007F), C1
/// controls (U+0080–U+009F, which some terminals read as escape sequences: U+009B is CSI) and the
/// Unicode bidirectional overrides and isolates (U+202A–U+202E, U+2066–U+2069), which reorder what
/// is shown. Each becomes `\uXXXX`, JSON's own escape, so in JSON output it stands for the same
/// character and the JSON stays valid.
public enum TerminalText {
    /// `text` with every such character escaped. `keepLineBreaks` keeps `\n` and `\t` (for output
    /// that is made of lines on purpose); without it they are escaped too (for one field of a line).
    public static func escape(_ text: String, keepLineBreaks: Bool = false) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0, keepLineBreaks: keepLineBreaks) }) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, keepLineBreaks: keepLineBreaks) {
                let hex = String(scalar.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    static func needsEscape(_ scalar: Unicode.Scalar, keepLineBreaks: Bool) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return !keepLineBreaks
        case 0x00...0x1F, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: return true
        default: return false
        }
    }
}
