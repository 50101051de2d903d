import Foundation
import GooglePayVerifier
import Logging
import MdocVerifier
import ServiceLifecycle
import Synchronization
import TrustDocuments
import VerificationCore
import WalletIdentity

extension VerifierServices {
    /// Every configured trust source as it stands at `now`: the IACA root sources as loaded, and
    /// Google's root keys as refreshed (``GooglePayConfiguration/sourceStatus(at:)``).
    public func currentTrustSources(at now: Date) -> [TrustSourceStatus] {
        var sources = trustSources
        if let googlePay { sources.append(googlePay.sourceStatus(at: now)) }
        return sources
    }

    /// Why each source that needs attention does at `now`: not loaded, or stale beyond
    /// `--trust-stale-after`. Empty when every source is current.
    public func trustSourceProblems(at now: Date) -> [String] {
        currentTrustSources(at: now).compactMap { source in
            if let problem = source.problem { return "\(source.label): \(problem)" }
            return source.staleness(at: now, margin: settings.trustStaleAfter).map { "stale: \($0)" }
        }
    }
}

extension GooglePayConfiguration {
    /// The root-key list as a trust source: its keys, when it was fetched, until when it is fresh
    /// (its max-age), and why there is none in use when there is none.
    public func sourceStatus(at now: Date) -> TrustSourceStatus {
        if let fixed = fixedRootKeys {
            return TrustSourceStatus(kind: .googlePayKeys, location: rootKeysSource, roots: fixed.usableForECv2(at: now).count)
        }
        guard let copy = copies.copy(rootKeysSource) else {
            return TrustSourceStatus(
                kind: .googlePayKeys, location: rootKeysSource, roots: 0,
                problem: "no copy of \(rootKeysSource) could be loaded; /v1/googlepay/decrypt answers 503 until a fetch succeeds")
        }
        var status = TrustSourceStatus(
            kind: .googlePayKeys, location: rootKeysSource, roots: copy.keys.usableForECv2(at: now).count, lastSuccess: copy.fetchedAt,
            nextUpdate: copy.freshUntil)
        if stalePolicy == .fail, let stale = status.staleness(at: now, margin: staleAfter) {
            status.roots = 0
            status.problem = "stale: \(stale); its keys are not used (--trust-stale fail)"
        }
        return status
    }
}

/// Keeps trust current, or loud: every ten minutes, each source that is stale (past its next update by
/// more than `--trust-stale-after`) or not loaded is logged, once a day per source; with `--trust-stale
/// fail`, a VICAL whose roots are in use and has gone stale makes the configuration load again, so
/// its roots stop anchoring (``ServiceVICALs/load(settings:into:base:logger:)``).
public final class TrustSourceMonitor: Service {
    let live: LiveServices
    let logger: Logger
    let interval: Duration
    /// When each problem was last logged, so each is logged daily rather than at every check.
    private let lastLogged = Mutex<[String: Date]>([:])

    /// Creates the monitor of `live`'s current sources, checking every `interval` (ten minutes).
    public init(live: LiveServices, logger: Logger, interval: Duration = .seconds(600)) {
        self.live = live
        self.logger = logger
        self.interval = interval
    }

    /// Checks now and then every ten minutes, until graceful shutdown.
    public func run() async throws {
        await repeatUntilShutdown(every: interval, startImmediately: true) { await self.checkOnce() }
    }

    /// Logs the sources that need attention (each at most once a day); returns their problems. With
    /// `--trust-stale fail`, reloads when a VICAL in use has gone stale.
    @discardableResult
    public func checkOnce() async -> [String] {
        let services = live.current
        let now = services.clock.now()
        let sources = services.currentTrustSources(at: now)
        var problems: [String] = []
        var reload = false
        for source in sources {
            let stale = source.staleness(at: now, margin: services.settings.trustStaleAfter)
            guard let problem = source.problem ?? stale else { continue }
            problems.append(problem)
            if stale != nil, services.settings.trustStale == .fail, source.kind == .vical, source.roots > 0 { reload = true }
            let due = lastLogged.withLock { logged -> Bool in
                if let last = logged[source.label], now.timeIntervalSince(last) < 86_400 { return false }
                logged[source.label] = now
                return true
            }
            guard due else { continue }
            if let stale, source.problem == nil {
                let consequence =
                    services.settings.trustStale == .fail
                    ? "its roots stop anchoring (--trust-stale fail)" : "its roots are still used (--trust-stale warn); fetch a current copy"
                logger.error("trust: \(stale); \(consequence)")
            } else {
                logger.error("trust: \(source.label): \(problem)")
            }
        }
        if reload {
            do { try await live.reload(settings: services.settings, logger: logger) } catch {
                logger.error("trust: the configuration could not be loaded again without the stale roots: \(error)")
            }
        }
        return problems
    }

    /// Once a PostgreSQL store answers: pinned roots fetched at start are kept in it, and a pinned
    /// root or a VICAL that could not be fetched is looked for in it (another instance may have kept
    /// it) — by loading the configuration again. Nothing to do for the other stores, which answer at start.
    public func afterStoreReady() async {
        let services = live.current
        guard services.settings.store == .postgres, services.trustSources.contains(where: { $0.kind == .url || $0.problem != nil }) else {
            return
        }
        do { try await live.reload(settings: services.settings, logger: logger) } catch {
            logger.error("trust: the pinned roots could not be loaded again once the store answered: \(error)")
        }
    }
}

extension VerifierServices {
    /// The IACA roots every identity flow of this configuration trusts, with their provenance.
    public var trustStore: IACATrustStore { identity.verifier.mdocVerifier.trustStore }

    /// `{"roots": […], "sources": […]}` as `GET /v1/trust` shows them (`trust list --format json`).
    public func trustListJSON(at now: Date) -> String {
        let object: [String: Any] = [
            "roots": trustStore.anchors.map(TrustView.rootJSON),
            "sources": currentTrustSources(at: now).map { TrustView.sourceJSON($0, now: now, settings: settings) },
        ]
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
