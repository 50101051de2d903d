import Foundation
import GooglePayVerifier
import Logging
import ServiceLifecycle
import TrustDocuments
import VerificationCore
import WalletEncoding

/// Google Pay in the service (`--googlepay-key`, `--googlepay-merchant-id`, `--googlepay-root-keys`):
/// the merchant keys and id, and where Google's root signing keys come from. The verifier is built
/// for each request from the root keys in use, so a refreshed list applies at once.
public struct GooglePayConfiguration: Sendable {
    /// The merchant keys tokens are decrypted with, tried in turn.
    public let keyRing: GooglePayMerchantKeyRing
    /// Whom tokens must be signed for: `merchant:<--googlepay-merchant-id>`.
    public let recipient: GooglePayRecipient
    /// `--googlepay-root-keys` as given: a file or a URL.
    public let rootKeysSource: String
    /// The list read from a file (or given by an embedder); nil for a URL.
    let fixedRootKeys: GooglePayRootKeys?
    /// The fetched copies of URLs, shared across reloads (the library's source; the service fetches nothing itself).
    let copies: GooglePayRootKeySource
    /// Where message identifiers are recorded.
    let replayStore: any ReplayStore
    /// How far past its max-age the list may be before it is stale (`--trust-stale-after`).
    var staleAfter: TimeInterval = 7 * 86_400
    /// What a stale list means (`--trust-stale`): with `fail`, its keys stop verifying tokens.
    var stalePolicy: TrustSourceStatus.StalePolicy = .warn

    /// The root keys in use now: the file's, or the last good copy fetched from the URL; nil while
    /// no copy of the URL could be loaded.
    public var rootKeys: GooglePayRootKeys? { fixedRootKeys ?? copies.copy(rootKeysSource)?.keys }

    /// When the list in use was fetched (nil for a file).
    public var rootKeysFetchedAt: Date? { fixedRootKeys == nil ? copies.copy(rootKeysSource)?.fetchedAt : nil }

    /// A verifier with the root keys in use; nil while none could be loaded, or (`--trust-stale
    /// fail`) while the list in use is stale at `now`.
    public func verifier(at now: Date = Date()) -> GooglePayTokenVerifier? {
        guard let rootKeys else { return nil }
        if stalePolicy == .fail, fixedRootKeys == nil, sourceStatus(at: now).problem != nil { return nil }
        return GooglePayTokenVerifier(rootKeys: rootKeys, keyRing: keyRing, recipient: recipient, replayStore: replayStore)
    }
}

extension GooglePayConfiguration {
    /// The Google Pay configuration of `settings` and `material`; nil (logged) when Google Pay is
    /// not configured. A URL's list comes from ``GooglePayRootKeyCopies/load(_:transport:store:now:logger:)``.
    static func make(settings: ServerSettings, material: ServiceMaterial, base: VerifierServices.Base, logger: Logger) async
        -> GooglePayConfiguration?
    {
        guard !material.googlePayKeys.isEmpty, let merchantID = settings.googlePayMerchantID,
            let source = settings.googlePayRootKeys ?? (material.googlePayRootKeys != nil ? "(in memory)" : nil)
        else {
            logger.notice(
                "googlepay: no --googlepay-key/--googlepay-merchant-id/--googlepay-root-keys configured; /v1/googlepay/decrypt answers 501 (not configured)"
            )
            return nil
        }
        let configuration = GooglePayConfiguration(
            keyRing: GooglePayMerchantKeyRing(material.googlePayKeys), recipient: .merchant(merchantID), rootKeysSource: source,
            fixedRootKeys: material.googlePayRootKeys, copies: base.googlePayRootKeys, replayStore: base.store,
            staleAfter: settings.trustStaleAfter, stalePolicy: settings.trustStale)
        if material.googlePayRootKeys == nil {
            _ = await base.googlePayRootKeys.load(source, store: base.documentStore, now: base.clock.now(), log: logger.log)
        }
        logger.notice(
            "googlepay: tokens for merchant:\(merchantID), \(material.googlePayKeys.count) merchant key(s), root keys from \(source)")
        return configuration
    }
}

/// Refreshes Google's root keys from `--googlepay-root-keys URL` as their Cache-Control says:
/// checks every minute (and once the store answers), fetches a list that is no longer fresh, and
/// keeps the previous one when the fetch fails or the list does not parse.
public struct GooglePayRootKeysRefreshService: Service {
    let live: LiveServices
    let logger: Logger
    var interval: Duration = .seconds(60)

    /// Creates the service refreshing the root keys of `live`'s current settings.
    public init(live: LiveServices, logger: Logger) {
        self.live = live
        self.logger = logger
    }

    /// Refreshes once, then every minute, until graceful shutdown.
    public func run() async throws {
        await repeatUntilShutdown(every: interval, startImmediately: true) { await refreshOnce() }
    }

    /// Refreshes the URL's list when it is due; returns whether a new list is in use.
    @discardableResult
    public func refreshOnce() async -> Bool {
        let services = live.current
        guard let base = services.base, let configuration = services.googlePay, configuration.fixedRootKeys == nil,
            TrustDocumentFetchFailure.isURL(configuration.rootKeysSource)
        else { return false }
        return await base.googlePayRootKeys.refresh(configuration.rootKeysSource, store: base.documentStore, now: base.clock.now(), log: logger.log)
    }
}
