import ApplePayVerifier
import Foundation
import MdocVerifier
import TrustDocuments
import VerificationCore
import WebIdentity

/// Everything `wallet-verifier serve` can be told. Each setting comes, in this order of precedence,
/// from a command-line flag, the environment (`WALLET_VERIFIER_*`), a JSON config file
/// (`--config FILE`), or the default.
public struct ServerSettings: Sendable, Hashable {
    /// A host and port to listen on, as parsed from `--ui-listen [ADDR:]PORT`.
    public struct ListenAddress: Sendable, Hashable {
        /// The address to bind, without IPv6 brackets.
        public var host: String
        /// The TCP port, 0 to 65535.
        public var port: Int
    }

    /// Where nonces, transaction identifiers and cached documents are kept (`--store`).
    /// `memory` loses them on restart and is for tests only; `postgres` is shared by every instance.
    public enum StoreKind: String, Sendable, Hashable, CaseIterable {
        case sqlite, postgres, memory
    }

    /// What an MSO revocation list that cannot be obtained or trusted means (`--revocation`).
    public enum RevocationMode: String, Sendable, Hashable, CaseIterable {
        /// `mdoc.revocation.list` is an error: verdict indeterminate, HTTP 503 with Retry-After.
        case required
        /// A warning; the verdict is decided by the other checks.
        case bestEffort = "best-effort"
        /// Not checked: both checks skipped with reason `disabled`.
        case off
    }

    /// Whether `POST /v1/applepay/decrypt` needs `expect.currency` and `expect.amount` (`--applepay-expectations`).
    public enum ApplePayExpectationsMode: String, Sendable, Hashable, CaseIterable {
        /// A request without them is a 400 (seed 004, step 6: the currency and the amount are checked).
        case required
        /// A request without them is verified, and its report carries an `expectationsMissing` warning.
        case optional
    }

    /// The address the API listens on (`--host`); loopback by default.
    public var host = "127.0.0.1"
    /// The TCP port the API listens on (`--port`).
    public var port = 8080
    /// The directory of the embedded SQLite store and of the generated development keys (`dataDir`).
    public var dataDirectory = "data"
    /// The store backend (`--store`); SQLite by default.
    public var store: StoreKind = .sqlite
    /// The PostgreSQL connection URL; required when ``store`` is `postgres`.
    public var postgresURL: String?
    /// PEM P-256 private keys of the identity encryption certificate (several during rotation).
    public var identityKeys: [String] = []
    /// The identity encryption certificates (`--identity-cert`, PEM or DER), each checked to pair
    /// with one of ``identityKeys``; watched for expiry like the service's other certificates.
    public var identityCertificates: [String] = []
    /// Whether the in-app identity flow is served (`--identity on|off`, default on); off:
    /// `/v1/identity/requests` and `/v1/identity/verify` answer 501 (not configured) and
    /// `serve --check` asks for none of its keys.
    public var identityFlow = true
    /// Whether the API may listen beyond loopback (and keep receipts) without `--api-token-file`,
    /// because the operator authenticates callers in front of it (`--allow-open-api`).
    public var allowOpenAPI = false

    /// How the service writes its log (`--log-format`).
    public enum LogFormat: String, Sendable, Hashable, CaseIterable {
        /// One readable line per event (the default).
        case text
        /// One JSON object per line: `time`, `level`, `message`, `requestId` and the event's fields.
        case json
    }
    /// How the service writes its log (`--log-format text|json`).
    public var logFormat: LogFormat = .text
    /// The default merchant identifier of identity requests; nil: a development value is used, with a warning.
    public var merchantID: String?
    /// The team identifier paired with ``merchantID``; nil: a development value is used, with a warning.
    public var teamID: String?
    /// Further (merchant identifier, team identifier) pairs for identity requests, after the first.
    public var otherMerchants: [MerchantPair] = []

    /// A merchant identifier with the team identifier of the app that uses it.
    public struct MerchantPair: Sendable, Hashable {
        /// The merchant identifier the app puts in its identity request.
        public var merchantID: String
        /// The app's team identifier.
        public var teamID: String
    }
    /// IACA roots: PEM/DER files or directories.
    public var trust: [String] = []
    /// `DOCTYPE[|DOCTYPE...]=PATH` entries: roots trusted only for those docTypes.
    public var trustDocTypes: [String] = []
    /// The origins web requests may be made from (normalized, see ``WebOrigin``); none disables the
    /// web endpoints (503).
    public var webOrigins: [String] = []
    /// Recipient keys of web responses (PEM or JWK), the first used for new requests.
    public var webKeys: [String] = []
    /// Where the operators' web page listens (`--ui-listen [ADDR:]PORT`, loopback by default); nil:
    /// the page is off.
    public var uiListen: ListenAddress?
    /// The page token's file; nil: a token is generated at start and logged once.
    public var uiTokenFile: String?
    /// Reader authentication of web requests: the signing key and its certificates (leaf first).
    public var readerKey: String?
    /// The reader certificate files (PEM or DER) for ``readerKey``, leaf first; required together with it.
    public var readerCertificates: [String] = []
    /// One readerAuthAll signature per request (DeviceRequest 1.1) instead of one per DocRequest.
    public var readerAuthAll = false
    /// Whether a failed device signature is verified over a few likely other transcripts, to name the
    /// one the wallet signed in the report (`details.transcriptDiagnosis`). Off by default.
    public var explainDeviceFailures = false
    /// The key that signs OpenID4VP request objects (`--request-signing-key`, P-256, ES256); nil: the
    /// reader key (``readerKey``) when one is configured, else requests go unsigned.
    public var requestSigningKey: String?
    /// The certificate chain of ``requestSigningKey`` (leaf first, `--request-signing-cert`); required together with it.
    public var requestSigningCertificates: [String] = []
    /// How signed OpenID4VP requests name the verifier (`--openid4vp-client-id`); nil: `x509_san_dns`
    /// when the leaf has a DNS name, else `x509_hash`.
    public var openID4VPClientID: OpenID4VPClientIDScheme?
    /// The protocols a web request offers when its body names none (`--web-protocols`); nil: every
    /// protocol this deployment is configured for (see ``WebRequestProtocol/defaults(signing:)``).
    public var webProtocols: [WebRequestProtocol]?

    /// The docTypes web requests may be created for (`--web-doctypes`); nil: the docTypes of
    /// ``trustDocTypes`` when every trust root is scoped, else any (see ``effectiveWebDocTypes``).
    public var webDocTypes: [String]?
    /// Data elements one request (web or in-app) may ask for (`--max-request-elements`).
    public var maxRequestElements = RequestLimits.defaultMaxElements
    /// Bytes the store may keep for one request session (`--max-request-session-bytes`).
    public var maxRequestSessionBytes = RequestLimits.defaultMaxSessionBytes

    /// The bounds of one request creation: ``maxRequestElements`` and ``maxRequestSessionBytes``.
    public var requestLimits: RequestLimits {
        RequestLimits(maxElements: maxRequestElements, maxSessionBytes: maxRequestSessionBytes)
    }

    /// The docTypes the service creates (and signs) web requests for, and why; nil: any docType of
    /// the data identifier form. ``webDocTypes`` when set; otherwise, when every trust root is scoped
    /// to docTypes (``trustDocTypes``, no ``trust`` and no ``vicals``), those docTypes, as no other
    /// docType can verify; otherwise nil, since an unscoped root or a VICAL (whose roots change with
    /// it) may verify any docType.
    public var effectiveWebDocTypes: (docTypes: Set<String>, source: String)? {
        if let webDocTypes { return (Set(webDocTypes), "--web-doctypes") }
        guard trust.isEmpty, vicals.isEmpty, !trustDocTypes.isEmpty else { return nil }
        var scoped = Set<String>()
        for entry in trustDocTypes { if let docTypes = try? IACATrustStore.scopedEntry(entry).docTypes { scoped.formUnion(docTypes) } }
        return (scoped, "the docTypes of --trust-doctype, the only ones that can verify without --trust or --vical; --web-doctypes sets the list")
    }

    /// How a signed OpenID4VP request names the verifier: by a DNS name of the leaf certificate, or by the hash of the leaf.
    public enum OpenID4VPClientIDScheme: String, Sendable, Hashable, CaseIterable {
        /// `x509_san_dns:<a DNS name of the leaf>`.
        case x509SANDNS = "x509_san_dns"
        /// `x509_hash:<base64url SHA-256 of the leaf DER>`.
        case x509Hash = "x509_hash"
    }

    /// The request-signing key and chain in use: the own ones, or the reader's.
    public var effectiveRequestSigning: (key: String, certificates: [String])? {
        if let requestSigningKey { return (requestSigningKey, requestSigningCertificates) }
        if let readerKey { return (readerKey, readerCertificates) }
        return nil
    }
    /// A file holding the API's bearer token; nil: the API takes no token.
    public var apiTokenFile: String?
    /// How long a submission with an Idempotency-Key may be retried with it, seconds.
    public var idempotencyWindow = 600
    /// Request creations per minute per client address (0: no limit).
    public var requestRate = 600
    /// Outstanding (unexpired, unconsumed) request sessions allowed in the store.
    public var maxOutstandingRequests = 100_000
    /// Verifications in progress at once in this process; more wait for a slot. 16 per core: fewer
    /// leaves the embedded store too few writers to group its commits (measured: one per core cut
    /// throughput by more than half), while the work of each is bounded.
    public var maxConcurrentVerifications = max(16, ProcessInfo.processInfo.activeProcessorCount * 16)
    /// Apple Pay payment-processing certificates and keys, paired in order.
    public var applePayCertificates: [String] = []
    /// The private keys of ``applePayCertificates``, in the same order.
    public var applePayKeys: [String] = []
    /// Another root than Apple Root CA - G3 (tests only).
    public var applePayRoot: String?
    /// Whether Apple Pay decryption requests must carry the expected currency and amount (default required).
    public var applePayExpectations: ApplePayExpectationsMode = .required
    /// The Apple Pay Merchant Identity certificate (`--applepay-identity-cert`): the TLS client
    /// certificate of merchant validation (`POST /v1/applepay/session`); nil: that route answers 501.
    public var applePayIdentityCertificate: String?
    /// The private key of ``applePayIdentityCertificate`` (`--applepay-identity-key`); required together with it.
    public var applePayIdentityKey: String?
    /// The merchant id to name in merchant validation when the Merchant Identity certificate names
    /// none (neither the merchant-id extension nor a UID in its subject): `--applepay-merchant-id`.
    public var applePayMerchantID: String?
    /// The domain the Apple Pay button is shown on (`--applepay-domain`, a DNS name): the
    /// `initiativeContext` of merchant validation; required with ``applePayIdentityCertificate``.
    public var applePayDomain: String?
    /// The store's name on the payment sheet (`--applepay-display-name`, at most 64 characters);
    /// required with ``applePayIdentityCertificate``.
    public var applePayDisplayName: String?
    /// The hosts a merchant-validation URL may name (`--applepay-validation-hosts`), each `HOST` (port
    /// 443) or `HOST:PORT`, lowercased; nil: Apple's documented hosts
    /// (``ApplePayValidationTarget/appleHosts``).
    public var applePayValidationHosts: [String]?
    /// A PEM file of CA certificates trusted for the merchant-validation server instead of the system
    /// roots (`--applepay-validation-ca`, tests and operators' proxies).
    public var applePayValidationCA: String?
    /// Google Pay merchant private keys (`--googlepay-key`, PEM), tried in turn: several for rotation.
    public var googlePayKeys: [String] = []
    /// The Google Pay merchant id tokens are signed for (`--googlepay-merchant-id`): `merchant:<id>`.
    public var googlePayMerchantID: String?
    /// Google's root signing keys (`--googlepay-root-keys`): a file, or an https URL fetched and
    /// kept in the store.
    public var googlePayRootKeys: String?
    /// Apple Pay signing-time window, seconds.
    public var maxAge = 300
    /// Clock skew allowed for MSO validity, seconds.
    public var clockSkew = 60
    /// The most documents one DeviceResponse may hold in `POST /v1/mdoc/verify` and the page's mdoc form
    /// (`--max-documents`); more are refused before any signature is verified. Answers to requests
    /// hold at most one per docType asked for.
    public var maxDocuments = MdocVerificationPolicy.defaultMaxDocuments
    /// Largest request body, bytes.
    public var bodyLimit = 1_048_576
    /// Seconds a request body may take to arrive (`--body-timeout`); it is read, up to ``bodyLimit``,
    /// before the request takes a verification slot, and a body still arriving then is a 408.
    public var bodyTimeout = 10
    /// Seconds a new connection (or one that answered its last request) may take to send a complete
    /// request head (`--header-timeout`); the connection is closed after that.
    public var headerTimeout = 10
    /// Seconds a keep-alive connection may stay idle between requests (`--idle-timeout`).
    public var idleTimeout = 60
    /// Open connections one client address (IPv6: one /64) may hold on each listener
    /// (`--max-client-connections`); further ones are closed at once.
    public var maxClientConnections = 128
    /// Verifications one client address may have running at once (`--max-client-verifications`); its
    /// further ones wait for one of its own to finish, like any verification waits for a slot.
    /// Default: half of ``maxConcurrentVerifications``, so one client never holds every slot.
    public var maxClientVerifications: Int?
    /// Outstanding request sessions one client address may have created (`--max-client-outstanding-requests`),
    /// counted per process over the request lifetime; 429 past it. Default: a tenth of
    /// ``maxOutstandingRequests``.
    public var maxClientOutstandingRequests: Int?
    /// Verification POSTs per minute per client address (`--verify-rate`; 0: no limit).
    public var verifyRate = 1_200
    /// Lifetime of an identity request nonce, seconds.
    public var requestLifetime = 600
    /// MSO revocation lists: how an undecidable answer counts, and lists given as files (used for
    /// their `sub` before any fetch).
    public var revocation: RevocationMode = .required
    /// MSO revocation list files, read before any list is fetched.
    public var revocationLists: [String] = []
    /// VICALs (files or https URLs) and, paired in order, the anchor their signer must chain to.
    public var vicals: [String] = []
    /// The trust anchors of ``vicals``, one per VICAL in the same order.
    public var vicalTrust: [String] = []
    /// Seconds an outbound fetch (a revocation list, a VICAL URL) may take in all: connecting, the
    /// response head and the whole body.
    public var fetchTimeout = 10
    /// Addresses and CIDR ranges an outbound fetch may connect to beyond public addresses
    /// (`--fetch-allow`): by default private, link-local, unique-local, loopback (unless the uri
    /// names it literally), unspecified, multicast, broadcast and reserved addresses are refused.
    public var fetchAllow: [IPAddressRange] = []
    /// How far past its next update (a VICAL's nextUpdate, a key list's max-age) a trust source may
    /// be before it counts as stale (`--trust-stale-after`, e.g. `7d` or `36h`; default 7 days).
    public var trustStaleAfter: TimeInterval = 7 * 86_400
    /// What a stale trust source means (`--trust-stale`): `warn` (default: still used, logged daily,
    /// shown in `/v1/trust` and `serve --check`) or `fail` (its roots stop anchoring).
    public var trustStale: TrustSourceStatus.StalePolicy = .warn
    /// Days before a certificate of the service's own (Apple Pay, reader, request signing) expires
    /// from which `serve` warns about it, at start and daily (`--certificate-warning-days`), and
    /// `serve --check` reports it as a warning.
    public var certificateWarningDays = 30
    /// The P-256 key (PEM, PKCS#8 or SEC1) that signs verification receipts (`--receipt-key`); nil:
    /// answers carry no receipt and `/v1/receipts/jwks` answers 501.
    public var receiptKey: String?
    /// The certificate of ``receiptKey`` (PEM, leaf first; the receipts' `x5c`, `--receipt-cert`); needs the key.
    public var receiptCertificate: String?
    /// Receipt keys rotated out whose receipts still verify (`--receipt-previous-key`, a PEM private
    /// key or certificate each): the JWKS lists the current key and these, and nothing else.
    public var receiptPreviousKeys: [String] = []
    /// The `iss` of receipts (`--receipt-issuer`, a URI); nil: receipts name no issuer.
    public var receiptIssuer: String?
    /// Whether issued receipts are kept in the store (`--receipts`): `off` (the default) or `keep`.
    public enum ReceiptsMode: String, Sendable, Hashable, CaseIterable {
        /// Receipts are answered, not kept.
        case off
        /// Every receipt issued is kept for ``ServerSettings/receiptRetention`` days (`GET /v1/receipts`).
        case keep
    }
    /// Whether issued receipts are kept (`--receipts off|keep`).
    public var receipts: ReceiptsMode = .off
    /// Days a kept receipt is kept after it is issued, and a receipt key stays in the JWKS after its
    /// last use (`--receipt-retention`, 1–3650, default 400).
    public var receiptRetention = 400
    /// Receipts of one client address (IPv6: its /64) kept per UTC day by one instance
    /// (`--max-client-kept-receipts`, default 1000); further ones are answered, not kept.
    public var maxClientKeptReceipts = 1_000

    /// Verifications one client may run at once: ``maxClientVerifications``, or half the slots.
    public var clientVerificationCap: Int { min(maxConcurrentVerifications, maxClientVerifications ?? max(1, maxConcurrentVerifications / 2)) }
    /// Outstanding sessions one client may hold: ``maxClientOutstandingRequests``, or a tenth of the cap.
    public var clientOutstandingCap: Int { min(maxOutstandingRequests, maxClientOutstandingRequests ?? max(1, maxOutstandingRequests / 10)) }

    /// Creates the default settings; ``resolve(flags:environment:configFile:)`` reads them from the command line, environment and file.
    public init() {}

    /// Names of the environment variables, one per setting.
    public static let environmentNames: [String: String] = [
        "host": "WALLET_VERIFIER_HOST", "port": "WALLET_VERIFIER_PORT", "dataDir": "WALLET_VERIFIER_DATA_DIR",
        "store": "WALLET_VERIFIER_STORE", "postgresUrl": "WALLET_VERIFIER_STORE_POSTGRES_URL",
        "identityKeys": "WALLET_VERIFIER_IDENTITY_KEYS", "identityCerts": "WALLET_VERIFIER_IDENTITY_CERTS",
        "identity": "WALLET_VERIFIER_IDENTITY", "allowOpenApi": "WALLET_VERIFIER_ALLOW_OPEN_API", "logFormat": "WALLET_VERIFIER_LOG_FORMAT",
        "merchantId": "WALLET_VERIFIER_MERCHANT_ID",
        "teamId": "WALLET_VERIFIER_TEAM_ID", "trust": "WALLET_VERIFIER_TRUST", "trustDocTypes": "WALLET_VERIFIER_TRUST_DOCTYPES",
        "webOrigins": "WALLET_VERIFIER_WEB_ORIGINS", "webKeys": "WALLET_VERIFIER_WEB_KEYS",
        "uiListen": "WALLET_VERIFIER_UI_LISTEN", "uiTokenFile": "WALLET_VERIFIER_UI_TOKEN_FILE",
        "apiTokenFile": "WALLET_VERIFIER_API_TOKEN_FILE",
        "readerKey": "WALLET_VERIFIER_READER_KEY", "readerCerts": "WALLET_VERIFIER_READER_CERTS", "readerAuthAll": "WALLET_VERIFIER_READER_AUTH_ALL",
        "explainDeviceFailures": "WALLET_VERIFIER_EXPLAIN_DEVICE_FAILURES",
        "requestSigningKey": "WALLET_VERIFIER_REQUEST_SIGNING_KEY", "requestSigningCerts": "WALLET_VERIFIER_REQUEST_SIGNING_CERTS",
        "openid4vpClientId": "WALLET_VERIFIER_OPENID4VP_CLIENT_ID", "webProtocols": "WALLET_VERIFIER_WEB_PROTOCOLS",
        "webDocTypes": "WALLET_VERIFIER_WEB_DOCTYPES", "maxRequestElements": "WALLET_VERIFIER_MAX_REQUEST_ELEMENTS",
        "maxRequestSessionBytes": "WALLET_VERIFIER_MAX_REQUEST_SESSION_BYTES",
        "requestRate": "WALLET_VERIFIER_REQUEST_RATE",
        "idempotencyWindow": "WALLET_VERIFIER_IDEMPOTENCY_WINDOW",
        "maxOutstandingRequests": "WALLET_VERIFIER_MAX_OUTSTANDING_REQUESTS",
        "maxConcurrentVerifications": "WALLET_VERIFIER_MAX_CONCURRENT_VERIFICATIONS",
        "applepayCerts": "WALLET_VERIFIER_APPLEPAY_CERTS", "applepayKeys": "WALLET_VERIFIER_APPLEPAY_KEYS",
        "applepayRoot": "WALLET_VERIFIER_APPLEPAY_ROOT", "applepayExpectations": "WALLET_VERIFIER_APPLEPAY_EXPECTATIONS",
        "applepayIdentityCert": "WALLET_VERIFIER_APPLEPAY_IDENTITY_CERT", "applepayIdentityKey": "WALLET_VERIFIER_APPLEPAY_IDENTITY_KEY",
        "applepayMerchantId": "WALLET_VERIFIER_APPLEPAY_MERCHANT_ID",
        "applepayDomain": "WALLET_VERIFIER_APPLEPAY_DOMAIN", "applepayDisplayName": "WALLET_VERIFIER_APPLEPAY_DISPLAY_NAME",
        "applepayValidationHosts": "WALLET_VERIFIER_APPLEPAY_VALIDATION_HOSTS", "applepayValidationCa": "WALLET_VERIFIER_APPLEPAY_VALIDATION_CA",
        "googlepayKeys": "WALLET_VERIFIER_GOOGLEPAY_KEYS", "googlepayMerchantId": "WALLET_VERIFIER_GOOGLEPAY_MERCHANT_ID",
        "googlepayRootKeys": "WALLET_VERIFIER_GOOGLEPAY_ROOT_KEYS",
        "maxAge": "WALLET_VERIFIER_MAX_AGE",
        "clockSkew": "WALLET_VERIFIER_CLOCK_SKEW", "bodyLimit": "WALLET_VERIFIER_BODY_LIMIT", "maxDocuments": "WALLET_VERIFIER_MAX_DOCUMENTS",
        "requestLifetime": "WALLET_VERIFIER_REQUEST_LIFETIME",
        "bodyTimeout": "WALLET_VERIFIER_BODY_TIMEOUT", "headerTimeout": "WALLET_VERIFIER_HEADER_TIMEOUT",
        "idleTimeout": "WALLET_VERIFIER_IDLE_TIMEOUT", "maxClientConnections": "WALLET_VERIFIER_MAX_CLIENT_CONNECTIONS",
        "maxClientVerifications": "WALLET_VERIFIER_MAX_CLIENT_VERIFICATIONS",
        "maxClientOutstandingRequests": "WALLET_VERIFIER_MAX_CLIENT_OUTSTANDING_REQUESTS", "verifyRate": "WALLET_VERIFIER_VERIFY_RATE",
        "revocation": "WALLET_VERIFIER_REVOCATION", "revocationLists": "WALLET_VERIFIER_REVOCATION_LISTS",
        "vicals": "WALLET_VERIFIER_VICALS", "vicalTrust": "WALLET_VERIFIER_VICAL_TRUST",
        "fetchTimeout": "WALLET_VERIFIER_FETCH_TIMEOUT", "fetchAllow": "WALLET_VERIFIER_FETCH_ALLOW",
        "trustStaleAfter": "WALLET_VERIFIER_TRUST_STALE_AFTER", "trustStale": "WALLET_VERIFIER_TRUST_STALE",
        "certificateWarningDays": "WALLET_VERIFIER_CERTIFICATE_WARNING_DAYS",
        "receiptKey": "WALLET_VERIFIER_RECEIPT_KEY", "receiptCert": "WALLET_VERIFIER_RECEIPT_CERT",
        "receiptIssuer": "WALLET_VERIFIER_RECEIPT_ISSUER", "receipts": "WALLET_VERIFIER_RECEIPTS",
        "receiptRetention": "WALLET_VERIFIER_RECEIPT_RETENTION", "receiptPreviousKeys": "WALLET_VERIFIER_RECEIPT_PREVIOUS_KEYS",
        "maxClientKeptReceipts": "WALLET_VERIFIER_MAX_CLIENT_KEPT_RECEIPTS",
    ]

    /// A value from one source: a string or a list of strings (lists in the environment are
    /// comma-separated).
    public typealias Source = [String: [String]]

    /// Merges sources (first wins per key) and validates.
    public static func resolve(flags: Source, environment: [String: String], configFile: String?) throws -> ServerSettings {
        var env: Source = [:]
        for (key, name) in environmentNames {
            if let value = environment[name], !value.isEmpty {
                env[key] = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            }
        }
        var file: Source = [:]
        if let configFile {
            file = try loadConfigFile(configFile)
        }
        func value(_ key: String) -> [String]? { flags[key] ?? env[key] ?? file[key] }
        func single(_ key: String) -> String? { value(key)?.last }
        func integer(_ key: String, _ range: ClosedRange<Int>) throws -> Int? {
            guard let text = single(key) else { return nil }
            guard let number = Int(text), range.contains(number) else {
                throw SettingsError("\(key) must be a whole number in \(range.lowerBound)...\(range.upperBound), got \"\(text)\"")
            }
            return number
        }

        var settings = ServerSettings()
        if let host = single("host") { settings.host = host }
        if let port = try integer("port", 0...65535) { settings.port = port }
        if let dir = single("dataDir") { settings.dataDirectory = dir }
        if let store = single("store") {
            guard let kind = StoreKind(rawValue: store) else { throw SettingsError("store must be sqlite, postgres or memory, got \"\(store)\"") }
            settings.store = kind
        }
        settings.postgresURL = single("postgresUrl")
        settings.identityKeys = value("identityKeys") ?? []
        settings.identityCertificates = value("identityCerts") ?? []
        if !settings.identityCertificates.isEmpty && settings.identityKeys.isEmpty {
            throw SettingsError("--identity-cert needs --identity-key (the certificate is watched beside the key it was issued for)")
        }
        if let flow = single("identity") {
            guard flow == "on" || flow == "off" else { throw SettingsError("identity must be on or off, got \"\(flow)\"") }
            settings.identityFlow = flow == "on"
        }
        if let open = single("allowOpenApi") {
            guard let flag = Bool(open.lowercased()) else { throw SettingsError("allowOpenApi must be true or false, got \"\(open)\"") }
            settings.allowOpenAPI = flag
        }
        if let format = single("logFormat") {
            guard let parsed = LogFormat(rawValue: format) else { throw SettingsError("logFormat must be text or json, got \"\(format)\"") }
            settings.logFormat = parsed
        }
        // Several --merchant-id/--team-id pairs, in order: the first is the default.
        let merchants = value("merchantId") ?? [], teams = value("teamId") ?? []
        if merchants.count > 1 || teams.count > 1 {
            guard merchants.count == teams.count else {
                throw SettingsError(
                    "each --merchant-id needs a --team-id (got \(merchants.count) merchant identifiers and \(teams.count) team identifiers)")
            }
            settings.otherMerchants = zip(merchants.dropFirst(), teams.dropFirst()).map { MerchantPair(merchantID: $0, teamID: $1) }
        }
        settings.merchantID = merchants.first
        settings.teamID = teams.first
        settings.trust = value("trust") ?? []
        settings.trustDocTypes = value("trustDocTypes") ?? []
        for entry in settings.trustDocTypes {
            do { _ = try IACATrustStore.scopedEntry(entry) } catch { throw SettingsError("trustDocTypes: \(error)") }
        }
        settings.webKeys = value("webKeys") ?? []
        for origin in value("webOrigins") ?? [] {
            do { settings.webOrigins.append(try WebOrigin.parse(origin)) } catch { throw SettingsError("--web-origin: \(error)") }
        }
        if let listen = single("uiListen") { settings.uiListen = try Self.listenAddress(listen) }
        settings.uiTokenFile = single("uiTokenFile")
        settings.apiTokenFile = single("apiTokenFile")
        settings.readerKey = single("readerKey")
        settings.readerCertificates = value("readerCerts") ?? []
        if let all = single("readerAuthAll") {
            guard let flag = Bool(all.lowercased()) else { throw SettingsError("readerAuthAll must be true or false, got \"\(all)\"") }
            settings.readerAuthAll = flag
        }
        if let explain = single("explainDeviceFailures") {
            guard let flag = Bool(explain.lowercased()) else {
                throw SettingsError("explainDeviceFailures must be true or false, got \"\(explain)\"")
            }
            settings.explainDeviceFailures = flag
        }
        if (settings.readerKey == nil) != settings.readerCertificates.isEmpty {
            throw SettingsError("--reader-key and --reader-cert go together (the key and its certificate, leaf first)")
        }
        settings.requestSigningKey = single("requestSigningKey")
        settings.requestSigningCertificates = value("requestSigningCerts") ?? []
        if (settings.requestSigningKey == nil) != settings.requestSigningCertificates.isEmpty {
            throw SettingsError("--request-signing-key and --request-signing-cert go together (the key and its certificate, leaf first)")
        }
        if let scheme = single("openid4vpClientId") {
            guard let parsed = OpenID4VPClientIDScheme(rawValue: scheme) else {
                throw SettingsError("openid4vpClientId must be x509_san_dns or x509_hash, got \"\(scheme)\"")
            }
            settings.openID4VPClientID = parsed
        }
        if let names = value("webProtocols") {
            do { settings.webProtocols = try WebRequestProtocol.parseList(names) } catch { throw SettingsError("--web-protocols: \(error)") }
            if settings.webProtocols?.contains(.openID4VPSigned) == true && settings.effectiveRequestSigning == nil {
                throw SettingsError(
                    "--web-protocols openid4vp-v1-signed needs a request-signing key: --request-signing-key and --request-signing-cert (or --reader-key and --reader-cert)"
                )
            }
        }
        if let docTypes = value("webDocTypes") {
            let names = docTypes.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !names.isEmpty else { throw SettingsError("--web-doctypes: name at least one docType, such as org.iso.18013.5.1.mDL") }
            for name in names where !DataIdentifier.isValid(name) {
                throw SettingsError("--web-doctypes: \"\(name)\" is not a docType: a docType is \(DataIdentifier.rule)")
            }
            settings.webDocTypes = names
        }
        if let cap = try integer("maxRequestElements", 1...4096) { settings.maxRequestElements = cap }
        if let cap = try integer("maxRequestSessionBytes", 4096...(64 * 1_048_576)) { settings.maxRequestSessionBytes = cap }
        if let rate = try integer("requestRate", 0...1_000_000) { settings.requestRate = rate }
        if let window = try integer("idempotencyWindow", 1...86_400) { settings.idempotencyWindow = window }
        if let cap = try integer("maxOutstandingRequests", 1...100_000_000) { settings.maxOutstandingRequests = cap }
        if let slots = try integer("maxConcurrentVerifications", 1...4096) { settings.maxConcurrentVerifications = slots }
        settings.applePayCertificates = value("applepayCerts") ?? []
        settings.applePayKeys = value("applepayKeys") ?? []
        settings.applePayRoot = single("applepayRoot")
        if let mode = single("applepayExpectations") {
            guard let parsed = ApplePayExpectationsMode(rawValue: mode) else {
                throw SettingsError("applepayExpectations must be required or optional, got \"\(mode)\"")
            }
            settings.applePayExpectations = parsed
        }
        try Self.resolveMerchantValidation(&settings, single: single, value: value)
        settings.googlePayKeys = value("googlepayKeys") ?? []
        settings.googlePayMerchantID = single("googlepayMerchantId")
        settings.googlePayRootKeys = single("googlepayRootKeys")
        // The bounds Apple Pay's replay records are kept for (ApplePayPolicy.replayRetention).
        if let maxAge = try integer("maxAge", 1...Int(ApplePayPolicy.longestSigningAge.components.seconds)) { settings.maxAge = maxAge }
        if let skew = try integer("clockSkew", 0...Int(ApplePayPolicy.largestClockSkew.components.seconds)) { settings.clockSkew = skew }
        if let limit = try integer("bodyLimit", 1024...(64 * 1_048_576)) { settings.bodyLimit = limit }
        if let cap = try integer("maxDocuments", 1...16) { settings.maxDocuments = cap }
        if let lifetime = try integer("requestLifetime", 10...86400) { settings.requestLifetime = lifetime }
        if let seconds = try integer("bodyTimeout", 1...600) { settings.bodyTimeout = seconds }
        if let seconds = try integer("headerTimeout", 1...600) { settings.headerTimeout = seconds }
        if let seconds = try integer("idleTimeout", 1...3600) { settings.idleTimeout = seconds }
        if let cap = try integer("maxClientConnections", 1...1_000_000) { settings.maxClientConnections = cap }
        if let cap = try integer("maxClientVerifications", 1...4096) { settings.maxClientVerifications = cap }
        if let cap = try integer("maxClientOutstandingRequests", 1...100_000_000) { settings.maxClientOutstandingRequests = cap }
        if let rate = try integer("verifyRate", 0...1_000_000) { settings.verifyRate = rate }
        if let mode = single("revocation") {
            guard let parsed = RevocationMode(rawValue: mode) else {
                throw SettingsError("revocation must be required, best-effort or off, got \"\(mode)\"")
            }
            settings.revocation = parsed
        }
        settings.revocationLists = value("revocationLists") ?? []
        if let timeout = try integer("fetchTimeout", 1...300) { settings.fetchTimeout = timeout }
        if let days = try integer("certificateWarningDays", 0...3650) { settings.certificateWarningDays = days }
        if let text = single("trustStaleAfter") {
            guard let seconds = TrustSourceStatus.parseDuration(text) else {
                throw SettingsError("trustStaleAfter takes a duration such as 7d, 36h or 90m, got \"\(text)\"")
            }
            settings.trustStaleAfter = seconds
        }
        if let text = single("trustStale") {
            guard let policy = TrustSourceStatus.StalePolicy(rawValue: text) else {
                throw SettingsError("trustStale must be warn or fail, got \"\(text)\"")
            }
            settings.trustStale = policy
        }
        for entry in (value("fetchAllow") ?? []).flatMap({ $0.split(separator: ",") }) {
            let text = entry.trimmingCharacters(in: .whitespaces)
            guard let range = IPAddressRange(text) else {
                throw SettingsError("fetchAllow takes IP addresses or CIDR ranges (10.0.0.0/8, fd00::/8), got \"\(text)\"")
            }
            settings.fetchAllow.append(range)
        }
        settings.vicals = value("vicals") ?? []
        settings.vicalTrust = value("vicalTrust") ?? []
        guard settings.vicals.count == settings.vicalTrust.count else {
            throw SettingsError("each --vical needs a --vical-trust (got \(settings.vicals.count) VICALs and \(settings.vicalTrust.count) anchors)")
        }

        settings.receiptKey = single("receiptKey")
        settings.receiptCertificate = single("receiptCert")
        settings.receiptPreviousKeys = value("receiptPreviousKeys") ?? []
        if !settings.receiptPreviousKeys.isEmpty && settings.receiptKey == nil {
            throw SettingsError("--receipt-previous-key needs --receipt-key (previous keys are listed beside the current one)")
        }
        if settings.receiptCertificate != nil && settings.receiptKey == nil {
            throw SettingsError("--receipt-cert needs --receipt-key (the certificate is the receipt key's)")
        }
        if let issuer = single("receiptIssuer") {
            guard let uri = URL(string: issuer), uri.scheme != nil, !issuer.contains(where: { $0.isWhitespace }) else {
                throw SettingsError("--receipt-issuer must be a URI, such as https://verifier.example.com, got \"\(issuer)\"")
            }
            settings.receiptIssuer = issuer
        }
        if let mode = single("receipts") {
            guard let parsed = ReceiptsMode(rawValue: mode) else { throw SettingsError("receipts must be off or keep, got \"\(mode)\"") }
            settings.receipts = parsed
        }
        if let days = try integer("receiptRetention", 1...3650) { settings.receiptRetention = days }
        if let cap = try integer("maxClientKeptReceipts", 1...10_000_000) { settings.maxClientKeptReceipts = cap }
        if settings.receipts == .keep && settings.receiptKey == nil {
            throw SettingsError("--receipts keep needs --receipt-key (the key that signs the receipts it keeps)")
        }

        if settings.store == .postgres && settings.postgresURL == nil {
            throw SettingsError("--store postgres needs --postgres-url (or WALLET_VERIFIER_STORE_POSTGRES_URL)")
        }
        if settings.applePayCertificates.count != settings.applePayKeys.count {
            throw SettingsError(
                "each --applepay-cert needs a --applepay-key (got \(settings.applePayCertificates.count) certificates and \(settings.applePayKeys.count) keys)"
            )
        }
        try settings.checkGooglePay()
        return settings
    }

    /// The merchant-validation settings, checked together: the identity certificate and key go
    /// together, and need the domain and the display name; the domain, the display name, the hosts
    /// and the CA mean nothing without them.
    static func resolveMerchantValidation(
        _ settings: inout ServerSettings, single: (String) -> String?, value: (String) -> [String]?
    ) throws {
        settings.applePayIdentityCertificate = single("applepayIdentityCert")
        settings.applePayIdentityKey = single("applepayIdentityKey")
        settings.applePayMerchantID = single("applepayMerchantId")
        settings.applePayValidationCA = single("applepayValidationCa")
        if let hosts = value("applepayValidationHosts") {
            let entries = hosts.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !entries.isEmpty else { throw SettingsError("--applepay-validation-hosts: name at least one HOST or HOST:PORT") }
            settings.applePayValidationHosts = try entries.map { entry in
                guard let parsed = ApplePayValidationTarget.hostEntry(entry) else {
                    throw SettingsError(
                        "--applepay-validation-hosts takes HOST (port 443) or HOST:PORT entries, comma-separated, such as apple-pay-gateway.apple.com or 127.0.0.1:8443, got \"\(entry)\""
                    )
                }
                return parsed
            }
        }
        if let domain = single("applepayDomain") {
            guard let normalized = ApplePayValidationTarget.domainName(domain) else {
                throw SettingsError(
                    "--applepay-domain takes the domain the Apple Pay button is shown on, as registered with Apple (shop.example.com: no scheme, port or path), got \"\(domain)\""
                )
            }
            settings.applePayDomain = normalized
        }
        if let name = single("applepayDisplayName") {
            guard !name.isEmpty, name.count <= 64, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw SettingsError("--applepay-display-name takes the store's name, 1 to 64 characters without control characters")
            }
            settings.applePayDisplayName = name
        }
        guard settings.applePayIdentityCertificate != nil || settings.applePayIdentityKey != nil else {
            let stray = [
                (settings.applePayDomain, "--applepay-domain"), (settings.applePayDisplayName, "--applepay-display-name"),
                (settings.applePayValidationCA, "--applepay-validation-ca"), (settings.applePayMerchantID, "--applepay-merchant-id"),
                (settings.applePayValidationHosts?.joined(separator: ","), "--applepay-validation-hosts"),
            ].first { $0.0 != nil }
            if let stray {
                throw SettingsError(
                    "\(stray.1) configures Apple Pay merchant validation: it needs --applepay-identity-cert and --applepay-identity-key (the Merchant Identity certificate and its key)"
                )
            }
            return
        }
        guard settings.applePayIdentityCertificate != nil, settings.applePayIdentityKey != nil else {
            throw SettingsError(
                "--applepay-identity-cert and --applepay-identity-key go together (the Merchant Identity certificate and its private key)")
        }
        guard settings.applePayDomain != nil else {
            throw SettingsError(
                "--applepay-identity-cert needs --applepay-domain: the domain the Apple Pay button is shown on, as registered with Apple (Apple checks the session request against it)"
            )
        }
        guard settings.applePayDisplayName != nil else {
            throw SettingsError(
                "--applepay-identity-cert needs --applepay-display-name: the store's name on the payment sheet (at most 64 characters)")
        }
    }

    /// Google Pay takes its three settings together: keys, merchant id and root keys.
    func checkGooglePay() throws {
        let given = [
            ("--googlepay-key", !googlePayKeys.isEmpty), ("--googlepay-merchant-id", googlePayMerchantID != nil),
            ("--googlepay-root-keys", googlePayRootKeys != nil),
        ]
        let missing = given.filter { !$0.1 }.map(\.0)
        if !missing.isEmpty, missing.count < given.count {
            throw SettingsError(
                "Google Pay needs --googlepay-key FILE (repeatable), --googlepay-merchant-id ID and --googlepay-root-keys FILE|URL together; missing: \(missing.joined(separator: ", "))"
            )
        }
        if let id = googlePayMerchantID, id.isEmpty || id.contains(where: { $0.isWhitespace || $0 == ":" }) {
            throw SettingsError("--googlepay-merchant-id must be the merchant id of the Google Pay & Wallet Console, got \"\(id)\"")
        }
        if let source = googlePayRootKeys, source.lowercased().hasPrefix("http://") || source.lowercased().hasPrefix("https://"),
            RevocationListCache.fetchableURL(source) == nil
        {
            throw SettingsError("--googlepay-root-keys \(source): only https (or http to a loopback address) is fetched")
        }
    }

    /// `PORT`, `ADDR:PORT` or `[IPv6]:PORT`; the address defaults to 127.0.0.1 (loopback).
    static func listenAddress(_ text: String) throws -> ListenAddress {
        var host = "127.0.0.1"
        var portText = Substring(text)
        if let colon = text.lastIndex(of: ":") {
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
            guard !host.isEmpty, !host.contains(where: { $0.isWhitespace || $0 == "/" }) else {
                throw SettingsError("--ui-listen takes [ADDR:]PORT, got \"\(text)\"")
            }
        }
        guard let port = Int(portText), (0...65535).contains(port) else { throw SettingsError("--ui-listen takes [ADDR:]PORT, got \"\(text)\"") }
        return ListenAddress(host: host, port: port)
    }

    /// The config file's key names, sorted (the same names as ``environmentNames``' keys).
    public static var configKeys: [String] { environmentNames.keys.sorted() }

    /// The known config key nearest to `key` (case-insensitive edit distance at most a third of the
    /// key's length, at least 2), for "did you mean"; nil when none is that near.
    static func nearestConfigKey(to key: String) -> String? {
        let wanted = Array(key.lowercased())
        let limit = max(2, wanted.count / 3)
        var best: (name: String, distance: Int)?
        for name in configKeys {
            let distance = editDistance(wanted, Array(name.lowercased()))
            if distance <= limit, distance < (best?.distance ?? .max) { best = (name, distance) }
        }
        return best?.name
    }

    /// Levenshtein distance between two character arrays.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// The config file: a JSON object whose keys are the setting names (`host`, `port`, `dataDir`,
    /// `store`, `postgresUrl`, `identityKeys`, `merchantId`, `teamId`, `trust`, `trustDocTypes`, `webOrigins`, `webKeys`, `uiListen`, `uiTokenFile`, `apiTokenFile`, `readerKey`, `readerCerts`, `readerAuthAll`, `explainDeviceFailures`, `requestSigningKey`, `requestSigningCerts`, `openid4vpClientId`, `webProtocols`, `webDocTypes`, `maxRequestElements`, `maxRequestSessionBytes`, `requestRate`, `idempotencyWindow`, `maxOutstandingRequests`, `maxConcurrentVerifications`, `bodyTimeout`, `headerTimeout`, `idleTimeout`,
    /// `maxClientConnections`, `maxClientVerifications`, `maxClientOutstandingRequests`, `verifyRate`, `applepayCerts`,
    /// `applepayKeys`, `applepayRoot`, `applepayExpectations`, `applepayIdentityCert`, `applepayIdentityKey`, `applepayMerchantId`, `applepayDomain`,
    /// `applepayDisplayName`, `applepayValidationHosts`, `applepayValidationCa`, `googlepayKeys`, `googlepayMerchantId`, `googlepayRootKeys`,
    /// `maxAge`, `clockSkew`, `bodyLimit`, `maxDocuments`, `requestLifetime`, `revocation`, `revocationLists`, `vicals`, `vicalTrust`, `fetchTimeout`,
    /// `fetchAllow`, `trustStaleAfter`, `trustStale`, `certificateWarningDays`, `receiptKey`, `receiptCert`, `receiptIssuer`, `receipts`, `receiptRetention`); values
    /// are strings, numbers or arrays of strings.
    static func loadConfigFile(_ path: String) throws -> Source {
        guard let data = FileManager.default.contents(atPath: path) else { throw SettingsError("cannot read the config file \(path)") }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw SettingsError("the config file \(path) is not a JSON object")
        }
        var source: Source = [:]
        for (key, value) in object {
            guard environmentNames[key] != nil else {
                let hint = nearestConfigKey(to: key).map { "; did you mean \"\($0)\"?" } ?? " (serve --help lists the keys)"
                throw SettingsError("the config file \(path) has an unknown setting \"\(key)\"\(hint)")
            }
            switch value {
            case let text as String: source[key] = [text]
            case let number as NSNumber: source[key] = [number.stringValue]
            case let list as [String]: source[key] = list
            default: throw SettingsError("setting \"\(key)\" in \(path) must be a string, a number or a list of strings")
            }
        }
        return source
    }
}

/// A setting that is malformed, inconsistent or names an unreadable file; the description says which and why.
public typealias SettingsError = CodedError<SettingsErrorDomain>

/// The domain of ``SettingsError``: the service's settings (flags, environment, configuration file).
public enum SettingsErrorDomain: ErrorDomain {
    /// `SettingsError`.
    public static let name = "SettingsError"
    /// ``ErrorCode/invalidSetting``.
    public static let defaultCode = ErrorCode.invalidSetting
}
