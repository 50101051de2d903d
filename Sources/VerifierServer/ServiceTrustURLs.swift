import Foundation
import Logging
import MdocVerifier
import TrustDocuments
import VerificationCore
import WalletEncoding

/// `--trust` and `--trust-doctype` entries that name a pinned URL: each root fetched through the
/// library's ``PinnedRootSource`` (or taken from the store's kept copy) and added with its
/// provenance. A URL that cannot be had and has no kept copy is logged, and the service starts
/// without its root; one that serves anything but its pinned CA certificate stops the start.
enum ServiceTrustURLs {
    static func load(settings: ServerSettings, into trust: inout IACATrustStore, base: VerifierServices.Base, logger: Logger) async throws
        -> [TrustSourceStatus]
    {
        let entries = try ServiceMaterial.trustEntries(trust: settings.trust, scoped: settings.trustDocTypes)
        guard entries.contains(where: { $0.pinned != nil }) else { return [] }
        let statuses: [TrustSourceStatus]
        do {
            statuses = try await TrustRootEntry.loadURLs(
                entries, into: &trust, source: PinnedRootSource(transport: base.transport, copies: base.pinnedRoots),
                documentStore: base.documentStore, now: base.clock.now())
        } catch {
            throw SettingsError(error.description)
        }
        for status in statuses {
            if let problem = status.problem {
                logger.error("trust: \(problem); the service starts without this root (it is fetched again at the next reload)")
            } else {
                logger.notice("trust: pinned root from \(status.location) (fetched \(status.lastSuccess.map(RFC3339.format) ?? "?"))")
            }
        }
        return statuses
    }

    /// The status of each file or directory entry: how many roots it added.
    static func fileStatuses(_ trust: IACATrustStore, at now: Date) -> [TrustSourceStatus] {
        var seen: [String] = []
        for anchor in trust.anchors where anchor.provenance.kind == .file && !seen.contains(anchor.provenance.location) {
            seen.append(anchor.provenance.location)
        }
        return seen.map { path in
            TrustSourceStatus(
                kind: .file, location: path, roots: trust.anchors.filter { $0.provenance.kind == .file && $0.provenance.location == path }.count,
                lastSuccess: now)
        }
    }
}
