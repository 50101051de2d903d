import Foundation
import GooglePayVerifier
import Synchronization
import VerificationCore
import WalletEncoding

/// Google's root signing keys from a URL (`--googlepay-root-keys URL`, `googlepay verify --root-keys
/// URL`): fetched through the trust-document transport, the last usable copy kept in memory across
/// reloads and in the store's document cache (key `googlepay-root-keys <url>`) for every instance
/// that shares it. A copy is fresh for the response's `Cache-Control: max-age`, bounded to
/// 5 minutes – 24 hours (1 hour without one).
///
/// A fetch never makes things worse: one that fails, a list that does not parse, a list that holds
/// no key usable for ECv2 today (`{"keys": []}`, only expired or ECv1 keys) and a list older than
/// the one in use (its newest ECv2 key expires before the newest in use: a rollback) are refused
/// loudly, and the list in use stays.
public final class GooglePayRootKeySource: Sendable {
    /// One fetched list that parsed and was accepted.
    public struct Copy: Sendable {
        /// The parsed keys.
        public let keys: GooglePayRootKeys
        /// The list exactly as fetched.
        public let bytes: [UInt8]
        /// When it was fetched.
        public let fetchedAt: Date
        /// Until when it is used without a refresh (its max-age, bounded).
        public let freshUntil: Date
    }

    /// Why a fetch gave no usable list; never key material.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, for logs.
        public let description: String
        /// Whether a list was fetched and refused (no usable key, a rollback), rather than not obtained.
        public let refused: Bool
    }

    private let copies = Mutex<[String: Copy]>([:])
    /// Fetches URLs.
    public let transport: any TrustDocumentTransport

    /// The shortest and the longest a fetched list is used before it is fetched again, and the
    /// time used when the response does not say.
    public static let minimumAge: TimeInterval = 300
    /// See ``minimumAge``.
    public static let maximumAge: TimeInterval = 86_400
    /// See ``minimumAge``.
    public static let defaultAge: TimeInterval = 3_600
    /// How long the store keeps a copy for a start while Google cannot be reached.
    public static let storedFor: TimeInterval = 30 * 86_400

    /// Whether `source` is Google's TEST key list (`…/paymentmethodtoken/test/keys.json`), whose
    /// tokens come from Google Pay's test environment and are not payments.
    public static func isTestList(_ source: String) -> Bool {
        guard let url = URL(string: source), url.host?.lowercased() == "payments.developers.google.com" else { return false }
        return url.path.hasPrefix("/paymentmethodtoken/test/")
    }

    /// A source fetching with `transport`. Each call names the document cache its copies are shared
    /// through (nil: memory only, as while a PostgreSQL store is not answering yet).
    public init(transport: any TrustDocumentTransport) {
        self.transport = transport
    }

    /// The document-cache key of a URL's copy.
    public static func cacheKey(_ url: String) -> String { "googlepay-root-keys " + url }

    /// Whether a document-cache key is a root-key copy (not a revocation list).
    public static func isCacheKey(_ key: String) -> Bool { key.hasPrefix("googlepay-root-keys ") }

    /// The copy of `url` in use, if any.
    public func copy(_ url: String) -> Copy? { copies.withLock { $0[url] } }

    func keep(_ url: String, _ copy: Copy) { copies.withLock { $0[url] = copy } }

    /// A copy kept in the store that parses, whatever its age.
    func stored(_ url: String, store: (any DocumentCacheStore)?) async -> (document: CachedDocument, keys: GooglePayRootKeys)? {
        guard let document = try? await store?.cachedDocument(Self.cacheKey(url)), let keys = try? GooglePayRootKeys.parse(document.bytes) else {
            return nil
        }
        return (document, keys)
    }

    /// Why `candidate` may not replace `current` at `now`: it holds no key usable for ECv2, or its
    /// newest ECv2 key expires before the newest of the list in use (an older list); nil when it may.
    public static func refusal(_ candidate: GooglePayRootKeys, replacing current: GooglePayRootKeys?, at now: Date) -> String? {
        if candidate.usableForECv2(at: now).isEmpty {
            let expired = candidate.keys.filter { $0.protocolVersion == GooglePayToken.ecV2 && !$0.isUsableForECv2(at: now) }.count
            return
                "it holds no ECv2 key usable now (\(summary(candidate))\(expired > 0 ? ", \(expired) ECv2 key(s) expired or without keyExpiration" : ""))"
        }
        if let current, let newest = newestExpiration(current), let candidateNewest = newestExpiration(candidate), candidateNewest < newest {
            return
                "it is older than the list in use (its newest ECv2 key expires \(RFC3339.format(candidateNewest)), the list in use has one expiring \(RFC3339.format(newest)))"
        }
        return nil
    }

    static func newestExpiration(_ keys: GooglePayRootKeys) -> Date? {
        keys.keys.filter { $0.protocolVersion == GooglePayToken.ecV2 }.compactMap(\.expiration).max()
    }

    /// The list of `url` for a configuration being built: the copy in memory; else the store's while
    /// fresh; else a fetch; when that fails, the store's copy whatever its age (if it still has a
    /// usable key). Nil (logged) when there is none.
    public func load(_ url: String, store: (any DocumentCacheStore)?, now: Date, log: (TrustSourceEvent) -> Void) async -> Copy? {
        if let copy = copy(url) { return copy }
        let stored = await stored(url, store: store)
        if let stored, stored.document.freshUntil > now, Self.refusal(stored.keys, replacing: nil, at: now) == nil {
            let copy = Copy(
                keys: stored.keys, bytes: stored.document.bytes, fetchedAt: stored.document.fetchedAt, freshUntil: stored.document.freshUntil)
            keep(url, copy)
            log(.notice("googlepay: root keys of \(url) from the store (fetched \(RFC3339.format(copy.fetchedAt))): \(Self.summary(copy.keys))"))
            return copy
        }
        // The store's copy, however old, is what a fetched list must not roll back.
        switch await fetch(url, store: store, now: now, against: stored?.keys) {
        case .success(let copy):
            log(.notice("googlepay: root keys fetched from \(url): \(Self.summary(copy.keys)); fresh until \(RFC3339.format(copy.freshUntil))"))
            return copy
        case .failure(let failure):
            if let stored, Self.refusal(stored.keys, replacing: nil, at: now) == nil {
                let copy = Copy(keys: stored.keys, bytes: stored.document.bytes, fetchedAt: stored.document.fetchedAt, freshUntil: now)
                keep(url, copy)
                log(
                    .error(
                        "googlepay: root keys could not be fetched from \(url) (\(failure)); using the copy fetched \(RFC3339.format(copy.fetchedAt)) kept in the store"
                    ))
                return copy
            }
            log(.error("googlepay: root keys could not be loaded from \(url) (\(failure)); no Google Pay token verifies until a fetch succeeds"))
            return nil
        }
    }

    /// Fetches `url` (https, or http to a loopback address; the transport's deadline and address
    /// policy); a list that parses and may replace the one in use, or `against` when none is
    /// (``refusal(_:replacing:at:)``), is kept in memory and in the store, anything else is a failure
    /// that changes nothing.
    public func fetch(_ url: String, store: (any DocumentCacheStore)?, now: Date, against kept: GooglePayRootKeys? = nil) async -> Result<
        Copy, Failure
    > {
        guard let location = TrustDocumentFetchFailure.fetchableURL(url) else {
            return .failure(Failure(description: "only https (or http to a loopback address) is fetched", refused: false))
        }
        let document: FetchedTrustDocument
        do {
            document = try await transport.fetchDocument(location, maximumSize: GooglePayRootKeys.maximumSize, accept: "application/json")
        } catch {
            return .failure(Failure(description: "\(error)", refused: false))
        }
        let keys: GooglePayRootKeys
        do { keys = try GooglePayRootKeys.parse(document.body) } catch {
            return .failure(Failure(description: "the list does not parse: \(error.message)", refused: true))
        }
        if let why = Self.refusal(keys, replacing: copy(url)?.keys ?? kept, at: now) {
            return .failure(Failure(description: "the list fetched is not used: \(why)", refused: true))
        }
        let age = document.maxAge.map { min(max(TimeInterval($0), Self.minimumAge), Self.maximumAge) } ?? Self.defaultAge
        let copy = Copy(keys: keys, bytes: document.body, fetchedAt: now, freshUntil: now.addingTimeInterval(age))
        keep(url, copy)
        try? await store?.storeDocument(
            CachedDocument(
                key: Self.cacheKey(url), bytes: document.body, fetchedAt: now, freshUntil: copy.freshUntil,
                usableUntil: now.addingTimeInterval(max(Self.storedFor, age))))
        return .success(copy)
    }

    /// Refreshes `url` when its copy is no longer fresh: a fresher copy another instance stored is
    /// taken, otherwise the list is fetched; without any copy (the first fetch failed before the
    /// store answered), the store's copy is used when the fetch fails again. A copy the store does
    /// not have yet is written to it. Returns whether a new list is in use; a failure is logged and
    /// the previous list stays.
    @discardableResult
    public func refresh(_ url: String, store: (any DocumentCacheStore)?, now: Date, log: (TrustSourceEvent) -> Void) async -> Bool {
        let current = copy(url)
        let stored = await stored(url, store: store)
        if let current, let store, current.fetchedAt > (stored?.document.fetchedAt ?? .distantPast) {
            try? await store.storeDocument(
                CachedDocument(
                    key: Self.cacheKey(url), bytes: current.bytes, fetchedAt: current.fetchedAt, freshUntil: current.freshUntil,
                    usableUntil: current.fetchedAt.addingTimeInterval(Self.storedFor)))
        }
        if let current, current.freshUntil > now { return false }
        if let stored, stored.document.freshUntil > now, stored.document.fetchedAt > (current?.fetchedAt ?? .distantPast),
            Self.refusal(stored.keys, replacing: current?.keys, at: now) == nil
        {
            keep(
                url,
                Copy(keys: stored.keys, bytes: stored.document.bytes, fetchedAt: stored.document.fetchedAt, freshUntil: stored.document.freshUntil))
            log(.notice("googlepay: root keys of \(url) taken from the store (fetched \(RFC3339.format(stored.document.fetchedAt)))"))
            return true
        }
        switch await fetch(url, store: store, now: now, against: stored?.keys) {
        case .success(let copy):
            log(.notice("googlepay: root keys refreshed from \(url): \(Self.summary(copy.keys)); fresh until \(RFC3339.format(copy.freshUntil))"))
            return true
        case .failure(let failure):
            // Shutting down: the fetch was cancelled, nothing failed.
            if Task.isCancelled { return false }
            if current == nil, let stored, Self.refusal(stored.keys, replacing: nil, at: now) == nil {
                keep(url, Copy(keys: stored.keys, bytes: stored.document.bytes, fetchedAt: stored.document.fetchedAt, freshUntil: now))
                log(
                    .error(
                        "googlepay: root keys could not be fetched from \(url) (\(failure)); using the copy fetched \(RFC3339.format(stored.document.fetchedAt)) kept in the store"
                    ))
                return true
            }
            let kept = current.map { "the list fetched \(RFC3339.format($0.fetchedAt)) stays in use" } ?? "no list is in use"
            log(.error("googlepay: refreshing the root keys from \(url) failed (\(failure)); \(kept)"))
            return false
        }
    }

    /// The number of keys and their versions: public facts only. A version is text from the fetched
    /// list (refused lists are logged too), so anything but printable ASCII is shown as `?`, and a
    /// long one is cut: a list cannot write lines of its own into the log.
    public static func summary(_ keys: GooglePayRootKeys) -> String {
        let versions = keys.keys.prefix(20).map { key in
            String(key.protocolVersion.unicodeScalars.prefix(32).map { $0.value >= 0x20 && $0.value < 0x7f ? Character($0) : "?" })
        }
        return "\(keys.keys.count) key(s) (\(versions.joined(separator: ", "))\(keys.keys.count > 20 ? ", …" : ""))"
    }
}
