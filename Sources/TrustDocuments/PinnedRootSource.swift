import Crypto
import Foundation
import MdocVerifier
import Synchronization
import VerificationCore
import WalletEncoding
import X509

/// Fetches pinned roots (``PinnedRoot``) through the trust-document transport and keeps each in
/// memory (across reloads) and in the store's document cache (until the certificate expires), so a
/// reload, a restart or another instance sharing the store uses the kept copy without the network. A
/// copy is used only when its SHA-256 is the pin.
public struct PinnedRootSource: Sendable {
    /// The roots fetched by this process, by ``PinnedRoot/cacheKey``: its bytes and when it was fetched.
    public final class Copies: Sendable {
        let copies = Mutex<[String: (bytes: [UInt8], fetchedAt: Date)]>([:])

        /// None kept yet.
        public init() {}
    }

    /// A root that was fetched (or found kept) and matched its pin.
    public struct Loaded: Sendable {
        /// The root certificate.
        public let certificate: Certificate
        /// Its provenance: the URL, the pin and when it was fetched.
        public let provenance: RootProvenance
        /// Whether it came from the store rather than a fetch now.
        public let fromStore: Bool
    }

    /// The largest root certificate file fetched.
    public static let maximumSize = 64 * 1024

    /// Fetches URLs.
    public let transport: any TrustDocumentTransport
    /// The copies kept in memory (share one across reloads).
    public let copies: Copies

    /// A source fetching with `transport`, keeping what it fetched in `copies`.
    public init(transport: any TrustDocumentTransport, copies: Copies = Copies()) {
        self.transport = transport
        self.copies = copies
    }

    /// The root of `root`: the store's copy when it has one that matches the pin, otherwise fetched
    /// now (and kept in the store). Throws ``PinnedRootFailure``: `invalidRoot` when what the URL
    /// serves is not one self-signed CA certificate whose DER hashes to the pin (naming both
    /// fingerprints), `unavailable` when it cannot be fetched and no copy is kept.
    public func load(_ root: PinnedRoot, store: (any DocumentCacheStore)?, now: Date) async throws(PinnedRootFailure) -> Loaded {
        // This process's copy: written to the store when the store lacks it (it could not answer at the first load).
        if let kept = copies.copies.withLock({ $0[root.cacheKey] }), let certificate = try? Self.verify(kept.bytes, against: root, at: now) {
            if let store, (try? await store.cachedDocument(root.cacheKey)) == nil {
                await Self.keep(kept.bytes, of: certificate, fetchedAt: kept.fetchedAt, for: root, in: store)
            }
            return Loaded(certificate: certificate, provenance: .url(root.url, pin: root.pin, fetchedAt: kept.fetchedAt), fromStore: false)
        }
        if let kept = try? await store?.cachedDocument(root.cacheKey), let certificate = try? Self.verify(kept.bytes, against: root, at: now) {
            copies.copies.withLock { $0[root.cacheKey] = (kept.bytes, kept.fetchedAt) }
            return Loaded(certificate: certificate, provenance: .url(root.url, pin: root.pin, fetchedAt: kept.fetchedAt), fromStore: true)
        }
        guard let url = TrustDocumentFetchFailure.fetchableURL(root.url) else {
            throw PinnedRootFailure(.invalidEntry, "\(root.url): only https (or http to a loopback address) is fetched")
        }
        let bytes: [UInt8]
        do {
            bytes = try await transport.fetchDocument(
                url, maximumSize: Self.maximumSize, accept: "application/pkix-cert, application/x-pem-file, application/x-x509-ca-cert"
            ).body
        } catch {
            throw PinnedRootFailure(.unavailable, "\(root.url) could not be fetched and no copy is kept: \(error)")
        }
        let certificate = try Self.verify(bytes, against: root, at: now)
        // Whole seconds: every instance reading the store's copy shows the same time as this one.
        let now = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        copies.copies.withLock { $0[root.cacheKey] = (bytes, now) }
        await Self.keep(bytes, of: certificate, fetchedAt: now, for: root, in: store)
        return Loaded(certificate: certificate, provenance: .url(root.url, pin: root.pin, fetchedAt: now), fromStore: false)
    }

    /// Keeps a root's bytes in the store's document cache until the certificate expires (nothing without a store).
    static func keep(_ bytes: [UInt8], of certificate: Certificate, fetchedAt: Date, for root: PinnedRoot, in store: (any DocumentCacheStore)?) async
    {
        try? await store?.storeDocument(
            CachedDocument(
                key: root.cacheKey, bytes: bytes, fetchedAt: fetchedAt, freshUntil: certificate.notValidAfter, usableUntil: certificate.notValidAfter)
        )
    }

    /// The one certificate in `bytes` (PEM or DER) when it is the pinned, self-signed CA certificate.
    /// Throws `invalidRoot` naming the URL and, on a mismatch, both fingerprints.
    public static func verify(_ bytes: [UInt8], against root: PinnedRoot, at now: Date) throws(PinnedRootFailure) -> Certificate {
        let certificates: [Certificate]
        do { certificates = try IACATrustStore.certificates(in: bytes, name: root.url) } catch {
            throw PinnedRootFailure(.invalidRoot, "\(root.url) does not serve a certificate: \(error)")
        }
        guard certificates.count == 1, let certificate = certificates.first else {
            throw PinnedRootFailure(.invalidRoot, "\(root.url) serves \(certificates.count) certificates; a pinned root is exactly one")
        }
        let actual = IACATrustStore.sha256(certificate)
        guard actual == root.pin else {
            throw PinnedRootFailure(
                .invalidRoot,
                "\(root.url) serves a certificate whose SHA-256 is \(actual), not the pinned \(root.pin): check the pin against the publisher's page (a renewed root is a new pin)"
            )
        }
        guard certificate.issuer == certificate.subject, certificate.publicKey.isValidSignature(certificate.signature, for: certificate) else {
            throw PinnedRootFailure(
                .invalidRoot, "\(root.url): the pinned certificate \(certificate.subject) (SHA-256 \(actual)) is not self-signed; pin the root itself"
            )
        }
        guard case .isCertificateAuthority = (try? certificate.extensions.basicConstraints) ?? .notCertificateAuthority else {
            throw PinnedRootFailure(
                .invalidRoot,
                "\(root.url): the pinned certificate \(certificate.subject) (SHA-256 \(actual)) is not a CA certificate (basicConstraints cA); pin the issuing authority's root (IACA)"
            )
        }
        return certificate
    }
}
