import Foundation
import Logging
import MdocVerifier
import ServiceLifecycle
import Synchronization
import VerificationCore
import WalletEncoding
import X509

/// The last copy of each VICAL URL that verified, kept across reloads (and in the store's document
/// cache, so a restart or another instance starts from it).
public final class VICALCopies: Sendable {
    struct Copy: Sendable {
        let bytes: [UInt8]
        let fetchedAt: Date
        let nextUpdate: Date?
    }

    private let copies = Mutex<[String: Copy]>([:])

    /// Starts with no copy kept.
    public init() {}

    func copy(_ url: String) -> Copy? { copies.withLock { $0[url] } }
    func keep(_ url: String, _ copy: Copy) { copies.withLock { $0[url] = copy } }

    static func cacheKey(_ url: String) -> String { "vical " + url }
}

/// `serve --vical FILE|URL --vical-trust FILE`: each VICAL is verified as `mdoc verify --vical`
/// does (signature, signer chain to its anchor, validity); its roots are trusted for the docTypes
/// their entries list.
enum ServiceVICALs {
    static func isURL(_ source: String) -> Bool {
        let lower = source.lowercased()
        return lower.hasPrefix("https://") || lower.hasPrefix("http://")
    }

    static func anchors(_ path: String) throws -> [Certificate] {
        guard let data = FileManager.default.contents(atPath: path) else { throw SettingsError("cannot read --vical-trust \(path)") }
        do { return try IACATrustStore.certificates(in: [UInt8](data), name: path) } catch { throw SettingsError("--vical-trust \(path): \(error)") }
    }

    /// Why a VICAL did not verify: its failed checks.
    static func reasons(_ result: VICALLoadResult) -> String {
        result.checks.filter { $0.status != .passed }.map { "\($0.id): \($0.message)" }.joined(separator: "; ")
    }

    /// Adds the roots of every configured VICAL to `trust`. A file that does not verify stops the
    /// configuration from loading; a URL uses its last verified copy (memory, then the store), fetched
    /// now when there is none — a first fetch that fails is logged and that VICAL contributes nothing
    /// until the refresh gets a copy that verifies.
    static func load(settings: ServerSettings, into trust: inout IACATrustStore, base: VerifierServices.Base, logger: Logger) async throws {
        let now = base.clock.now()
        for (source, anchorPath) in zip(settings.vicals, settings.vicalTrust) {
            let loader = VICALLoader(anchors: try anchors(anchorPath), clockSkew: .seconds(settings.clockSkew))
            if !isURL(source) {
                guard let data = FileManager.default.contents(atPath: source) else { throw SettingsError("cannot read --vical \(source)") }
                let result = await loader.load(bytes: [UInt8](data), at: now)
                guard result.trusted else { throw SettingsError("--vical \(source) does not verify against \(anchorPath): \(reasons(result))") }
                result.add(to: &trust)
                logger.notice("vical: \(source): \(result.roots.count) IACA root(s) from \(result.vical?.provider ?? "?")")
                continue
            }
            var copy = base.vicalCopies.copy(source)
            if copy == nil, let stored = try? await base.documentCache.cachedDocument(VICALCopies.cacheKey(source)), stored.usableUntil > now {
                copy = VICALCopies.Copy(bytes: stored.bytes, fetchedAt: stored.fetchedAt, nextUpdate: stored.usableUntil)
            }
            if copy == nil {
                switch await fetch(source, loader: loader, base: base, at: now) {
                case .success(let fetched): copy = fetched
                case .failure(let reason):
                    logger.error("vical: \(source) could not be loaded (\(reason)); its roots are not trusted until a copy verifies")
                    continue
                }
            }
            guard let copy else { continue }
            let result = await loader.load(bytes: copy.bytes, at: now)
            guard result.trusted else {
                logger.error(
                    "vical: the copy of \(source) fetched \(RFC3339.format(copy.fetchedAt)) no longer verifies (\(reasons(result))); its roots are not trusted"
                )
                continue
            }
            base.vicalCopies.keep(source, copy)
            result.add(to: &trust)
            logger.notice(
                "vical: \(source): \(result.roots.count) IACA root(s) from \(result.vical?.provider ?? "?"), fetched \(RFC3339.format(copy.fetchedAt))"
            )
        }
    }

    /// Fetches and verifies a VICAL URL; a copy that verifies is kept (memory and store).
    static func fetch(_ url: String, loader: VICALLoader, base: VerifierServices.Base, at now: Date) async -> Result<
        VICALCopies.Copy, VICALFetchFailure
    > {
        guard let location = RevocationListCache.fetchableURL(url) else {
            return .failure(VICALFetchFailure("only https (or http to a loopback address) is fetched"))
        }
        let bytes: [UInt8]
        do { bytes = try await base.transport.fetch(location, maximumSize: 16 * 1024 * 1024) } catch {
            return .failure(VICALFetchFailure("\(error)"))
        }
        let result = await loader.load(bytes: bytes, at: now)
        guard result.trusted, let vical = result.vical else { return .failure(VICALFetchFailure("it does not verify: \(reasons(result))")) }
        let copy = VICALCopies.Copy(bytes: bytes, fetchedAt: now, nextUpdate: vical.nextUpdate)
        base.vicalCopies.keep(url, copy)
        let usable = vical.nextUpdate ?? now.addingTimeInterval(86_400)
        try? await base.documentCache.storeDocument(
            CachedDocument(
                key: VICALCopies.cacheKey(url), bytes: bytes, fetchedAt: now,
                freshUntil: min(usable, now.addingTimeInterval(86_400)), usableUntil: usable))
        return .success(copy)
    }
}

struct VICALFetchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
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
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                await refreshOnce()
            }
        }
    }

    /// Fetches the VICALs that are due; returns how many new copies verified.
    @discardableResult
    public func refreshOnce() async -> Int {
        let services = live.current
        guard let base = services.base else { return 0 }
        let now = base.clock.now()
        var updated = 0
        for (source, anchorPath) in zip(services.settings.vicals, services.settings.vicalTrust) where ServiceVICALs.isURL(source) {
            if let copy = base.vicalCopies.copy(source) {
                let daily = copy.fetchedAt.addingTimeInterval(86_400)
                let due = min(daily, copy.nextUpdate ?? daily)
                guard now >= due else { continue }
            }
            guard let anchors = try? ServiceVICALs.anchors(anchorPath) else {
                logger.error("vical: cannot read --vical-trust \(anchorPath); \(source) not refreshed")
                continue
            }
            let loader = VICALLoader(anchors: anchors, clockSkew: .seconds(services.settings.clockSkew))
            switch await ServiceVICALs.fetch(source, loader: loader, base: base, at: now) {
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
