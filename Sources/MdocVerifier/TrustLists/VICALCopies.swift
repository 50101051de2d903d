import Foundation
import Synchronization
import VerificationCore

/// The last copy of each VICAL URL that verified, kept across reloads (and in the store's document
/// cache, so a restart or another instance starts from it).
public final class VICALCopies: Sendable {
    /// A verified copy of a VICAL URL: its bytes, when it was fetched, and its nextUpdate.
    package struct Copy: Sendable {
        package let bytes: [UInt8]
        package let fetchedAt: Date
        package let nextUpdate: Date?

        package init(bytes: [UInt8], fetchedAt: Date, nextUpdate: Date?) {
            self.bytes = bytes
            self.fetchedAt = fetchedAt
            self.nextUpdate = nextUpdate
        }
    }

    private let copies = Mutex<[String: Copy]>([:])

    /// Starts with no copy kept.
    public init() {}

    private let highest = Mutex<[String: VICALIssue]>([:])

    package func copy(_ url: String) -> Copy? { copies.withLock { $0[url] } }
    package func keep(_ url: String, _ copy: Copy) { copies.withLock { $0[url] = copy } }

    package static func cacheKey(_ url: String) -> String { "vical " + url }
    package static func highestKey(_ url: String) -> String { "vical-highest " + url }
    package static func isHighestKey(_ key: String) -> Bool { key.hasPrefix("vical-highest ") }

    /// The newest issue of `url` ever accepted: the later of this process's memory and the store's record.
    package func highestIssue(_ url: String, store: (any DocumentCacheStore)?) async -> VICALIssue? {
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
    package func raise(_ url: String, to issue: VICALIssue, store: (any DocumentCacheStore)?) async {
        highest.withLock { if let current = $0[url], !current.isOlder(than: issue) { return } else { $0[url] = issue } }
        try? await store?.storeDocument(
            CachedDocument(
                key: Self.highestKey(url), bytes: issue.record, fetchedAt: issue.date, freshUntil: VICALIssue.recordKeptUntil,
                usableUntil: VICALIssue.recordKeptUntil))
    }
}
