import ArgumentParser
import Foundation
import Logging
import Mdoc
import MdocVerifier
import SwiftASN1
import TrustDocuments
import VerificationCore
import VerifierServer
import WalletCBOR
import WalletCOSE
import WalletEncoding
import WalletIdentity
import X509

/// `wallet-verifier trust ...`: what the service trusts, where each root came from, and why a
/// document is or is not trusted — with the configuration `serve` reads.
struct TrustCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "trust",
        abstract: "Show the trusted IACA roots with their provenance, and explain why a document is or is not trusted.",
        subcommands: [TrustListCommand.self, TrustCheckCommand.self]
    )

    /// The configuration `serve` would run with (flags, environment, `--config`), composed as
    /// `serve` composes it; the log says nothing (what matters is printed).
    static func services(_ options: ServeOptions) async throws -> VerifierServices {
        let settings = try options.settings()
        let logger = Logger(label: "wallet-verifier") { _ in SwiftLogNoOpLogHandler() }
        do { return try await VerifierServices.make(settings: settings, logger: logger) } catch {
            throw CLIInputError("the configuration does not load: \(error)")
        }
    }
}

/// `wallet-verifier trust list`: every trusted root with its provenance, and every trust source.
struct TrustListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List every trusted IACA root with where it came from, and every trust source with its state.",
        discussion: """
            Takes the same flags, environment and --config as serve, and loads the roots as serve does (files, pinned \
            URLs, VICALs, with the copies its store keeps). --format json prints {"roots": [...], "sources": [...]}, \
            the members of GET /v1/trust.
            """
    )

    @OptionGroup var options: ServeOptions
    @Option(name: .long, help: "Output format: text or json.") var format: OutputFormat = .text

    func run() async throws {
        let services = try await TrustCommand.services(options)
        let now = services.clock.now()
        let output = CLIOutput.current
        if format == .json {
            output.out(services.trustListJSON(at: now))
        } else {
            let anchors = services.trustStore.anchors
            output.out("\(anchors.count) trusted IACA root(s)")
            for anchor in anchors {
                output.out(TrustText.root(anchor))
            }
            let sources = services.currentTrustSources(at: now)
            output.out("\(sources.count) trust source(s)")
            for source in sources {
                output.out(TrustText.source(source, now: now, margin: services.settings.trustStaleAfter))
            }
        }
        await services.shutdown()
    }
}

/// `wallet-verifier trust check FILE`: which root vouches for a document's signer, or why none does.
struct TrustCheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Say which configured root vouches for a document's signer, or why none does.",
        discussion: """
            FILE is a DeviceResponse (binary CBOR, hex or base64), the {"identity": DeviceResponse} plaintext of an \
            identity response, an identity envelope (PKIdentityDocument.encryptedData) with --nonce, opened with the \
            --identity-key keys, or a document signer certificate (PEM or DER). The roots are those serve would trust \
            (the same flags, environment and --config). Exit codes: 0 every signer is vouched for (the root and where \
            it came from are named), 1 one is not (its issuer's country and state, and the sources consulted, are \
            named), 2 usage error or unreadable input.
            """
    )

    @Argument(help: "A DeviceResponse, an identity plaintext, or a document signer certificate.") var file: String
    @OptionGroup var options: ServeOptions
    @Option(name: .long, help: "Time the chain is checked at (RFC 3339). Default: now.") var at: String?
    @Option(
        name: .long,
        help:
            "FILE is an identity envelope: the nonce of its PKIdentityRequest (hex); it is opened with the --identity-key keys, the --merchant-id and --team-id."
    ) var nonce: String?

    func validate() throws {
        if let nonce, (Hex.decode(nonce) ?? []).isEmpty { throw ValidationError("--nonce must be hex") }
    }

    func run() async throws {
        let time = try CommandSupport.verificationTime(at)
        if let nonce {
            try await checkEnvelope(nonce: Hex.decode(nonce) ?? [], at: time)
            return
        }
        let signers = try TrustCheckInput.signers(try InputFiles.readFile(file), name: file)
        let services = try await TrustCommand.services(options)
        let store = services.trustStore
        let sources = services.currentTrustSources(at: services.clock.now())
        let output = CLIOutput.current
        var untrusted = 0
        for signer in signers {
            let subject = TerminalText.escape("\(signer.certificate.subject)")
            let scope = signer.docType.map { " for \(TerminalText.escape($0))" } ?? ""
            if let anchor = await store.anchor(vouchingFor: signer.certificate, docType: signer.docType, at: time) {
                output.out("trusted: the document signer \(subject)\(scope) chains to a configured root")
                output.out(TrustText.root(anchor))
                continue
            }
            untrusted += 1
            let place = IssuerPlace(signer.certificate.issuer)
            output.out("not trusted: no configured root\(scope) vouches for the document signer \(subject) at \(RFC3339.format(time))")
            output.out("  its issuer: \(TerminalText.escape("\(signer.certificate.issuer)"))")
            if let docType = signer.docType, IACATrustStore.requiresScopedRoot(docType),
                let unscoped = await store.anchor(vouchingFor: signer.certificate, docType: nil, at: time)
            {
                output.out(
                    "  a root trusted for any docType vouches for it (\(TrustText.oneLine(unscoped))), but a \(docType) document needs a root scoped to its docType (--trust-doctype \(docType)=...)"
                )
            }
            TrustText.untrusted(country: place.country, state: place.state, sources: sources, store: store).forEach(output.out)
        }
        await services.shutdown()
        if untrusted > 0 { throw CommandExit(code: CLIExit.rejected) }
    }

    /// An identity envelope: opened and verified as `serve` would (its keys, merchant and team), then
    /// the `mdoc.issuer.chain` result of each document is explained from the report's details.
    func checkEnvelope(nonce: [UInt8], at time: Date) async throws {
        let envelope = InputFiles.cborBytes(fromFileContents: try InputFiles.readFile(file)).bytes
        let services = try await TrustCommand.services(options)
        let result = await services.identity.verifier.verify(encryptedData: envelope, nonce: nonce, context: .at(time))
        await services.shutdown()
        let chains = result.report.checks.filter { $0.id == .mdocIssuerChain }
        guard !chains.isEmpty, chains.allSatisfy({ $0.status == .passed || $0.status == .failed }) else {
            let blocking = result.report.checks.first { $0.status == .failed || $0.status == .error }
            throw CLIInputError(
                "\(file): the envelope's document signer could not be read (\(blocking.map { "\($0.id.rawValue): \($0.message)" } ?? "no document")); check --nonce, --identity-key, --merchant-id and --team-id"
            )
        }
        let output = CLIOutput.current
        let sources = services.currentTrustSources(at: services.clock.now())
        var untrusted = 0
        for chain in chains {
            let details = chain.details
            if chain.status == .passed {
                output.out("trusted: the document signer \(TerminalText.escape(details["signer"] ?? "?")) chains to a configured root")
                output.out("- \(TerminalText.escape(details["rootSubject"] ?? details["iaca"] ?? "?"))")
                output.out("    sha256 \(details["rootSHA256"] ?? "?")")
                output.out("    from: \(TerminalText.escape("\(details["trustSource"] ?? "?") \(details["trustLocation"] ?? "")"))")
                continue
            }
            untrusted += 1
            output.out("not trusted: \(TerminalText.escape(chain.message))")
            output.out("  reason: \(chain.reason.rawValue)")
            output.out("  its issuer: \(TerminalText.escape(details["issuer"] ?? "(not read)"))")
            TrustText.untrusted(country: details["issuerCountry"], state: details["issuerState"], sources: sources, store: services.trustStore)
                .forEach(output.out)
        }
        if untrusted > 0 { throw CommandExit(code: CLIExit.rejected) }
    }
}

/// The document signers of a `trust check` input, each with its document's docType (nil for a bare certificate).
enum TrustCheckInput {
    struct Signer {
        let certificate: Certificate
        let docType: String?
    }

    static func signers(_ raw: [UInt8], name: String) throws -> [Signer] {
        if String(decoding: raw.prefix(4096), as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") {
            guard let certificate = try? IACATrustStore.certificates(in: raw, name: name).first else {
                throw CLIInputError("\(name): the PEM certificate does not parse")
            }
            return [Signer(certificate: certificate, docType: nil)]
        }
        if let certificate = try? Certificate(derEncoded: raw) { return [Signer(certificate: certificate, docType: nil)] }
        let bytes = InputFiles.cborBytes(fromFileContents: raw).bytes
        let response: DeviceResponse
        do {
            if let map = try? CBORDecoder.decode(bytes).map("plaintext"), let identity = map["identity"] {
                response = try DeviceResponse(cbor: identity)
            } else {
                response = try DeviceResponse(cborBytes: bytes)
            }
        } catch {
            throw CLIInputError(
                "\(name) is neither a DeviceResponse, an identity plaintext nor a certificate (\(error.message.isEmpty ? error.code.rawValue : error.message))"
            )
        }
        var signers: [Signer] = []
        for document in response.documents {
            guard let der = try? document.issuerSigned.issuerAuth.headers.x5chain().first, let certificate = try? Certificate(derEncoded: der) else {
                throw CLIInputError("\(name): the \(document.docType) document's issuerAuth has no document signer certificate that parses")
            }
            signers.append(Signer(certificate: certificate, docType: document.docType))
        }
        guard !signers.isEmpty else { throw CLIInputError("\(name): the DeviceResponse holds no document") }
        return signers
    }
}

/// The text forms of roots and sources for `trust list` and `trust check`.
enum TrustText {
    static func root(_ anchor: IACATrustStore.Anchor) -> String {
        let scope = anchor.docTypes.map { $0.sorted().joined(separator: ", ") } ?? "any docType (passports excepted)"
        var lines = [
            "- \(TerminalText.escape("\(anchor.certificate.subject)"))",
            "    sha256 \(anchor.sha256)",
            "    valid \(RFC3339.format(anchor.certificate.notValidBefore)) to \(RFC3339.format(anchor.certificate.notValidAfter))",
            "    docTypes: \(TerminalText.escape(scope))",
            "    from: \(TerminalText.escape(anchor.provenance.summary))",
        ]
        let provenance = anchor.provenance
        if let sha = provenance.fileSHA256 { lines.append("    file sha256 \(sha)") }
        if let pin = provenance.pin { lines.append("    pin sha256=\(pin)") }
        if let fetched = provenance.fetchedAt { lines.append("    fetched \(RFC3339.format(fetched))") }
        if let vical = provenance.vical {
            lines.append("    VICAL signer \(TerminalText.escape(vical.signerSubject)) (sha256 \(vical.signerSHA256))")
            lines.append(
                "    VICAL issue \(vical.issueID.map(String.init) ?? "(none)") of \(RFC3339.format(vical.date)), next update \(vical.nextUpdate.map(RFC3339.format) ?? "(none)")"
            )
        }
        return lines.joined(separator: "\n")
    }

    /// The lines that follow "not trusted": the issuer's country and state, and each source consulted
    /// (for a VICAL, whether it lists an authority of that country and state).
    static func untrusted(country: String?, state: String?, sources: [TrustSourceStatus], store: IACATrustStore) -> [String] {
        var lines = [
            "  issuer country: \(country.map { TerminalText.escape($0) } ?? "(none named)")",
            "  issuer state or province: \(state.map { TerminalText.escape($0) } ?? "(none named)")",
            "  sources consulted:",
        ]
        if sources.isEmpty { lines.append("    none: no --trust, --trust-doctype or --vical is configured") }
        for source in sources where source.kind != .googlePayKeys {
            lines.append(
                "    \(TerminalText.escape(source.label)): \(source.roots) root(s)\(source.problem.map { "; \(TerminalText.escape($0))" } ?? "")")
            if source.kind == .vical {
                lines.append("      \(vicalCoverage(store, location: source.location, country: country, state: state))")
            }
        }
        return lines
    }

    static func oneLine(_ anchor: IACATrustStore.Anchor) -> String {
        "\(TerminalText.escape("\(anchor.certificate.subject)")), sha256 \(anchor.sha256), from \(TerminalText.escape(anchor.provenance.summary))"
    }

    static func source(_ source: TrustSourceStatus, now: Date, margin: TimeInterval) -> String {
        var parts = ["- \(TerminalText.escape(source.label)): \(source.roots) \(source.kind == .googlePayKeys ? "usable key(s)" : "root(s)")"]
        if let last = source.lastSuccess { parts.append("loaded \(RFC3339.format(last))") }
        if let next = source.nextUpdate { parts.append("next update \(RFC3339.format(next))") }
        if let stale = source.staleness(at: now, margin: margin) { parts.append("STALE: \(TerminalText.escape(stale))") }
        if let problem = source.problem { parts.append("NOT IN USE: \(TerminalText.escape(problem))") }
        return parts.joined(separator: "; ")
    }

    /// Whether the VICAL at `location` lists an issuing authority of `country` (and of `state`, when
    /// the entries name states), and which.
    static func vicalCoverage(_ store: IACATrustStore, location: String, country: String?, state: String? = nil) -> String {
        guard let country else { return "the signer's issuer names no country to look for in this VICAL" }
        let entries = store.anchors.compactMap { $0.provenance.kind == .vical && $0.provenance.location == location ? $0.provenance.vical : nil }
        let matching = entries.filter { $0.country?.uppercased() == country.uppercased() }
        guard !matching.isEmpty else {
            return "this VICAL lists no issuing authority for country \(TerminalText.escape(country)) among its \(entries.count) trusted entries"
        }
        let names = Set(
            matching.map { entry in
                [entry.issuingAuthority ?? "(unnamed authority)", entry.state.map { "(\($0))" }].compactMap { $0 }.joined(separator: " ")
            }
        ).sorted().map { TerminalText.escape($0) }
        var text =
            "this VICAL lists \(matching.count) root(s) for country \(TerminalText.escape(country)) (\(names.joined(separator: "; "))), none of which issued this signer"
        if let state, matching.contains(where: { $0.state != nil }) {
            let wanted = [state.uppercased(), "\(country)-\(state)".uppercased()]
            let listed = matching.contains { wanted.contains($0.state?.uppercased() ?? "") }
            text +=
                listed
                ? "; it lists an authority for \(TerminalText.escape(state)), whose root did not issue this signer (renewed?)"
                : "; none for \(TerminalText.escape(state))"
        }
        return text
    }
}
