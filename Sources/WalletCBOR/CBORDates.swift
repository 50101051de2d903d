import WalletEncoding

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A date-time from tag 0 (RFC 3339 text) or tag 1 (seconds since the epoch).
public struct CBORDateTime: Sendable, Hashable, CBORDecodable {
    /// The instant the item denotes.
    public let date: Date
    /// The tag-0 text as received, when the value was a tdate.
    public let text: String?

    /// A date-time to encode (as tag 0, whole seconds in UTC).
    public init(date: Date) {
        self.date = date
        self.text = nil
    }

    /// Reads tag 0 (RFC 3339 text, strictly) or tag 1 (integer or finite float seconds); anything else is a type mismatch.
    public init(cbor node: CBORNode) throws(CBORError) {
        guard case .tagged(let tag, let content) = node.value else {
            throw node.mismatch("a date (tag 0 or tag 1)", nil)
        }
        switch tag {
        case 0:
            let text = try content.text("tag 0 date-time")
            guard let seconds = RFC3339.parseDateTime(text) else {
                throw CBORError(code: .invalidValue, message: "tag 0 content is not an RFC 3339 date-time", offset: content.offset)
            }
            self.date = Date(timeIntervalSince1970: seconds)
            self.text = text
        case 1:
            switch content.value {
            case .unsignedInt, .negativeInt:
                self.date = Date(timeIntervalSince1970: Double(try content.int("tag 1 epoch time")))
            case .float(let seconds) where seconds.isFinite:
                self.date = Date(timeIntervalSince1970: seconds)
            default:
                throw CBORError(code: .invalidValue, message: "tag 1 content must be a finite number", offset: content.offset)
            }
            self.text = nil
        default:
            throw node.mismatch("a date (tag 0 or tag 1)", nil)
        }
    }

    /// Tag 0 with RFC 3339 text in UTC, whole seconds (the form ISO 18013-5 requires).
    public func cborNode() -> CBORNode {
        .tagged(0, .text(text ?? RFC3339.formatWholeSeconds(date)))
    }

    /// The RFC 3339 text: as received for a tag-0 item, else whole seconds in UTC.
    public var rfc3339: String { text ?? RFC3339.formatWholeSeconds(date) }
}

/// An ISO 8601 full-date, `YYYY-MM-DD` (tag 1004, RFC 8943), or untagged text in the same form.
public struct CBORFullDate: Sendable, Hashable, CBORDecodable, CustomStringConvertible {
    /// The year, 0 to 9999.
    public let year: Int
    /// The month, 1 to 12.
    public let month: Int
    /// The day of the month, valid for the month and year.
    public let day: Int
    /// Whether the received item carried tag 1004.
    public let tagged: Bool

    /// A valid calendar date, or nil (month 13, February 30, …).
    public init?(year: Int, month: Int, day: Int) {
        guard (0...9999).contains(year), (1...12).contains(month), (1...RFC3339.daysIn(month: month, year: year)).contains(day) else { return nil }
        self.year = year
        self.month = month
        self.day = day
        self.tagged = true
    }

    /// Reads tag 1004 or untagged text of the form YYYY-MM-DD; any other tag or form is an error.
    public init(cbor node: CBORNode) throws(CBORError) {
        var content = node
        var wasTagged = false
        if case .tagged(let tag, let inner) = node.value {
            guard tag == 1004 else { throw node.mismatch("a full-date (tag 1004)", nil) }
            content = inner
            wasTagged = true
        }
        let text = try content.text("full-date")
        guard let parts = RFC3339.parseFullDate(text[...]) else {
            throw CBORError(code: .invalidValue, message: "full-date is not in the form YYYY-MM-DD", offset: content.offset)
        }
        self.year = parts.year
        self.month = parts.month
        self.day = parts.day
        self.tagged = wasTagged
    }

    /// `YYYY-MM-DD`.
    public var description: String {
        if (0...9999).contains(year), (0...99).contains(month), (0...99).contains(day) {
            // Ten ASCII digits and dashes, written in place (a string this short needs no allocation).
            return String(unsafeUninitializedCapacity: 10) { out in
                func put(_ value: Int, _ width: Int, at start: Int) {
                    var rest = value
                    for index in stride(from: start + width - 1, through: start, by: -1) {
                        out[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                        rest /= 10
                    }
                }
                put(year, 4, at: 0)
                out[4] = UInt8(ascii: "-")
                put(month, 2, at: 5)
                out[7] = UInt8(ascii: "-")
                put(day, 2, at: 8)
                return 10
            }
        }
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }

    /// Tag 1004 with the `YYYY-MM-DD` text (RFC 8943).
    public func cborNode() -> CBORNode { .tagged(1004, .text(description)) }
}
