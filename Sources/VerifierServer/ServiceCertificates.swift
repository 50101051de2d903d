import ApplePayVerifier
import Crypto
import Foundation
import Logging
import ServiceLifecycle
import SwiftASN1
import VerificationCore
import VerificationReceipts
import WalletEncoding
import WalletIdentity
import WebIdentity
import X509

/// One of the service's own certificates: an Apple Pay payment-processing certificate, the reader
/// certificate that signs web requests, the certificate of the OpenID4VP request-signing key, the
/// receipt certificate, or the Apple Pay Merchant Identity certificate of merchant validation.
/// Listed by `GET /v1/trust`, `/metrics`, `keys status` and `serve --check`, and warned about at start.
public struct ServiceCertificate: Sendable, Hashable {
    /// What the certificate is for.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `--applepay-cert`.
        case applePay
        /// The leaf of `--reader-cert`.
        case readerAuthentication
        /// The leaf of `--request-signing-cert`.
        case requestSigning
        /// The leaf of `--receipt-cert`.
        case receipt
        /// `--applepay-identity-cert`: the TLS client certificate of Apple Pay merchant validation.
        case applePayMerchantIdentity
        /// `--identity-cert`: the identity encryption certificate Wallet encrypts in-app responses to.
        case identity
    }

    /// What the certificate is for.
    public let kind: Kind
    /// The subject, as a distinguished name.
    public let subject: String
    /// The start of its validity.
    public let notBefore: Date
    /// The end of its validity.
    public let notAfter: Date
    /// How the service names it: the Apple Pay `publicKeyHash` (base64 SHA-256 of the
    /// SubjectPublicKeyInfo), or the hex SHA-256 fingerprint of the leaf's DER.
    public let id: String

    /// Whole days from `now` until ``notAfter``, counted toward zero: 0 within its last day, -1 a
    /// day after it expired (never a day further away than it is).
    public func daysLeft(at now: Date) -> Int {
        Int((notAfter.timeIntervalSince(now) / 86_400).rounded(.towardZero))
    }

    /// Whether it expires before `days` days from `now` (or has expired already).
    public func expires(within days: Int, at now: Date) -> Bool {
        notAfter < now.addingTimeInterval(TimeInterval(days) * 86_400)
    }

    /// The certificates of the keys given: each Apple Pay certificate, the reader leaf, the
    /// request-signing leaf (only when it has a key of its own, not the reader's), the leaf of the
    /// receipt key's chain, the Apple Pay Merchant Identity certificate.
    public static func list(
        applePayKeys: [MerchantKey], readerAuth: ReaderAuthSigner?, requestSigning: ReaderAuthSigner?, receiptChain: [[UInt8]] = [],
        applePayIdentity: ApplePayMerchantIdentity? = nil, identityCertificates: [Certificate] = []
    ) -> [ServiceCertificate] {
        var list = applePayKeys.map {
            ServiceCertificate(
                kind: .applePay, subject: "\($0.certificate.subject)", notBefore: $0.certificate.notValidBefore,
                notAfter: $0.certificate.notValidAfter, id: $0.publicKeyHash)
        }
        for (kind, signer) in [(Kind.readerAuthentication, readerAuth), (.requestSigning, requestSigning)] {
            guard let signer else { continue }
            list.append(
                ServiceCertificate(
                    kind: kind, subject: "\(signer.leaf.subject)", notBefore: signer.leaf.notValidBefore, notAfter: signer.leaf.notValidAfter,
                    id: Hex.encode(Array(SHA256.hash(data: signer.chain[0])))))
        }
        if let leafDER = receiptChain.first, let leaf = try? Certificate(derEncoded: leafDER) {
            list.append(
                ServiceCertificate(
                    kind: .receipt, subject: "\(leaf.subject)", notBefore: leaf.notValidBefore, notAfter: leaf.notValidAfter,
                    id: Hex.encode(Array(SHA256.hash(data: leafDER)))))
        }
        if let identity = applePayIdentity, let leafDER = identity.chainDER.first {
            let leaf = identity.merchantKey.certificate
            list.append(
                ServiceCertificate(
                    kind: .applePayMerchantIdentity, subject: "\(leaf.subject)", notBefore: leaf.notValidBefore, notAfter: leaf.notValidAfter,
                    id: Hex.encode(Array(SHA256.hash(data: leafDER)))))
        }
        for certificate in identityCertificates {
            var serializer = DER.Serializer()
            guard (try? serializer.serialize(certificate)) != nil else { continue }
            list.append(
                ServiceCertificate(
                    kind: .identity, subject: "\(certificate.subject)", notBefore: certificate.notValidBefore,
                    notAfter: certificate.notValidAfter, id: Hex.encode(Array(SHA256.hash(data: serializer.serializedBytes)))))
        }
        return list
    }

    /// The log line (or `keys status` note) for a certificate that expires within the warning period.
    public func expiryWarning(at now: Date) -> String {
        let days = daysLeft(at: now)
        let when = days < 0 ? "expired on \(RFC3339.format(notAfter))" : "expires on \(RFC3339.format(notAfter)), in \(days) day(s)"
        return "certificate: the \(kind.rawValue) certificate \(subject) (\(id)) \(when); \(kind.renewal)"
    }
}

extension ServiceCertificate.Kind {
    /// What to do when a certificate of this kind is about to expire.
    var renewal: String {
        switch self {
        case .applePay:
            "create a new payment-processing certificate in the Apple Developer account, add it with its key (--applepay-cert, --applepay-key) and reload (SIGHUP)"
        case .readerAuthentication: "have a new reader certificate issued for --reader-key (or a new key), configure it with --reader-cert and reload"
        case .requestSigning:
            "have a new certificate issued for --request-signing-key (or a new key), configure it with --request-signing-cert and reload"
        case .receipt:
            "have a new certificate issued for --receipt-key (or a new key), configure it with --receipt-cert and reload; receipts signed before stay verifiable with /v1/receipts/jwks"
        case .identity:
            "request a new identity encryption certificate in the Apple Developer account (for the same key or a new one), configure it with --identity-cert (and --identity-key) and reload (SIGHUP)"
        case .applePayMerchantIdentity:
            "create a new Merchant Identity certificate in the Apple Developer account, configure it with its key (--applepay-identity-cert, --applepay-identity-key) and reload (SIGHUP)"
        }
    }
}

extension VerifierServices {
    /// The service's own certificates in this configuration (``ServiceCertificate``).
    public var certificates: [ServiceCertificate] {
        let ownSigning = requestSigning.flatMap { $0.source == "requestSigningKey" ? $0.signer : nil }
        return ServiceCertificate.list(
            applePayKeys: applePay?.keyRing.keys ?? [], readerAuth: readerAuth, requestSigning: ownSigning,
            receiptChain: receiptSigner?.certificateChain ?? [], applePayIdentity: applePayIdentity,
            identityCertificates: identityCertificates)
    }
}

/// Logs a warning for each of the service's certificates that expires within
/// `--certificate-warning-days`, at start and then daily, with what to do.
public struct CertificateExpiryWarnings: Service {
    let live: LiveServices
    let logger: Logger
    var interval: Duration = .seconds(86_400)

    /// Creates the service warning about the certificates of `live`'s current configuration.
    public init(live: LiveServices, logger: Logger) {
        self.live = live
        self.logger = logger
    }

    /// Warns now, then once a day, until graceful shutdown.
    public func run() async throws {
        await repeatUntilShutdown(every: interval, startImmediately: true) { warnOnce() }
    }

    /// Logs one warning per certificate expiring within the warning period.
    func warnOnce() {
        let services = live.current
        let now = services.clock.now()
        for certificate in services.certificates where certificate.expires(within: services.settings.certificateWarningDays, at: now) {
            logger.warning("\(certificate.expiryWarning(at: now))")
        }
    }
}

extension ServiceCertificate {
    /// Reads the service's own certificates from the files `settings` names, each with its key (a key
    /// that does not match its certificate is an error): what `keys status` lists. Throws
    /// ``SettingsError`` naming the flag and the file.
    public static func load(settings: ServerSettings) throws -> [ServiceCertificate] {
        let logger = Logger(label: "wallet-verifier") { _ in SwiftLogNoOpLogHandler() }
        var applePayKeys: [MerchantKey] = []
        for (certificate, key) in zip(settings.applePayCertificates, settings.applePayKeys) {
            applePayKeys.append(try ServiceMaterial.applePayKey(certificate: certificate, key: key, logger: logger))
        }
        let reader = try settings.readerKey.map {
            try ServiceMaterial.signer(
                key: $0, certificates: settings.readerCertificates, keyFlag: "--reader-key", certificateFlag: "--reader-cert", logger: logger)
        }
        let signing = try settings.requestSigningKey.map {
            try ServiceMaterial.signer(
                key: $0, certificates: settings.requestSigningCertificates, keyFlag: "--request-signing-key",
                certificateFlag: "--request-signing-cert",
                logger: logger)
        }
        let receipt = try ServiceMaterial.receiptSigner(settings: settings, logger: logger)
        let identity = try ServiceMaterial.applePayIdentity(settings: settings, logger: logger)
        var identityCertificates: [Certificate] = []
        if !settings.identityCertificates.isEmpty {
            // Settings with an --identity-cert have an --identity-key: no development key is made here.
            let ring = try ServiceMaterial.identityKeys(settings: settings, logger: logger)
            identityCertificates = try ServiceMaterial.identityCertificates(settings: settings, ring: ring)
        }
        return list(
            applePayKeys: applePayKeys, readerAuth: reader, requestSigning: signing, receiptChain: receipt?.certificateChain ?? [],
            applePayIdentity: identity, identityCertificates: identityCertificates)
    }
}
