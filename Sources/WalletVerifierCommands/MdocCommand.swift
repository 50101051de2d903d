import ArgumentParser
import Crypto
import Foundation
import Mdoc
import MdocVerifier
import TrustDocuments
import VerificationCore
import VerificationReceipts
import VerifierServer
import WalletCBOR
import WalletEncoding

extension OutputFormat: ExpressibleByArgument {}

struct MdocCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mdoc",
        abstract: "Verify ISO/IEC 18013-5 mdoc DeviceResponses.",
        subcommands: [Verify.self]
    )

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a DeviceResponse against a session transcript and trusted IACA roots.",
            discussion: """
                Checks the issuer signature, the chain to a trusted IACA, the Annex B certificate profile, the \
                issuing country, the value digests, the docType, the validity window and the device signature \
                or MAC. Files may be binary CBOR, hex text or base64 text.
                Exit codes: 0 accepted, 1 rejected, 2 usage error or unreadable input, 3 indeterminate.
                """
        )

        @Option(name: .long, help: "The DeviceResponse (binary CBOR, hex or base64).")
        var deviceResponse: String

        @Option(name: .long, help: "The SessionTranscript, bare or tag-24 wrapped (binary CBOR, hex or base64).")
        var sessionTranscript: String

        @Option(
            name: .long,
            help:
                "The reader's ephemeral P-256 private key, needed for deviceMac: PEM, a private JWK, the scalar, the 97-byte X9.63 form or a COSE_Key (binary, hex or base64)."
        )
        var readerKey: String?

        @OptionGroup var roots: IACARootOptions

        @Option(name: .long, help: "Verification time (RFC 3339). Default: now.")
        var at: String?

        @Option(name: .long, help: "Allowed clock skew for the MSO validity window, in seconds (default 60).")
        var clockSkew: Int = 60

        @Option(name: .long, help: "Output format: text or json.")
        var format: OutputFormat = .text

        @OptionGroup var trustLists: TrustListOptions

        @OptionGroup var receipts: ReceiptOptions

        func validate() throws {
            try roots.requireSome(orVICAL: trustLists.vical)
            if clockSkew < 0 { throw ValidationError("--clock-skew must not be negative") }
        }

        func run() async throws {
            let time = try CommandSupport.verificationTime(at)
            let signer = try receipts.signer()
            var store = try await CommandSupport.trustStore(roots.trust, scoped: roots.trustDoctype, fetchTimeout: trustLists.fetchTimeout)
            let responseBytes = try InputFiles.readCBORFile(deviceResponse).bytes
            let transcriptBytes = try InputFiles.readCBORFile(sessionTranscript).bytes
            let transcript: SessionTranscript
            do {
                transcript = try SessionTranscript(bytes: transcriptBytes)
            } catch {
                throw CLIInputError("\(sessionTranscript) is not a SessionTranscript: \(error.message)")
            }
            let reader = try readerKey.map(CommandSupport.readerKey)
            var policy = MdocVerificationPolicy.iso18013Strict
            policy.clockSkew = .seconds(clockSkew)
            let prepared = try await trustLists.prepare(store: &store, at: time)
            let result = await CommandSupport.verifyMdoc(
                response: responseBytes, transcript: transcript, readerKey: reader, store: store,
                policy: policy, at: time, prepared: prepared)
            let receipt = try await receipts.issue(signer: signer) { ReceiptContent.mdoc(result, submission: responseBytes) }
            CommandSupport.print(result: result, format: format, receipt: receipt)
            throw CommandExit(code: result.report.verdict.exitCode)
        }
    }
}

enum CommandSupport {
    static func verificationTime(_ text: String?) throws -> Date {
        guard let text else { return Date() }
        guard let date = RFC3339.parse(text) else {
            throw CLIInputError("--at \(text) is not an RFC 3339 time such as 2022-04-01T00:00:00Z")
        }
        return date
    }

    /// `--trust PATH` roots vouch for any docType; `--trust-doctype DOCTYPE[,DOCTYPE...]=PATH` roots
    /// only for the docTypes named. Read as `serve` reads them (``ServiceMaterial/trustStore(trust:scoped:)``).
    /// A pinned URL (`https://host/path#sha256=HEX`) is fetched once, as `serve` fetches it; one that
    /// cannot be had, or serves anything but its pinned self-signed CA certificate, is unreadable input.
    static func trustStore(_ paths: [String], scoped: [String] = [], fetchTimeout: Int = 10) async throws -> IACATrustStore {
        let entries: [TrustRootEntry]
        var store: IACATrustStore
        do {
            entries = try ServiceMaterial.trustEntries(trust: paths, scoped: scoped)
            store = try ServiceMaterial.trustStore(entries: entries)
        } catch {
            throw CLIInputError(error.message)
        }
        guard entries.contains(where: { $0.pinned != nil }) else { return store }
        let source = PinnedRootSource(transport: HTTPTrustDocumentTransport(timeout: TimeInterval(fetchTimeout)))
        let statuses: [TrustSourceStatus]
        do {
            statuses = try await TrustRootEntry.loadURLs(entries, into: &store, source: source, documentStore: nil, now: Date())
        } catch {
            throw CLIInputError(error.description)
        }
        if let missing = statuses.first(where: { $0.problem != nil }), let problem = missing.problem { throw CLIInputError(problem) }
        return store
    }

    /// The reader's ephemeral key: PEM, a private JWK, the 32-byte scalar (hex, base64 or binary) or a
    /// COSE_Key — as a terminal or ProximityReader hands it over.
    static func readerKey(_ path: String) throws -> P256.KeyAgreement.PrivateKey {
        do { return try ReaderKeyAgreementKey.load(contents: try InputFiles.readFile(path), name: path) } catch let error as ReaderKeyError {
            throw CLIInputError("--reader-key \(error)")
        }
    }

    /// Prints the result as JSON or text; with a receipt, its `receipt` member or lines come last.
    static func print(
        result: MdocVerificationResult, format: OutputFormat, extra: [(key: String, rawJSON: String)] = [], receipt: IssuedReceipt? = nil
    ) {
        switch format {
        case .json:
            CLIOutput.current.out(ReceiptOutput.json(result.json(extra: extra), adding: receipt))
        case .text:
            printText(result)
            if let receipt { CLIOutput.current.out(ReceiptOutput.text(receipt)) }
        }
    }

    /// The report's table, then, when accepted, every document's elements (one line each).
    static func printText(_ result: MdocVerificationResult) {
        CLIOutput.current.out(ReportOutput.text(result.report))
        guard result.report.verdict == .accepted else { return }
        for document in result.documents {
            // One line per element: names and values from the input cannot break or forge lines.
            let esc = { (text: String) in TerminalText.escape(text) }
            CLIOutput.current.out("\ndocument[\(document.index)] \(esc(document.docType))")
            for space in document.issuerSigned {
                for element in space.elements {
                    CLIOutput.current.out("  \(esc(space.name))/\(esc(element.identifier)): \(esc(textValue(element.value)))")
                }
            }
            for space in document.deviceSigned {
                for element in space.elements {
                    CLIOutput.current.out("  (device-signed) \(esc(space.name))/\(esc(element.identifier)): \(esc(textValue(element.value)))")
                }
            }
        }
    }

    static func textValue(_ value: ElementValue) -> String {
        if case .bytes(let bytes) = value {
            let kind = bytes.starts(with: [0xff, 0xd8]) ? "JPEG image" : "bytes"
            return "<\(kind), \(bytes.count) bytes>"
        }
        let json = value.json
        return json.count > 200 ? String(json.prefix(200)) + "…" : json
    }
}
