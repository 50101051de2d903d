import ArgumentParser
import Foundation
import VerificationCore
import VerifierServer

/// The flags of `wallet-verifier serve`, shared with the commands that read the same configuration
/// (`serve --check`, `keys status`).
struct ServeOptions: ParsableArguments {
    @Option(name: .long, help: "A JSON config file.") var config: String?
    @Option(name: .long, help: "Listen address (default 127.0.0.1).") var host: String?
    @Option(name: .long, help: "Listen port (default 8080; 0 picks a free port).") var port: Int?
    @Option(name: .long, help: "Directory of the embedded store and the development key (default ./data).") var dataDir: String?
    @Option(name: .long, help: "sqlite (default), postgres or memory.") var store: String?
    @Option(name: .long, help: "PostgreSQL URL for --store postgres.") var postgresUrl: String?
    @Option(name: .long, help: "PEM P-256 private key of the identity encryption certificate. Repeatable.") var identityKey: [String] = []
    @Option(
        name: .long,
        help:
            "The identity encryption certificate (PEM or DER) of an --identity-key: checked to pair with it, listed in /v1/trust and keys status, its expiry watched. Repeatable."
    ) var identityCert: [String] = []
    @Option(
        name: .long,
        help:
            "on (default) or off: off leaves Verify with Wallet in apps off (/v1/identity/* answer 501) and serve --check asks for none of its keys."
    ) var identity: String?
    @Option(name: .long, help: "Merchant identifier of the identity requests. Repeatable, paired in order with --team-id; the first is the default.")
    var merchantId: [String] = []
    @Option(name: .long, help: "Team identifier of the app. Repeatable, paired with --merchant-id.") var teamId: [String] = []
    @Option(
        name: .long,
        help:
            "Trusted IACA root: a file, a directory, or https://host/path#sha256=HEX (fetched, pinned by the SHA-256 of its DER, kept in the store). Repeatable."
    ) var trust: [String] = []
    @Option(name: .long, help: "DOCTYPE[|DOCTYPE...]=FILE|DIR|URL#sha256=HEX: IACA roots trusted only for these docTypes. Repeatable.")
    var trustDoctype: [String] =
        []
    @Option(
        name: .long,
        help:
            "An origin web requests may be made from, e.g. https://shop.example. Repeatable; without one the web endpoints answer 501 (not configured)."
    ) var webOrigin: [String] = []
    @Option(name: .long, help: "Serve the operators' web page on its own listener, [ADDR:]PORT (loopback by default). Off unless given.")
    var uiListen: String?
    @Option(name: .long, help: "The web page's token (a file of at least 16 characters); without it a token is generated and logged once.")
    var uiTokenFile: String?
    @Option(
        name: .long,
        help:
            "A file holding a bearer token every /v1 request must carry (Authorization: Bearer). Needed to listen beyond loopback and to keep receipts, unless --allow-open-api."
    ) var apiTokenFile: String?
    @Flag(
        name: .long,
        help:
            "Listen beyond loopback, and keep receipts, without --api-token-file: callers are authenticated in front of the service (a proxy or gateway). Logged at start."
    ) var allowOpenApi = false
    @Option(
        name: .long,
        help:
            "text (default) or json: one JSON object per line with time, level, message, requestId and, for verifications, flow, verdict and failed checks."
    ) var logFormat: String?
    @Option(name: .long, help: "Sign every web request (reader authentication) with this P-256 or P-384 key (PEM or JWK).") var readerKey: String?
    @Option(name: .long, help: "The reader certificate of --reader-key, then its intermediates. Repeatable; leaf first.") var readerCert: [String] =
        []
    @Flag(name: .long, help: "One readerAuthAll signature per web request (DeviceRequest 1.1) instead of readerAuth per DocRequest.")
    var readerAuthAll = false
    @Flag(
        name: .long,
        help:
            "When a device signature fails, verify it over a few likely other transcripts (origin spelling, other handover) and name the one the wallet signed."
    )
    var explainDeviceFailures = false
    @Option(
        name: .long,
        help: "Sign OpenID4VP request objects (ES256) with this P-256 key (PEM or JWK). Default: --reader-key when given; without either, unsigned.")
    var requestSigningKey: String?
    @Option(name: .long, help: "The certificate of --request-signing-key, then its intermediates (the JWS x5c). Repeatable; leaf first.")
    var requestSigningCert: [String] = []
    @Option(
        name: .long,
        help:
            "How signed OpenID4VP requests name this verifier: x509_san_dns (default when the leaf has a DNS name) or x509_hash (SHA-256 of the leaf)."
    )
    var openid4vpClientId: String?
    @Option(
        name: .long,
        help:
            "The protocols a web request offers when its body names none, comma-separated: org-iso-mdoc, openid4vp-v1-signed, openid4vp-v1-unsigned (default: org-iso-mdoc and OpenID4VP, signed when a signing key is configured)."
    )
    var webProtocols: String?
    @Option(
        name: .long,
        help:
            "DocTypes web requests may be created for, comma-separated or repeated (default: the --trust-doctype docTypes when there is no --trust and no --vical, else any)."
    )
    var webDoctypes: [String] = []
    @Option(name: .long, help: "Data elements one request (web or in-app) may ask for (default 64, 1...4096).") var maxRequestElements: Int?
    @Option(name: .long, help: "Bytes the store may keep for one request session (default 131072, 4096...67108864).")
    var maxRequestSessionBytes: Int?
    @Option(name: .long, help: "Request creations per minute per client address (default 600; 0: no limit).") var requestRate: Int?
    @Option(name: .long, help: "Outstanding request sessions allowed in the store (default 100000).") var maxOutstandingRequests: Int?
    @Option(name: .long, help: "Seconds a submission with an Idempotency-Key may be retried with it (default 600).") var idempotencyWindow: Int?
    @Option(name: .long, help: "Verifications running at once (default 16 per core); more wait up to 10 s for a slot.")
    var maxConcurrentVerifications: Int?
    @Option(name: .long, help: "Verifications one client address (IPv6: one /64) may run at once (default: half the slots).")
    var maxClientVerifications: Int?
    @Option(name: .long, help: "Outstanding request sessions one client address may have created (default: a tenth of --max-outstanding-requests).")
    var maxClientOutstandingRequests: Int?
    @Option(name: .long, help: "Verification POSTs per minute per client address (default 1200; 0: no limit).") var verifyRate: Int?
    @Option(name: .long, help: "Seconds a request body may take to arrive, read before a verification slot is taken (default 10; then 408).")
    var bodyTimeout: Int?
    @Option(name: .long, help: "Seconds a new connection may take to send a complete request head (default 10; then it is closed).")
    var headerTimeout: Int?
    @Option(name: .long, help: "Seconds a kept-alive connection may stay idle between requests (default 60).") var idleTimeout: Int?
    @Option(name: .long, help: "Open connections per client address (IPv6: one /64) on each listener (default 128).")
    var maxClientConnections: Int?
    @Option(
        name: .long,
        help:
            "P-256 recipient key of web responses (PEM or JWK). Repeatable: the first is used for new requests, the others still open responses to earlier ones."
    ) var webKey: [String] = []
    @Option(name: .long, help: "Apple Pay payment-processing certificate. Repeatable, paired with --applepay-key.") var applepayCert: [String] = []
    @Option(name: .long, help: "Apple Pay merchant private key. Repeatable.") var applepayKey: [String] = []
    @Option(name: .long, help: "Apple Pay root other than Apple Root CA - G3 (tests only).") var applepayRoot: String?
    @Option(
        name: .long,
        help:
            "Apple Pay: required (default: /v1/applepay/decrypt without expect.currency and expect.amount is a 400) or optional (verified, with an expectationsMissing warning)."
    ) var applepayExpectations: String?
    @Option(
        name: .long,
        help:
            "Apple Pay on the web: the Merchant Identity certificate (PEM or DER), the TLS client certificate of merchant validation (POST /v1/applepay/session)."
    ) var applepayIdentityCert: String?
    @Option(name: .long, help: "The private key of --applepay-identity-cert (PEM or DER).") var applepayIdentityKey: String?
    @Option(
        name: .long,
        help:
            "The merchant id merchant validation names when the --applepay-identity-cert certificate names none (no merchant-id extension, no UID in its subject)."
    ) var applepayMerchantId: String?
    @Option(name: .long, help: "The domain the Apple Pay button is shown on, as registered with Apple (needed with --applepay-identity-cert).")
    var applepayDomain: String?
    @Option(name: .long, help: "The store's name on the payment sheet, at most 64 characters (needed with --applepay-identity-cert).")
    var applepayDisplayName: String?
    @Option(
        name: .long,
        help:
            "Replace Apple's merchant-validation hosts with these, HOST (port 443) or HOST:PORT, comma-separated or repeated (tests, proxies); a validation URL naming another host is refused."
    ) var applepayValidationHosts: [String] = []
    @Option(name: .long, help: "A PEM file of CA certificates trusted for the merchant-validation server instead of the system's roots (tests).")
    var applepayValidationCa: String?
    @Option(
        name: .long,
        help:
            "Google Pay merchant private key (P-256, PEM). Repeatable: each is tried in turn (key rotation). With --googlepay-merchant-id and --googlepay-root-keys."
    ) var googlepayKey: [String] = []
    @Option(name: .long, help: "Google Pay merchant id (Google Pay & Wallet Console): tokens must be signed for merchant:ID.")
    var googlepayMerchantId: String?
    @Option(
        name: .long,
        help:
            "Google's root signing keys: a file, or an https URL (Google's TEST or PRODUCTION list) fetched, kept in the store and refreshed as its Cache-Control says."
    ) var googlepayRootKeys: String?
    @Option(name: .long, help: "Apple Pay signing-time window in seconds (default 300).") var maxAge: Int?
    @Option(name: .long, help: "Allowed clock skew in seconds (default 60).") var clockSkew: Int?
    @Option(
        name: .long,
        help:
            "Documents one DeviceResponse may hold in POST /v1/mdoc/verify, 1-16 (default 4); more are refused before any signature is verified. Answers to requests hold one per docType asked for."
    ) var maxDocuments: Int?
    @Option(name: .long, help: "Largest request body in bytes, 1024-67108864 (default 1048576); a larger one is answered 413.")
    var bodyLimit: Int?
    @Option(name: .long, help: "Seconds a created request (in-app or web) stays usable, 10-86400 (default 600).") var requestLifetime: Int?
    @Option(
        name: .long,
        help:
            "MSO revocation lists: required (default: a list that cannot be obtained or trusted makes the answer 503), best-effort (a warning) or off."
    ) var revocation: String?
    @Option(name: .long, help: "A revocation list file, used for its sub claim before any fetch (offline deployments). Repeatable.")
    var revocationList: [String] = []
    @Option(
        name: .long,
        help:
            "A VICAL (file, or https URL re-fetched daily and at its nextUpdate): once verified, its IACA roots are trusted for their docTypes. Repeatable, paired with --vical-trust."
    ) var vical: [String] = []
    @Option(name: .long, help: "The anchor (PEM or DER) the VICAL signer of the --vical at the same position must chain to. Repeatable.")
    var vicalTrust: [String] = []
    @Option(
        name: .long,
        help: "Seconds a revocation-list or VICAL fetch may take in all: connecting, headers and body (default 10, 1...300).")
    var fetchTimeout: Int?
    @Option(
        name: .long,
        help:
            "An address or CIDR range (e.g. 10.20.0.0/16, fd00::/8) revocation-list and VICAL fetches may connect to although it is not public (by default private, link-local, unique-local, loopback unless named literally, multicast and reserved addresses are refused). Repeatable or comma-separated."
    ) var fetchAllow: [String] = []
    @Option(
        name: .long,
        help:
            "How far past its next update (a VICAL's nextUpdate, a key list's max-age) a trust source may be before it is stale: a duration such as 7d or 36h (default 7d)."
    ) var trustStaleAfter: String?
    @Option(
        name: .long,
        help:
            "What a stale trust source means: warn (default: still used, logged daily, shown in /v1/trust and serve --check) or fail (its roots stop anchoring)."
    ) var trustStale: String?
    @Option(
        name: .long,
        help: "Warn (in the log at start and daily, and in serve --check) about own certificates expiring within this many days (default 30).")
    var certificateWarningDays: Int?
    @Option(
        name: .long,
        help:
            "Sign a verification receipt (ES256 JWS, no personal data) into every verification answer with this P-256 key (PEM); its public key is served at /v1/receipts/jwks."
    ) var receiptKey: String?
    @Option(name: .long, help: "The certificate of --receipt-key, then its intermediates (PEM, leaf first): the receipts' x5c.")
    var receiptCert: String?
    @Option(
        name: .long,
        help:
            "A receipt key rotated out (its PEM private key or certificate) whose receipts should still verify: listed in /v1/receipts/jwks beside --receipt-key. Repeatable; remove it and reload to withdraw it."
    ) var receiptPreviousKey: [String] = []
    @Option(name: .long, help: "The issuer (iss) receipts name, a URI such as https://verifier.example.com.") var receiptIssuer: String?
    @Option(
        name: .long,
        help: "off (default) or keep: keep every receipt issued in the store, for GET /v1/receipts and /v1/receipts/{id} (needs --receipt-key).")
    var receipts: String?
    @Option(
        name: .long, help: "Days a kept receipt is kept in the store (default 400, 1-3650).")
    var receiptRetention: Int?
    @Option(
        name: .long,
        help:
            "With --receipts keep: receipts of one client address (IPv6: its /64) kept per day by this instance (default 1000); further answers carry their receipt, not kept."
    ) var maxClientKeptReceipts: Int?

    /// The settings of these flags, the environment and `--config`, as `serve` resolves them; a
    /// setting that does not resolve is unreadable input (exit 2).
    func settings() throws -> ServerSettings {
        do { return try ServerSettings.resolve(flags: flags, environment: ProcessInfo.processInfo.environment, configFile: config) } catch {
            throw CLIInputError("\(error)")
        }
    }

    /// The flags given, by setting name (``ServerSettings/resolve(flags:environment:configFile:)``).
    var flags: ServerSettings.Source {
        var flags: ServerSettings.Source = [:]
        func set(_ key: String, _ value: String?) { if let value { flags[key] = [value] } }
        func set(_ key: String, _ values: [String]) { if !values.isEmpty { flags[key] = values } }
        set("host", host)
        set("port", port.map(String.init))
        set("dataDir", dataDir)
        set("store", store)
        set("postgresUrl", postgresUrl)
        set("identityKeys", identityKey)
        set("identityCerts", identityCert)
        set("identity", identity)
        if allowOpenApi { set("allowOpenApi", "true") }
        set("logFormat", logFormat)
        set("merchantId", merchantId)
        set("teamId", teamId)
        set("trust", trust)
        set("trustDocTypes", trustDoctype)
        set("webOrigins", webOrigin)
        set("webKeys", webKey)
        set("uiListen", uiListen)
        set("uiTokenFile", uiTokenFile)
        set("apiTokenFile", apiTokenFile)
        set("readerKey", readerKey)
        set("readerCerts", readerCert)
        if readerAuthAll { set("readerAuthAll", "true") }
        if explainDeviceFailures { set("explainDeviceFailures", "true") }
        set("requestSigningKey", requestSigningKey)
        set("requestSigningCerts", requestSigningCert)
        set("openid4vpClientId", openid4vpClientId)
        set("webProtocols", webProtocols.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } } ?? [])
        set("webDocTypes", webDoctypes)
        set("maxRequestElements", maxRequestElements.map(String.init))
        set("maxRequestSessionBytes", maxRequestSessionBytes.map(String.init))
        set("requestRate", requestRate.map(String.init))
        set("idempotencyWindow", idempotencyWindow.map(String.init))
        set("maxOutstandingRequests", maxOutstandingRequests.map(String.init))
        set("maxConcurrentVerifications", maxConcurrentVerifications.map(String.init))
        set("maxClientVerifications", maxClientVerifications.map(String.init))
        set("maxClientOutstandingRequests", maxClientOutstandingRequests.map(String.init))
        set("verifyRate", verifyRate.map(String.init))
        set("bodyTimeout", bodyTimeout.map(String.init))
        set("headerTimeout", headerTimeout.map(String.init))
        set("idleTimeout", idleTimeout.map(String.init))
        set("maxClientConnections", maxClientConnections.map(String.init))
        set("applepayCerts", applepayCert)
        set("applepayKeys", applepayKey)
        set("applepayRoot", applepayRoot)
        set("applepayExpectations", applepayExpectations)
        set("applepayIdentityCert", applepayIdentityCert)
        set("applepayIdentityKey", applepayIdentityKey)
        set("applepayMerchantId", applepayMerchantId)
        set("applepayDomain", applepayDomain)
        set("applepayDisplayName", applepayDisplayName)
        set("applepayValidationHosts", applepayValidationHosts)
        set("applepayValidationCa", applepayValidationCa)
        set("googlepayKeys", googlepayKey)
        set("googlepayMerchantId", googlepayMerchantId)
        set("googlepayRootKeys", googlepayRootKeys)
        set("maxAge", maxAge.map(String.init))
        set("clockSkew", clockSkew.map(String.init))
        set("maxDocuments", maxDocuments.map(String.init))
        set("bodyLimit", bodyLimit.map(String.init))
        set("requestLifetime", requestLifetime.map(String.init))
        set("revocation", revocation)
        set("revocationLists", revocationList)
        set("vicals", vical)
        set("vicalTrust", vicalTrust)
        set("fetchTimeout", fetchTimeout.map(String.init))
        set("fetchAllow", fetchAllow)
        set("trustStaleAfter", trustStaleAfter)
        set("trustStale", trustStale)
        set("certificateWarningDays", certificateWarningDays.map(String.init))
        set("receiptKey", receiptKey)
        set("receiptCert", receiptCert)
        set("receiptPreviousKeys", receiptPreviousKey)
        set("receiptIssuer", receiptIssuer)
        set("receipts", receipts)
        set("receiptRetention", receiptRetention.map(String.init))
        set("maxClientKeptReceipts", maxClientKeptReceipts.map(String.init))
        return flags
    }
}
