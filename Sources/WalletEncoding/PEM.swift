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
    }

    /// Every block of the text, in order; empty when there is none.
    /// - Throws: ``Error`` for a block that ends with another label, has no END line or is not base64.
    package static func blocks(in text: String) throws(PEM.Error) -> [Block] {
        var blocks: [Block] = []
        var current: (label: String, headers: [String], body: String)?
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }) {
            let line = trimmed(rawLine)
            guard var block = current else {
                if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----"), line.count >= 16 {
                    current = (String(line.dropFirst(11).dropLast(5)), [], "")
                }
                continue
            }
            if line.hasPrefix("-----END ") {
                let label = String(line.dropFirst(9).dropLast(5))
                guard label == block.label else {
                    throw Error(message: "PEM block \"\(block.label)\" ends with \"\(label)\"")
                }
                guard let der = Base64.decodeStrict(block.body) else {
                    throw Error(message: "PEM block \"\(block.label)\" is not valid base64")
                }
                blocks.append(Block(label: block.label, headers: block.headers, der: der))
                current = nil
                continue
            }
            if line.contains(":") {
                block.headers.append(String(line))
            } else {
                block.body += line
            }
            current = block
        }
        if let open = current {
            throw Error(message: "PEM block \"\(open.label)\" has no END line (truncated file?)")
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
