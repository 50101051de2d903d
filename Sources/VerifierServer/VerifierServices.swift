import ApplePayVerifier
import Crypto
import Foundation
import GooglePayVerifier
import Logging
import MdocVerifier
import ReplayStorePostgres
import ReplayStoreSQLite
import ServiceLifecycle
import Synchronization
import TrustDocuments
import VerificationCore
import VerificationReceipts
import WalletEncoding
import WalletIdentity
import WebIdentity
import X509

/// What the service verifies with, built once at start-up from ``ServerSettings``: the store, the
/// identity request sessions, the Apple Pay verifier, the metrics and the clock.
public struct VerifierServices: Sendable {
    /// The settings this configuration was built from.
    public let settings: ServerSettings
    /// The replay store shared by every flow (request nonces and Apple Pay transaction identifiers),
    /// which also keeps the Idempotency-Key records of the API's submissions.
    public let store: any ReplayStore & IdempotencyStore
    /// Verify with Wallet in-app: the request sessions and the identity verifier behind them.
    public let identity: IdentityRequestSessions
    /// Nil when no Apple Pay merchant key is configured.
    public let applePay: ApplePayTokenVerifier?
    /// Apple Pay merchant validation (`POST /v1/applepay/session`); nil without a Merchant Identity certificate.
    var applePaySessions: ApplePayMerchantValidator? = nil
    /// The Merchant Identity certificate and key of merchant validation, when configured.
    public var applePayIdentity: ApplePayMerchantIdentity? { applePaySessions?.identity }
    /// Google Pay (`--googlepay-key`, `--googlepay-merchant-id`, `--googlepay-root-keys`); nil when not configured.
    public internal(set) var googlePay: GooglePayConfiguration? = nil
    /// Verify with Wallet on the Web (ISO 18013-7 Annex C).
    public let web: WebRequestSessions
    /// Recipient keys of web responses; new requests use the first.
    public let webKeys: [P256.KeyAgreement.PrivateKey]
    /// Signs web requests (reader authentication) when configured.
    public var readerAuth: ReaderAuthSigner? = nil
    /// Signs OpenID4VP request objects when configured (its own key, or the reader key).
    var requestSigning: WebRequestSigning? = nil
    /// The protocols a web request offers when its body names none: `--web-protocols`, or every
    /// protocol this deployment is configured for (Annex C; OpenID4VP signed with a signing key, unsigned otherwise).
    public var defaultWebProtocols: [WebRequestProtocol] {
        settings.webProtocols ?? WebRequestProtocol.defaults(signing: requestSigning != nil)
    }
    /// The MSO revocation checks of every identity flow (`--revocation`), and the shared list cache
    /// behind them (nil with `--revocation off`).
    public var revocation: RevocationChecker? = nil
    /// The revocation-list cache kept in the store; nil with `--revocation off`.
    public var revocationCache: SharedRevocationListCache? = nil
    /// The VICALs whose roots are trusted now (`--vical`), with their issue id and date.
    public internal(set) var vicals: [VICALStatus] = []
    /// Every configured source of IACA roots as loaded (files, pinned URLs, VICALs); Google's root
    /// keys are added by ``currentTrustSources(at:)``, since they refresh without a reload.
    public internal(set) var trustSources: [TrustSourceStatus] = []
    /// What a reload keeps (nil only for services put together by hand).
    public internal(set) var base: Base? = nil
    /// Identity and web keys no longer configured since a reload, kept until the requests issued for
    /// them have expired.
    public internal(set) var retiredKeys: [RetiredKey] = []

    /// A key removed from the configuration by a reload, still opening responses to requests issued before.
    public struct RetiredKey: Sendable {
        /// Which flow the key decrypts for.
        public enum Kind: String, Sendable { case identity, web }
        /// Whether it is an identity or a web recipient key.
        public let kind: Kind
        /// The private key, still used for decryption until ``until``.
        public let key: P256.KeyAgreement.PrivateKey
        /// The key's label in reports and logs.
        public let label: String
        /// When the last request issued for this key expires; the key is dropped after that.
        public let until: Date
    }
    /// The API's bearer token (`--api-token-file`); nil: the API takes none.
    public var apiToken: String? = nil
    /// The merchant validations in progress (``MerchantValidationSlots``).
    var merchantValidationSlots: MerchantValidationSlots { base?.merchantValidationSlots ?? MerchantValidationSlots() }
    /// Each client's share of kept receipts (``KeptReceiptShares``).
    var keptReceiptShares: KeptReceiptShares { base?.keptReceiptShares ?? KeptReceiptShares(perClient: settings.maxClientKeptReceipts) }
    /// Receipt keys rotated out that `/v1/receipts/jwks` still lists (`--receipt-previous-key`).
    public var receiptPreviousKeys: [ReceiptPublicKey] = []
    /// The identity encryption certificates (`--identity-cert`), watched for expiry.
    public var identityCertificates: [Certificate] = []
    /// Signs a receipt into every verification answer (`--receipt-key`); nil: answers carry none.
    public var receiptSigner: (any ReceiptSigner)? = nil
    /// Where the keys that signed receipts are remembered (and, with `--receipts keep`, the
    /// receipts): the store when it keeps receipts, an in-memory one with `--store memory`; nil:
    /// the JWKS lists the current key only.
    public var receiptStore: (any ReceiptStore)? { base?.receiptStore }
    /// The docTypes web requests may be created for, and where that list comes from; nil: any docType
    /// of the data identifier form (see ``ServerSettings/effectiveWebDocTypes``).
    public var webDocTypes: (docTypes: Set<String>, source: String)? { settings.effectiveWebDocTypes }
    /// The origins web requests may be made from (normalized); empty: the web endpoints answer 501 (not configured).
    public var webOrigins: Set<String> { Set(settings.webOrigins) }
    /// The Prometheus metrics served at `/metrics`.
    public let metrics: ServerMetrics
    /// The clock every verification reads the time from.
    public let clock: any VerificationClock
    /// Long-running pieces (the PostgreSQL pool) for the application's service group.
    public let backgroundServices: [any Service]
    /// Work to do once the background services run (creating tables).
    public let prepare: @Sendable () async throws -> Void
    /// Closing the embedded store on shutdown.
    public let shutdown: @Sendable () async -> Void

    /// Builds the configuration from `settings`: reads every file it names (``ServiceMaterial/read(settings:logger:)``),
    /// opens the store and loads the VICALs. Throws ``SettingsError`` (or the store's error) when anything does not
    /// load; missing keys are generated for development, with a warning.
    public static func make(settings: ServerSettings, logger: Logger, clock: any VerificationClock = SystemClock()) async throws -> VerifierServices {
        try await make(settings: settings, material: try ServiceMaterial.read(settings: settings, logger: logger), logger: logger, clock: clock)
    }

    /// Builds the configuration from values: the keys, roots and tokens in `material` (the file paths of
    /// `settings` are not read), the rest of `settings` (store, limits, policies, `--vical`). Opens the store.
    public static func make(
        settings: ServerSettings, material: ServiceMaterial, logger: Logger, clock: any VerificationClock = SystemClock()
    ) async throws -> VerifierServices {
        let base = try await makeBase(settings: settings, logger: logger, clock: clock)
        return try await configure(settings: settings, material: material, base: base, logger: logger, previous: nil)
    }

    /// What a reload keeps: the store (and its shared document cache), the metrics, the clock, the
    /// background services and the revocation-list cache.
    public struct Base: Sendable {
        let store: any ReplayStore & IdempotencyStore
        let documentCache: any DocumentCacheStore
        let background: [any Service]
        let prepare: @Sendable () async throws -> Void
        let shutdown: @Sendable () async -> Void
        let metrics: ServerMetrics
        let clock: any VerificationClock
        /// The receipt store (``VerifierServices/receiptStore``).
        var receiptStore: (any ReceiptStore)? = nil
        let revocationCache: SharedRevocationListCache
        /// Fetches revocation lists and VICALs.
        let transport: any TrustDocumentTransport
        let vicalCopies: VICALCopies
        /// The last good copy of each Google root-key URL (`--googlepay-root-keys URL`), fetched through ``transport``.
        let googlePayRootKeys: GooglePayRootKeySource
        /// The pinned roots (`--trust URL#sha256=…`) fetched by this process, kept across reloads.
        let pinnedRoots = PinnedRootSource.Copies()
        /// Whether the document cache answers yet (PostgreSQL: once `prepare` ran).
        let storeReady: StoreReadiness
        /// The merchant validations in progress (``MerchantValidationSlots``), kept across reloads.
        let merchantValidationSlots = MerchantValidationSlots()
        /// Each client's share of kept receipts today (``KeptReceiptShares``), kept across reloads.
        var keptReceiptShares = KeptReceiptShares(perClient: ServerSettings().maxClientKeptReceipts)

        /// The document cache for VICAL copies and records, or nil while it cannot answer yet (the
        /// PostgreSQL pool before the application runs): loading the VICALs at start then uses memory
        /// only, and ``VICALRefreshService/reconcile()`` checks them against the store once it answers.
        var vicalStore: (any DocumentCacheStore)? { storeReady.isReady ? documentCache : nil }
        /// The document cache, or nil while it cannot answer yet (as ``vicalStore``).
        var documentStore: (any DocumentCacheStore)? { vicalStore }
        /// Where `--vical` files and URLs are loaded from, with the copies and records shared through the store.
        var vicalSources: VICALSources { VICALSources(copies: vicalCopies, transport: transport, store: vicalStore) }
    }

    static func makeBase(settings: ServerSettings, logger: Logger, clock: any VerificationClock) async throws -> Base {
        // Store.
        let store: any ReplayStore & IdempotencyStore
        let documentCache: any DocumentCacheStore
        var background: [any Service] = []
        var prepare: @Sendable () async throws -> Void = {}
        var shutdown: @Sendable () async -> Void = {}
        // PostgreSQL answers only once its pool runs (the application's services, then `prepare`).
        let storeReady = StoreReadiness(settings.store != .postgres)
        switch settings.store {
        case .memory:
            store = InMemoryReplayStore()
            documentCache = InMemoryDocumentCache()
            logger.warning("store: in memory; nonces and transaction ids are lost on restart (tests only)")
        case .sqlite:
            let sqlite = try await SQLiteReplayStore.open(dataDirectory: settings.dataDirectory)
            store = sqlite
            documentCache = sqlite
            shutdown = { await sqlite.close() }
            logger.notice("store: embedded SQLite", metadata: ["path": "\(sqlite.path)"])
        case .postgres:
            let postgresURL = settings.postgresURL ?? ""
            let postgres = try PostgresReplayStore(url: postgresURL, purgeInterval: .seconds(300))
            store = postgres
            documentCache = postgres
            background.append(postgres)
            // At start-up the database may be slow or still starting: keep trying for a minute.
            prepare = {
                let deadline = ContinuousClock.now + .seconds(60)
                while true {
                    do {
                        try await postgres.createTables()
                        storeReady.markReady()
                        return
                    } catch {
                        // The store's error says only that it did not finish in time: the reason is looked up.
                        // A stop asked for meanwhile (SIGTERM, Ctrl-C) ends the wait instead of sitting it out.
                        try Task.checkCancellation()
                        if Task.isShuttingDownGracefully { throw CancellationError() }
                        let cause = await PostgresReachability.diagnose(url: postgresURL)
                        guard ContinuousClock.now < deadline else {
                            throw OperationalError(.unavailable, "PostgreSQL (--postgres-url) did not answer for 60 s: \(cause)")
                        }
                        logger.warning("store: PostgreSQL not ready yet: \(cause); retrying until it answers (60 s)")
                        try await Task.sleep(for: .milliseconds(500))
                    }
                }
            }
            logger.notice("store: PostgreSQL (shared by every instance)")
        }
        if settings.store != .postgres {
            let purger = ReplayStorePurger(store: store, interval: .seconds(300), clock: clock)
            background.append(PurgerService(purger: purger))
        }

        // The revocation-list cache lives in the store, across reloads; a background task refreshes it.
        let metrics = ServerMetrics()
        // One deadline over each whole fetch (connecting, headers, body): a trickling server cannot hold a verification.
        // Only public addresses, literal loopback hosts and --fetch-allow: a uri cannot reach the service's own network.
        let transport = HTTPTrustDocumentTransport(
            timeout: TimeInterval(settings.fetchTimeout), addressPolicy: FetchAddressPolicy(allowed: settings.fetchAllow))
        let cache = SharedRevocationListCache(
            store: documentCache, transport: transport, clock: clock, fetchClaim: .seconds(settings.fetchTimeout + 5),
            observe: { metrics.revocation($0) })
        background.append(RevocationRefreshService(cache: cache, metrics: metrics, clock: clock, logger: logger))
        // Receipts and their keys: in the store when it keeps them, in memory with --store memory.
        let receiptStore = (store as? any ReceiptStore) ?? (settings.store == .memory ? InMemoryReceiptStore() : nil)
        return Base(
            store: store, documentCache: documentCache, background: background, prepare: prepare, shutdown: shutdown,
            metrics: metrics, clock: clock, receiptStore: receiptStore, revocationCache: cache, transport: transport, vicalCopies: VICALCopies(),
            googlePayRootKeys: GooglePayRootKeySource(transport: transport), storeReady: storeReady,
            keptReceiptShares: KeptReceiptShares(perClient: settings.maxClientKeptReceipts))
    }

    /// Everything a reload re-reads — trust roots, revocation-list files, identity, web, reader and
    /// Apple Pay keys, read into `material` — composed on `base`. With `previous` (a reload), identity and
    /// web keys that are no longer configured keep opening responses to requests issued before, until
    /// those expire.
    static func configure(
        settings: ServerSettings, material: ServiceMaterial, base: Base, logger: Logger, previous: VerifierServices?
    ) async throws -> VerifierServices {
        let store = base.store, clock = base.clock, metrics = base.metrics
        var ring = material.identityKeys
        // After a reload, keys that were removed keep opening responses to earlier requests.
        var retired: [RetiredKey] = []
        if let previous {
            let now = clock.now()
            let newHashes = Set(ring.keys.map(\.publicKeyHash))
            for key in previous.identity.verifier.keyRing.keys where !newHashes.contains(key.publicKeyHash) {
                let hash = key.publicKeyHash
                let earlier = previous.retiredKeys.first {
                    $0.kind == .identity && Array(SHA256.hash(data: $0.key.publicKey.x963Representation)) == hash
                }
                let until = earlier?.until ?? now.addingTimeInterval(TimeInterval(previous.settings.requestLifetime))
                guard until > now else { continue }
                let label = earlier?.label ?? key.label
                ring.add(key.privateKey, label: label + " (retired until " + RFC3339.format(until) + ")")
                retired.append(RetiredKey(kind: .identity, key: key.privateKey, label: label, until: until))
                logger.notice("identity: key \(label) is no longer configured; it opens responses to earlier requests until \(RFC3339.format(until))")
            }
        }
        let merchantID = settings.merchantID ?? "merchant.dev.wallet-verifier"
        let teamID = settings.teamID ?? "DEVTEAM000"
        if !settings.identityFlow {
            logger.notice("identity: off (--identity off); /v1/identity/requests and /v1/identity/verify answer 501 (not configured)")
        } else if settings.merchantID == nil || settings.teamID == nil {
            logger.warning("identity: --merchant-id / --team-id not set; using development values \(merchantID) / \(teamID)")
        }
        var trust = material.trust
        var trustSources = ServiceTrustURLs.fileStatuses(trust, at: clock.now())
        trustSources += try await ServiceTrustURLs.load(settings: settings, into: &trust, base: base, logger: logger)
        let (vicals, vicalSources) = try await ServiceVICALs.load(settings: settings, into: &trust, base: base, logger: logger)
        trustSources += vicalSources
        if trust.anchors.isEmpty && (settings.identityFlow || !settings.webOrigins.isEmpty) {
            logger.warning("identity: no --trust IACA roots configured; every identity response will fail mdoc.issuer.chain")
        }
        // Revocation: lists from files first, then fetched and kept in the store (shared by instances).
        let revocation: RevocationChecker
        var revocationCache: SharedRevocationListCache?
        switch settings.revocation {
        case .off:
            revocation = .disabled(trustStore: trust)
            logger.warning("revocation: off (--revocation off); MSO revocation lists are not checked and every report says so")
        case .required, .bestEffort:
            var sources: [any RevocationListSource] = []
            if let offline = material.revocationLists { sources.append(offline) }
            let cache = base.revocationCache
            sources.append(cache)
            revocationCache = cache
            var policy = settings.revocation == .required ? RevocationPolicy.strict : .warnWhenUndetermined
            policy.clockSkew = .seconds(settings.clockSkew)
            revocation = RevocationChecker(source: RevocationListSources(sources), trustStore: trust, policy: policy)
            logger.notice(
                "revocation: \(settings.revocation.rawValue); \(settings.revocationLists.count) list file(s), others fetched from their uri and kept in the store"
            )
        }

        var identityPolicy = IdentityPolicy.production
        identityPolicy.mdoc.clockSkew = .seconds(settings.clockSkew)
        var verifier = AppleIdentityVerifier(
            keyRing: ring, merchantID: merchantID, teamID: teamID, trustStore: trust, policy: identityPolicy, revocation: revocation)
        verifier.explainDeviceFailures = settings.explainDeviceFailures
        var sessions = IdentityRequestSessions(
            store: store, verifier: verifier, lifetime: .seconds(settings.requestLifetime),
            otherMerchants: settings.otherMerchants.map { ($0.merchantID, $0.teamID) })
        sessions.limits = settings.requestLimits

        // Apple Pay.
        var applePay: ApplePayTokenVerifier?
        if !material.applePayKeys.isEmpty {
            var policy = ApplePayPolicy.production
            policy.maximumSigningAge = .seconds(settings.maxAge)
            applePay = try ApplePayTokenVerifier(
                keyRing: try MerchantKeyRing(material.applePayKeys), replayStore: store, policy: policy, trustAnchor: material.applePayRoot)
            if settings.applePayExpectations == .optional {
                logger.warning(
                    "applepay: expectations optional (--applepay-expectations optional); /v1/applepay/decrypt verifies tokens without expect.currency and expect.amount, and their reports carry an expectationsMissing warning"
                )
            }
        } else {
            logger.notice("applepay: no --applepay-cert/--applepay-key configured; /v1/applepay/decrypt answers 501 (not configured)")
        }

        // Web: its own recipient keys (not the in-app identity key) and its configured origins.
        var webKeys = material.webKeys
        if let previous {
            let now = clock.now()
            let configured = Set(webKeys.map { WebRecipientKey.thumbprint($0.publicKey) })
            for key in previous.webKeys where !configured.contains(WebRecipientKey.thumbprint(key.publicKey)) {
                let earlier = previous.retiredKeys.first {
                    $0.kind == .web && $0.key.publicKey.x963Representation == key.publicKey.x963Representation
                }
                let until = earlier?.until ?? now.addingTimeInterval(TimeInterval(previous.settings.requestLifetime))
                guard until > now else { continue }
                webKeys.append(key)
                let label = earlier?.label ?? "web key " + WebRecipientKey.thumbprint(key.publicKey).prefix(16)
                retired.append(RetiredKey(kind: .web, key: key, label: label, until: until))
                logger.notice("web: \(label) is no longer configured; it opens responses to earlier requests until \(RFC3339.format(until))")
            }
        }
        if settings.webOrigins.isEmpty {
            logger.notice("web: no --web-origin configured; /v1/web/requests and /v1/web/verify answer 501 (not configured)")
        }
        // The web flow's policy is the one `web verify` uses (ISO/IEC 18013-5 as written), sharing the
        // trust store and caches of the in-app verifier.
        var webPolicy = WebIdentityVerifier.productionPolicy
        webPolicy.clockSkew = .seconds(settings.clockSkew)
        var webVerifier = WebIdentityVerifier(mdocVerifier: MdocVerifier(sharing: verifier.mdocVerifier, policy: webPolicy), revocation: revocation)
        webVerifier.explainDeviceFailures = settings.explainDeviceFailures
        let web = WebRequestSessions(
            store: store, verifier: webVerifier, lifetime: .seconds(settings.requestLifetime), limits: settings.requestLimits,
            allowedDocTypes: settings.effectiveWebDocTypes?.docTypes)
        if let allowed = settings.effectiveWebDocTypes {
            logger.notice("web: requests are created for \(allowed.docTypes.sorted().joined(separator: ", ")) only (\(allowed.source))")
        }
        var services = VerifierServices(
            settings: settings, store: store, identity: sessions, applePay: applePay, web: web, webKeys: webKeys, metrics: metrics,
            clock: clock, backgroundServices: base.background, prepare: base.prepare, shutdown: base.shutdown)
        services.revocation = revocation
        services.base = base
        services.retiredKeys = retired
        services.revocationCache = revocationCache
        services.vicals = vicals
        services.trustSources = trustSources
        services.googlePay = await GooglePayConfiguration.make(settings: settings, material: material, base: base, logger: logger)
        if let signer = material.readerAuth {
            // A certificate outside the reader profile is said, not silently used: wallets may refuse it.
            for problem in signer.profileViolations(at: clock.now()) {
                logger.warning(
                    "web: the reader certificate \(signer.leaf.subject) breaks the ISO/IEC 18013-5 Annex B reader-authentication profile: \(problem)")
            }
            logger.notice(
                "web: requests are signed by \(signer.leaf.subject) (\(settings.readerAuthAll ? "readerAuthAll, DeviceRequest 1.1" : "readerAuth per DocRequest, DeviceRequest 1.0"))"
            )
            services.readerAuth = signer
        }
        services.requestSigning = try WebRequestSigning.make(
            own: material.requestSigning, reader: material.readerAuth, settings: settings, logger: logger, now: clock.now())
        if services.requestSigning == nil && settings.webProtocols?.contains(.openID4VPSigned) == true {
            throw SettingsError(
                "--web-protocols openid4vp-v1-signed needs a P-256 request-signing key (--request-signing-key and --request-signing-cert)")
        }
        logger.notice("web: requests offer \(services.defaultWebProtocols.map(\.rawValue).joined(separator: ", ")) unless they name their protocols")
        services.apiToken = material.apiToken
        services.identityCertificates = material.identityCertificates
        services.receiptPreviousKeys = material.receiptPreviousKeys
        if material.apiToken == nil && settings.allowOpenAPI {
            logger.notice("api: /v1 takes no token (--allow-open-api); the proxy or gateway in front must authenticate every caller")
        }
        services.applePaySessions = try merchantValidator(settings: settings, material: material, logger: logger)
        services.receiptSigner = material.receiptSigner
        if let signer = material.receiptSigner {
            logger.notice(
                "receipts: every verification answer carries a receipt signed with key \(signer.keyID)\(settings.receiptIssuer.map { " for \($0)" } ?? ""); /v1/receipts/jwks lists its keys"
            )
            if base.receiptStore == nil && settings.receipts == .keep {
                throw SettingsError(
                    "--receipts keep: this store keeps no receipts yet (--store \(settings.store.rawValue)); use --receipts off, or a store that keeps them"
                )
            }
            if settings.receipts == .keep {
                logger.notice("receipts: every receipt is kept for \(settings.receiptRetention) day(s) (--receipts keep)")
            }
            if !material.receiptPreviousKeys.isEmpty {
                logger.notice(
                    "receipts: /v1/receipts/jwks also lists the previous key(s) \(material.receiptPreviousKeys.map(\.keyID).joined(separator: ", ")) (--receipt-previous-key)"
                )
            }
        }
        metrics.certificateExpiries(services.certificates)
        return services
    }
}

extension VerifierServices {
    /// Merchant validation from the Merchant Identity certificate of `material` and the domain,
    /// display name, hosts and deadline of `settings`; nil without a certificate.
    static func merchantValidator(settings: ServerSettings, material: ServiceMaterial, logger: Logger) throws -> ApplePayMerchantValidator? {
        guard let identity = material.applePayIdentity else {
            logger.notice("applepay: no --applepay-identity-cert configured; /v1/applepay/session answers 501 (not configured)")
            return nil
        }
        try identity.checkTLS(trustRoots: material.applePayValidationRoots)
        guard let domain = settings.applePayDomain, let displayName = settings.applePayDisplayName else {
            throw SettingsError("--applepay-identity-cert needs --applepay-domain and --applepay-display-name")
        }
        let hosts = settings.applePayValidationHosts
        logger.notice(
            "applepay: merchant validation for \(domain) as merchant \(identity.merchantIdentifier) (\(identity.merchantKey.subjectName)); validation URLs are called only on \(hosts == nil ? "Apple's merchant-validation hosts" : "--applepay-validation-hosts " + (hosts ?? []).joined(separator: ","))"
        )
        return ApplePayMerchantValidator(
            identity: identity, domain: domain, displayName: displayName, allowedHosts: hosts, trustRoots: material.applePayValidationRoots,
            timeout: settings.fetchTimeout)
    }
}

/// Refreshes cached revocation lists before they stop being fresh (every minute, and a minute after
/// start), purges lists past their `exp`, and publishes each list's age.
struct RevocationRefreshService: Service {
    let cache: SharedRevocationListCache
    let metrics: ServerMetrics
    let clock: any VerificationClock
    let logger: Logger

    func run() async throws {
        await repeatUntilShutdown(every: .seconds(60), startImmediately: false) {
            let refreshed = await cache.refresh(margin: .seconds(120))
            if refreshed > 0 { logger.info("revocation: refreshed \(refreshed) cached list(s)") }
            if let entries = try? await cache.entries() {
                let now = clock.now()
                // The VICAL rollback records share the table; their "fetch" time is a VICAL's date.
                let lists = entries.filter { !VICALCopies.isHighestKey($0.uri) && !GooglePayRootKeySource.isCacheKey($0.uri) }
                metrics.revocationListAges(lists.map { ($0.uri, now.timeIntervalSince($0.fetchedAt)) })
            }
        }
    }
}

/// Runs the purge loop of an embedded store inside the application's service group.
struct PurgerService: Service {
    let purger: ReplayStorePurger
    func run() async throws {
        await cancelWhenGracefulShutdown { await purger.run() }
    }
}

/// Whether the store answers yet: PostgreSQL's pool works only once the application runs it.
final class StoreReadiness: Sendable {
    private let ready: Mutex<Bool>
    init(_ ready: Bool) { self.ready = Mutex(ready) }
    var isReady: Bool { ready.withLock { $0 } }
    func markReady() { ready.withLock { $0 = true } }
}
