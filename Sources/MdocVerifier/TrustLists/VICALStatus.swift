import Foundation

/// A VICAL whose roots are trusted, as the service's `GET /v1/trust` shows it.
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

    /// The status of `vical`, loaded from `source` (fetched at `fetchedAt`; nil for a file).
    public init(source: String, vical: VICAL, fetchedAt: Date?) {
        self.source = source
        self.provider = vical.provider
        self.issueID = vical.issueID
        self.date = vical.date
        self.nextUpdate = vical.nextUpdate
        self.fetchedAt = fetchedAt
    }
}
