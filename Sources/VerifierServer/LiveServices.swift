import ApplePayVerifier
import Foundation
import GooglePayVerifier
import Logging
import MdocVerifier
import ServiceLifecycle
import Synchronization
import UnixSignals
import VerificationCore
import VerificationReceipts
import WalletIdentity

/// The configuration the service answers with, replaceable while it runs (`SIGHUP`). Every request
/// takes the configuration current when it starts and finishes with it; a reload builds the whole new
/// configuration first and swaps it in only when every file loaded.
public final class LiveServices: Sendable {
    private let state: Mutex<VerifierServices>
    private let reloads = Mutex<Int>(0)
    /// Reloads run one after the other (SIGHUP, a VICAL refresh, retired keys expiring): each builds
    /// on the configuration the previous one left.
    private let tail = Mutex<Task<Void, Never>?>(nil)

    /// Starts with `services` as the current configuration.
    public init(_ services: VerifierServices) {
        state = Mutex(services)
    }

    /// The configuration for a request starting now.
    public var current: VerifierServices { state.withLock { $0 } }

    /// How many reloads took effect.
    public var reloadCount: Int { reloads.withLock { $0 } }

    /// Settings a running process cannot change: its listeners and its store.
    static func restartOnly(_ old: ServerSettings, _ new: ServerSettings) -> [String] {
        var changed: [String] = []
        if old.host != new.host || old.port != new.port { changed.append("host/port") }
        if old.store != new.store || old.postgresURL != new.postgresURL || old.dataDirectory != new.dataDirectory { changed.append("store") }
        if old.uiListen != new.uiListen || old.uiTokenFile != new.uiTokenFile { changed.append("web page listener") }
        if old.apiTokenFile != new.apiTokenFile { changed.append("API token file") }
        if old.headerTimeout != new.headerTimeout || old.idleTimeout != new.idleTimeout || old.maxClientConnections != new.maxClientConnections {
            changed.append("connection limits")
        }
        if old.requestRate != new.requestRate || old.maxOutstandingRequests != new.maxOutstandingRequests
            || old.maxConcurrentVerifications != new.maxConcurrentVerifications || old.idempotencyWindow != new.idempotencyWindow
            || old.verifyRate != new.verifyRate || old.maxClientVerifications != new.maxClientVerifications
            || old.maxClientOutstandingRequests != new.maxClientOutstandingRequests || old.bodyTimeout != new.bodyTimeout
        {
            changed.append("admission limits")
        }
        if old.fetchTimeout != new.fetchTimeout { changed.append("fetch timeout") }
        if old.fetchAllow != new.fetchAllow { changed.append("fetch allow list") }
        return changed
    }

    /// Re-reads trust roots, revocation-list files and every key from `settings` onto the running
    /// store. Throws, and keeps the current configuration, when anything does not load; the error says
    /// which file and why.
    public func reload(settings: ServerSettings, logger: Logger) async throws {
        let task: Task<Result<Void, any Error>, Never> = tail.withLock { tail in
            let before = tail
            let next = Task<Result<Void, any Error>, Never> {
                _ = await before?.value
                do { return .success(try await self.reloadNow(settings: settings, logger: logger)) } catch { return .failure(error) }
            }
            tail = Task { _ = await next.value }
            return next
        }
        try await task.value.get()
    }

    private func reloadNow(settings: ServerSettings, logger: Logger) async throws {
        let previous = current
        guard let base = previous.base else {
            throw SettingsError("this configuration was not built by VerifierServices.make and cannot be reloaded")
        }
        var settings = settings
        let ignored = Self.restartOnly(previous.settings, settings)
        if !ignored.isEmpty {
            logger.warning("reload: \(ignored.joined(separator: ", ")) changed; that takes a restart, the running values stay")
            settings.host = previous.settings.host
            settings.port = previous.settings.port
            settings.store = previous.settings.store
            settings.postgresURL = previous.settings.postgresURL
            settings.dataDirectory = previous.settings.dataDirectory
            settings.uiListen = previous.settings.uiListen
            settings.uiTokenFile = previous.settings.uiTokenFile
            settings.apiTokenFile = previous.settings.apiTokenFile
            settings.requestRate = previous.settings.requestRate
            settings.maxOutstandingRequests = previous.settings.maxOutstandingRequests
            settings.maxConcurrentVerifications = previous.settings.maxConcurrentVerifications
            settings.idempotencyWindow = previous.settings.idempotencyWindow
            settings.verifyRate = previous.settings.verifyRate
            settings.maxClientVerifications = previous.settings.maxClientVerifications
            settings.maxClientOutstandingRequests = previous.settings.maxClientOutstandingRequests
            settings.bodyTimeout = previous.settings.bodyTimeout
            settings.headerTimeout = previous.settings.headerTimeout
            settings.idleTimeout = previous.settings.idleTimeout
            settings.maxClientConnections = previous.settings.maxClientConnections
            settings.fetchTimeout = previous.settings.fetchTimeout
            settings.fetchAllow = previous.settings.fetchAllow
        }
        var next = try await VerifierServices.configure(
            settings: settings, material: try ServiceMaterial.read(settings: settings, logger: logger), base: base, logger: logger,
            previous: previous)
        next.apiToken = previous.apiToken
        let rotated = previous.receiptSigner.map(\.keyID) != next.receiptSigner.map(\.keyID)
        state.withLock { $0 = next }
        reloads.withLock { $0 += 1 }
        if rotated, let signer = next.receiptSigner {
            let kept = previous.receiptSigner.map { old in next.receiptPreviousKeyIDs.contains(old.keyID) } ?? true
            logger.notice(
                "reload: receipts are now signed with key \(signer.keyID)\(kept ? "" : "; the previous key \(previous.receiptSigner?.keyID ?? "") is no longer in /v1/receipts/jwks (name it with --receipt-previous-key to keep its receipts verifiable)")"
            )
        }
    }

    /// Drops retired keys whose requests have all expired (a reload with the settings in use).
    func pruneRetiredKeys(logger: Logger) async {
        let services = current
        let now = services.clock.now()
        guard services.retiredKeys.contains(where: { $0.until <= now }) else { return }
        do {
            try await reload(settings: services.settings, logger: logger)
        } catch {
            logger.warning("reload: retired keys could not be dropped: \(error)")
        }
    }
}

/// `SIGHUP` reloads the configuration: `settings()` is asked again (flags, environment and the
/// config file re-read) and every file re-loaded. A failure is logged with its reason and the
/// running configuration stays. Every 30 s it also drops retired keys whose requests have expired.
public struct ReloadOnSignalService: Service {
    let live: LiveServices
    let settings: @Sendable () throws -> ServerSettings
    let logger: Logger

    /// Creates the service; `settings` is called on every SIGHUP to read the settings again.
    public init(live: LiveServices, logger: Logger, settings: @escaping @Sendable () throws -> ServerSettings) {
        self.live = live
        self.settings = settings
        self.logger = logger
    }

    /// Reloads on each SIGHUP and prunes expired retired keys every 30 seconds until graceful shutdown.
    public func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in signals {
                    await reloadOnce()
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(30))
                    await live.pruneRetiredKeys(logger: logger)
                }
            }
            try await gracefulShutdown()
            group.cancelAll()
        }
    }

    func reloadOnce() async {
        logger.notice("reload: SIGHUP received; re-reading the configuration")
        do {
            try await live.reload(settings: try settings(), logger: logger)
            let services = live.current
            logger.notice(
                "reload: done; \(services.identity.verifier.mdocVerifier.trustStore.anchors.count) IACA root(s), \(services.identity.verifier.keyRing.keys.count) identity key(s), \(services.webKeys.count) web key(s), \(services.applePay?.keyRing.keys.count ?? 0) Apple Pay key(s), \(services.googlePay?.keyRing.keys.count ?? 0) Google Pay key(s)"
            )
        } catch {
            logger.error("reload: the new configuration was not loaded, the running one stays: \(error)")
        }
    }
}
