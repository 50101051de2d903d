import ArgumentParser
import Crypto
import Foundation
import Mdoc
import MdocVerifier
import TrustDocuments
import VerificationCore
import WalletIdentity
import X509

/// What a revocation list that cannot be obtained or trusted means (`--revocation`), as `serve --revocation`.
enum RevocationModeArgument: String, ExpressibleByArgument, CaseIterable {
    case required
    case bestEffort = "best-effort"
    case off
}

/// `[--revocation required|best-effort|off] [--revocation-list FILE ...] [--fetch-timeout SECONDS] [--vical FILE|URL --vical-trust FILE]`,
/// shared by `mdoc verify`, `identity verify` and `web verify`. Revocation is checked by default, as
/// the service does: lists from files first, the others fetched from the MSO's status uri.
struct TrustListOptions: ParsableArguments {
    @Option(
        name: .long,
        help: """
            MSO revocation lists, as serve --revocation: required (default: a list that cannot be obtained or trusted makes the \
            verdict indeterminate, exit 3), best-effort (a warning) or off (both checks skipped; the report says so).
            """)
    var revocation: RevocationModeArgument = .required

    @Option(
        name: .long, help: "A revocation list (a CWT identifier list or status list), matched to the MSO status uri by its sub claim. Repeatable.")
    var revocationList: [String] = []

    @Flag(
        name: .long,
        help:
            "Kept for scripts: lists are fetched from the MSO status uri by default now (https, or http to a loopback address), unless --revocation off."
    )
    var fetchRevocation = false

    @Option(
        name: .long,
        help: "Seconds a revocation list fetch may take in all, connecting, headers and body (default 10, 1...300).")
    var fetchTimeout: Int = 10

    @Option(
        name: .long,
        help:
            "A VICAL (ISO/IEC 18013-5 Annex C, e.g. AAMVA's), a file or an https URL (fetched once, within --fetch-timeout): once verified, its IACA certificates are trusted for their docTypes."
    )
    var vical: String?

    @Option(name: .long, help: "The trust anchor of the VICAL signer (PEM or DER), required with --vical.")
    var vicalTrust: String?

    func validate() throws {
        if vical != nil && vicalTrust == nil { throw ValidationError("--vical needs --vical-trust FILE (the VICAL signer's anchor)") }
        if vicalTrust != nil && vical == nil { throw ValidationError("--vical-trust is only used with --vical FILE|URL") }
        if !(1...300).contains(fetchTimeout) { throw ValidationError("--fetch-timeout must be a whole number of seconds in 1...300") }
        if revocation == .off && (fetchRevocation || !revocationList.isEmpty) {
            throw ValidationError("--revocation off checks no list: drop --fetch-revocation and --revocation-list, or use required or best-effort")
        }
    }

    /// What the options contribute to a verification.
    struct Prepared {
        var vicalChecks: [CheckResult] = []
        var vicalWarnings: [ReportWarning] = []
        var revocation: RevocationChecker
    }

    /// Loads the VICAL (its checks go into the report; its roots into `store` when it is trusted)
    /// and the revocation sources.
    func prepare(store: inout IACATrustStore, at time: Date) async throws -> Prepared {
        var vicalChecks: [CheckResult] = [], vicalWarnings: [ReportWarning] = []
        if let vical, let vicalTrust {
            let anchorBytes = try InputFiles.readFile(vicalTrust)
            let anchors: [Certificate]
            do { anchors = try IACATrustStore.certificates(in: anchorBytes, name: vicalTrust) } catch {
                throw CLIInputError("--vical-trust \(vicalTrust): \(error)")
            }
            // A file as the other inputs are read; a URL through the library's VICAL sources, as the service fetches it.
            let bytes: [UInt8]
            if VICALSources.isURL(vical) {
                let sources = VICALSources(transport: HTTPTrustDocumentTransport(timeout: TimeInterval(fetchTimeout)))
                do { bytes = try await sources.bytes(of: vical) } catch { throw CLIInputError(error.description) }
            } else {
                bytes = try InputFiles.readFile(vical)
            }
            let loaded = await VICALLoader(anchors: anchors).load(bytes: bytes, at: time)
            loaded.add(to: &store, location: vical, fetchedAt: VICALSources.isURL(vical) ? Date() : nil)
            vicalChecks = loaded.checks
            vicalWarnings = loaded.warnings
        }
        guard revocation != .off else {
            return Prepared(
                vicalChecks: vicalChecks, vicalWarnings: vicalWarnings, revocation: .off(because: "--revocation off", trustStore: store))
        }
        var sources: [any RevocationListSource] = []
        if !revocationList.isEmpty {
            var offline = OfflineRevocationLists()
            for path in revocationList {
                let bytes = InputFiles.cborBytes(fromFileContents: try InputFiles.readFile(path)).bytes
                do { try offline.add(bytes: bytes, name: (path as NSString).lastPathComponent) } catch {
                    throw CLIInputError("--revocation-list \(path): \(error.message)")
                }
            }
            sources.append(offline)
        }
        sources.append(RevocationListCache(transport: HTTPTrustDocumentTransport(timeout: TimeInterval(fetchTimeout))))
        let policy: RevocationPolicy = revocation == .required ? .strict : .warnWhenUndetermined
        return Prepared(
            vicalChecks: vicalChecks, vicalWarnings: vicalWarnings,
            revocation: RevocationChecker(source: RevocationListSources(sources), trustStore: store, policy: policy))
    }
}

extension CommandSupport {
    /// mdoc verification with the trust-list options: VICAL checks first, then the mdoc checks,
    /// the photo ID checks for photo ID documents, and revocation.
    static func verifyMdoc(
        response bytes: [UInt8], transcript: SessionTranscript, readerKey: P256.KeyAgreement.PrivateKey?,
        store: IACATrustStore, policy: MdocVerificationPolicy, at time: Date, prepared: TrustListOptions.Prepared
    ) async -> MdocVerificationResult {
        await MdocFlowVerifier(mdocVerifier: MdocVerifier(trustStore: store, policy: policy), revocation: prepared.revocation)
            .verify(
                deviceResponse: bytes, transcript: transcript, readerKey: readerKey, context: .at(time), prefix: prepared.vicalChecks,
                prefixWarnings: prepared.vicalWarnings, explainDeviceFailures: true)
    }
}
