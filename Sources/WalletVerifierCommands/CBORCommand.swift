import ArgumentParser
import WalletCBOR

struct CBORCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cbor",
        abstract: "Tools for CBOR data (RFC 8949).",
        subcommands: [Inspect.self]
    )

    struct Inspect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a CBOR file in diagnostic notation, with tag-24 (embedded CBOR) items decoded in place.",
            discussion: """
            FILE may hold binary CBOR, hex text or base64 text; the form is detected. Use it when a \
            session transcript, a digest or a signature does not match, to see exactly what was received.
            Note: the output shows every value, including personal data in identity responses.
            """
        )

        @Argument(help: "The CBOR file (binary, hex or base64).")
        var file: String

        @Flag(name: .long, help: "Print on one line.")
        var compact = false

        @Flag(name: .long, help: "Show tag-24 contents as byte strings instead of decoding them.")
        var raw = false

        func run() async throws {
            let (bytes, encoding) = try InputFiles.readCBORFile(file)
            let node: CBORNode
            do {
                node = try CBORDecoder.decode(bytes)
            } catch {
                throw CLIInputError("\(file) (read as \(encoding.rawValue), \(bytes.count) bytes) is not well-formed CBOR: \(error)")
            }
            let diagnostic = CBORDiagnostic(style: compact ? .compact : .pretty, decodeEmbedded: !raw)
            CLIOutput.current.out(diagnostic.format(node))
        }
    }
}
