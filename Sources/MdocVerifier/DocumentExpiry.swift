import Foundation
import Mdoc
import VerificationCore
import WalletCBOR
import WalletEncoding

/// `identity.document.expiry`: the physical document's own `expiry_date` (ISO 18013-5 and ISO 23220
/// both name it so), compared by civil date with the verification day (UTC): a document is valid
/// through its expiry day.
package enum DocumentExpiry {
    package static func outcome(document: VerifiedDocument, requireUnexpired: Bool, at time: Date) -> CheckOutcome {
        let disclosed = document.issuerSigned.lazy.compactMap { space in space["expiry_date"].map { (space.name, $0) } }.first
        guard let (nameSpace, value) = disclosed else {
            if requireUnexpired {
                return .failed(
                    .expiryNotDisclosed,
                    "The request requires an unexpired document, but the response discloses no expiry_date: request the document's expiry date (documentExpirationDate) too."
                )
            }
            return .notApplicable("The response discloses no expiry_date.")
        }
        guard let expiry = civilDate(value) else {
            return .failed(.documentExpired, "\(nameSpace)/expiry_date is not a date, so the document cannot be shown to be unexpired.")
        }
        let today = RFC3339Civil.date(time)
        if (expiry.year, expiry.month, expiry.day) < (today.year, today.month, today.day) {
            let expiryDay = "\(expiry)"
            return .failed(
                .documentExpired,
                "The physical document expired on \(expiryDay) (\(nameSpace)/expiry_date); the verification time is \(RFC3339.format(time))."
                    + (requireUnexpired ? "" : " This is a warning: the request does not require an unexpired document (requireUnexpired)."),
                details: ["expiryDate": expiryDay])
        }
        // Written when the report is read: the date's text is the message's and the detail's.
        return .passed {
            let expiryDay = "\(expiry)"
            return ("The physical document is valid through \(expiryDay) (\(nameSpace)/expiry_date).", ["expiryDate": expiryDay])
        }
    }

    /// A full-date (tag 1004 or its text), or the UTC day of a tdate.
    static func civilDate(_ value: ElementValue) -> CBORFullDate? {
        switch value {
        case .fullDate(let date): return date
        case .dateTime(let instant):
            let day = RFC3339Civil.date(instant.date)
            return CBORFullDate(year: day.year, month: day.month, day: day.day)
        case .text(let text):
            let parts = text.split(separator: "-", omittingEmptySubsequences: false)
            guard text.utf8.count == 10, parts.count == 3, let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else {
                return nil
            }
            return CBORFullDate(year: year, month: month, day: day)
        default:
            return nil
        }
    }
}

/// Civil date of an instant (UTC).
package enum RFC3339Civil {
    /// The UTC day, counted from the seconds for the years ``RFC3339/format(_:)`` writes by hand (the
    /// same arithmetic, so the same day), else read from that text.
    package static func date(_ date: Date) -> (year: Int, month: Int, day: Int) {
        guard let (days, _) = RFC3339.handWrittenDay(date) else { return dateFromText(date) }
        return RFC3339.civilFromDays(days)
    }

    /// The UTC day read from the RFC 3339 text of `date`.
    package static func dateFromText(_ date: Date) -> (year: Int, month: Int, day: Int) {
        let text = RFC3339.format(date)
        let parts = text.prefix(10).split(separator: "-").compactMap { Int($0) }
        return parts.count == 3 ? (parts[0], parts[1], parts[2]) : (1970, 1, 1)
    }
}
