import Crypto
import Foundation
import Logging
import MdocVerifier
import ServiceLifecycle
import Synchronization
import VerificationCore
import WalletCOSE
import WalletEncoding
import X509

/// The last copy of each VICAL URL that verified, kept across reloads (and in the store's document
/// cache, so a restart or another instance starts from it).
public final class VICALCopies: Sendable {
    struct Copy: Sendable {
        let bytes: [UInt8]
        let fetchedAt: Date
        let nextUpdate: Date?
    }

    private let copies = Mutex<[String: Copy]>([:])

    /// Starts with no copy kept.
    public init() {}

    private let highest = Mutex<[String: VICALIssue]>([:])

    func copy(_ url: String) -> Copy? { copies.withLock { $0[url] } }
    func keep(_ url: String, _ copy: Copy) { copies.withLock { $0[url] = copy } }

    static func cacheKey(_ url: String) -> String { "vical " + url }
    static func highestKey(_ url: String) -> String { "vical-highest " + url }
    static func isHighestKey(_ key: String) -> Bool { key.hasPrefix("vical-highest ") }

    /// The newest issue of `url` ever accepted: the later of this process's memory and the store's record.
    func highestIssue(_ url: String, store: (any DocumentCacheStore)?) async -> VICALIssue? {
        let stored = (try? await store?.cachedDocument(Self.highestKey(url))).flatMap { $0 }.flatMap { VICALIssue(record: $0.bytes) }
        let remembered = highest.withLock { $0[url] }
        switch (stored, remembered) {
        case (let a?, let b?): return a.isOlder(than: b) ? b : a
        case (let a?, nil): return a
        case (nil, let b): return b
        }
    }

    /// Raises the record of `url` to `issue` (never lowers it): in memory, and in the store, whose
    /// "later copy wins" rule keeps the newest record of every instance (the record's fetch time is
    /// the VICAL's date).
    func raise(_ url: String, to issue: VICALIssue, store: (any DocumentCacheStore)?) async {
        highest.withLock { if let current = $0[url], !current.isOlder(than: issue) { return } else { $0[url] = issue } }
        try? await store?.storeDocument(
            CachedDocument(
                key: Self.highestKey(url), bytes: issue.record, fetchedAt: issue.date, freshUntil: VICALIssue.recordKeptUntil,
                usableUntil: VICALIssue.recordKeptUntil))
    }
}

/// Which issue of a VICAL this is (its `vicalIssueID` and `date`, and a digest of its content): what
/// the rollback rule compares. A VICAL URL never goes back: an issue older than the newest one
/// accepted for that URL — a lower issue id, or an earlier date — is refused, and so is the same
/// issue (same id and date) with other content, since a provider does not reissue an issue under the
/// same number and date with other content.
public struct VICALIssue: Sendable, Equatable {
    /// The `vicalIssueID`, when the VICAL has one.
    public let issueID: UInt64?
    /// The VICAL's `date`.
    public let date: Date
    /// SHA-256 of the VICAL's signed content (its COSE payload; the whole bytes when it has none): the
    /// same issue signed again has the same digest, other content another.
    public let digest: [UInt8]

    /// The issue of a decoded VICAL whose bytes are `bytes`.
    public init(_ vical: VICAL, bytes: [UInt8]) {
        issueID = vical.issueID
        date = vical.date
        digest = Array(SHA256.hash(data: vical.sign1.payload.map { Array($0) } ?? bytes))
    }

    init(issueID: UInt64?, date: Date, digest: [UInt8]) {
        self.issueID = issueID
        self.date = date
        self.digest = digest
    }

    /// The record stays in the store for good (the purge removes rows past their usable time).
    static let recordKeptUntil = Date(timeIntervalSince1970: 32_503_680_000)

    /// Why `self` may not replace `newest` (nil: it may): an older issue id, an earlier date, or the
    /// same issue with other content.
    public func refusal(against newest: VICALIssue) -> String? {
        if let id = issueID, let newestID = newest.issueID, id < newestID {
            return "its issue \(id) is older than issue \(newestID), already accepted"
        }
        if date < newest.date {
            return "it is dated \(RFC3339.format(date)), before \(RFC3339.format(newest.date)) of the issue already accepted"
        }
        if issueID == newest.issueID && date == newest.date && digest != newest.digest {
            return "it has the issue id and date of the issue already accepted but other content"
        }
        return nil
    }

    func isOlder(than other: VICALIssue) -> Bool {
        if let id = issueID, let otherID = other.issueID, id != otherID { return id < otherID }
        return date < other.date
    }

    /// `issueID date-millis digest-hex` (issueID `-` when absent).
    var record: [UInt8] {
        Array("\(issueID.map(String.init) ?? "-") \(Int64((date.timeIntervalSince1970 * 1000).rounded())) \(Hex.encode(digest))".utf8)
    }

    init?(record: [UInt8]) {
        let parts = String(decoding: record, as: UTF8.self).split(separator: " ")
        guard parts.count == 3, let millis = Int64(parts[1]), let digest = Hex.decode(String(parts[2])), digest.count == 32 else { return nil }
        if parts[0] == "-" {
            issueID = nil
        } else {
            guard let id = UInt64(parts[0]) else { return nil }
            issueID = id
        }
        date = Date(timeIntervalSince1970: Double(millis) / 1000)
        self.digest = digest
    }
}

/// A VICAL the service trusts roots from, as `GET /v1/trust` shows it.
public struct VICALStatus: Sendable {
    /// The `--vical` file or URL.
    public let source: String
    /// The `vicalProvider`.
    public let provider: String
    /// The `vicalIssueID`, when present.
    public let issueID: UInt64?
    /// The VICAL's `date`.
    public let date: Date
    /// The `nextUpdate`, when present.
    public let nextUpdate: Date?
    /// When the copy in use was fetched (nil for a file).
    public let fetchedAt: Date?
}

/// `serve --vical FILE|URL --vical-trust FILE`: each VICAL is verified as `mdoc verify --vical`
/// does (signature, signer chain to its anchor, validity); its roots are trusted for the docTypes
/// their entries list.
enum ServiceVICALs {
    static func isURL(_ source: String) -> Bool {
        let lower = source.lowercased()
        return lower.hasPrefix("https://") || lower.hasPrefix("http://")
    }

    static func anchors(_ path: String) throws -> [Certificate] {
        guard let data = FileManager.default.contents(atPath: path) else { throw SettingsError("cannot read --vical-trust \(path)") }
        do { return try IACATrustStore.certificates(in: [UInt8](data), name: path) } catch { throw SettingsError("--vical-trust \(path): \(error)") }
    }

    /// Why a VICAL did not verify: its failed checks.
    static func reasons(_ result: VICALLoadResult) -> String {
        result.checks.filter { $0.status != .passed }.map { "\($0.id): \($0.message)" }.joined(separator: "; ")
    }

    /// Adds the roots of every configured VICAL to `trust`, and returns what each VICAL in use is. A
    /// file that does not verify stops the configuration from loading; a URL uses its last verified
    /// copy (memory, then the store), fetched now when there is none or when that copy is older than
    /// the newest issue accepted for the URL (the record in the store) — a first fetch that fails is
    /// logged and that VICAL contributes nothing until the refresh gets a copy that verifies.
    @discardableResult
    static func load(settings: ServerSettings, into trust: inout IACATrustStore, base: VerifierServices.Base, logger: Logger) async throws
        -> [VICALStatus]
    {
        let now = base.clock.now()
        var statuses: [VICALStatus] = []
        for (source, anchorPath) in zip(settings.vicals, settings.vicalTrust) {
            let loader = VICALLoader(anchors: try anchors(anchorPath), clockSkew: .seconds(settings.clockSkew))
            if !isURL(source) {
                guard let data = FileManager.default.contents(atPath: source) else { throw SettingsError("cannot read --vical \(source)") }
                let result = await loader.load(bytes: [UInt8](data), at: now)
                guard result.trusted else { throw SettingsError("--vical \(source) does not verify against \(anchorPath): \(reasons(result))") }
                result.add(to: &trust)
                if let vical = result.vical { statuses.append(status(source, vical, fetchedAt: nil)) }
                logger.notice("vical: \(source): \(result.roots.count) IACA root(s) from \(result.vical?.provider ?? "?")")
                continue
            }
            var copy = base.vicalCopies.copy(source)
            if copy == nil, let stored = try? await base.vicalStore?.cachedDocument(VICALCopies.cacheKey(source)), stored.usableUntil > now {
                copy = VICALCopies.Copy(bytes: stored.bytes, fetchedAt: stored.fetchedAt, nextUpdate: stored.usableUntil)
            }
            var result: VICALLoadResult?
            if let candidate = copy {
                let loaded = await loader.load(bytes: candidate.bytes, at: now)
                guard loaded.trusted else {
                    logger.error(
                        "vical: the copy of \(source) fetched \(RFC3339.format(candidate.fetchedAt)) no longer verifies (\(reasons(loaded))); its roots are not trusted"
                    )
                    continue
                }
                if let why = await refusal(loaded, bytes: candidate.bytes, url: source, base: base) {
                    // Never go back to an older issue, even from this store: fetch the current one.
                    logger.error("vical: the copy of \(source) fetched \(RFC3339.format(candidate.fetchedAt)) is not used: \(why); fetching it again")
                    copy = nil
                } else {
                    result = loaded
                }
            }
            if copy == nil {
                switch await fetch(source, loader: loader, base: base, at: now) {
                case .success(let fetched):
                    copy = fetched
                    result = await loader.load(bytes: fetched.bytes, at: now)
                case .failure(let reason):
                    logger.error("vical: \(source) could not be loaded (\(reason)); its roots are not trusted until a copy verifies")
                    continue
                }
            }
            guard let copy, let result, result.trusted, let vical = result.vical else { continue }
            base.vicalCopies.keep(source, copy)
            await base.vicalCopies.raise(source, to: VICALIssue(vical, bytes: copy.bytes), store: base.vicalStore)
            result.add(to: &trust)
            statuses.append(status(source, vical, fetchedAt: copy.fetchedAt))
            logger.notice(
                "vical: \(source): \(result.roots.count) IACA root(s) from \(vical.provider)\(vical.issueID.map { " issue \($0)" } ?? ""), fetched \(RFC3339.format(copy.fetchedAt))"
            )
        }
        return statuses
    }

    /// Keeps `copy` in the store's document cache (when it answers), until its nextUpdate.
    static func storeCopy(_ url: String, _ copy: VICALCopies.Copy, base: VerifierServices.Base) async {
        let usable = copy.nextUpdate ?? copy.fetchedAt.addingTimeInterval(86_400)
        try? await base.vicalStore?.storeDocument(
            CachedDocument(
                key: VICALCopies.cacheKey(url), bytes: copy.bytes, fetchedAt: copy.fetchedAt,
                freshUntil: min(usable, copy.fetchedAt.addingTimeInterval(86_400)), usableUntil: usable))
    }

    static func status(_ source: String, _ vical: VICAL, fetchedAt: Date?) -> VICALStatus {
        VICALStatus(
            source: source, provider: vical.provider, issueID: vical.issueID, date: vical.date, nextUpdate: vical.nextUpdate, fetchedAt: fetchedAt)
    }

    /// Why a verified VICAL from `url` may not be used: it is older than the newest issue accepted
    /// for that URL (by any instance sharing the store); nil when it may.
    static func refusal(_ result: VICALLoadResult, bytes: [UInt8], url: String, base: VerifierServices.Base) async -> String? {
        guard let vical = result.vical, let newest = await base.vicalCopies.highestIssue(url, store: base.vicalStore) else { return nil }
        return VICALIssue(vical, bytes: bytes).refusal(against: newest)
    }

    /// Fetches and verifies a VICAL URL; a copy that verifies and is not older than the newest issue
    /// accepted for the URL is kept (memory and store), and raises that record.
    static func fetch(_ url: String, loader: VICALLoader, base: VerifierServices.Base, at now: Date) async -> Result<
        VICALCopies.Copy, VICALFetchFailure
    > {
        guard let location = RevocationListCache.fetchableURL(url) else {
            return .failure(VICALFetchFailure("only https (or http to a loopback address) is fetched"))
        }
        let bytes: [UInt8]
        do { bytes = try await base.transport.fetch(location, maximumSize: 16 * 1024 * 1024) } catch {
            return .failure(VICALFetchFailure("\(error)"))
        }
        let result = await loader.load(bytes: bytes, at: now)
        guard result.trusted, let vical = result.vical else { return .failure(VICALFetchFailure("it does not verify: \(reasons(result))")) }
        if let why = await refusal(result, bytes: bytes, url: url, base: base) {
            return .failure(VICALFetchFailure("refused as a rollback: \(why)"))
        }
        let copy = VICALCopies.Copy(bytes: bytes, fetchedAt: now, nextUpdate: vical.nextUpdate)
        base.vicalCopies.keep(url, copy)
        await base.vicalCopies.raise(url, to: VICALIssue(vical, bytes: bytes), store: base.vicalStore)
        await storeCopy(url, copy, base: base)
        return .success(copy)
    }
}

struct VICALFetchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Re-fetches each VICAL URL daily and once its nextUpdate passes; a copy that verifies reloads the
/// configuration with its roots; one that does not keeps the previous roots, and the log says why.
public struct VICALRefreshService: Service {
    let live: LiveServices
    let logger: Logger
    var interval: Duration = .seconds(600)

    /// Creates the service refreshing the VICALs of `live`'s current settings.
    public init(live: LiveServices, logger: Logger) {
        self.live = live
        self.logger = logger
    }

    /// Checks every 10 minutes for a VICAL that is due and refreshes it, until graceful shutdown.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do { try await Task.sleep(for: interval) } catch { return }
                await refreshOnce()
            }
        }
    }

    /// Checks the VICALs in use against the store once it answers (before the server takes
    /// requests): records and copies that could not be written at start are written now, and when
    /// another instance has recorded a newer issue than the one in use, the configuration is
    /// reloaded, which fetches the URL again and refuses anything older than that record.
    public func reconcile() async {
        let services = live.current
        guard let base = services.base, let store = base.vicalStore else { return }
        var behind: [String] = []
        for source in services.settings.vicals where ServiceVICALs.isURL(source) {
            guard let copy = base.vicalCopies.copy(source), let vical = try? VICAL(bytes: copy.bytes) else { continue }
            let inUse = VICALIssue(vical, bytes: copy.bytes)
            if let newest = await base.vicalCopies.highestIssue(source, store: store), let why = inUse.refusal(against: newest) {
                logger.error("vical: the issue of \(source) in use is not the newest recorded (\(why)); loading it again")
                behind.append(source)
            } else {
                await base.vicalCopies.raise(source, to: inUse, store: store)
                await ServiceVICALs.storeCopy(source, copy, base: base)
            }
        }
        guard !behind.isEmpty else { return }
        do { try await live.reload(settings: services.settings, logger: logger) } catch {
            logger.error("vical: the configuration could not be loaded again: \(error)")
        }
    }

    /// Fetches the VICALs that are due; returns how many new copies verified.
    @discardableResult
    public func refreshOnce() async -> Int {
        let services = live.current
        guard let base = services.base else { return 0 }
        let now = base.clock.now()
        var updated = 0
        for (source, anchorPath) in zip(services.settings.vicals, services.settings.vicalTrust) where ServiceVICALs.isURL(source) {
            if let copy = base.vicalCopies.copy(source) {
                let daily = copy.fetchedAt.addingTimeInterval(86_400)
                let due = min(daily, copy.nextUpdate ?? daily)
                guard now >= due else { continue }
            }
            guard let anchors = try? ServiceVICALs.anchors(anchorPath) else {
                logger.error("vical: cannot read --vical-trust \(anchorPath); \(source) not refreshed")
                continue
            }
            let loader = VICALLoader(anchors: anchors, clockSkew: .seconds(services.settings.clockSkew))
            switch await ServiceVICALs.fetch(source, loader: loader, base: base, at: now) {
            case .success: updated += 1
            case .failure(let reason): logger.error("vical: refreshing \(source) failed (\(reason)); the previous roots stay")
            }
        }
        if updated > 0 {
            do { try await live.reload(settings: services.settings, logger: logger) } catch {
                logger.error("vical: the refreshed roots could not be applied: \(error)")
            }
        }
        return updated
    }
}
