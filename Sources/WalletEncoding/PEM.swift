/// PEM text (RFC 7468) as people have it: several blocks, text before and between them (openssl's
/// "Bag Attributes"), "EC PARAMETERS" before the key, CRLF line ends, RFC 1421 headers inside a block.
/// The one PEM scanner of the package: key and certificate loaders turn blocks into keys themselves.
package enum PEM {
    /// One `-----BEGIN label-----` … `-----END label-----` block.
    package struct Block: Sendable, Equatable {
        /// The label after BEGIN, such as `CERTIFICATE` or `EC PRIVATE KEY`.
        package var label: String
        /// RFC 1421 header lines inside the block (`Proc-Type: …`), as written.
        package var headers: [String]
        /// The base64 body, decoded.
        package var der: [UInt8]
    }

    /// Why text that looks like PEM could not be read. The message names the block, never its content.
    package struct Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        package let message: String
        package var description: String { message }
        package init(message: String) { self.message = message }
    }

    /// Every block of the text, in order; empty when there is none.
    /// - Throws: ``Error`` for a block that ends with another label, has no END line or is not base64.
    package static func blocks(in text: String) throws(PEM.Error) -> [Block] {
        // Marker by marker rather than line by line: files made by concatenation may have one block's
        // END and the next block's BEGIN on the same line.
        var blocks: [Block] = []
        var rest = Substring(text)
        while let begin = rest.firstRange(of: "-----BEGIN ") {
            guard let labelEnd = rest[begin.upperBound...].firstRange(of: "-----") else { break }
            let label = String(rest[begin.upperBound..<labelEnd.lowerBound])
            guard !label.contains(where: { $0.isNewline }) else {
                rest = rest[begin.upperBound...]
                continue
            }
            guard let end = rest[labelEnd.upperBound...].firstRange(of: "-----END ") else {
                throw Error(message: "PEM block \"\(label)\" has no END line (truncated file?)")
            }
            let endLabelEnd = rest[end.upperBound...].firstRange(of: "-----")
            let endLabel = String(rest[end.upperBound..<(endLabelEnd?.lowerBound ?? rest.endIndex)])
            guard endLabel == label, let endLabelEnd else {
                throw Error(message: "PEM block \"\(label)\" ends with \"\(endLabel.prefix(64))\"")
            }
            var headers: [String] = []
            var body = ""
            for line in rest[labelEnd.upperBound..<end.lowerBound].split(whereSeparator: { $0.isNewline }) {
                let line = trimmed(line)
                if line.contains(":") { headers.append(String(line)) } else { body += line }
            }
            guard let der = Base64.decodeStrict(body) else {
                throw Error(message: "PEM block \"\(label)\" is not valid base64")
            }
            blocks.append(Block(label: label, headers: headers, der: der))
            rest = rest[endLabelEnd.upperBound...]
        }
        return blocks
    }

    /// The first block whose label is one of `labels` (in the text's order), or nil when there is none
    /// or the text is not readable PEM.
    package static func firstBlock(labeled labels: Set<String>, in text: String) -> Block? {
        (try? blocks(in: text))?.first { labels.contains($0.label) }
    }

    /// Whether the text holds a PEM BEGIN line at all (so that a loader can say "bad PEM" rather than
    /// trying other encodings).
    package static func looksLikePEM(_ text: String) -> Bool {
        text.contains("-----BEGIN ")
    }

    /// The labels of private-key blocks: SEC1 and PKCS#8.
    package static let privateKeyLabels: Set<String> = ["EC PRIVATE KEY", "PRIVATE KEY"]

    private static func trimmed(_ line: Substring) -> Substring {
        var line = line
        while let first = line.first, first == " " || first == "\t" { line.removeFirst() }
        while let last = line.last, last == " " || last == "\t" { line.removeLast() }
        return line
    }
}
