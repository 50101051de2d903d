import ApplePayVerifier
import Crypto
import Foundation
import Logging
import MdocVerifier
import VerificationCore
import WalletIdentity
import WebIdentity

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
    /// IACA roots (`--trust`, `--trust-doctype`); the VICALs' roots (`--vical`) are added when composing.
    public var trust: IACATrustStore
    /// Revocation lists from files (`--revocation-list`), consulted before the fetched ones; nil: none.
    public var revocationLists: OfflineRevocationLists?
    /// Apple Pay merchant keys (`--applepay-cert`, `--applepay-key`); empty: `/v1/applepay/decrypt` answers 501 (not configured).
    public var applePayKeys: [MerchantKey]
    /// The root Apple Pay chains end in instead of Apple Root CA - G3 (`--applepay-root`, tests only).
    public var applePayRoot: ApplePayTrustAnchor?
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

    /// Values given directly (tests, embedders): nothing is read from files.
    public init(
        identityKeys: IdentityKeyRing, trust: IACATrustStore, revocationLists: OfflineRevocationLists? = nil, applePayKeys: [MerchantKey] = [],
        applePayRoot: ApplePayTrustAnchor? = nil, webKeys: [P256.KeyAgreement.PrivateKey], readerAuth: ReaderAuthSigner? = nil,
        apiToken: String? = nil, requestSigning: ReaderAuthSigner? = nil
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
    }

    /// Reads every file `settings` names. Without `--identity-key` or `--web-key`, a development key
    /// is generated once in the data directory (with a warning). Throws ``SettingsError`` naming the
    /// flag and the file when one cannot be read or holds nothing usable.
    public static func read(settings: ServerSettings, logger: Logger) throws -> ServiceMaterial {
        // Identity.
        var ring = IdentityKeyRing()
        if settings.identityKeys.isEmpty {
            let path = try developmentKey(directory: settings.dataDirectory, name: "dev-identity-key.pem")
            try ring.load(path: path)
            logger.warning(
                "identity: no --identity-key given; using a development key generated at \(path). Configure the key of your Apple identity encryption certificate for production."
            )
        } else {
            for path in settings.identityKeys {
                warnIfReadableByOthers(path, logger: logger)
                do { try ring.load(path: path) } catch { throw SettingsError("--identity-key \(path): \(error)") }
            }
        }
        let trust = try trustStore(trust: settings.trust, scoped: settings.trustDocTypes)

        // Revocation lists from files (only when revocation is checked).
        var revocationLists: OfflineRevocationLists?
        if settings.revocation != .off, !settings.revocationLists.isEmpty {
            var offline = OfflineRevocationLists()
            for path in settings.revocationLists {
                guard let data = FileManager.default.contents(atPath: path) else { throw SettingsError("cannot read --revocation-list \(path)") }
                do { try offline.add(bytes: [UInt8](data), name: (path as NSString).lastPathComponent) } catch {
                    throw SettingsError("--revocation-list \(path): \(error.message)")
                }
            }
            revocationLists = offline
        }

        // Apple Pay.
        var applePayKeys: [MerchantKey] = []
        var applePayRoot: ApplePayTrustAnchor?
        if !settings.applePayCertificates.isEmpty {
            for (certificatePath, keyPath) in zip(settings.applePayCertificates, settings.applePayKeys) {
                warnIfReadableByOthers(keyPath, logger: logger)
                guard let certificate = FileManager.default.contents(atPath: certificatePath) else {
                    throw SettingsError("cannot read --applepay-cert \(certificatePath)")
                }
                guard let key = FileManager.default.contents(atPath: keyPath) else { throw SettingsError("cannot read --applepay-key \(keyPath)") }
                do {
                    applePayKeys.append(try MerchantKey(certificateFile: [UInt8](certificate), privateKeyFile: [UInt8](key)))
                } catch {
                    throw SettingsError("--applepay-cert \(certificatePath) / --applepay-key \(keyPath): \(error)")
                }
            }
            if let root = settings.applePayRoot {
                guard let data = FileManager.default.contents(atPath: root) else { throw SettingsError("cannot read --applepay-root \(root)") }
                do { applePayRoot = try ApplePayTrustAnchor(fileContents: [UInt8](data)) } catch {
                    throw SettingsError("--applepay-root \(root): \(error)")
                }
                logger.warning("applepay: chains are validated against \(root) instead of Apple Root CA - G3 (tests only)")
            }
        }

        // Web: its own recipient keys (not the in-app identity key).
        var webKeys: [P256.KeyAgreement.PrivateKey] = []
        let webKeyPaths =
            settings.webKeys.isEmpty ? [try developmentKey(directory: settings.dataDirectory, name: "dev-web-key.pem")] : settings.webKeys
        if settings.webKeys.isEmpty {
            logger.warning("web: no --web-key given; using a development key generated at \(webKeyPaths[0])")
        }
        for path in webKeyPaths {
            warnIfReadableByOthers(path, logger: logger)
            guard let contents = FileManager.default.contents(atPath: path) else { throw SettingsError("cannot read --web-key \(path)") }
            do { webKeys.append(try WebRecipientKey.load(contents: [UInt8](contents), name: path)) } catch {
                throw SettingsError("--web-key \(path): \(error)")
            }
        }

        var readerAuth: ReaderAuthSigner?
        if let keyPath = settings.readerKey {
            warnIfReadableByOthers(keyPath, logger: logger)
            guard let key = FileManager.default.contents(atPath: keyPath) else { throw SettingsError("cannot read --reader-key \(keyPath)") }
            var certificates: [(name: String, contents: [UInt8])] = []
            for path in settings.readerCertificates {
                guard let data = FileManager.default.contents(atPath: path) else { throw SettingsError("cannot read --reader-cert \(path)") }
                certificates.append((path, [UInt8](data)))
            }
            do {
                readerAuth = try ReaderAuthSigner.load(keyContents: [UInt8](key), keyName: "--reader-key \(keyPath)", certificateFiles: certificates)
            } catch {
                throw SettingsError("\(error)")
            }
        }

        var requestSigning: ReaderAuthSigner?
        if let keyPath = settings.requestSigningKey {
            warnIfReadableByOthers(keyPath, logger: logger)
            guard let key = FileManager.default.contents(atPath: keyPath) else { throw SettingsError("cannot read --request-signing-key \(keyPath)") }
            var certificates: [(name: String, contents: [UInt8])] = []
            for path in settings.requestSigningCertificates {
                guard let data = FileManager.default.contents(atPath: path) else {
                    throw SettingsError("cannot read --request-signing-cert \(path)")
                }
                certificates.append((path, [UInt8](data)))
            }
            do {
                requestSigning = try ReaderAuthSigner.load(
                    keyContents: [UInt8](key), keyName: "--request-signing-key \(keyPath)", certificateFiles: certificates)
            } catch {
                throw SettingsError("\(error)")
            }
        }

        var apiToken: String?
        if let tokenFile = settings.apiTokenFile {
            guard let data = FileManager.default.contents(atPath: tokenFile) else { throw SettingsError("cannot read --api-token-file \(tokenFile)") }
            let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard token.utf8.count >= 16, token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f }) else {
                throw SettingsError("--api-token-file \(tokenFile) must hold a token of at least 16 visible ASCII characters")
            }
            warnIfReadableByOthers(tokenFile, logger: logger)
            apiToken = token
        }
        return ServiceMaterial(
            identityKeys: ring, trust: trust, revocationLists: revocationLists, applePayKeys: applePayKeys, applePayRoot: applePayRoot,
            webKeys: webKeys, readerAuth: readerAuth, apiToken: apiToken, requestSigning: requestSigning)
    }

    /// The IACA roots of `--trust PATH` (for any docType) and `--trust-doctype DOCTYPE[,DOCTYPE...]=PATH`
    /// (only for the docTypes named), as `serve` and the verify commands read them. Throws
    /// ``SettingsError`` naming the flag and the path.
    public static func trustStore(trust paths: [String], scoped entries: [String]) throws(SettingsError) -> IACATrustStore {
        var store = IACATrustStore()
        for path in paths {
            do { try store.load(path: path) } catch { throw SettingsError("--trust \(path): \(error)") }
        }
        for entry in entries {
            do { try store.load(scoped: entry) } catch { throw SettingsError("--trust-doctype \(entry): \(error)") }
        }
        return store
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

    static func warnIfReadableByOthers(_ path: String, logger: Logger) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let mode = (attributes[.posixPermissions] as? NSNumber)?.intValue
        else { return }
        if mode & 0o077 != 0 {
            logger.warning("key file \(path) is readable by other users (mode \(String(mode, radix: 8))); restrict it with chmod 600")
        }
    }
}
