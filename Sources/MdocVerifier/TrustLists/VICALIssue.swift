import Crypto
import Foundation
import WalletCOSE
import WalletEncoding

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

    package init(issueID: UInt64?, date: Date, digest: [UInt8]) {
        self.issueID = issueID
        self.date = date
        self.digest = digest
    }

    /// The record stays in the store for good (the purge removes rows past their usable time).
    package static let recordKeptUntil = Date(timeIntervalSince1970: 32_503_680_000)

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

    package func isOlder(than other: VICALIssue) -> Bool {
        if let id = issueID, let otherID = other.issueID, id != otherID { return id < otherID }
        return date < other.date
    }

    /// `issueID date-millis digest-hex` (issueID `-` when absent).
    package var record: [UInt8] {
        Array("\(issueID.map(String.init) ?? "-") \(Int64((date.timeIntervalSince1970 * 1000).rounded())) \(Hex.encode(digest))".utf8)
    }

    package init?(record: [UInt8]) {
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
