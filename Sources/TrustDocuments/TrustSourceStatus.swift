import Foundation
import WalletEncoding

/// One configured trust source as it stands: what it is, how many roots (or keys) it contributes,
/// when it was last loaded, when its publisher says to update it, and why it is not in use when it
/// is not. Shown in `GET /v1/trust` (`sources`), the `wallet_verifier_trust_*` metrics, `/readyz`
/// details and `serve --check`.
public struct TrustSourceStatus: Sendable, Equatable {
    /// The kinds of trust source.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// IACA roots read from a file or directory.
        case file
        /// An IACA root fetched from a pinned URL.
        case url
        /// A VICAL (file or URL).
        case vical
        /// Google's root signing keys (file or URL).
        case googlePayKeys = "googlepay-keys"
    }

    /// What to do with a source past its next update by more than the configured margin.
    public enum StalePolicy: String, Sendable, Equatable, CaseIterable {
        /// Keep using it (a stale but signed list is still the best knowledge), loudly.
        case warn
        /// Stop anchoring on it.
        case fail
    }

    /// The kind of source.
    public let kind: Kind
    /// The path or URL as configured (a pinned URL without its pin).
    public let location: String
    /// How many roots (or keys) it contributes now.
    public var roots: Int
    /// When it was last loaded or fetched successfully; nil when never.
    public var lastSuccess: Date?
    /// When its publisher says to fetch it again (a VICAL's nextUpdate, a key list's max-age); nil when it does not say.
    public var nextUpdate: Date?
    /// Why it contributes nothing now (unreachable with no kept copy, refused as stale); nil when in use.
    public var problem: String?

    /// A status of these parts.
    public init(kind: Kind, location: String, roots: Int, lastSuccess: Date? = nil, nextUpdate: Date? = nil, problem: String? = nil) {
        self.kind = kind
        self.location = location
        self.roots = roots
        self.lastSuccess = lastSuccess
        self.nextUpdate = nextUpdate
        self.problem = problem
    }

    /// The `source` label of the metrics: `KIND:LOCATION`.
    public var label: String { "\(kind.rawValue):\(location)" }

    /// Whether the source is past its next update by more than `margin` at `now` (never for a
    /// source whose publisher gives no next update, such as a file of roots).
    public func isStale(at now: Date, margin: TimeInterval) -> Bool {
        guard let nextUpdate else { return false }
        return now.timeIntervalSince(nextUpdate) > margin
    }

    /// "stale: past its next update 2026-11-30T00:00:00Z by 9 days (more than 7 days)", for logs and checks.
    public func staleness(at now: Date, margin: TimeInterval) -> String? {
        guard isStale(at: now, margin: margin), let nextUpdate else { return nil }
        return
            "\(label) is past its next update \(RFC3339.format(nextUpdate)) by \(Self.duration(now.timeIntervalSince(nextUpdate))) (more than \(Self.duration(margin)))"
    }

    /// Reads a duration such as `7d`, `36h`, `90m` or `3600s` (a bare number is seconds); nil when malformed or not positive.
    public static func parseDuration(_ text: String) -> TimeInterval? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard let last = trimmed.last else { return nil }
        let units: [Character: TimeInterval] = ["d": 86_400, "h": 3_600, "m": 60, "s": 1]
        let (digits, unit) = units[last].map { (String(trimmed.dropLast()), $0) } ?? (trimmed, 1)
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let value = Int(digits), value > 0, value <= 3_650 * 86_400 else { return nil }
        return TimeInterval(value) * unit
    }

    /// `9 days`, `36 hours`, `45 minutes`: the largest whole unit.
    public static func duration(_ seconds: TimeInterval) -> String {
        let whole = Int(max(seconds, 0))
        if whole >= 86_400, whole % 86_400 == 0 || whole >= 2 * 86_400 { return "\(whole / 86_400) day\(whole / 86_400 == 1 ? "" : "s")" }
        if whole >= 3_600 { return "\(whole / 3_600) hour\(whole / 3_600 == 1 ? "" : "s")" }
        if whole >= 60 { return "\(whole / 60) minute\(whole / 60 == 1 ? "" : "s")" }
        return "\(whole) second\(whole == 1 ? "" : "s")"
    }
}
