#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// RFC 3339 times: strict parsing of CBOR tdates (``parseDateTime(_:)``), whole-second UTC as ISO/IEC
/// 18013-5 writes them (``formatWholeSeconds(_:)``), command-line and report times (``parse(_:)``,
/// ``format(_:)``), and the proleptic Gregorian day arithmetic they share. No locale, no calendar objects.
package enum RFC3339 {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
    package static func parse(_ text: String) -> Date? {
        // The whole text must be one date-time: nothing before, nothing after (the formatter alone
        // stops reading at the offset and ignores what follows).
        guard hasDateTimeShape(text) else { return nil }
        let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        if let date = try? format.parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        return nil
    }

    /// Whether `text` is exactly an RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS`, an optional fraction of
    /// 1 to 9 digits, then `Z` or `±HH:MM` (`T` and `Z` upper-case, as the parser reads them).
    package static func hasDateTimeShape(_ text: String) -> Bool {
        let b = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Bool { range.allSatisfy { $0 < b.count && (0x30...0x39).contains(b[$0]) } }
        guard b.count >= 20, digits(0..<4), b[4] == 0x2d, digits(5..<7), b[7] == 0x2d, digits(8..<10), b[10] == 0x54,
            digits(11..<13), b[13] == 0x3a, digits(14..<16), b[16] == 0x3a, digits(17..<19)
        else { return false }
        var index = 19
        if b[index] == 0x2e {
            let start = index + 1
            index = start
            while index < b.count, (0x30...0x39).contains(b[index]) { index += 1 }
            guard (1...9).contains(index - start) else { return false }
        }
        guard index < b.count else { return false }
        if b[index] == 0x5a { return index + 1 == b.count }
        guard b[index] == 0x2b || b[index] == 0x2d, b.count == index + 6, digits((index + 1)..<(index + 3)), b[index + 3] == 0x3a,
            digits((index + 4)..<(index + 6))
        else { return false }
        return true
    }

    /// UTC, whole seconds unless the time has a fractional part (then milliseconds, rounded down):
    /// `2026-11-21T20:50:53Z`, `2026-11-21T20:50:53.125Z`. Written by hand for years 1583 to 9999 (every
    /// report carries a time, and a general formatter costs more than some checks); other years go
    /// through Foundation (which counts days before the Gregorian reform of 1582 in the Julian
    /// calendar).
    package static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        let whole = interval.rounded(.down)
        let fractional = interval != whole
        guard let (days, secondOfDay) = handWrittenDay(date) else {
            return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: fractional))
        }
        let (year, month, day) = civilFromDays(days)
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
        digits(year, 4)
        out.append(UInt8(ascii: "-"))
        digits(month, 2)
        out.append(UInt8(ascii: "-"))
        digits(day, 2)
        out.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2)
        out.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2)
        out.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        if fractional {
            out.append(UInt8(ascii: "."))
            digits(min(999, Int(((interval - whole) * 1000).rounded(.down))), 3)
        }
        out.append(UInt8(ascii: "Z"))
        return String(decoding: out, as: UTF8.self)
    }

    /// For an instant in the years ``format(_:)`` writes by hand (1583-01-01 to 9999-12-31T23:59:59
    /// UTC), its day since 1970-01-01 and its whole second within that day; nil outside them.
    package static func handWrittenDay(_ date: Date) -> (days: Int, secondOfDay: Int)? {
        let whole = date.timeIntervalSince1970.rounded(.down)
        guard whole >= -12_212_553_600, whole <= 253_402_300_799 else { return nil }
        let seconds = Int(whole)
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return (days, seconds - days * 86_400)
    }

    package static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    package static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the given civil date (proleptic Gregorian).
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// Year, month and day (proleptic Gregorian) of a day count since 1970-01-01.
    package static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func number(_ text: Substring, _ digits: Int) -> Int? {
        guard text.count == digits, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }

    package static func parseFullDate(_ text: Substring) -> (year: Int, month: Int, day: Int)? {
        // The usual form, YYYY-MM-DD in ASCII, read from the bytes; anything else takes the general path.
        if let fast = text.utf8.withContiguousStorageIfAvailable({ b -> (Int, Int, Int)? in
            guard b.count == 10, b[4] == 0x2d, b[7] == 0x2d else { return nil }
            var values = (0, 0, 0)
            for i in 0..<10 where i != 4 && i != 7 {
                let c = b[i]
                guard c >= 0x30, c <= 0x39 else { return nil }
                let digit = Int(c - 0x30)
                if i < 4 {
                    values.0 = values.0 * 10 + digit
                } else if i < 7 {
                    values.1 = values.1 * 10 + digit
                } else {
                    values.2 = values.2 * 10 + digit
                }
            }
            return values
        }), let (y, m, d) = fast {
            guard (1...12).contains(m), (1...daysIn(month: m, year: y)).contains(d) else { return nil }
            return (y, m, d)
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, let y = number(parts[0], 4), let m = number(parts[1], 2), let d = number(parts[2], 2),
            (1...12).contains(m), (1...daysIn(month: m, year: y)).contains(d)
        else { return nil }
        return (y, m, d)
    }

    /// The common form `YYYY-MM-DDTHH:MM:SSZ`, parsed from bytes without allocating.
    package static func parseCompactUTC(_ text: String) -> Double? {
        var copy = text
        return copy.withUTF8 { parseCompactUTC(utf8: $0) }
    }

    /// ``parseDateTime(_:)`` of text given as its UTF-8 bytes: the common form read from the bytes,
    /// any other form through a string.
    package static func parseDateTime(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        parseCompactUTC(utf8: bytes) ?? parseDateTime(String(decoding: bytes, as: UTF8.self))
    }

    /// ``parseCompactUTC(_:)`` of text given as its UTF-8 bytes.
    package static func parseCompactUTC(utf8 b: UnsafeBufferPointer<UInt8>) -> Double? {
        guard b.count == 20, b[4] == 0x2d, b[7] == 0x2d, b[10] == 0x54, b[13] == 0x3a, b[16] == 0x3a,
            b[19] == 0x5a || b[19] == 0x7a
        else { return nil }
        func digits(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for i in start..<(start + count) {
                let c = b[i]
                guard c >= 0x30, c <= 0x39 else { return nil }
                value = value * 10 + Int(c - 0x30)
            }
            return value
        }
        guard let y = digits(0, 4), let m = digits(5, 2), let d = digits(8, 2), let hh = digits(11, 2), let mm = digits(14, 2),
            let ss = digits(17, 2),
            (1...12).contains(m), (1...daysIn(month: m, year: y)).contains(d), hh < 24, mm < 60, ss <= 60
        else { return nil }
        return Double(daysFromCivil(year: y, month: m, day: d) * 86400 + hh * 3600 + mm * 60 + min(ss, 59))
    }

    /// Seconds since 1970-01-01T00:00:00Z for an RFC 3339 date-time, or nil if malformed.
    package static func parseDateTime(_ text: String) -> Double? {
        if let fast = parseCompactUTC(text) { return fast }
        let chars = Substring(text)
        guard let tIndex = chars.firstIndex(where: { $0 == "T" || $0 == "t" }) else { return nil }
        guard let date = parseFullDate(chars[chars.startIndex..<tIndex]) else { return nil }
        var rest = chars[chars.index(after: tIndex)...]
        guard rest.count >= 8 else { return nil }
        let timePart = rest.prefix(8)
        let hms = timePart.split(separator: ":", omittingEmptySubsequences: false)
        guard hms.count == 3, let hh = number(hms[0], 2), let mm = number(hms[1], 2), let ss = number(hms[2], 2),
            hh < 24, mm < 60, ss <= 60
        else { return nil }
        rest = rest.dropFirst(8)
        var fraction = 0.0
        if rest.first == "." {
            let digits = rest.dropFirst().prefix(while: { $0.isASCII && $0.isNumber })
            guard !digits.isEmpty, digits.count <= 9, let f = Double("0." + digits) else { return nil }
            fraction = f
            rest = rest.dropFirst(1 + digits.count)
        }
        var offsetSeconds = 0
        if rest == "Z" || rest == "z" {
            offsetSeconds = 0
        } else if let sign = rest.first, sign == "+" || sign == "-", rest.count == 6 {
            let parts = rest.dropFirst().split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let oh = number(parts[0], 2), let om = number(parts[1], 2), oh < 24, om < 60 else { return nil }
            offsetSeconds = (oh * 3600 + om * 60) * (sign == "-" ? -1 : 1)
        } else {
            return nil
        }
        let days = daysFromCivil(year: date.year, month: date.month, day: date.day)
        return Double(days * 86400 + hh * 3600 + mm * 60 + min(ss, 59) - offsetSeconds) + fraction
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` in UTC, fractional seconds dropped (years 0 to 9999 written by hand).
    package static func formatWholeSeconds(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        var days = total / 86400
        var secs = total % 86400
        if secs < 0 {
            secs += 86400
            days -= 1
        }
        let (y, m, d) = civilFromDays(days)
        if (0...9999).contains(y) {
            // Written as bytes: this runs for every date in every report.
            let hh = secs / 3600, mi = secs % 3600 / 60, ss = secs % 60
            return String(unsafeUninitializedCapacity: 20) { out in
                func put(_ value: Int, _ width: Int, at index: Int) {
                    var v = value
                    for i in stride(from: index + width - 1, through: index, by: -1) {
                        out[i] = UInt8(0x30 + v % 10)
                        v /= 10
                    }
                }
                put(y, 4, at: 0)
                out[4] = 0x2d
                put(m, 2, at: 5)
                out[7] = 0x2d
                put(d, 2, at: 8)
                out[10] = 0x54
                put(hh, 2, at: 11)
                out[13] = 0x3a
                put(mi, 2, at: 14)
                out[16] = 0x3a
                put(ss, 2, at: 17)
                out[19] = 0x5a
                return 20
            }
        }
        func pad(_ v: Int, _ w: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(secs / 3600, 2)):\(pad(secs % 3600 / 60, 2)):\(pad(secs % 60, 2))Z"
    }
}
