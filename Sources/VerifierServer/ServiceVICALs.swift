import Foundation
import Logging
import MdocVerifier
import ServiceLifecycle
import VerificationCore
import WalletEncoding
import X509

/// `serve --vical FILE|URL --vical-trust FILE`: each VICAL is verified as `mdoc verify --vical`
/// does (signature, signer chain to its anchor, validity); its roots are trusted for the docTypes
/// their entries list. Loading, copies and the rollback rule are the library's ``VICALSources``.
enum ServiceVICALs {
    /// Adds the roots of every configured VICAL to `trust`, and returns what each VICAL in use is. A
    /// file that does not verify stops the configuration from loading; a URL uses its last verified
    /// copy, or a fresh fetch (``VICALSources/load(url:loader:at:log:)``) — a first fetch that fails
    /// is logged and that VICAL contributes nothing until the refresh gets a copy that verifies.
    @discardableResult
    static func load(settings: ServerSettings, into trust: inout IACATrustStore, base: VerifierServices.Base, logger: Logger) async throws
        -> [VICALStatus]
    {
        let now = base.clock.now()
        let sources = base.vicalSources
        var statuses: [VICALStatus] = []
        for (source, anchorPath) in zip(settings.vicals, settings.vicalTrust) {
            let anchors: [Certificate]
            do { anchors = try VICALSources.anchors(path: anchorPath) } catch { throw SettingsError(error.description) }
            let loader = VICALLoader(anchors: anchors, clockSkew: .seconds(settings.clockSkew))
            if !VICALSources.isURL(source) {
                let bytes: [UInt8]
                do { bytes = try await sources.bytes(of: source) } catch { throw SettingsError(error.description) }
                let result = await loader.load(bytes: bytes, at: now)
                guard result.trusted else {
                    throw SettingsError("--vical \(source) does not verify against \(anchorPath): \(VICALSources.reasons(result))")
                }
                result.add(to: &trust)
                if let vical = result.vical { statuses.append(VICALStatus(source: source, vical: vical, fetchedAt: nil)) }
                logger.notice("vical: \(source): \(result.roots.count) IACA root(s) from \(result.vical?.provider ?? "?")")
                continue
            }
            guard let loaded = await sources.load(url: source, loader: loader, at: now, log: logger.log) else { continue }
            loaded.result.add(to: &trust)
            statuses.append(loaded.status)
        }
        return statuses
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
            let loader = VICALLoader(anchors: anchors, clockSkew: .seconds(services.settings.clockSkew))
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
