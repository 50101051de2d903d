import ArgumentParser
import Foundation
import MdocVerifier
import SwiftASN1
import TrustDocuments
import VerificationCore
import VerificationReceipts
import WalletEncoding
import WalletJSON
import X509

/// `wallet-verifier receipt ...`: signed verification receipts, as an auditor checks them.
struct ReceiptCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receipt",
        abstract: "Verify signed verification receipts (what --receipt-key adds to a verify command's output).",
        subcommands: [Verify.self]
    )

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a receipt's signature with the issuer's JWKS or the receipt key's certificate, and print its payload.",
            discussion: """
                The receipt is a compact JWS (typ wallet-verifier-receipt+jwt, ES256) in a file, or on standard input \
                with --receipt -. It is verified with the key its kid names in --jwks (a file, or an https URL, or http \
                to a loopback address, fetched within --fetch-timeout), or with the public key of --cert, whose \
                thumbprint must be the kid. With --issuer, its iss must be that URI too (a JWKS fetched from one \
                service says nothing about receipts naming another). Prints the signed payload: pretty JSON with --format json; with text a \
                summary (kid, iss, iat, flow, verdict, number of checks), then the payload.
                Exit codes: 0 the receipt verifies, 1 it does not (another typ, an unknown kid, a signature that fails, \
                a payload changed after signing, another iss than --issuer), 2 usage error or unreadable input (not a compact JWS, a file that \
                cannot be read, a JWKS that cannot be fetched or read).
                """
        )

        @Option(name: .long, help: "The receipt (compact JWS): a file, or - for standard input.")
        var receipt: String

        @Option(name: .long, help: "The issuer's JWKS ({\"keys\": [...]}): a file, or an https URL (http only to a loopback address).")
        var jwks: String?

        @Option(name: .long, help: "The receipt key's certificate (PEM or DER; of a PEM chain, the first).")
        var cert: String?

        @Option(name: .long, help: "The issuer the receipt must name in iss (a URI, as serve --receipt-issuer gives it); refused otherwise.")
        var issuer: String?

        @Option(name: .long, help: "Seconds a --jwks URL fetch may take in all, connecting, headers and body (default 10, 1...300).")
        var fetchTimeout: Int = 10

        @Option(name: .long, help: "Output format: text or json.")
        var format: OutputFormat = .text

        /// The largest JWKS fetched from a URL.
        static let maximumJWKSSize = 1 << 20

        func validate() throws {
            if (jwks == nil) == (cert == nil) { throw ValidationError("give one of --jwks FILE|URL and --cert FILE") }
            if !(1...300).contains(fetchTimeout) { throw ValidationError("--fetch-timeout must be a whole number of seconds in 1...300") }
        }

        func run() async throws {
            let compact = try readReceipt()
            let verified: VerifiedReceipt
            do {
                if let jwks {
                    let keys = try await jwksBytes(jwks)
                    verified = try ReceiptVerifier.verify(compact, jwks: keys)
                } else if let cert {
                    verified = try ReceiptVerifier.verify(compact, certificate: try certificate(cert))
                } else {
                    throw CLIInputError("give one of --jwks FILE|URL and --cert FILE")
                }
            } catch let error as ReceiptVerificationError {
                // The receipt's header (its kid) is attacker-chosen: its line breaks are escaped, so it cannot print lines of its own.
                CLIOutput.current.err("error: the receipt does not verify: \(TerminalText.escape(error.description))")
                throw CommandExit(code: error.kind == .invalid ? CLIExit.rejected : CLIExit.usage)
            }
            if let issuer, verified.claims["iss"]?.string != issuer {
                let named = verified.claims["iss"]?.string.map { "\"\(TerminalText.escape($0))\"" } ?? "no iss"
                CLIOutput.current.err("error: the receipt's signature verifies, but it names \(named), not the issuer \"\(issuer)\" (--issuer)")
                throw CommandExit(code: CLIExit.rejected)
            }
            let payload = ReceiptPayloadText.pretty(.object(verified.claims))
            switch format {
            case .json:
                CLIOutput.current.out(payload)
            case .text:
                let claims = verified.claims
                let checks = claims["checks"]?.array?.count ?? 0
                func text(_ value: String?) -> String { value.map { TerminalText.escape($0) } ?? "(none)" }
                var lines = ["receipt verifies: kid \(TerminalText.escape(verified.keyID))"]
                lines.append("  iss      \(text(claims["iss"]?.string))")
                var issuedAt = claims["iat"]?.number ?? "(none)"
                if let seconds = claims["iat"]?.number.flatMap(Int64.init) {
                    issuedAt += " (\(RFC3339.format(Date(timeIntervalSince1970: TimeInterval(seconds)))))"
                }
                lines.append("  iat      \(TerminalText.escape(issuedAt))")
                lines.append("  flow     \(text(claims["flow"]?.string))")
                lines.append("  verdict  \(text(claims["verdict"]?.string))")
                lines.append("  checks   \(checks)")
                lines.append("payload:")
                lines.append(payload)
                CLIOutput.current.out(lines.joined(separator: "\n"))
            }
        }

        /// The receipt text of the file (or standard input for `-`), whitespace trimmed.
        func readReceipt() throws -> String {
            let bytes: [UInt8]
            if receipt == "-" {
                // Read in pieces, so input past the limit is refused without being held in memory.
                var read: [UInt8] = []
                while true {
                    let piece = FileHandle.standardInput.readData(ofLength: 64 * 1024)
                    if piece.isEmpty { break }
                    read += piece
                    guard read.count <= InputFiles.maxFileSize else {
                        throw CLIInputError("the receipt on standard input exceeds \(InputFiles.maxFileSize) bytes")
                    }
                }
                bytes = read
            } else {
                bytes = try InputFiles.readFile(receipt)
            }
            return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// The JWKS bytes: a file, or a URL fetched as revocation lists and VICALs are (one deadline,
        /// allowed addresses only, the body capped at ``maximumJWKSSize``).
        func jwksBytes(_ source: String) async throws -> [UInt8] {
            guard VICALSources.isURL(source) else { return try InputFiles.readFile(source) }
            guard let url = RevocationListCache.fetchableURL(source) else {
                throw CLIInputError("--jwks \(source): only https (or http to a loopback address) is fetched")
            }
            do {
                return try await HTTPTrustDocumentTransport(timeout: TimeInterval(fetchTimeout)).fetch(url, maximumSize: Self.maximumJWKSSize)
            } catch {
                throw CLIInputError("--jwks \(source) could not be fetched: \(error)")
            }
        }

        /// The certificate of a PEM (the first CERTIFICATE block) or DER file.
        func certificate(_ path: String) throws -> Certificate {
            let bytes = try InputFiles.readFile(path)
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                if text.contains("-----BEGIN") {
                    guard let first = try PEMDocument.parseMultiple(pemString: text).first(where: { $0.discriminator == "CERTIFICATE" }) else {
                        throw CLIInputError("--cert \(path) holds no CERTIFICATE block")
                    }
                    return try Certificate(derEncoded: first.derBytes)
                }
                return try Certificate(derEncoded: bytes)
            } catch let error as CLIInputError {
                throw error
            } catch {
                throw CLIInputError("--cert \(path) is not a certificate (PEM or DER)")
            }
        }
    }
}

/// A receipt payload as indented JSON, members in the order they were signed.
enum ReceiptPayloadText {
    static func pretty(_ value: StrictJSON.Value) -> String {
        var out = ""
        write(value, indent: "", into: &out)
        return out
    }

    static func write(_ value: StrictJSON.Value, indent: String, into out: inout String) {
        let inner = indent + "  "
        switch value {
        case .string(let text):
            var writer = JSONWriter(capacity: text.utf8.count + 2)
            writer.string(text)
            out += writer.text
        case .number(let text): out += text
        case .bool(let flag): out += flag ? "true" : "false"
        case .null: out += "null"
        case .array(let elements):
            guard !elements.isEmpty else {
                out += "[]"
                return
            }
            out += "[\n"
            for (index, element) in elements.enumerated() {
                out += inner
                write(element, indent: inner, into: &out)
                out += index < elements.count - 1 ? ",\n" : "\n"
            }
            out += indent + "]"
        case .object(let object):
            guard object.count > 0 else {
                out += "{}"
                return
            }
            out += "{\n"
            for (index, member) in object.members.enumerated() {
                var writer = JSONWriter(capacity: member.name.utf8.count + 4)
                writer.key(member.name)
                out += inner + writer.text + " "
                write(member.value, indent: inner, into: &out)
                out += index < object.count - 1 ? ",\n" : "\n"
            }
            out += indent + "}"
        }
    }
}
