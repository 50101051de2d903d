import Foundation
import VerificationCore
import WalletEncoding

/// A revocation list as obtained, with where it came from (for reports).
public struct RevocationListDocument: Sendable {
    /// The list exactly as received.
    public let bytes: [UInt8]
    /// "file status.cwt", "fetched", "cached (fetched 2026-05-01T10:00:00Z)".
    public let origin: String

    /// Wraps a list's bytes with where they came from.
    public init(bytes: [UInt8], origin: String) {
        self.bytes = bytes
        self.origin = origin
    }
}

/// Where revocation lists come from. Implementations throw ``RevocationFailure`` when a list cannot
/// be obtained (reason `listUnavailable`, `unsupportedURI`, `listTooLarge`, ...); the checker turns
/// that into an undetermined result, never into "not revoked".
public protocol RevocationListSource: Sendable {
    /// The list published at `uri`. `time` is the verification time (offline sources may ignore it).
    func list(for uri: String, at time: Date) async throws -> RevocationListDocument
}

/// Lists supplied as files (offline verification). Each list is found by its `sub` claim, which the
/// Token Status List specification requires to equal the uri that references it.
public struct OfflineRevocationLists: RevocationListSource {
    /// The supplied lists, by the uri they answer for.
    public private(set) var lists: [String: RevocationListDocument] = [:]

    /// Creates an empty set of lists; ``add(bytes:name:uri:)`` supplies them.
    public init() {}

    /// Adds a list. Its `sub` claim names the uri it answers for; a list without `sub` needs `uri`.
    public mutating func add(bytes: [UInt8], name: String, uri: String? = nil) throws(RevocationFailure) {
        let token = try RevocationListToken(bytes: bytes)
        guard let key = uri ?? token.subject else {
            throw RevocationFailure(.malformedList, "\(name) has no sub claim naming the uri it is published at.")
        }
        lists[key] = RevocationListDocument(bytes: bytes, origin: "file \(name)")
    }

    /// The list added for `uri` (`time` is ignored); throws `listUnavailable` when none was.
    public func list(for uri: String, at time: Date) async throws -> RevocationListDocument {
        guard let document = lists[uri] else {
            throw RevocationFailure(.listUnavailable, "No revocation list supplied for \(uri) (a list is matched by its sub claim).")
        }
        return document
    }
}

/// Several sources tried in order (files first, then the network): the first list found wins. When
/// none has it, the last source's failure is reported.
public struct RevocationListSources: RevocationListSource {
    /// The sources, in the order they are tried.
    public let sources: [any RevocationListSource]

    /// Creates a source that tries `sources` in order.
    public init(_ sources: [any RevocationListSource]) {
        self.sources = sources
    }

    /// The first list a source has for `uri`; otherwise throws the last source's error (`listUnavailable` when there are none).
    public func list(for uri: String, at time: Date) async throws -> RevocationListDocument {
        var lastError: any Error = RevocationFailure(.listUnavailable, "No revocation list source is configured.")
        for source in sources {
            do { return try await source.list(for: uri, at: time) } catch { lastError = error }
        }
        throw lastError
    }
}

/// The transport revocation lists are fetched with: ``TrustDocumentTransport``, the one transport of
/// every trust document (its former name, kept for existing code).
public typealias RevocationListTransport = TrustDocumentTransport

/// Fetches lists from their uri and caches them. A cached copy is used until the earliest of its
/// `exp`, its `ttl` after the fetch, and ``maximumAge`` after the fetch (one day by default: Apple
/// signs its lists daily), so a copy is never older than a day. Failed fetches are not cached.
///
/// Only `https` URIs are fetched, and `http` to a loopback address (127.0.0.0/8, ::1, localhost):
/// loopback traffic never leaves the machine, and a list is trusted for its signature, not its
/// transport. The clock decides cache freshness only; list validity is judged at the verification
/// time by the checker.
public actor RevocationListCache: RevocationListSource {
    struct Entry {
        let document: RevocationListDocument
        let fetchedAt: Date
        let freshUntil: Date
    }

    /// Fetches the lists' bytes.
    public let transport: any TrustDocumentTransport
    /// Decides whether a cached copy is fresh (not whether a list is valid).
    public let clock: any VerificationClock
    /// Longest a fetched copy is used before it is fetched again.
    public let maximumAge: Duration
    /// Largest list body accepted from the transport, in bytes.
    public let maximumSize: Int
    private var entries: [String: Entry] = [:]
    private var inFlight: [String: Task<Entry, any Error>] = [:]

    /// Creates an empty cache; by default a copy is kept at most one day and lists up to 4 MiB are accepted.
    public init(
        transport: any TrustDocumentTransport, clock: any VerificationClock = SystemClock(),
        maximumAge: Duration = .seconds(86_400), maximumSize: Int = 4 * 1024 * 1024
    ) {
        self.transport = transport
        self.clock = clock
        self.maximumAge = maximumAge
        self.maximumSize = maximumSize
    }

    /// Whether a uri may be fetched: https, or http to a loopback host as ``LoopbackHost/isLoopback(_:)``
    /// parses it (`localhost`, `[::1]`, an IPv4 literal in 127.0.0.0/8), never a name that starts like one.
    public static func fetchableURL(_ uri: String) -> URL? { TrustDocumentFetchFailure.fetchableURL(uri) }

    /// The cached copy of `uri` while fresh, otherwise a new fetch (one per uri at a time); `time` is ignored.
    /// Throws `unsupportedURI` for a uri that ``fetchableURL(_:)`` refuses, and the transport's failures.
    public func list(for uri: String, at time: Date) async throws -> RevocationListDocument {
        let now = clock.now()
        if let entry = entries[uri], now < entry.freshUntil {
            return RevocationListDocument(bytes: entry.document.bytes, origin: "cached (fetched \(RFC3339.format(entry.fetchedAt)))")
        }
        entries[uri] = nil
        guard let url = Self.fetchableURL(uri) else {
            throw RevocationFailure(
                .unsupportedURI, "The revocation list uri \(uri) is not fetched: only https (or http to a loopback address) is allowed.")
        }
        if let running = inFlight[uri] {
            return try await OutboundWait.during { try await running.value }.document
        }
        // The fetch runs outside any caller's slot hooks; each caller gives its own slot back while it waits.
        let task = OutboundWait.$hooks.withValue(nil) {
            Task { [transport, maximumSize, maximumAge] () async throws -> Entry in
                let bytes = try await RevocationFailure.fetching { try await transport.fetch(url, maximumSize: maximumSize) }
                return Self.entry(bytes: bytes, fetchedAt: now, maximumAge: maximumAge)
            }
        }
        inFlight[uri] = task
        defer { inFlight[uri] = nil }
        let entry = try await OutboundWait.during { try await task.value }
        if entry.freshUntil > now { entries[uri] = entry }
        return entry.document
    }

    static func entry(bytes: [UInt8], fetchedAt: Date, maximumAge: Duration) -> Entry {
        // The same freshness as the shared cache's copies (ttl, exp and the maximum age).
        let copy = SharedRevocationListCache.copy(uri: "", bytes: bytes, fetchedAt: fetchedAt, maximumAge: maximumAge)
        return Entry(document: RevocationListDocument(bytes: bytes, origin: "fetched"), fetchedAt: fetchedAt, freshUntil: copy.freshUntil)
    }

    /// Drops every cached list.
    public func removeAll() {
        entries.removeAll()
    }

    /// How many lists are cached and fresh now.
    public var freshCount: Int {
        let now = clock.now()
        return entries.values.filter { now < $0.freshUntil }.count
    }
}
