import Foundation
import MdocVerifier
import VerificationCore

/// The IACA root entries of `--trust` (any docType but passports) and `--trust-doctype
/// DOCTYPE[,DOCTYPE...]=…` (only those docTypes), as `serve`, `trust list` and the verify commands
/// read them: each a file, a directory, or a pinned URL (`https://host/path#sha256=HEX`).
public struct TrustRootEntry: Sendable, Equatable {
    /// The flag the entry was given with (`--trust` or `--trust-doctype`), for messages.
    public let flag: String
    /// The docTypes its roots may vouch for; nil for any.
    public let docTypes: Set<String>?
    /// The path (file or directory), or the URL with its pin, as given.
    public let value: String
    /// The pinned URL, when the entry is one.
    public let pinned: PinnedRoot?

    /// Reads the entries; throws ``PinnedRootFailure`` (`invalidEntry`) naming the flag for a
    /// malformed scoped entry or a URL without a valid pin.
    public static func parse(trust: [String], scoped: [String]) throws(PinnedRootFailure) -> [TrustRootEntry] {
        var entries: [TrustRootEntry] = []
        for value in trust {
            entries.append(try entry(flag: "--trust", docTypes: nil, value: value))
        }
        for value in scoped {
            let parts: (docTypes: Set<String>, path: String)
            do { parts = try IACATrustStore.scopedEntry(value) } catch {
                throw PinnedRootFailure(.invalidEntry, "--trust-doctype \(value): \((error as? TrustStoreError)?.message ?? "\(error)")")
            }
            entries.append(try entry(flag: "--trust-doctype", docTypes: parts.docTypes, value: parts.path))
        }
        return entries
    }

    /// One entry of `flag` whose roots vouch only for `scopes` (docTypes, or SD-JWT VC types for
    /// `--trust-vct`): a file, a directory or a pinned URL. Throws for a URL without a valid pin.
    public static func scoped(flag: String, scopes: Set<String>, value: String) throws(PinnedRootFailure) -> TrustRootEntry {
        try entry(flag: flag, docTypes: scopes, value: value)
    }

    static func entry(flag: String, docTypes: Set<String>?, value: String) throws(PinnedRootFailure) -> TrustRootEntry {
        guard TrustDocumentFetchFailure.isURL(value) else { return TrustRootEntry(flag: flag, docTypes: docTypes, value: value, pinned: nil) }
        do { return TrustRootEntry(flag: flag, docTypes: docTypes, value: value, pinned: try PinnedRoot.parse(value)) } catch {
            throw PinnedRootFailure(error.kind, "\(flag) \(error.description)")
        }
    }

    /// Adds the roots of every file or directory entry to `store` (URL entries are left to
    /// ``loadURLs(_:into:source:documentStore:now:)``). Throws `TrustStoreError` naming the flag and the path.
    public static func loadFiles(_ entries: [TrustRootEntry], into store: inout IACATrustStore) throws(TrustStoreError) {
        for entry in entries where entry.pinned == nil {
            do { try store.load(path: entry.value, docTypes: entry.docTypes) } catch let error as TrustStoreError {
                throw TrustStoreError(error.code, "\(entry.flag) \(entry.value): \(error.message)")
            } catch {
                throw TrustStoreError("\(entry.flag) \(entry.value): \(error)")
            }
        }
    }

    /// Adds the root of every pinned URL entry to `store`, fetched through `source` or taken from
    /// the store's kept copy. Returns each URL's status (with its `problem` when it could not be
    /// had: the service starts without that root, loudly). Throws ``PinnedRootFailure``
    /// (`invalidRoot`) when a URL serves anything but its pinned self-signed CA certificate.
    public static func loadURLs(
        _ entries: [TrustRootEntry], into store: inout IACATrustStore, source: PinnedRootSource, documentStore: (any DocumentCacheStore)?,
        now: Date
    ) async throws(PinnedRootFailure) -> [TrustSourceStatus] {
        var statuses: [TrustSourceStatus] = []
        for entry in entries {
            guard let pinned = entry.pinned else { continue }
            do {
                let loaded = try await source.load(pinned, store: documentStore, now: now)
                store.add(loaded.certificate, docTypes: entry.docTypes, provenance: loaded.provenance)
                statuses.append(TrustSourceStatus(kind: .url, location: pinned.url, roots: 1, lastSuccess: loaded.provenance.fetchedAt))
            } catch {
                guard error.kind == .unavailable else { throw PinnedRootFailure(error.kind, "\(entry.flag) \(error.description)") }
                statuses.append(TrustSourceStatus(kind: .url, location: pinned.url, roots: 0, problem: error.description))
            }
        }
        return statuses
    }
}
