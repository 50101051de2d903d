import Foundation
import SwiftASN1

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
        // Days from civil (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146_097 + doe - 719_468
        let seconds = Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second) + fraction
        return Date(timeIntervalSince1970: seconds)
    }
}

extension Date {
    /// RFC 3339 in UTC, whole seconds (for messages).
    var rfc3339: String {
        let seconds = Int64(timeIntervalSince1970.rounded(.down))
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 { rest += 86_400; days -= 1 }
        // Civil from days (Howard Hinnant's algorithm).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        guard (0...9999).contains(y) else { return "\(timeIntervalSince1970)s since 1970" }
        var out = [UInt8](repeating: 0, count: 20)
        func put(_ value: Int64, at index: Int, digits: Int) {
            var v = value
            for i in stride(from: index + digits - 1, through: index, by: -1) {
                out[i] = UInt8(truncatingIfNeeded: 0x30 + v % 10)
                v /= 10
            }
        }
        put(y, at: 0, digits: 4); out[4] = 0x2D
        put(m, at: 5, digits: 2); out[7] = 0x2D
        put(d, at: 8, digits: 2); out[10] = 0x54
        put(rest / 3600, at: 11, digits: 2); out[13] = 0x3A
        put(rest / 60 % 60, at: 14, digits: 2); out[16] = 0x3A
        put(rest % 60, at: 17, digits: 2); out[19] = 0x5A
        return String(decoding: out, as: UTF8.self)
    }
}
