import ApplePayVerifier
import Crypto
import Foundation
import GooglePayVerifier
import Logging
import MdocVerifier
import SwiftASN1
import TrustDocuments
import VerificationCore
import VerificationReceipts
import WalletIdentity
import WebIdentity
import X509

/// What the files named by ``ServerSettings`` hold, read and checked: the identity and web recipient
/// keys, the IACA roots, revocation lists, the Apple Pay merchant keys and root, the reader's signing
/// key and certificates, the API token.
///
/// Starting the service is two steps: ``read(settings:logger:)`` turns paths into these values (the
/// only place `serve` reads them, so every file error names its flag), and
/// ``VerifierServices/make(settings:material:logger:clock:)`` composes the services from values.
/// Tests and embedders build the values in memory and skip the files.
public struct ServiceMaterial: Sendable {
    /// The in-app identity recipient keys (`--identity-key`).
    public var identityKeys: IdentityKeyRing
    /// The receipt keys rotated out that the JWKS still lists (`--receipt-previous-key`).
    public var receiptPreviousKeys: [ReceiptPublicKey] = []
    /// The identity encryption certificates (`--identity-cert`), each the certificate of one of
    /// ``identityKeys``; watched for expiry. Empty: none configured.
    public var identityCertificates: [Certificate] = []
    /// IACA roots (`--trust`, `--trust-doctype`); the VICALs' roots (`--vical`) are added when composing.
    public var trust: IACATrustStore
    /// Revocation lists from files (`--revocation-list`), consulted before the fetched ones; nil: none.
    public var revocationLists: OfflineRevocationLists?
    /// Apple Pay merchant keys (`--applepay-cert`, `--applepay-key`); empty: `/v1/applepay/decrypt` answers 501 (not configured).
    public var applePayKeys: [MerchantKey]
    /// The root Apple Pay chains end in instead of Apple Root CA - G3 (`--applepay-root`, tests only).
    public var applePayRoot: ApplePayTrustAnchor?
    /// Google Pay merchant keys (`--googlepay-key`); empty: `/v1/googlepay/decrypt` answers 501 (not configured).
    public var googlePayKeys: [GooglePayMerchantKey] = []
    /// Google's root keys read from `--googlepay-root-keys FILE` (or given by an embedder); nil for
    /// a URL, whose list is fetched when the services are composed.
    public var googlePayRootKeys: GooglePayRootKeys? = nil
    /// The recipient keys of web responses (`--web-key`); new requests use the first. Never empty
    /// when read from settings (a development key stands in).
    public var webKeys: [P256.KeyAgreement.PrivateKey]
    /// Signs web requests (`--reader-key`, `--reader-cert`); nil: requests go unsigned.
    public var readerAuth: ReaderAuthSigner?
    /// Signs OpenID4VP request objects (`--request-signing-key`, `--request-signing-cert`); nil: the
    /// reader key signs them when it is P-256, else they go unsigned.
    public var requestSigning: ReaderAuthSigner?
    /// The API's bearer token (`--api-token-file`); nil: the API takes none.
    public var apiToken: String?
    /// Signs verification receipts (`--receipt-key`, `--receipt-cert`); nil: answers carry no receipt.
    public var receiptSigner: (any ReceiptSigner)?
    /// The Apple Pay Merchant Identity certificate and key (`--applepay-identity-cert`,
    /// `--applepay-identity-key`); nil: `POST /v1/applepay/session` answers 501 (not configured).
    public var applePayIdentity: ApplePayMerchantIdentity?
    /// The DER CA certificates trusted for the merchant-validation server (`--applepay-validation-ca`);
    /// nil: the system's roots.
    public var applePayValidationRoots: [[UInt8]]?

    /// Values given directly (tests, embedders): nothing is read from files.
    public init(
        identityKeys: IdentityKeyRing, trust: IACATrustStore, revocationLists: OfflineRevocationLists? = nil, applePayKeys: [MerchantKey] = [],
        applePayRoot: ApplePayTrustAnchor? = nil, webKeys: [P256.KeyAgreement.PrivateKey], readerAuth: ReaderAuthSigner? = nil,
        apiToken: String? = nil, requestSigning: ReaderAuthSigner? = nil, receiptSigner: (any ReceiptSigner)? = nil
    ) {
        self.identityKeys = identityKeys
        self.trust = trust
        self.revocationLists = revocationLists
        self.applePayKeys = applePayKeys
        self.applePayRoot = applePayRoot
        self.webKeys = webKeys
        self.readerAuth = readerAuth
        self.apiToken = apiToken
        self.requestSigning = requestSigning
        self.receiptSigner = receiptSigner
    }

    /// Reads every file `settings` names. Without `--identity-key` or `--web-key`, a development key
    /// is generated once in the data directory (with a warning). Throws ``SettingsError`` naming the
    /// flag and the file when one cannot be read or holds nothing usable.
    public static func read(settings: ServerSettings, logger: Logger) throws -> ServiceMaterial {
        let ring = try identityKeys(settings: settings, logger: logger)
        let trust = try trustStore(trust: settings.trust, scoped: settings.trustDocTypes)
        let revocationLists = try Self.revocationLists(settings: settings)
        var applePayKeys: [MerchantKey] = []
        for (certificatePath, keyPath) in zip(settings.applePayCertificates, settings.applePayKeys) {
            applePayKeys.append(try Self.applePayKey(certificate: certificatePath, key: keyPath, logger: logger))
        }
        let applePayRoot = applePayKeys.isEmpty ? nil : try Self.applePayRoot(settings: settings, logger: logger)
        let webKeys = try Self.webKeys(settings: settings, logger: logger)
        let readerAuth = try settings.readerKey.map {
            try Self.signer(
                key: $0, certificates: settings.readerCertificates, keyFlag: "--reader-key", certificateFlag: "--reader-cert", logger: logger)
        }
        let requestSigning = try settings.requestSigningKey.map {
            try signer(
                key: $0, certificates: settings.requestSigningCertificates, keyFlag: "--request-signing-key",
                certificateFlag: "--request-signing-cert", logger: logger)
        }
        let apiToken = try settings.apiTokenFile.map { try Self.apiToken(file: $0, logger: logger) }
        let receiptSigner = try Self.receiptSigner(settings: settings, logger: logger)
        var material = ServiceMaterial(
            identityKeys: ring, trust: trust, revocationLists: revocationLists, applePayKeys: applePayKeys, applePayRoot: applePayRoot,
            webKeys: webKeys, readerAuth: readerAuth, apiToken: apiToken, requestSigning: requestSigning, receiptSigner: receiptSigner)
        material.identityCertificates = try Self.identityCertificates(settings: settings, ring: ring)
        material.receiptPreviousKeys = try Self.receiptPreviousKeys(settings: settings)
        material.applePayIdentity = try Self.applePayIdentity(settings: settings, logger: logger)
        material.applePayValidationRoots = try Self.applePayValidationRoots(settings: settings, logger: logger)
        material.googlePayKeys = try settings.googlePayKeys.map { try Self.googlePayKey($0, logger: logger) }
        material.googlePayRootKeys = try Self.googlePayRootKeysFile(settings: settings)
        return material
    }

    /// The Merchant Identity certificate and key of `--applepay-identity-cert`/`--applepay-identity-key`,
    /// checked to match; nil without them. Throws ``SettingsError`` naming the flags and the files.
    static func applePayIdentity(settings: ServerSettings, logger: Logger) throws -> ApplePayMerchantIdentity? {
        guard let certificatePath = settings.applePayIdentityCertificate, let keyPath = settings.applePayIdentityKey else { return nil }
        guard let certificate = FileManager.default.contents(atPath: certificatePath) else {
            throw SettingsError("cannot read --applepay-identity-cert \(certificatePath)")
        }
        guard let key = FileManager.default.contents(atPath: keyPath) else { throw SettingsError("cannot read --applepay-identity-key \(keyPath)") }
        try requireOwnerOnly(keyPath, flag: "--applepay-identity-key")
        do {
            return try ApplePayMerchantIdentity(
                certificateFile: [UInt8](certificate), keyFile: [UInt8](key), merchantIdentifier: settings.applePayMerchantID)
        } catch {
            throw SettingsError("--applepay-identity-cert \(certificatePath) / --applepay-identity-key \(keyPath): \(error.message)")
        }
    }

    /// The CA certificates of `--applepay-validation-ca`, as DER; nil without it (the system's roots).
    static func applePayValidationRoots(settings: ServerSettings, logger: Logger) throws -> [[UInt8]]? {
        guard let path = settings.applePayValidationCA else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else { throw SettingsError("cannot read --applepay-validation-ca \(path)") }
        let roots: [[UInt8]]
        do { roots = try ApplePayMerchantIdentity.validationRoots(pemFile: [UInt8](data)) } catch {
            throw SettingsError("--applepay-validation-ca \(path): \(error.message)")
        }
        logger.warning("applepay: the merchant-validation server is trusted by --applepay-validation-ca \(path) instead of the system's roots")
        return roots
    }

    /// One `--googlepay-key`: a P-256 private key, PEM (`EC PRIVATE KEY` or `PRIVATE KEY`).
    static func googlePayKey(_ path: String, logger: Logger) throws -> GooglePayMerchantKey {
        guard let data = FileManager.default.contents(atPath: path) else { throw SettingsError("cannot read --googlepay-key \(path)") }
        try requireOwnerOnly(path, flag: "--googlepay-key")
        do {
            return try GooglePayMerchantKey(pemRepresentation: String(decoding: data, as: UTF8.self))
        } catch {
            // The key's own error could quote what it read: only the file and what was expected are said.
            throw SettingsError("--googlepay-key \(path) is not a P-256 private key in PEM (EC PRIVATE KEY or PRIVATE KEY)")
        }
    }

    /// The list of `--googlepay-root-keys FILE`; nil without one or for a URL (fetched when composing).
    static func googlePayRootKeysFile(settings: ServerSettings) throws -> GooglePayRootKeys? {
        guard let source = settings.googlePayRootKeys, !TrustDocumentFetchFailure.isURL(source) else { return nil }
        guard let data = FileManager.default.contents(atPath: source) else { throw SettingsError("cannot read --googlepay-root-keys \(source)") }
        do { return try GooglePayRootKeys.parse([UInt8](data)) } catch { throw SettingsError("--googlepay-root-keys \(source): \(error.message)") }
    }

    /// The receipt key of `--receipt-key` with the certificate of `--receipt-cert`, checked to be the
    /// key's; nil without `--receipt-key`. Throws ``SettingsError`` naming the flag and the file.
    static func receiptSigner(settings: ServerSettings, logger: Logger) throws -> ReceiptSigningKey? {
        guard let keyPath = settings.receiptKey else { return nil }
        guard let key = FileManager.default.contents(atPath: keyPath) else { throw SettingsError("cannot read --receipt-key \(keyPath)") }
        try requireOwnerOnly(keyPath, flag: "--receipt-key")
        var certificatePEM: String?
        if let certificatePath = settings.receiptCertificate {
            guard let data = FileManager.default.contents(atPath: certificatePath) else {
                throw SettingsError("cannot read --receipt-cert \(certificatePath)")
            }
            certificatePEM = String(decoding: data, as: UTF8.self)
        }
        do {
            return try ReceiptSigningKey.load(
                keyPEM: String(decoding: key, as: UTF8.self), keyName: "--receipt-key \(keyPath)", certificatePEM: certificatePEM,
                certificateName: "--receipt-cert \(settings.receiptCertificate ?? "")")
        } catch {
            throw SettingsError(error.description)
        }
    }

    /// The keys of `--receipt-previous-key` (a private key file must be the owner's only).
    static func receiptPreviousKeys(settings: ServerSettings) throws -> [ReceiptPublicKey] {
        try settings.receiptPreviousKeys.map { path in
            guard let data = FileManager.default.contents(atPath: path) else { throw SettingsError("cannot read --receipt-previous-key \(path)") }
            let text = String(decoding: data, as: UTF8.self)
            if text.contains("PRIVATE KEY-----") { try requireOwnerOnly(path, flag: "--receipt-previous-key") }
            do { return try ReceiptPublicKey.load(pem: text, name: "--receipt-previous-key \(path)") } catch { throw SettingsError("\(error)") }
        }
    }

    /// The in-app identity keys of `--identity-key`; without one, the development key of the data
    /// directory (generated once, with a warning).
    static func identityKeys(settings: ServerSettings, logger: Logger) throws -> IdentityKeyRing {
        var ring = IdentityKeyRing()
        if settings.identityKeys.isEmpty {
            let path = try developmentKey(directory: settings.dataDirectory, name: "dev-identity-key.pem")
            try ring.load(path: path)
            if settings.identityFlow {
                logger.warning(
                    "identity: no --identity-key given; using a development key generated at \(path). Configure the key of your Apple identity encryption certificate for production."
                )
            }
        } else {
            for path in settings.identityKeys {
                if FileManager.default.fileExists(atPath: path) { try requireOwnerOnly(path, flag: "--identity-key") }
                do { try ring.load(path: path) } catch { throw SettingsError("--identity-key \(path): \(error)") }
            }
        }
        return ring
    }

    /// The certificates of `--identity-cert` (PEM or DER), each checked to certify one of the keys
    /// of `ring`. Throws ``SettingsError`` naming the flag and the file.
    static func identityCertificates(settings: ServerSettings, ring: IdentityKeyRing) throws(SettingsError) -> [Certificate] {
        var certificates: [Certificate] = []
        for path in settings.identityCertificates {
            guard let data = FileManager.default.contents(atPath: path) else { throw SettingsError("cannot read --identity-cert \(path)") }
            guard let certificate = (try? IACATrustStore.certificates(in: [UInt8](data), name: path))?.first else {
                throw SettingsError("--identity-cert \(path) is not an X.509 certificate (PEM or DER)")
            }
            let point = P256.Signing.PublicKey(certificate.publicKey)?.x963Representation
            guard let point, ring.keys.contains(where: { $0.privateKey.publicKey.x963Representation == point }) else {
                throw SettingsError(
                    "--identity-cert \(path) (\(certificate.subject)) certifies a key that is no --identity-key; give the certificate of a configured key"
                )
            }
            certificates.append(certificate)
        }
        return certificates
    }

    /// The revocation lists of `--revocation-list` (nil when there is none or revocation is off).
    static func revocationLists(settings: ServerSettings) throws -> OfflineRevocationLists? {
        guard settings.revocation != .off, !settings.revocationLists.isEmpty else { return nil }
        var offline = OfflineRevocationLists()
        for path in settings.revocationLists {
            guard let data = FileManager.default.contents(atPath: path) else { throw SettingsError("cannot read --revocation-list \(path)") }
            do { try offline.add(bytes: [UInt8](data), name: (path as NSString).lastPathComponent) } catch {
                throw SettingsError("--revocation-list \(path): \(error.message)")
            }
        }
        return offline
    }

    /// One `--applepay-cert`/`--applepay-key` pair, the key checked to belong to the certificate.
    static func applePayKey(certificate certificatePath: String, key keyPath: String, logger: Logger) throws -> MerchantKey {
        guard let certificate = FileManager.default.contents(atPath: certificatePath) else {
            throw SettingsError("cannot read --applepay-cert \(certificatePath)")
        }
        guard let key = FileManager.default.contents(atPath: keyPath) else { throw SettingsError("cannot read --applepay-key \(keyPath)") }
        try requireOwnerOnly(keyPath, flag: "--applepay-key")
        do {
            return try MerchantKey(certificateFile: [UInt8](certificate), privateKeyFile: [UInt8](key))
        } catch {
            throw SettingsError("--applepay-cert \(certificatePath) / --applepay-key \(keyPath): \(error)")
        }
    }

    /// The `--applepay-root` anchor (tests only), nil when not given.
    static func applePayRoot(settings: ServerSettings, logger: Logger) throws -> ApplePayTrustAnchor? {
        guard let root = settings.applePayRoot else { return nil }
        guard let data = FileManager.default.contents(atPath: root) else { throw SettingsError("cannot read --applepay-root \(root)") }
        let anchor: ApplePayTrustAnchor
        do { anchor = try ApplePayTrustAnchor(fileContents: [UInt8](data)) } catch { throw SettingsError("--applepay-root \(root): \(error)") }
        logger.warning("applepay: chains are validated against \(root) instead of Apple Root CA - G3 (tests only)")
        return anchor
    }

    /// The web recipient keys of `--web-key`; without one, the development key of the data directory.
    static func webKeys(settings: ServerSettings, logger: Logger) throws -> [P256.KeyAgreement.PrivateKey] {
        var webKeys: [P256.KeyAgreement.PrivateKey] = []
        let webKeyPaths =
            settings.webKeys.isEmpty ? [try developmentKey(directory: settings.dataDirectory, name: "dev-web-key.pem")] : settings.webKeys
        if settings.webKeys.isEmpty {
            logger.warning("web: no --web-key given; using a development key generated at \(webKeyPaths[0])")
        }
        for path in webKeyPaths {
            guard let contents = FileManager.default.contents(atPath: path) else { throw SettingsError("cannot read --web-key \(path)") }
            try requireOwnerOnly(path, flag: settings.webKeys.isEmpty ? "the development web key" : "--web-key")
            do { webKeys.append(try WebRecipientKey.load(contents: [UInt8](contents), name: path)) } catch {
                throw SettingsError("--web-key \(path): \(error)")
            }
        }
        return webKeys
    }

    /// A signing key and its certificates (leaf first), checked to match: `--reader-key`/`--reader-cert`
    /// or `--request-signing-key`/`--request-signing-cert`.
    static func signer(key keyPath: String, certificates: [String], keyFlag: String, certificateFlag: String, logger: Logger) throws
        -> ReaderAuthSigner
    {
        guard let key = FileManager.default.contents(atPath: keyPath) else { throw SettingsError("cannot read \(keyFlag) \(keyPath)") }
        try requireOwnerOnly(keyPath, flag: keyFlag)
        var files: [(name: String, contents: [UInt8])] = []
        for path in certificates {
            guard let data = FileManager.default.contents(atPath: path) else { throw SettingsError("cannot read \(certificateFlag) \(path)") }
            files.append((path, [UInt8](data)))
        }
        do {
            return try ReaderAuthSigner.load(keyContents: [UInt8](key), keyName: "\(keyFlag) \(keyPath)", certificateFiles: files)
        } catch {
            throw SettingsError("\(error)")
        }
    }

    /// The bearer token of `--api-token-file`: at least 16 visible ASCII characters.
    static func apiToken(file tokenFile: String, logger: Logger) throws -> String {
        guard let data = FileManager.default.contents(atPath: tokenFile) else { throw SettingsError("cannot read --api-token-file \(tokenFile)") }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.utf8.count >= 16, token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f }) else {
            throw SettingsError("--api-token-file \(tokenFile) must hold a token of at least 16 visible ASCII characters")
        }
        try requireOwnerOnly(tokenFile, flag: "--api-token-file")
        return token
    }

    /// The IACA roots of `--trust PATH` (for any docType) and `--trust-doctype DOCTYPE[,DOCTYPE...]=PATH`
    /// (only for the docTypes named), as `serve` and the verify commands read them: files and
    /// directories now; a pinned URL entry (`URL#sha256=HEX`) is checked for its form here and its
    /// root fetched when the service is composed (``TrustRootEntry/loadURLs(_:into:source:documentStore:now:)``).
    /// Throws ``SettingsError`` naming the flag and the path.
    public static func trustStore(trust paths: [String], scoped entries: [String]) throws(SettingsError) -> IACATrustStore {
        try trustStore(entries: try trustEntries(trust: paths, scoped: entries))
    }

    /// The roots of the file and directory entries among `entries` (parsed once by the caller, who
    /// also loads its pinned URLs). Throws ``SettingsError`` naming the flag and the path.
    public static func trustStore(entries: [TrustRootEntry]) throws(SettingsError) -> IACATrustStore {
        var store = IACATrustStore()
        do { try TrustRootEntry.loadFiles(entries, into: &store) } catch { throw SettingsError(error.message) }
        return store
    }

    /// The `--trust` and `--trust-doctype` entries; throws ``SettingsError`` for a malformed one (a URL without its pin).
    public static func trustEntries(trust paths: [String], scoped entries: [String]) throws(SettingsError) -> [TrustRootEntry] {
        do { return try TrustRootEntry.parse(trust: paths, scoped: entries) } catch { throw SettingsError(error.description) }
    }

    /// A P-256 key for development, created once (mode 0600) in the data directory.
    static func developmentKey(directory: String, name: String) throws -> String {
        let path = (directory as NSString).appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: path) { return path }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let key = P256.KeyAgreement.PrivateKey()
        guard FileManager.default.createFile(atPath: path, contents: Data(key.pemRepresentation.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw SettingsError("cannot write the development key to \(path)")
        }
        return path
    }

    /// Refuses a secret file (a private key, a token) that the group or others may read, write or
    /// run, as ssh and PostgreSQL do: throws ``SettingsError`` naming the flag, the file, its mode and
    /// the `chmod` that fixes it. The mode is the file's a symbolic link leads to (mounted secrets
    /// are often links). A file whose mode cannot be read is left to the read that follows.
    static func requireOwnerOnly(_ path: String, flag: String) throws(SettingsError) {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: target),
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
        else { return }
        if mode & 0o077 != 0 {
            let octal = String(mode & 0o7777, radix: 8)
            throw SettingsError(
                "\(flag) \(path) may be read by other users than its owner (mode \(String(repeating: "0", count: max(0, 4 - octal.count)))\(octal)); a secret must be readable by its owner only: run chmod 600 \(path)"
            )
        }
    }
}
