import ArgumentParser
import SwiftASN1
import VerificationCore
import WalletCBOR
import X509

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
            // COSE x5chain parameters (label 33: issuerAuth, readerAuth, revocation lists) by subject,
            // so a reader or issuer certificate can be named without another tool.
            let chains = Self.x5chains(in: node, depth: 1)
            if !chains.isEmpty { CLIOutput.current.out("") }
            for (index, chain) in chains.enumerated() {
                for (position, der) in chain.enumerated() {
                    let subject = (try? Certificate(derEncoded: Array(der))).map { "\($0.subject)" } ?? "(not an X.509 certificate)"
                    CLIOutput.current.out("/ x5chain \(index) certificate \(position): \(subject) /")
                }
            }
        }

        /// The certificates of every map entry with key 33 holding a byte string or an array of byte
        /// strings (COSE x5chain), in order, within the depth budget.
        static func x5chains(in node: CBORNode, depth: Int) -> [[ArraySlice<UInt8>]] {
            guard depth <= CBORDecoder.Limits.default.maxDepth else { return [] }
            switch node.value {
            case .array(let items):
                return items.flatMap { x5chains(in: $0, depth: depth + 1) }
            case .map(let map):
                var found: [[ArraySlice<UInt8>]] = []
                for entry in map.entries {
                    if case .unsignedInt(33) = entry.key.value {
                        if let bytes = entry.value.bytesValue {
                            found.append([bytes])
                            continue
                        }
                        if case .array(let items) = entry.value.value, !items.isEmpty, items.allSatisfy({ $0.bytesValue != nil }) {
                            found.append(items.compactMap(\.bytesValue))
                            continue
                        }
                    }
                    found += x5chains(in: entry.value, depth: depth + 1)
                }
                return found
            case .tagged(_, let content):
                return x5chains(in: content, depth: depth + 1)
            default:
                return []
            }
        }
    }
}
