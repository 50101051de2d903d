import Foundation
import VerificationCore
import WalletEncoding
import X509

/// Where configured VICALs come from: a file, or a URL fetched through a transport (https, or http
/// to a loopback address), with the last copy of each URL that verified kept in memory and — when a
/// store is given — in its document cache, so a restart or another instance starts from it. A URL
/// never goes back to an older issue (``VICALIssue``): the newest issue accepted is recorded beside
/// the copy. The service (`serve --vical`) and the command line (`--vical FILE|URL`) both load
/// through it; the networking itself is the transport's (`MdocRevocationHTTP`).
public struct VICALSources: Sendable {
    /// Why a VICAL source could not be read or fetched; the message is for people.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, for logs and command-line errors.
        public let description: String

        /// A failure with its message.
        public init(_ description: String) { self.description = description }
    }

    /// What loading a VICAL URL observed, for the caller's log: the service logs notices and errors as they are.
    public enum Event: Sendable, Equatable {
        /// A VICAL was loaded.
        case notice(String)
        /// A copy or a fetch was refused, or could not be obtained.
        case error(String)
    }

    /// A VICAL URL that verified and may be used: its checks and roots, and what it is.
    public struct Loaded: Sendable {
        /// The loader's result: checks, warnings and roots (``VICALLoadResult/trusted`` is true).
        public let result: VICALLoadResult
        /// The VICAL in use, as `GET /v1/trust` shows it.
        public let status: VICALStatus
    }

    /// The largest VICAL fetched (AAMVA's is about 150 KB).
    public static let maximumSize = 16 * 1024 * 1024

    /// The last verified copy and the newest issue of each URL, kept across reloads.
    public let copies: VICALCopies
    /// Fetches URLs; nil when only files are read.
    public let transport: (any TrustDocumentTransport)?
    /// The document cache copies and rollback records are shared through; nil: memory only.
    public let store: (any DocumentCacheStore)?

    /// Sources that fetch URLs with `transport` (nil: files only), sharing copies through `store`.
    public init(copies: VICALCopies = VICALCopies(), transport: (any TrustDocumentTransport)?, store: (any DocumentCacheStore)? = nil) {
        self.copies = copies
        self.transport = transport
        self.store = store
    }

    /// Whether a `--vical` source is a URL (http or https) rather than a file.
    public static func isURL(_ source: String) -> Bool { TrustDocumentFetchFailure.isURL(source) }

    /// The anchors a VICAL signer must chain to, read from a PEM or DER file.
    public static func anchors(path: String) throws(Failure) -> [Certificate] {
        guard let data = FileManager.default.contents(atPath: path) else { throw Failure("cannot read --vical-trust \(path)") }
        do { return try IACATrustStore.certificates(in: [UInt8](data), name: path) } catch { throw Failure("--vical-trust \(path): \(error)") }
    }

    /// Why a VICAL did not verify: its failed checks.
    public static func reasons(_ result: VICALLoadResult) -> String {
        result.checks.filter { $0.status != .passed }.map { "\($0.id): \($0.message)" }.joined(separator: "; ")
    }

    /// The bytes of a source as they are now: a file's contents, or a URL fetched once (no copy is
    /// kept; for the command line, which verifies them and reports the `vical.*` checks).
    public func bytes(of source: String) async throws(Failure) -> [UInt8] {
        guard Self.isURL(source) else {
            guard let data = FileManager.default.contents(atPath: source) else { throw Failure("cannot read --vical \(source)") }
            return [UInt8](data)
        }
        guard let location = RevocationListCache.fetchableURL(source) else {
            throw Failure("--vical \(source): only https (or http to a loopback address) is fetched")
        }
        guard let transport else { throw Failure("--vical \(source): no transport to fetch it with") }
        do { return try await transport.fetch(location, maximumSize: Self.maximumSize) } catch {
            throw Failure("--vical \(source) could not be fetched: \(error)")
        }
    }

    /// Loads a VICAL URL for use: its last verified copy (memory, then the store), fetched now when
    /// there is none, when that copy is older than the newest issue accepted for the URL (the record
    /// in the store), or when it is past its nextUpdate. A fetch that fails or is refused leaves the
    /// verified copy in use (a list past its nextUpdate is still the best knowledge; how stale is too
    /// stale is the caller's rule). Nil — with the reason in `log` — when no copy verifies: that
    /// VICAL then contributes nothing until a refresh gets one.
    public func load(url source: String, loader: VICALLoader, at now: Date, log: (Event) -> Void) async -> Loaded? {
        // This process's copy, then the store's whatever its nextUpdate (the store keeps it a year past
        // it): the first that verifies and is not older than the newest issue recorded.
        var candidates: [VICALCopies.Copy] = copies.copy(source).map { [$0] } ?? []
        if let stored = try? await store?.cachedDocument(VICALCopies.cacheKey(source)), stored.usableUntil > now,
            !candidates.contains(where: { $0.bytes == stored.bytes })
        {
            candidates.append(
                VICALCopies.Copy(bytes: stored.bytes, fetchedAt: stored.fetchedAt, nextUpdate: (try? VICAL(bytes: stored.bytes))?.nextUpdate))
        }
        var copy: VICALCopies.Copy?
        var result: VICALLoadResult?
        for candidate in candidates {
            let loaded = await loader.load(bytes: candidate.bytes, at: now)
            guard loaded.trusted else {
                log(
                    .error(
                        "vical: the copy of \(source) fetched \(RFC3339.format(candidate.fetchedAt)) no longer verifies (\(Self.reasons(loaded))); it is not used"
                    ))
                continue
            }
            if let why = await refusal(loaded, bytes: candidate.bytes, url: source) {
                // Never go back to an older issue, even from this store: fetch the current one.
                log(.error("vical: the copy of \(source) fetched \(RFC3339.format(candidate.fetchedAt)) is not used: \(why)"))
                continue
            }
            copy = candidate
            result = loaded
            break
        }
        if copy == nil || copy.map({ now >= ($0.nextUpdate ?? .distantFuture) }) == true {
            switch await fetch(source, loader: loader, at: now) {
            case .success(let fetched):
                copy = fetched
                result = await loader.load(bytes: fetched.bytes, at: now)
            case .failure(let reason):
                guard let kept = copy, result != nil else {
                    log(.error("vical: \(source) could not be loaded (\(reason)); its roots are not trusted until a copy verifies"))
                    return nil
                }
                log(
                    .error(
                        "vical: \(source) is past its nextUpdate and could not be fetched again (\(reason)); the copy fetched \(RFC3339.format(kept.fetchedAt)) stays in use"
                    ))
            }
        }
        guard let copy, let result, result.trusted, let vical = result.vical else { return nil }
        copies.keep(source, copy)
        await copies.raise(source, to: VICALIssue(vical, bytes: copy.bytes), store: store)
        log(
            .notice(
                "vical: \(source): \(result.roots.count) IACA root(s) from \(vical.provider)\(vical.issueID.map { " issue \($0)" } ?? ""), fetched \(RFC3339.format(copy.fetchedAt))"
            ))
        return Loaded(result: result, status: VICALStatus(source: source, vical: vical, fetchedAt: copy.fetchedAt))
    }

    /// Whether the copy of `url` is due for a refresh at `now`: a day after its fetch, or at its
    /// nextUpdate if that is sooner; always when there is no copy.
    public func isDue(_ url: String, at now: Date) -> Bool {
        guard let copy = copies.copy(url) else { return true }
        let daily = copy.fetchedAt.addingTimeInterval(86_400)
        return now >= min(daily, copy.nextUpdate ?? daily)
    }

    /// How long the store keeps a VICAL copy past its nextUpdate (and its fetch): a list that stops
    /// being published stays the best knowledge until the staleness rule says otherwise.
    public static let keptPastNextUpdate: TimeInterval = 365 * 86_400

    /// Keeps `copy` in the store's document cache (when it answers): fresh until its nextUpdate (a day
    /// at most), kept for ``keptPastNextUpdate`` after it.
    package func storeCopy(_ url: String, _ copy: VICALCopies.Copy) async {
        let usable = max(copy.nextUpdate ?? copy.fetchedAt, copy.fetchedAt).addingTimeInterval(Self.keptPastNextUpdate)
        try? await store?.storeDocument(
            CachedDocument(
                key: VICALCopies.cacheKey(url), bytes: copy.bytes, fetchedAt: copy.fetchedAt,
                freshUntil: min(copy.nextUpdate ?? copy.fetchedAt.addingTimeInterval(86_400), copy.fetchedAt.addingTimeInterval(86_400)),
                usableUntil: usable))
    }

    /// Why a verified VICAL from `url` may not be used: it is older than the newest issue accepted
    /// for that URL (by any instance sharing the store); nil when it may.
    package func refusal(_ result: VICALLoadResult, bytes: [UInt8], url: String) async -> String? {
        guard let vical = result.vical, let newest = await copies.highestIssue(url, store: store) else { return nil }
        return VICALIssue(vical, bytes: bytes).refusal(against: newest)
    }

    /// Fetches and verifies a VICAL URL; a copy that verifies and is not older than the newest issue
    /// accepted for the URL is kept (memory and store), and raises that record.
    package func fetch(_ url: String, loader: VICALLoader, at now: Date) async -> Result<VICALCopies.Copy, Failure> {
        guard let location = RevocationListCache.fetchableURL(url) else {
            return .failure(Failure("only https (or http to a loopback address) is fetched"))
        }
        guard let transport else { return .failure(Failure("no transport to fetch it with")) }
        let bytes: [UInt8]
        do { bytes = try await transport.fetch(location, maximumSize: Self.maximumSize) } catch {
            return .failure(Failure("\(error)"))
        }
        let result = await loader.load(bytes: bytes, at: now)
        guard result.trusted, let vical = result.vical else { return .failure(Failure("it does not verify: \(Self.reasons(result))")) }
        if let why = await refusal(result, bytes: bytes, url: url) {
            return .failure(Failure("refused as a rollback: \(why)"))
        }
        // A refresh never narrows trust to nothing: a list that verifies but yields no root, while the
        // copy in use yields some, is refused (the copy in use stays, and the log says so).
        if result.roots.isEmpty, let current = copies.copy(url), let inUse = try? VICAL(bytes: current.bytes), !inUse.entries.isEmpty {
            return .failure(
                Failure(
                    "refused: it yields no IACA root while the copy in use (fetched \(RFC3339.format(current.fetchedAt))) lists \(inUse.entries.count)"
                ))
        }
        // Whole seconds: every instance reading the store's copy shows the same time as this one.
        let copy = VICALCopies.Copy(
            bytes: bytes, fetchedAt: Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down)), nextUpdate: vical.nextUpdate)
        copies.keep(url, copy)
        await copies.raise(url, to: VICALIssue(vical, bytes: bytes), store: store)
        await storeCopy(url, copy)
        return .success(copy)
    }

    /// Checks the copy of `url` in use against the store once it answers: its record and copy are
    /// written when they could not be at start; returns why it is behind when another instance
    /// recorded a newer issue (the caller loads it again), nil otherwise.
    public func reconcile(_ url: String) async -> String? {
        guard let store, let copy = copies.copy(url), let vical = try? VICAL(bytes: copy.bytes) else { return nil }
        let inUse = VICALIssue(vical, bytes: copy.bytes)
        if let newest = await copies.highestIssue(url, store: store), let why = inUse.refusal(against: newest) {
            return why
        }
        await copies.raise(url, to: inUse, store: store)
        await storeCopy(url, copy)
        return nil
    }
}
