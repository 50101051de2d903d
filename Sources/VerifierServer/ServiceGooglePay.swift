import Foundation
import GooglePayVerifier
import Logging
import MdocRevocationHTTP
import MdocVerifier
import ServiceLifecycle
import Synchronization
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
    /// The fetched copies of URLs, shared across reloads.
    let copies: GooglePayRootKeyCopies
    /// Where message identifiers are recorded.
    let replayStore: any ReplayStore

    /// The root keys in use now: the file's, or the last good copy fetched from the URL; nil while
    /// no copy of the URL could be loaded.
    public var rootKeys: GooglePayRootKeys? { fixedRootKeys ?? copies.copy(rootKeysSource)?.keys }

    /// When the list in use was fetched (nil for a file).
    public var rootKeysFetchedAt: Date? { fixedRootKeys == nil ? copies.copy(rootKeysSource)?.fetchedAt : nil }

    /// A verifier with the root keys in use; nil while none could be loaded.
    public func verifier() -> GooglePayTokenVerifier? {
        guard let rootKeys else { return nil }
        return GooglePayTokenVerifier(rootKeys: rootKeys, keyRing: keyRing, recipient: recipient, replayStore: replayStore)
    }
}

/// The last good copy of each Google root-key URL, in memory across reloads and in the store's
/// document cache (key `googlepay-root-keys <url>`) for every instance that shares it. A copy is
/// fresh for the response's `Cache-Control: max-age`, bounded to 5 minutes – 24 hours (1 hour
/// without one); a fetch that fails, or a list that does not parse, never replaces it.
final class GooglePayRootKeyCopies: Sendable {
    /// One fetched list that parsed.
    struct Copy: Sendable {
        let keys: GooglePayRootKeys
        let bytes: [UInt8]
        let fetchedAt: Date
        let freshUntil: Date
    }

    /// Why a fetch gave no usable list; never key material.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let copies = Mutex<[String: Copy]>([:])

    /// The shortest and the longest a fetched list is used before it is fetched again, and the
    /// time used when the response does not say.
    static let minimumAge: TimeInterval = 300
    static let maximumAge: TimeInterval = 86_400
    static let defaultAge: TimeInterval = 3_600
    /// How long the store keeps a copy for a start while Google cannot be reached.
    static let storedFor: TimeInterval = 30 * 86_400

    /// Whether `--googlepay-root-keys` names a URL (http or https) rather than a file.
    static func isURL(_ source: String) -> Bool { VICALSources.isURL(source) }

    /// The document-cache key of a URL's copy.
    static func cacheKey(_ url: String) -> String { "googlepay-root-keys " + url }

    /// Whether a document-cache key is a root-key copy (not a revocation list).
    static func isCacheKey(_ key: String) -> Bool { key.hasPrefix("googlepay-root-keys ") }

    func copy(_ url: String) -> Copy? { copies.withLock { $0[url] } }

    func keep(_ url: String, _ copy: Copy) { copies.withLock { $0[url] = copy } }

    /// A copy kept in the store that parses, whatever its age.
    func stored(_ url: String, store: (any DocumentCacheStore)?) async -> (document: CachedDocument, keys: GooglePayRootKeys)? {
        guard let document = try? await store?.cachedDocument(Self.cacheKey(url)), let keys = try? GooglePayRootKeys.parse(document.bytes) else {
            return nil
        }
        return (document, keys)
    }

    /// The list of `url` for a configuration being built: the copy in memory; else the store's while
    /// fresh; else a fetch; when that fails, the store's copy whatever its age. Nil (logged) when
    /// there is none: the route answers 503 until a refresh loads one.
    func load(_ url: String, transport: any RevocationListTransport, store: (any DocumentCacheStore)?, now: Date, logger: Logger) async -> Copy? {
        if let copy = copy(url) { return copy }
        let stored = await stored(url, store: store)
        if let stored, stored.document.freshUntil > now {
            let copy = Copy(
                keys: stored.keys, bytes: stored.document.bytes, fetchedAt: stored.document.fetchedAt, freshUntil: stored.document.freshUntil)
            keep(url, copy)
            logger.notice("googlepay: root keys of \(url) from the store (fetched \(RFC3339.format(copy.fetchedAt))): \(Self.summary(copy.keys))")
            return copy
        }
        switch await fetch(url, transport: transport, store: store, now: now) {
        case .success(let copy):
            logger.notice("googlepay: root keys fetched from \(url): \(Self.summary(copy.keys)); fresh until \(RFC3339.format(copy.freshUntil))")
            return copy
        case .failure(let failure):
            if let stored {
                let copy = Copy(keys: stored.keys, bytes: stored.document.bytes, fetchedAt: stored.document.fetchedAt, freshUntil: now)
                keep(url, copy)
                logger.error(
                    "googlepay: root keys could not be fetched from \(url) (\(failure)); using the copy fetched \(RFC3339.format(copy.fetchedAt)) kept in the store"
                )
                return copy
            }
            logger.error(
                "googlepay: root keys could not be loaded from \(url) (\(failure)); /v1/googlepay/decrypt answers 503 until a fetch succeeds")
            return nil
        }
    }

    /// Fetches `url` (https, or http to a loopback address; the service's deadline and address
    /// policy); a list that parses is kept in memory and in the store, anything else is a failure
    /// that changes nothing.
    func fetch(_ url: String, transport: any RevocationListTransport, store: (any DocumentCacheStore)?, now: Date) async -> Result<Copy, Failure> {
        guard let location = RevocationListCache.fetchableURL(url) else {
            return .failure(Failure(description: "only https (or http to a loopback address) is fetched"))
        }
        let body: [UInt8]
        var maxAge: Int?
        do {
            if let http = transport as? HTTPRevocationTransport {
                let document = try await http.fetchDocument(location, maximumSize: GooglePayRootKeys.maximumSize, accept: "application/json")
                body = document.body
                maxAge = document.maxAge
            } else {
                body = try await transport.fetch(location, maximumSize: GooglePayRootKeys.maximumSize)
            }
        } catch let failure as RevocationFailure {
            // The transport speaks of revocation lists; what failed is said for a key list.
            return .failure(
                Failure(description: "\(failure.reason.rawValue): \(failure.message.replacingOccurrences(of: "revocation list", with: "key list"))"))
        } catch {
            return .failure(Failure(description: "\(error)"))
        }
        let keys: GooglePayRootKeys
        do { keys = try GooglePayRootKeys.parse(body) } catch { return .failure(Failure(description: "the list does not parse: \(error.message)")) }
        let age = maxAge.map { min(max(TimeInterval($0), Self.minimumAge), Self.maximumAge) } ?? Self.defaultAge
        let copy = Copy(keys: keys, bytes: body, fetchedAt: now, freshUntil: now.addingTimeInterval(age))
        keep(url, copy)
        try? await store?.storeDocument(
            CachedDocument(
                key: Self.cacheKey(url), bytes: body, fetchedAt: now, freshUntil: copy.freshUntil,
                usableUntil: now.addingTimeInterval(max(Self.storedFor, age))))
        return .success(copy)
    }

    /// Refreshes `url` when its copy is no longer fresh: a fresher copy another instance stored is
    /// taken, otherwise the list is fetched; without any copy (the first fetch failed before the
    /// store answered), the store's copy is used when the fetch fails again. A copy the store does
    /// not have yet is written to it. Returns whether a new list is in use; a failure is logged and
    /// the previous list stays.
    @discardableResult
    func refresh(_ url: String, transport: any RevocationListTransport, store: (any DocumentCacheStore)?, now: Date, logger: Logger) async -> Bool {
        let current = copy(url)
        let stored = await stored(url, store: store)
        if let current, let store, current.fetchedAt > (stored?.document.fetchedAt ?? .distantPast) {
            try? await store.storeDocument(
                CachedDocument(
                    key: Self.cacheKey(url), bytes: current.bytes, fetchedAt: current.fetchedAt, freshUntil: current.freshUntil,
                    usableUntil: current.fetchedAt.addingTimeInterval(Self.storedFor)))
        }
        if let current, current.freshUntil > now { return false }
        if let stored, stored.document.freshUntil > now, stored.document.fetchedAt > (current?.fetchedAt ?? .distantPast) {
            keep(
                url,
                Copy(keys: stored.keys, bytes: stored.document.bytes, fetchedAt: stored.document.fetchedAt, freshUntil: stored.document.freshUntil))
            logger.notice("googlepay: root keys of \(url) taken from the store (fetched \(RFC3339.format(stored.document.fetchedAt)))")
            return true
        }
        switch await fetch(url, transport: transport, store: store, now: now) {
        case .success(let copy):
            logger.notice("googlepay: root keys refreshed from \(url): \(Self.summary(copy.keys)); fresh until \(RFC3339.format(copy.freshUntil))")
            return true
        case .failure(let failure):
            // Shutting down: the fetch was cancelled, nothing failed.
            if Task.isCancelled { return false }
            if current == nil, let stored {
                keep(url, Copy(keys: stored.keys, bytes: stored.document.bytes, fetchedAt: stored.document.fetchedAt, freshUntil: now))
                logger.error(
                    "googlepay: root keys could not be fetched from \(url) (\(failure)); using the copy fetched \(RFC3339.format(stored.document.fetchedAt)) kept in the store"
                )
                return true
            }
            logger.error("googlepay: refreshing the root keys from \(url) failed (\(failure)); the previous list stays")
            return false
        }
    }

    /// The number of keys and their versions: public facts only.
    static func summary(_ keys: GooglePayRootKeys) -> String {
        "\(keys.keys.count) key(s) (\(keys.keys.map(\.protocolVersion).joined(separator: ", ")))"
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
            fixedRootKeys: material.googlePayRootKeys, copies: base.googlePayRootKeys, replayStore: base.store)
        if material.googlePayRootKeys == nil {
            _ = await base.googlePayRootKeys.load(
                source, transport: base.transport, store: base.documentStore, now: base.clock.now(), logger: logger)
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
            GooglePayRootKeyCopies.isURL(configuration.rootKeysSource)
        else { return false }
        return await base.googlePayRootKeys.refresh(
            configuration.rootKeysSource, transport: base.transport, store: base.documentStore, now: base.clock.now(), logger: logger)
    }
}
