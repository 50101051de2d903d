import Foundation
import SwiftASN1
import VerificationCore
import WalletEncoding

enum CMSTime {
    /// Reads a signing-time value: UTCTime or GeneralizedTime (RFC 5652 §11.3).
    static func date(from node: ASN1Node) throws -> Date {
        switch node.identifier {
        case .utcTime:
            let t = try UTCTime(berEncoded: node)
            return date(year: t.year, month: t.month, day: t.day, hour: t.hours, minute: t.minutes, second: t.seconds, fraction: 0)
        case .generalizedTime:
            let t = try GeneralizedTime(berEncoded: node)
            return date(year: t.year, month: t.month, day: t.day, hour: t.hours, minute: t.minutes, second: t.seconds, fraction: t.fractionalSeconds)
        default:
            throw CMSParseError(.malformedAttribute, "signing-time value is neither UTCTime nor GeneralizedTime")
        }
    }

    /// The date of a whole UTCTime element in the form every Apple Pay signing time has,
    /// `17 0D YYMMDDHHMMSS Z` (DER, seconds 00–59), read in place; nil for anything else, which the
    /// caller then reads with swift-asn1 (``date(from:)``), as it reads everything. For the elements
    /// it accepts, the date is the one that path gives: the same digits, the same ranges (years
    /// 1950–2049, real months and days, hours below 24, minutes below 60), the same
    /// ``date(year:month:day:hour:minute:second:fraction:)``.
    static func date(utcTimeElement element: ArraySlice<UInt8>) -> Date? {
        guard element.count == 15, element.first == 0x17, element.last == UInt8(ascii: "Z") else { return nil }
        let start = element.startIndex
        guard element[start + 1] == 0x0D else { return nil }
        // The two-digit field `field` (0: the year … 5: the seconds), or -1 when not two digits.
        func twoDigits(_ field: Int) -> Int {
            let tens = element[start + 2 + 2 * field] &- 0x30
            let units = element[start + 3 + 2 * field] &- 0x30
            guard tens < 10, units < 10 else { return -1 }
            return Int(tens) * 10 + Int(units)
        }
        let yy = twoDigits(0)
        let month = twoDigits(1)
        let day = twoDigits(2)
        let hour = twoDigits(3)
        let minute = twoDigits(4)
        let second = twoDigits(5)
        guard yy >= 0, hour >= 0, minute >= 0, second >= 0 else { return nil }
        let year = yy < 50 ? 2000 + yy : 1900 + yy
        guard (1...12).contains(month), day >= 1, day <= RFC3339.daysIn(month: month, year: year), hour < 24, minute < 60, second < 60 else {
            return nil
        }
        return date(year: year, month: month, day: day, hour: hour, minute: minute, second: second, fraction: 0)
    }

    /// Proleptic Gregorian calendar, UTC, without Calendar (fast and locale-free).
    static func date(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, fraction: Double) -> Date {
        let days = RFC3339.daysFromCivil(year: year, month: month, day: day)
        let seconds = Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second) + fraction
        return Date(timeIntervalSince1970: seconds)
    }
}

extension Date {
    /// RFC 3339 in UTC, whole seconds (for messages).
    var rfc3339: String {
        RFC3339.format(Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)))
    }
}
