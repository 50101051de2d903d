import ArgumentParser
import Foundation
import MdocVerifier
import SDJWTVerifier
import TrustDocuments
import VerificationCore
import VerifierServer
import WalletJSON

/// `wallet-verifier sdjwt ...`: SD-JWT VC presentations (the EU wallets' format).
struct SDJWTCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdjwt",
        abstract: "Verify SD-JWT VC presentations (IETF SD-JWT with a Key Binding JWT).",
        subcommands: [Verify.self]
    )

    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify an SD-JWT VC presentation: issuer, chain, disclosures, validity, type and holder binding.",
            discussion: """
                The presentation is <issuer-signed JWT>~<disclosures>~<KB-JWT> as a wallet sends it, in a file or on \
                standard input (--credential -). Checks: the structure; the issuer header (typ dc+sd-jwt, alg ES256, ES384 \
                or ES512); the issuer signature with the x5c leaf; the chain to a root trusted for the credential's vct, \
                naming its iss; every disclosure referenced once; iat, nbf and exp; the vct asked for (--vct); and the \
                Key Binding JWT signed by cnf.jwk for --audience and --nonce, over this presentation. With --format json \
                the report carries the credential's type and, when accepted, its claims.
                Exit codes: 0 accepted, 1 rejected, 2 usage error or unreadable input.
                """
        )

        @Option(name: .long, help: "The presentation: a file, or - for standard input.") var credential: String
        @Option(name: .long, help: "The request's nonce, which the Key Binding JWT must carry.") var nonce: String
        @Option(name: .long, help: "This verifier's client identifier, the Key Binding JWT's aud (e.g. origin:https://shop.example).")
        var audience: String
        @Option(
            name: .long,
            help: "VCT=FILE|DIR|URL#sha256=HEX: roots trusted only for credentials of this type (e.g. urn:eudi:pid:1=pid-roots/). Repeatable.")
        var trustVct: [String] = []
        @Option(name: .long, help: "A root trusted for credentials of any type: a file, a directory or a pinned URL. Repeatable.")
        var trust: [String] = []
        @Option(name: .long, help: "A credential type the request asked for; repeatable (default: any type a root is trusted for).")
        var vct: [String] = []
        @Option(
            name: .long,
            help:
                "A claim the request asked for, as a dotted path (address.locality, age_equal_or_over.18, nationalities.* for every element); repeatable. A disclosed claim off every path fails, and only these claims are returned."
        ) var claim: [String] = []
        @Option(name: .long, help: "Seconds the Key Binding JWT may be old (the request's lifetime, default 600).") var maxAge: Int = 600
        @Option(name: .long, help: "Verification time (RFC 3339). Default: now.") var at: String?
        @Option(name: .long, help: "Allowed clock skew in seconds (default 60).") var clockSkew: Int = 60
        @Option(name: .long, help: "Output format: text or json.") var format: OutputFormat = .text

        func validate() throws {
            if trust.isEmpty && trustVct.isEmpty { throw ValidationError("at least one --trust-vct VCT=FILE|DIR or --trust FILE|DIR is required") }
            if clockSkew < 0 { throw ValidationError("--clock-skew must not be negative") }
            if maxAge < 1 { throw ValidationError("--max-age must be at least 1 second") }
        }

        func run() async throws {
            let time = try CommandSupport.verificationTime(at)
            let store = try await trustStore()
            let bytes =
                credential == "-"
                ? Array(FileHandle.standardInput.readDataToEndOfFile().prefix(SDJWTPresentation.maximumLength + 1))
                : try InputFiles.readFile(credential)
            let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            var expectations = SDJWTExpectations(
                vcts: vct.isEmpty ? nil : Set(vct), audience: audience, nonce: nonce, keyBindingMaxAge: TimeInterval(maxAge))
            if !claim.isEmpty {
                expectations.requestedClaims = claim.map { path in
                    SDJWTClaimPath(path.split(separator: ".", omittingEmptySubsequences: false).map { $0 == "*" ? .all : .name(String($0)) })
                }
            }
            let result = await SDJWTVCVerifier(trustStore: store).verify(
                text, expectations: expectations, context: .init(time: time, clockSkew: .seconds(clockSkew)))
            switch format {
            case .json:
                var extra: [(key: String, rawJSON: String)] = []
                if let type = result.vct { extra.append(("vct", SDJWTClaimsJSON.text(.string(type)))) }
                if let claims = result.claims { extra.append(("claims", SDJWTClaimsJSON.text(.object(claims)))) }
                if let age = result.ageAtLeast { extra.append(("ageAtLeast", String(age))) }
                CLIOutput.current.out(ReportOutput.json(result.report, extra: extra))
            case .text:
                CLIOutput.current.out(ReportOutput.text(result.report))
                if let claims = result.claims {
                    CLIOutput.current.out("claims: " + TerminalText.escape(SDJWTClaimsJSON.text(.object(claims))))
                }
            }
            throw CommandExit(code: result.report.verdict.exitCode)
        }

        /// The roots of `--trust` (any type) and `--trust-vct` (their type only); pinned URLs fetched once.
        func trustStore() async throws -> IACATrustStore {
            var entries: [TrustRootEntry] = []
            do {
                entries = try TrustRootEntry.parse(trust: trust, scoped: [])
                for value in trustVct {
                    guard let equals = value.firstIndex(of: "="), equals != value.startIndex, value.index(after: equals) != value.endIndex else {
                        throw CLIInputError("--trust-vct \(value) is not VCT=FILE|DIR|URL#sha256=HEX")
                    }
                    entries.append(
                        try TrustRootEntry.scoped(
                            flag: "--trust-vct", scopes: [String(value[..<equals])], value: String(value[value.index(after: equals)...])))
                }
            } catch let error as PinnedRootFailure {
                throw CLIInputError(error.description)
            }
            var store: IACATrustStore
            do { store = try ServiceMaterial.trustStore(entries: entries) } catch { throw CLIInputError(error.message) }
            guard entries.contains(where: { $0.pinned != nil }) else { return store }
            let source = PinnedRootSource(transport: HTTPTrustDocumentTransport(timeout: 10))
            do {
                for status in try await TrustRootEntry.loadURLs(entries, into: &store, source: source, documentStore: nil, now: Date()) {
                    if let problem = status.problem { throw CLIInputError("\(status.location): \(problem)") }
                }
            } catch let error as CLIInputError {
                throw error
            } catch {
                throw CLIInputError("\(error)")
            }
            return store
        }
    }
}
