import Foundation
import Logging
import MdocVerifier
import ServiceLifecycle
import TrustDocuments
import VerificationCore
import WalletEncoding
import X509

/// `serve --vical FILE|URL --vical-trust FILE`: each VICAL is verified as `mdoc verify --vical`
/// does (signature, signer chain to its anchor, validity); its roots are trusted for the docTypes
/// their entries list. Loading, copies and the rollback rule are the library's ``VICALSources``.
enum ServiceVICALs {
    /// Adds the roots of every configured VICAL to `trust`, and returns what each VICAL in use is and
    /// each VICAL's source status. A file that does not verify stops the configuration from loading;
    /// a URL uses its last verified copy, or a fresh fetch (``VICALSources/load(url:loader:at:log:)``)
    /// — a first fetch that fails is logged and that VICAL contributes nothing until the refresh gets
    /// a copy that verifies. A VICAL past its nextUpdate is still used (a stale but signed list is the
    /// best knowledge) unless it is past it by more than `--trust-stale-after` and `--trust-stale
    /// fail` is set: then its roots stop anchoring.
    static func load(settings: ServerSettings, into trust: inout IACATrustStore, base: VerifierServices.Base, logger: Logger) async throws
        -> (vicals: [VICALStatus], sources: [TrustSourceStatus])
    {
        let now = base.clock.now()
        let sources = base.vicalSources
        var statuses: [VICALStatus] = []
        var trustSources: [TrustSourceStatus] = []
        for (source, anchorPath) in zip(settings.vicals, settings.vicalTrust) {
            let anchors: [Certificate]
            do { anchors = try VICALSources.anchors(path: anchorPath) } catch { throw SettingsError(error.description) }
            // Outdated lists load (with the vicalOutdated warning); how stale is too stale is decided below.
            let loader = VICALLoader(anchors: anchors, allowOutdated: true, clockSkew: .seconds(settings.clockSkew))
            let result: VICALLoadResult
            let status: VICALStatus
            if !VICALSources.isURL(source) {
                let bytes: [UInt8]
                do { bytes = try await sources.bytes(of: source) } catch { throw SettingsError(error.description) }
                result = await loader.load(bytes: bytes, at: now)
                guard result.trusted, let vical = result.vical else {
                    throw SettingsError("--vical \(source) does not verify against \(anchorPath): \(VICALSources.reasons(result))")
                }
                status = VICALStatus(source: source, vical: vical, fetchedAt: nil)
            } else {
                guard let loaded = await sources.load(url: source, loader: loader, at: now, log: logger.log) else {
                    trustSources.append(
                        TrustSourceStatus(
                            kind: .vical, location: source, roots: 0,
                            problem: "no copy of \(source) verifies yet (see the log); its roots are not trusted until a refresh gets one"))
                    continue
                }
                result = loaded.result
                status = loaded.status
            }
            var sourceStatus = TrustSourceStatus(
                kind: .vical, location: source, roots: result.roots.count, lastSuccess: status.fetchedAt ?? now, nextUpdate: status.nextUpdate)
            if let stale = sourceStatus.staleness(at: now, margin: settings.trustStaleAfter) {
                if settings.trustStale == .fail {
                    logger.error("trust: \(stale); its \(result.roots.count) root(s) do not anchor (--trust-stale fail)")
                    sourceStatus.roots = 0
                    sourceStatus.problem = "stale: \(stale); its roots do not anchor (--trust-stale fail)"
                    trustSources.append(sourceStatus)
                    statuses.append(status)
                    continue
                }
                logger.warning("trust: \(stale); its roots are still used (--trust-stale warn): fetch a current list")
            }
            result.add(to: &trust, location: source, fetchedAt: status.fetchedAt)
            statuses.append(status)
            trustSources.append(sourceStatus)
            if !VICALSources.isURL(source) {
                logger.notice("vical: \(source): \(result.roots.count) IACA root(s) from \(result.vical?.provider ?? "?")")
            }
        }
        return (statuses, trustSources)
    }
}

extension Logger {
    /// Logs what the library's VICAL loading observed, at its level.
    func log(_ event: VICALSources.Event) {
        switch event {
        case .notice(let message): notice("\(message)")
        case .error(let message): error("\(message)")
        }
    }

    /// Logs what a trust source of the library observed, at its level.
    func log(_ event: TrustSourceEvent) {
        switch event {
        case .notice(let message): notice("\(message)")
        case .warning(let message): warning("\(message)")
        case .error(let message): error("\(message)")
        }
    }
}

/// Re-fetches each VICAL URL daily and once its nextUpdate passes; a copy that verifies reloads the
/// configuration with its roots; one that does not keeps the previous roots, and the log says why.
public struct VICALRefreshService: Service {
    let live: LiveServices
    let logger: Logger
    var interval: Duration = .seconds(600)

    /// Creates the service refreshing the VICALs of `live`'s current settings.
    public init(live: LiveServices, logger: Logger) {
        self.live = live
        self.logger = logger
    }

    /// Checks every 10 minutes for a VICAL that is due and refreshes it, until graceful shutdown.
    public func run() async throws {
        await repeatUntilShutdown(every: interval, startImmediately: false) { await refreshOnce() }
    }

    /// Checks the VICALs in use against the store once it answers (before the server takes
    /// requests): records and copies that could not be written at start are written now, and when
    /// another instance has recorded a newer issue than the one in use, the configuration is
    /// reloaded, which fetches the URL again and refuses anything older than that record.
    public func reconcile() async {
        let services = live.current
        guard let base = services.base, base.vicalStore != nil else { return }
        let sources = base.vicalSources
        var behind: [String] = []
        for source in services.settings.vicals where VICALSources.isURL(source) {
            if let why = await sources.reconcile(source) {
                logger.error("vical: the issue of \(source) in use is not the newest recorded (\(why)); loading it again")
                behind.append(source)
            }
        }
        guard !behind.isEmpty else { return }
        do { try await live.reload(settings: services.settings, logger: logger) } catch {
            logger.error("vical: the configuration could not be loaded again: \(error)")
        }
    }

    /// Fetches the VICALs that are due; returns how many new copies verified.
    @discardableResult
    public func refreshOnce() async -> Int {
        let services = live.current
        guard let base = services.base else { return 0 }
        let now = base.clock.now()
        let sources = base.vicalSources
        var updated = 0
        for (source, anchorPath) in zip(services.settings.vicals, services.settings.vicalTrust) where VICALSources.isURL(source) {
            guard sources.isDue(source, at: now) else { continue }
            guard let anchors = try? VICALSources.anchors(path: anchorPath) else {
                logger.error("vical: cannot read --vical-trust \(anchorPath); \(source) not refreshed")
                continue
            }
            let loader = VICALLoader(anchors: anchors, allowOutdated: true, clockSkew: .seconds(services.settings.clockSkew))
            switch await sources.fetch(source, loader: loader, at: now) {
            case .success: updated += 1
            case .failure(let reason): logger.error("vical: refreshing \(source) failed (\(reason)); the previous roots stay")
            }
        }
        if updated > 0 {
            do { try await live.reload(settings: services.settings, logger: logger) } catch {
                logger.error("vical: the refreshed roots could not be applied: \(error)")
            }
        }
        return updated
    }
}
