import ArgumentParser
import Foundation
import MdocVerifier
import VerificationCore
import VerificationReceipts
import WalletCBOR
import WalletEncoding
import WalletIdentity

struct IdentityCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "identity",
        abstract: "Verify with Wallet: decrypt and verify identity responses (PKIdentityDocument.encryptedData).",
        subcommands: [Verify.self]
    )

    enum PolicyName: String, ExpressibleByArgument, CaseIterable {
        case production, developer
    }

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decrypt an APPLE-HPKE-v1 envelope and verify the mdoc inside.",
            discussion: """
                Checks the envelope, selects the key by pkRHash, checks infoHash against the session transcript \
                built from --nonce, --merchant-id and --team-id, opens HPKE, then verifies the mdoc (issuer \
                signature and chain, digests, validity, device signature). With --request, also checks the \
                response against the request and prints the claims.
                Exit codes: 0 accepted, 1 rejected, 2 usage error or unreadable input, 3 indeterminate.
                """
        )

        @Option(name: .long, help: "The encrypted response (binary CBOR, hex or base64).")
        var envelope: String

        @Option(name: .long, help: "A PEM P-256 private key (SEC1 or PKCS#8) of the identity encryption certificate. Repeatable (rotation).")
        var merchantKey: [String] = []

        @Option(name: .long, help: "The nonce of the PKIdentityRequest, as hex.")
        var nonce: String

        @Option(name: .long, help: "The merchant identifier of the PKIdentityRequest.")
        var merchantId: String

        @Option(name: .long, help: "The app's team identifier.")
        var teamId: String

        @OptionGroup var roots: IACARootOptions

        @Option(name: .long, help: "Verification time (RFC 3339). Default: now.")
        var at: String?

        @Option(name: .long, help: "The request descriptor (JSON) the app used.")
        var request: String?

        @Flag(name: .long, help: "Reject a document whose own expiry_date is before the verification time (otherwise a warning).")
        var requireUnexpired = false

        @Option(name: .long, help: "production (default) or developer (test issuers; the verdict is marked test-only).")
        var policy: PolicyName = .production

        @Option(name: .long, help: "Output format: text or json.")
        var format: OutputFormat = .text

        @OptionGroup var trustLists: TrustListOptions

        @OptionGroup var receipts: ReceiptOptions

        func validate() throws {
            if merchantKey.isEmpty { throw ValidationError("at least one --merchant-key FILE is required") }
            try roots.requireSome(orVICAL: trustLists.vical)
            guard let bytes = Hex.decode(nonce), !bytes.isEmpty else { throw ValidationError("--nonce must be hex") }
        }

        func run() async throws {
            let time = try CommandSupport.verificationTime(at)
            let signer = try receipts.signer()
            var ring = IdentityKeyRing()
            for path in merchantKey {
                do { try ring.load(path: path) } catch { throw CLIInputError("--merchant-key \(path): \(error)") }
            }
            var store = try await CommandSupport.trustStore(roots.trust, scoped: roots.trustDoctype, fetchTimeout: trustLists.fetchTimeout)
            let prepared = try await trustLists.prepare(store: &store, at: time)
            let descriptor = try request.map(CommandSupport.descriptor)
            let data = try InputFiles.readCBORFile(envelope).bytes
            let verifier = AppleIdentityVerifier(
                keyRing: ring, merchantID: merchantId, teamID: teamId, trustStore: store,
                policy: policy == .developer ? .developer : .production, revocation: prepared.revocation)
            // The VICAL's checks go first in the report, as in `mdoc verify` and `web verify`.
            let result = await verifier.verify(
                encryptedData: data, nonce: Hex.decode(nonce) ?? [], request: descriptor, context: .at(time), requireUnexpired: requireUnexpired,
                prefix: prepared.vicalChecks, prefixWarnings: prepared.vicalWarnings)
            // The envelope as received (the CBOR bytes, whether the file held them as binary, hex or base64);
            // a request descriptor has no id of its own.
            let receipt = try await receipts.issue(signer: signer) { ReceiptContent.identity(result, submission: data, requestID: nil) }
            CommandSupport.print(identity: result, format: format, receipt: receipt)
            throw CommandExit(code: result.report.verdict.exitCode)
        }
    }
}

extension CommandSupport {
    static func descriptor(_ path: String) throws -> IdentityRequestDescriptor {
        let bytes = try InputFiles.readFile(path)
        do {
            return try IdentityRequestDescriptor.decode(json: Data(bytes))
        } catch {
            throw CLIInputError("--request \(path): \(error)")
        }
    }

    static func print(identity result: IdentityVerificationResult, format: OutputFormat, receipt: IssuedReceipt? = nil) {
        let accepted = result.report.verdict == .accepted
        let mdoc = MdocVerificationResult(report: result.report, documents: result.documentsRegardlessOfVerdict)
        var extra: [(key: String, rawJSON: String)] = []
        if let claims = result.claims, accepted { extra.append(("claims", claims.json)) }
        guard format == .text else {
            print(result: mdoc, format: format, extra: extra, receipt: receipt)
            return
        }
        printText(mdoc)
        if accepted, let claims = result.claims {
            CLIOutput.current.out("\nclaims")
            for claim in claims.claims {
                let values = claim.values.map { "\(TerminalText.escape($0.source))=\(TerminalText.escape(textValue($0.value)))" }.joined(
                    separator: ", ")
                CLIOutput.current.out("  \(claim.element.rawValue): \(values.isEmpty ? "(not returned)" : values) [intent: \(claim.intentToStore)]")
            }
            if let age = claims.ageAtLeast {
                CLIOutput.current.out(
                    "  age(atLeast: \(age.atLeast)): \(age.value.map { String($0) } ?? "undecided") (from \(age.source)) [intent: \(age.intentToStore)]"
                )
            }
        }
        if let receipt { CLIOutput.current.out(ReceiptOutput.text(receipt)) }
    }
}
