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
