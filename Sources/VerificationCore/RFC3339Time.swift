#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WalletCBOR

/// RFC 3339 times for reports and command-line options (`--at 2022-04-01T00:00:00Z`).
public enum RFC3339Time {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
    public static func parse(_ text: String) -> Date? {
        let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        if let date = try? format.parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        return nil
    }

    /// UTC, whole seconds unless the time has a fractional part (then milliseconds, rounded down):
    /// `2026-11-21T20:50:53Z`, `2026-11-21T20:50:53.125Z`. Written by hand for years 1583 to 9999 (every
    /// report carries a time, and a general formatter costs more than some checks); other years go
    /// through Foundation (which counts days before the Gregorian reform of 1582 in the Julian
    /// calendar).
    public static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        let whole = interval.rounded(.down)
        let fractional = interval != whole
        // 1583-01-01 and 9999-12-31T23:59:59.
        guard whole >= -12_212_553_600, whole <= 253_402_300_799 else {
            return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: fractional))
        }
        let seconds = Int(whole)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilDate(daysSince1970: days)
        var out = [UInt8]()
        out.reserveCapacity(24)
        func digits(_ value: Int, _ count: Int) {
            var divisor = 1
            for _ in 1..<count { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                out.append(UInt8(ascii: "0") + UInt8(rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4); out.append(UInt8(ascii: "-"))
        digits(month, 2); out.append(UInt8(ascii: "-"))
        digits(day, 2); out.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2); out.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2); out.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        if fractional {
            out.append(UInt8(ascii: "."))
            digits(min(999, Int(((interval - whole) * 1000).rounded(.down))), 3)
        }
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date.
    public static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        RFC3339.daysFromCivil(year: year, month: month, day: day)
    }

    /// Proleptic Gregorian year, month, day of a day count since 1970-01-01.
    public static func civilDate(daysSince1970: Int) -> (year: Int, month: Int, day: Int) {
        RFC3339.civilFromDays(daysSince1970)
    }
}
