import ApplePayVerifier
import Crypto
import Foundation
import GooglePayVerifier
import Logging
import MdocVerifier
import NIOCore
import NIOPosix
import ReplayStorePostgres
import ReplayStoreSQLite
import SwiftASN1
import TrustDocuments
import VerificationCore
import VerificationReceipts
import WalletEncoding
import WalletIdentity
import WalletJSON
import WebIdentity
import X509

/// One finding of `serve --check`: a check's name, its status and what to do.
public struct PreflightFinding: Sendable, Hashable {
    /// How a check came out.
    public enum Status: String, Sendable, Hashable {
        /// Ready.
        case ok
        /// Works, but needs attention (a certificate expiring soon, a development key).
        case warn
        /// `serve` would not start, or would not work as configured.
        case fail
    }

    /// The check's name, such as `applepay-key` or `store`.
    public let check: String
    /// How it came out.
    public let status: Status
    /// What was found and, when not ok, what to do. Never key material.
    public let message: String

    /// A finding.
    public init(check: String, status: Status, message: String) {
        self.check = check
        self.status = status
        self.message = message
    }
}

/// `serve --check`: loads everything `serve` would from `settings` without binding a port, and
/// checks it: each key against its certificate, each certificate's validity, the trust roots and
/// VICALs, a web request of each configured protocol built, signed and verified back as a wallet
/// would, the store (a throwaway row written and deleted), and the token files' permissions.
public enum ServicePreflight {
    /// Runs every check at `now`; never throws: each problem is a finding.
    ///
    /// Development stand-ins (a generated identity or web key, development merchant values, no IACA
    /// root, a test Apple Pay root, Google's TEST keys, the memory store) are failures: they must
    /// not ship. With `development`, for a developer's machine, they are warnings. What `serve`
    /// itself refuses (an open API, a secret others may read) fails either way.
    public static func run(settings: ServerSettings, logger: Logger, now: Date = Date(), development: Bool = false) async -> [PreflightFinding] {
        var findings: [PreflightFinding] = []
        func add(_ check: String, _ status: PreflightFinding.Status, _ message: String) {
            findings.append(PreflightFinding(check: check, status: status, message: message))
        }
        // A stand-in: what to do in production, then why a developer's machine may keep it.
        let standIn: PreflightFinding.Status = development ? .warn : .fail
        func standInAdvice(_ advice: String) -> String {
            development ? advice : advice + " (a development stand-in: serve --check --development allows it on a developer's machine)"
        }
        for refusal in startRefusals(settings: settings) { add(refusal.check, .fail, refusal.message) }
        if let access = apiAccess(settings: settings) { add("api-access", .ok, access) }
        let warningDays = settings.certificateWarningDays
        func validity(_ certificate: Certificate, _ check: String) {
            let subject = "\(certificate.subject)"
            if certificate.notValidAfter < now {
                add(check, .fail, "\(subject) expired on \(RFC3339.format(certificate.notValidAfter)); configure a renewed certificate")
            } else if certificate.notValidBefore > now {
                add(check, .fail, "\(subject) is not valid before \(RFC3339.format(certificate.notValidBefore)); check the clock or the certificate")
            } else if certificate.notValidAfter < now.addingTimeInterval(TimeInterval(warningDays) * 86_400) {
                let days = Int(certificate.notValidAfter.timeIntervalSince(now) / 86_400)
                add(
                    check, .warn,
                    "\(subject) expires on \(RFC3339.format(certificate.notValidAfter)), in \(days) day(s); renew it before then")
            } else {
                add(check, .ok, "\(subject) is valid until \(RFC3339.format(certificate.notValidAfter))")
            }
        }

        // Keys of the flows, and the public half of each configured one, for the key-reuse check.
        var configuredKeys: [(flag: String, point: [UInt8])] = []
        func note(_ flag: String, _ point: some Sequence<UInt8>) { configuredKeys.append((flag, Array(point))) }
        if !settings.identityFlow {
            add("identity", .ok, "--identity off: /v1/identity/requests and /v1/identity/verify answer 501 (not configured)")
        } else {
            do {
                let ring = try ServiceMaterial.identityKeys(settings: settings, logger: logger)
                if !settings.identityKeys.isEmpty { for key in ring.keys { note("--identity-key", key.privateKey.publicKey.x963Representation) } }
                if settings.identityKeys.isEmpty {
                    add(
                        "identity-keys", standIn,
                        standInAdvice(
                            "no --identity-key: a key generated in \(settings.dataDirectory) stands in; configure the key of your Apple identity encryption certificate (keys new --for identity), or --identity off when you do not verify identity in apps"
                        ))
                } else {
                    add("identity-keys", .ok, "\(ring.keys.count) identity key(s) loaded")
                    do {
                        for certificate in try ServiceMaterial.identityCertificates(settings: settings, ring: ring) {
                            validity(certificate, "certificate identity")
                        }
                    } catch {
                        add("identity-cert", .fail, error.description)
                    }
                }
            } catch {
                add("identity-keys", .fail, "\(error)")
            }
            if settings.merchantID == nil || settings.teamID == nil {
                add(
                    "identity-merchant", standIn,
                    standInAdvice(
                        "no --merchant-id/--team-id: development values stand in; name the merchant identifier of your identity requests and your app's team identifier"
                    ))
            }
        }
        var webKeys: [P256.KeyAgreement.PrivateKey] = []
        if !settings.webOrigins.isEmpty || !settings.webKeys.isEmpty {
            do {
                webKeys = try ServiceMaterial.webKeys(settings: settings, logger: logger)
                if settings.webKeys.isEmpty {
                    add(
                        "web-keys", standIn,
                        standInAdvice(
                            "no --web-key: a key generated in \(settings.dataDirectory) stands in; configure a web key of your own (keys new --for web-key)"
                        ))
                } else {
                    add("web-keys", .ok, "\(webKeys.count) web key(s) loaded")
                }
            } catch {
                add("web-keys", .fail, "\(error)")
            }
        }

        // Apple Pay: each key against its certificate, each certificate's validity.
        var applePayKeys: [MerchantKey] = []
        for (certificatePath, keyPath) in zip(settings.applePayCertificates, settings.applePayKeys) {
            do {
                let key = try ServiceMaterial.applePayKey(certificate: certificatePath, key: keyPath, logger: logger)
                applePayKeys.append(key)
                add(
                    "applepay-key", .ok,
                    "--applepay-key \(keyPath) belongs to --applepay-cert \(certificatePath) (publicKeyHash \(key.publicKeyHash))")
                validity(key.certificate, "certificate applePay")
            } catch {
                add("applepay-key", .fail, "\(error); give each --applepay-cert with the private key it was issued for")
            }
        }
        if !settings.applePayCertificates.isEmpty, settings.applePayRoot != nil {
            do {
                _ = try ServiceMaterial.applePayRoot(settings: settings, logger: logger)
                add("applepay-root", standIn, standInAdvice("--applepay-root replaces Apple Root CA - G3 (tests only); leave it out in production"))
            } catch {
                add("applepay-root", .fail, "\(error)")
            }
        }

        // Apple Pay merchant validation: the Merchant Identity certificate with its key, its validity,
        // and the operator's replacements of Apple's hosts and of the system's roots.
        if let certificatePath = settings.applePayIdentityCertificate, let keyPath = settings.applePayIdentityKey {
            do {
                if let identity = try ServiceMaterial.applePayIdentity(settings: settings, logger: logger) {
                    add(
                        "applepay-identity", .ok,
                        "--applepay-identity-key \(keyPath) belongs to --applepay-identity-cert \(certificatePath) (merchantIdentifier \(identity.merchantIdentifier)); sessions are asked for \(settings.applePayDomain ?? "")"
                    )
                    validity(identity.merchantKey.certificate, "certificate applePayMerchantIdentity")
                    do {
                        try identity.checkTLS(trustRoots: try ServiceMaterial.applePayValidationRoots(settings: settings, logger: logger))
                        add("applepay-identity-tls", .ok, "the TLS client configuration of merchant validation builds with this certificate and key")
                    } catch {
                        add("applepay-identity-tls", .fail, "\(error); every session would fail (502)")
                    }
                }
            } catch {
                add("applepay-identity", .fail, "\(error); give --applepay-identity-cert with the private key it was issued for")
            }
            if settings.applePayValidationCA != nil {
                do {
                    _ = try ServiceMaterial.applePayValidationRoots(settings: settings, logger: logger)
                    add(
                        "applepay-validation-ca", .warn,
                        "--applepay-validation-ca replaces the system's roots for the merchant-validation server; leave it out in production")
                } catch {
                    add("applepay-validation-ca", .fail, "\(error)")
                }
            }
            if let hosts = settings.applePayValidationHosts {
                // The Merchant Identity certificate is presented to these hosts: none may be on this
                // machine's own network.
                for entry in hosts {
                    let host = entry.split(separator: ":").first.map(String.init) ?? entry
                    let classes = Set((HostAddresses.resolve(host) ?? []).map(FetchAddressPolicy.classify)).subtracting([.global])
                    if !classes.isEmpty {
                        add(
                            "applepay-validation-hosts", standIn,
                            standInAdvice(
                                "--applepay-validation-hosts \(entry) is a \(classes.map(\.rawValue).sorted().joined(separator: ", ")) address, not Apple's: merchant validation would present the Merchant Identity certificate there"
                            ))
                    }
                }
                add(
                    "applepay-validation-hosts", .warn,
                    "--applepay-validation-hosts replaces Apple's merchant-validation hosts with \(hosts.joined(separator: ", ")); leave it out in production"
                )
            }
        }

        // Google Pay: each merchant key, and the root keys (a file read, a URL fetched once, nothing kept).
        for path in settings.googlePayKeys {
            do {
                let key = try ServiceMaterial.googlePayKey(path, logger: logger)
                if let point = Base64.decodeStrict(key.publicKeyBase64) { note("--googlepay-key", point) }
                add("googlepay-key", .ok, "--googlepay-key \(path): P-256 key, public half \(key.publicKeyBase64)")
            } catch {
                add("googlepay-key", .fail, "\(error)")
            }
        }
        if let source = settings.googlePayRootKeys {
            let roots: GooglePayRootKeys?
            if TrustDocumentFetchFailure.isURL(source) {
                let transport = HTTPTrustDocumentTransport(
                    timeout: TimeInterval(settings.fetchTimeout), addressPolicy: FetchAddressPolicy(allowed: settings.fetchAllow))
                switch await GooglePayRootKeySource(transport: transport).fetch(source, store: nil, now: now) {
                case .success(let copy): roots = copy.keys
                case .failure(let failure):
                    roots = nil
                    add(
                        "googlepay-root-keys", .fail,
                        "\(source): \(failure); check the URL and the network path (--fetch-allow, --fetch-timeout \(settings.fetchTimeout)); a running service would use the copy in its store"
                    )
                }
            } else {
                do { roots = try ServiceMaterial.googlePayRootKeysFile(settings: settings) } catch {
                    roots = nil
                    add("googlepay-root-keys", .fail, "\(error)")
                }
            }
            if GooglePayRootKeySource.isTestList(source) {
                add(
                    "googlepay-root-keys", standIn,
                    standInAdvice("\(source) is Google's TEST key list: its tokens are not payments; use the PRODUCTION list"))
            }
            if let roots {
                let usable = roots.usableForECv2(at: now).count
                add(
                    "googlepay-root-keys", usable > 0 ? .ok : .fail,
                    usable > 0
                        ? "\(source): \(GooglePayRootKeySource.summary(roots)), \(usable) usable for ECv2 now"
                        : "\(source): no ECv2 key that is unexpired now; every token would fail googlepay.intermediateKey.signature")
            }
        }

        // Signing keys of web requests.
        var readerAuth: ReaderAuthSigner?
        var ownSigning: ReaderAuthSigner?
        for (label, keyPath, certificates, keyFlag, certificateFlag) in [
            ("reader-key", settings.readerKey, settings.readerCertificates, "--reader-key", "--reader-cert"),
            (
                "request-signing-key", settings.requestSigningKey, settings.requestSigningCertificates, "--request-signing-key",
                "--request-signing-cert"
            ),
        ] {
            guard let keyPath else { continue }
            do {
                let signer = try ServiceMaterial.signer(
                    key: keyPath, certificates: certificates, keyFlag: keyFlag, certificateFlag: certificateFlag, logger: logger)
                add(label, .ok, "\(keyFlag) \(keyPath) belongs to the leaf of \(certificateFlag) (\(signer.leaf.subject))")
                for (index, der) in signer.chain.enumerated() {
                    guard let certificate = try? Certificate(derEncoded: der) else { continue }
                    validity(
                        certificate,
                        "certificate \(label == "reader-key" ? "readerAuthentication" : "requestSigning")\(index == 0 ? "" : " chain[\(index)]")")
                }
                if label == "reader-key" {
                    readerAuth = signer
                    let problems = signer.profileViolations(at: now)
                    if !problems.isEmpty {
                        add(
                            "reader-profile", .warn,
                            "the reader certificate breaks the ISO/IEC 18013-5 Annex B profile (\(problems.joined(separator: "; "))); wallets may refuse it"
                        )
                    }
                } else {
                    ownSigning = signer
                }
            } catch {
                add(label, .fail, "\(error)")
            }
        }

        // The receipt key and its certificate.
        if let keyPath = settings.receiptKey {
            do {
                if let signer = try ServiceMaterial.receiptSigner(settings: settings, logger: logger) {
                    note("--receipt-key", signer.publicKey.x963Representation)
                    if let certificatePath = settings.receiptCertificate {
                        add("receipt-key", .ok, "--receipt-key \(keyPath) belongs to --receipt-cert \(certificatePath) (kid \(signer.keyID))")
                        for (index, der) in signer.certificateChain.enumerated() {
                            guard let certificate = try? Certificate(derEncoded: der) else { continue }
                            validity(certificate, "certificate receipt\(index == 0 ? "" : " chain[\(index)]")")
                        }
                    } else {
                        add(
                            "receipt-key", .ok,
                            "--receipt-key \(keyPath) signs receipts (kid \(signer.keyID)); without --receipt-cert they carry no x5c")
                    }
                }
            } catch {
                add("receipt-key", .fail, "\(error)")
            }
        }

        if let issuer = settings.receiptIssuer,
            URLComponents(string: issuer)?.scheme?.lowercased() != "https" || URLComponents(string: issuer)?.host == nil
        {
            add(
                "receipt-issuer", .fail,
                "--receipt-issuer \(issuer) is not an https URL: a receipt's iss names the service whose /v1/receipts/jwks verifies it (https://verifier.example.com)"
            )
        }
        if !settings.webKeys.isEmpty { for key in webKeys { note("--web-key", key.publicKey.x963Representation) } }
        for key in applePayKeys {
            if let point = P256.Signing.PublicKey(key.certificate.publicKey)?.x963Representation { note("--applepay-key", point) }
        }
        for finding in keyReuse(configuredKeys) { add("key-reuse", .fail, finding) }

        // Trust: IACA roots and VICALs.
        let fetcher = HTTPTrustDocumentTransport(
            timeout: TimeInterval(settings.fetchTimeout), addressPolicy: FetchAddressPolicy(allowed: settings.fetchAllow))
        do {
            let entries = try ServiceMaterial.trustEntries(trust: settings.trust, scoped: settings.trustDocTypes)
            var trust = try ServiceMaterial.trustStore(entries: entries)
            // Pinned URLs: fetched once and checked against their pin (nothing kept).
            do {
                let statuses = try await TrustRootEntry.loadURLs(
                    entries, into: &trust, source: PinnedRootSource(transport: fetcher), documentStore: nil, now: now)
                for status in statuses {
                    if let problem = status.problem {
                        add(
                            "trust \(status.location)", .fail,
                            "\(problem); the service would start without this root unless its store kept a copy — check the URL and the network path (--fetch-allow, --fetch-timeout \(settings.fetchTimeout))"
                        )
                    } else {
                        add("trust \(status.location)", .ok, "fetched; its SHA-256 is the pin, a self-signed CA certificate")
                    }
                }
            } catch {
                add("trust", .fail, "\(error.description)")
            }
            let expired = trust.anchors.filter { $0.certificate.notValidAfter < now }
            if trust.anchors.isEmpty && settings.vicals.isEmpty && !entries.contains(where: { $0.pinned != nil }) {
                if settings.identityFlow || !settings.webOrigins.isEmpty {
                    add(
                        "trust", standIn,
                        standInAdvice("no IACA root (--trust, --trust-doctype, --vical): every identity response would fail mdoc.issuer.chain"))
                } else {
                    add("trust", .ok, "no IACA root; identity (--identity off) and the web (no --web-origin) are off")
                }
            } else if !expired.isEmpty {
                add(
                    "trust", .warn,
                    "\(trust.anchors.count) IACA root(s); expired: \(expired.map { "\($0.certificate.subject)" }.joined(separator: "; ")) — replace them with current roots"
                )
            } else {
                add("trust", .ok, "\(trust.anchors.count) IACA root(s) loaded")
            }
        } catch {
            add("trust", .fail, "\(error)")
        }
        if !settings.vicals.isEmpty {
            let sources = VICALSources(copies: VICALCopies(), transport: fetcher, store: nil)
            for (source, anchorPath) in zip(settings.vicals, settings.vicalTrust) {
                let check = "vical \(source)"
                let anchors: [Certificate]
                do { anchors = try VICALSources.anchors(path: anchorPath) } catch {
                    add(check, .fail, "\(error.description)")
                    continue
                }
                let loader = VICALLoader(anchors: anchors, allowOutdated: true, clockSkew: .seconds(settings.clockSkew))
                var result: VICALLoadResult?
                if VICALSources.isURL(source) {
                    var failures: [String] = []
                    result = await sources.load(
                        url: source, loader: loader, at: now,
                        log: { event in if case .error(let message) = event { failures.append(message) } })?.result
                    if result == nil {
                        add(
                            check, .fail,
                            "\(failures.joined(separator: "; ")); check the URL, the network path (--fetch-allow, --fetch-timeout \(settings.fetchTimeout)) and --vical-trust"
                        )
                    }
                } else {
                    do {
                        let loaded = await loader.load(bytes: try await sources.bytes(of: source), at: now)
                        if loaded.trusted {
                            result = loaded
                        } else {
                            add(check, .fail, "does not verify against \(anchorPath): \(VICALSources.reasons(loaded))")
                        }
                    } catch {
                        add(check, .fail, "\(error.description)")
                    }
                }
                guard let result, let vical = result.vical else { continue }
                let status = TrustSourceStatus(kind: .vical, location: source, roots: result.roots.count, nextUpdate: vical.nextUpdate)
                if let stale = status.staleness(at: now, margin: settings.trustStaleAfter) {
                    add(
                        check, settings.trustStale == .fail ? .fail : .warn,
                        settings.trustStale == .fail
                            ? "\(stale): its roots would not anchor (--trust-stale fail); fetch a current list"
                            : "\(stale): its \(result.roots.count) IACA root(s) are still used (--trust-stale warn); fetch a current list")
                } else {
                    add(
                        check, .ok,
                        "\(VICALSources.isURL(source) ? "fetched and verified" : "verified") against \(anchorPath): \(result.roots.count) IACA root(s)"
                    )
                }
            }
        }
        do {
            _ = try ServiceMaterial.revocationLists(settings: settings)
            if !settings.revocationLists.isEmpty, settings.revocation != .off {
                add("revocation-lists", .ok, "\(settings.revocationLists.count) revocation list file(s) loaded")
            }
        } catch {
            add("revocation-lists", .fail, "\(error)")
        }

        // Web requests, built and signed as the service does, verified as a wallet does.
        await webRequests(
            settings: settings, readerAuth: readerAuth, ownSigning: ownSigning, webKey: webKeys.first, now: now, logger: logger, add: add)

        // The store, then the token files.
        let store = await storeCheck(settings: settings, now: now, development: development)
        add("store", store.status, store.message)
        for (check, flag, path) in [
            ("api-token-file", "--api-token-file", settings.apiTokenFile), ("ui-token-file", "--ui-token-file", settings.uiTokenFile),
        ] {
            guard let path else { continue }
            let finding = tokenFileCheck(flag: flag, path: path, logger: logger)
            add(check, finding.status, finding.message)
        }
        return findings
    }

    /// One key for two purposes among the configured keys (the receipt key also the web, Google Pay,
    /// Apple Pay or identity key; a web key also an identity key), as loaded by the other checks: a
    /// finding naming both flags, since a key compromised or rotated for one purpose then is for the other.
    static func keyReuse(_ keys: [(flag: String, point: [UInt8])]) -> [String] {
        var findings: [String] = []
        var reported = Set<String>()
        for (index, first) in keys.enumerated() {
            for second in keys[(index + 1)...] where first.flag != second.flag && first.point == second.point {
                let pair = [first.flag, second.flag].sorted().joined(separator: " and ")
                guard reported.insert(pair).inserted else { continue }
                findings.append(
                    "\(pair) are the same key: one key, two purposes — a key leaked or rotated for one is for the other; make a key for each (keys new)"
                )
            }
        }
        return findings
    }

    /// What `serve` refuses to start with whatever else is configured, each as a check name and what
    /// to do: an API listening beyond loopback without a token, and receipts kept without one
    /// (unless `--allow-open-api` says callers are authenticated in front of the service).
    public static func startRefusals(settings: ServerSettings) -> [(check: String, message: String)] {
        guard settings.apiTokenFile == nil, !settings.allowOpenAPI else { return [] }
        var refusals: [(check: String, message: String)] = []
        if !LoopbackHost.isLoopback(settings.host) {
            refusals.append(
                (
                    "api-access",
                    "--host \(settings.host) listens beyond this machine and no --api-token-file protects /v1 (every verification, /v1/trust and kept receipts would be open to the network): give --api-token-file FILE, or --allow-open-api when a proxy or gateway in front authenticates callers"
                ))
        }
        if settings.receipts == .keep {
            refusals.append(
                (
                    "receipts",
                    "--receipts keep without --api-token-file: anyone who can reach the service could list every client's receipts (GET /v1/receipts); give --api-token-file FILE, or --allow-open-api when a proxy or gateway in front authenticates callers"
                ))
        }
        return refusals
    }

    /// How the API is protected, for `serve --check` and the start log; nil when `serve` refuses the configuration.
    static func apiAccess(settings: ServerSettings) -> String? {
        if let file = settings.apiTokenFile { return "every /v1 request must carry the token of --api-token-file \(file)" }
        if settings.allowOpenAPI {
            return "/v1 takes no token (--allow-open-api): the proxy or gateway in front must authenticate every caller"
        }
        guard LoopbackHost.isLoopback(settings.host) else { return nil }
        return "/v1 takes no token and listens on \(settings.host) only (loopback); give --api-token-file before listening beyond this machine"
    }

    /// For each protocol a web request offers by default: a request built and signed as the service
    /// builds it, then verified back with what a wallet runs.
    static func webRequests(
        settings: ServerSettings, readerAuth: ReaderAuthSigner?, ownSigning: ReaderAuthSigner?, webKey: P256.KeyAgreement.PrivateKey?, now: Date,
        logger: Logger, add: (String, PreflightFinding.Status, String) -> Void
    ) async {
        guard !settings.webOrigins.isEmpty else {
            add(
                "web-origin", .warn,
                "no --web-origin: /v1/web/requests and /v1/web/verify answer 501 (not configured); name the origins of your pages")
            return
        }
        guard let webKey else { return }
        let signing: WebRequestSigning?
        do {
            signing = try WebRequestSigning.make(own: ownSigning, reader: readerAuth, settings: settings, logger: logger, now: now)
        } catch {
            add("web-request openid4vp", .fail, "\(error)")
            return
        }
        let protocols = settings.webProtocols ?? WebRequestProtocol.defaults(signing: signing != nil)
        let docType = settings.effectiveWebDocTypes?.docTypes.sorted().first ?? "org.iso.18013.5.1.mDL"
        let request = WebDocumentRequest(docType: docType, elements: [.init(nameSpace: "org.iso.18013.5.1", identifier: "age_over_18")])
        for offered in protocols {
            let check = "web-request \(offered.rawValue)"
            switch offered {
            case .annexC:
                guard let readerAuth else {
                    add(check, .ok, "requests go unsigned (no --reader-key); wallets show no verifier identity for them")
                    continue
                }
                // The wallet's side: the reader signature over this request's transcript, its chain
                // to the last certificate configured (pinned, as a wallet trusting that root would).
                guard let anchor = readerAuth.chain.last.flatMap({ try? Certificate(derEncoded: $0) }) else { continue }
                var problems: [String] = []
                for origin in settings.webOrigins {
                    do {
                        let presentation = try WebPresentationRequest(
                            request: request, origin: origin, nonce: Array(SHA256.hash(data: Array(origin.utf8))),
                            recipientPublicKey: webKey.publicKey, readerAuth: readerAuth, readerAuthAll: settings.readerAuthAll)
                        let report = await ReaderAuthVerifier(roots: [anchor]).verify(
                            deviceRequest: presentation.deviceRequest, transcript: presentation.sessionTranscript, context: .at(now))
                        for result in report.checks where result.status == .failed || result.status == .error {
                            problems.append("\(origin): \(result.id.rawValue) \(result.reason.rawValue): \(result.message)")
                        }
                    } catch {
                        problems.append("\(origin): the request could not be built: \(error)")
                    }
                }
                if problems.isEmpty {
                    add(
                        check, .ok, "signed by \(readerAuth.leaf.subject); its readerAuth and chain verify for \(settings.webOrigins.count) origin(s)"
                    )
                } else {
                    add(check, .fail, problems.joined(separator: "; ") + "; check --reader-key, --reader-cert (leaf first, then intermediates)")
                }
            case .openID4VPSigned:
                guard let signing else {
                    add(check, .fail, "openid4vp-v1-signed needs a request-signing key: --request-signing-key and --request-signing-cert")
                    continue
                }
                var problems: [String] = []
                for origin in settings.webOrigins {
                    do {
                        let built = try OpenID4VPRequest(
                            requests: [request], origin: origin, recipientPublicKey: webKey.publicKey, signer: signing.requestSigner)
                        guard let data = (try? StrictJSON.parse(Array(built.data.utf8)))?.object, let jws = data["request"]?.string else {
                            problems.append("\(origin): the signed request carries no request JWS")
                            continue
                        }
                        let verified = try OpenID4VPSignedRequestVerifier.verify(jws: jws, origins: [origin])
                        if verified.clientID != signing.clientID {
                            problems.append("\(origin): client_id \(verified.clientID) is not the configured \(signing.clientID)")
                        }
                    } catch {
                        problems.append("\(origin): \(error)")
                    }
                }
                if problems.isEmpty {
                    add(
                        check, .ok,
                        "signed as \(signing.clientID); the JWS verifies with its x5c leaf and expected_origins holds \(settings.webOrigins.count) origin(s)"
                    )
                } else {
                    add(
                        check, .fail,
                        problems.joined(separator: "; ") + "; check --request-signing-key, --request-signing-cert, --openid4vp-client-id")
                }
            case .openID4VPUnsigned:
                do {
                    for origin in settings.webOrigins {
                        _ = try OpenID4VPRequest(requests: [request], origin: origin, recipientPublicKey: webKey.publicKey)
                    }
                    add(check, .ok, "unsigned requests build for \(settings.webOrigins.count) origin(s); wallets see no verifier identity for them")
                } catch {
                    add(check, .fail, "\(error)")
                }
            }
        }
    }

    /// Opens the store (creating and migrating its tables), writes a throwaway row through the
    /// replay-store API and deletes it again.
    static func storeCheck(settings: ServerSettings, now: Date, development: Bool = false) async -> (status: PreflightFinding.Status, message: String)
    {
        // A row already expired: purging at `now` deletes it, and nothing a running service keeps.
        func roundTrip(_ store: any ReplayStore) async throws -> Bool {
            let key = "serve-check-" + Hex.encode(Array(SHA256.hash(data: Array(UUID().uuidString.utf8))))
            _ = try await store.recordFirstUse(
                namespace: "preflight", key: key, expiresAt: now.addingTimeInterval(-60), now: now.addingTimeInterval(-120), idempotency: nil)
            return try await store.purgeExpired(now: now) >= 1
        }
        switch settings.store {
        case .memory:
            return (
                development ? .warn : .fail,
                "--store memory: nonces and transaction ids are lost on restart, so a response could be replayed after one; use sqlite or postgres"
                    + (development ? "" : " (a development stand-in: serve --check --development allows it on a developer's machine)")
            )
        case .sqlite:
            let store: SQLiteReplayStore
            do { store = try await SQLiteReplayStore.open(dataDirectory: settings.dataDirectory) } catch {
                return (.fail, "the embedded store in \(settings.dataDirectory) cannot be opened: \(error); check that the directory is writable")
            }
            let outcome: Result<Bool, any Error>
            do { outcome = .success(try await roundTrip(store)) } catch { outcome = .failure(error) }
            await store.close()
            switch outcome {
            case .success(true): return (.ok, "embedded SQLite at \(store.path): opened, migrated, a row written and deleted")
            case .success(false): return (.fail, "the embedded store at \(store.path) did not delete the row it wrote; check the data directory")
            case .failure(let error): return (.fail, "the embedded store at \(store.path) cannot be written: \(error); check the file's permissions")
            }
        case .postgres:
            let deadline = Duration.seconds(settings.fetchTimeout)
            if let unreachable = await tcpProblem(url: settings.postgresURL ?? "", timeout: deadline) {
                return (
                    .fail, "PostgreSQL cannot be reached: \(unreachable); check --postgres-url, that the server runs and that this host may connect"
                )
            }
            do {
                let store = try PostgresReplayStore(url: settings.postgresURL ?? "")
                let outcome = try await withThrowingTaskGroup(of: Bool?.self) { group in
                    group.addTask {
                        await store.run()
                        return nil
                    }
                    group.addTask {
                        try await store.createTables()
                        return try await roundTrip(store)
                    }
                    group.addTask {
                        try await Task.sleep(for: deadline)
                        throw SettingsError("no answer within \(settings.fetchTimeout) s (--fetch-timeout)")
                    }
                    defer { group.cancelAll() }
                    while let next = try await group.next() {
                        if let done = next { return done }
                    }
                    return false
                }
                guard outcome else { return (.fail, "PostgreSQL did not delete the row it wrote; check the user's rights on its tables") }
                return (.ok, "PostgreSQL: reachable, tables created or migrated, a row written and deleted")
            } catch {
                return (.fail, "PostgreSQL cannot be used: \(error); check --postgres-url, that the server runs and that this host may connect")
            }
        }
    }

    /// Why a TCP connection to the host and port of a `postgres://` URL fails (within `timeout`), or
    /// nil when it opens: the pool itself only says that no connection came.
    static func tcpProblem(url: String, timeout: Duration) async -> String? {
        guard let components = URLComponents(string: url), let host = components.host, !host.isEmpty else { return nil }
        let port = components.port ?? 5432
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(timeout.components.seconds))
                .connect(host: host, port: port).get()
            try? await channel.close()
            return nil
        } catch let error as NIOConnectionError {
            var causes: [String] = []
            if let dns = error.dnsAError { causes.append("\(host) does not resolve (\(dns))") }
            causes += error.connectionErrors.map { "\($0.target): \($0.error)" }
            return causes.isEmpty ? "no connection to \(host):\(port)" : causes.joined(separator: "; ")
        } catch {
            return "no connection to \(host):\(port): \(error)"
        }
    }

    /// A token file: readable, holding a usable token, and not readable by group or others.
    static func tokenFileCheck(flag: String, path: String, logger: Logger) -> (status: PreflightFinding.Status, message: String) {
        do {
            if flag == "--api-token-file" {
                _ = try ServiceMaterial.apiToken(file: path, logger: logger)
            } else {
                _ = try WebPageAccess.load(tokenFile: path)
            }
        } catch {
            return (.fail, "\(error)")
        }
        return (.ok, "\(flag) \(path) holds a token and only its owner may read it")
    }
}
