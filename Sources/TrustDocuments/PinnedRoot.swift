import Foundation
import MdocVerifier
import VerificationCore

/// A root certificate named by its download URL and the SHA-256 of its DER — `https://host/path#sha256=HEX`,
/// as `--trust` and `--trust-doctype DOCTYPE=…` take it: the way to trust "the root certificate from
/// the corresponding state DMV website" without trusting whoever answers at that address.
public struct PinnedRoot: Sendable, Equatable {
    /// The URL the root is fetched from (without the pin).
    public let url: String
    /// The SHA-256 of the root's DER, lowercase hex (64 digits).
    public let pin: String

    /// A pinned root of these parts.
    public init(url: String, pin: String) {
        self.url = url
        self.pin = pin.lowercased()
    }

    /// Reads `URL#sha256=HEX`. Throws ``PinnedRootFailure`` (`invalidEntry`) for a URL without a
    /// pin, a pin that is not 64 hex digits, or a URL that is not fetched (https, or http to a
    /// loopback address).
    public static func parse(_ value: String) throws(PinnedRootFailure) -> PinnedRoot {
        guard let hash = value.firstIndex(of: "#") else {
            throw PinnedRootFailure(
                .invalidEntry,
                "\(value): a root fetched from a URL needs its SHA-256 pin, URL#sha256=HEX (the SHA-256 of the certificate's DER, 64 hex digits), so that only that certificate is trusted"
            )
        }
        let url = String(value[..<hash])
        let fragment = value[value.index(after: hash)...]
        guard fragment.lowercased().hasPrefix("sha256=") else {
            throw PinnedRootFailure(.invalidEntry, "\(url): the fragment must be sha256=HEX (the SHA-256 of the certificate's DER)")
        }
        let hex = String(fragment.dropFirst("sha256=".count))
        guard hex.count == 64, hex.allSatisfy(\.isHexDigit) else {
            throw PinnedRootFailure(.invalidEntry, "\(url): the pin sha256=\(hex) is not 64 hex digits (the SHA-256 of the certificate's DER)")
        }
        guard TrustDocumentFetchFailure.fetchableURL(url) != nil else {
            throw PinnedRootFailure(.invalidEntry, "\(url): only https (or http to a loopback address) is fetched")
        }
        return PinnedRoot(url: url, pin: hex)
    }

    /// The document-cache key of the root's copy: the URL and the pin, so a new pin is a new copy.
    public var cacheKey: String { "iaca-root \(pin) \(url)" }

    /// Whether a document-cache key is a pinned root's copy.
    public static func isCacheKey(_ key: String) -> Bool { key.hasPrefix("iaca-root ") }
}

/// Why a pinned root could not be used: `invalidEntry` and `invalidRoot` are configuration errors
/// (a URL without a pin, a certificate that is not the pinned one, not one self-signed CA
/// certificate) that stop the start; `unavailable` (the root could not be fetched and no copy is
/// kept) lets the service start without that root, loudly.
public struct PinnedRootFailure: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure.
    public enum Kind: String, Sendable {
        /// The configured entry is not `URL#sha256=HEX` with a fetchable URL.
        case invalidEntry
        /// What the URL serves is not the pinned self-signed CA certificate.
        case invalidRoot
        /// The root could not be fetched, and no copy is kept.
        case unavailable
    }

    /// The kind of failure.
    public let kind: Kind
    /// What went wrong, naming the URL (and both fingerprints on a mismatch).
    public let description: String

    /// A failure of `kind`.
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
