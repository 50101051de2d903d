#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// RFC 3339 times for reports and command-line options (`--at 2022-04-01T00:00:00Z`).
public enum RFC3339Time {
    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
    public static func parse(_ text: String) -> Date? {
        let format = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        if let date = try? format.parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        return nil
    }

    /// UTC, whole seconds unless the time has a fractional part.
    public static func format(_ date: Date) -> String {
        let fractional = date.timeIntervalSince1970 != date.timeIntervalSince1970.rounded(.down)
        return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: fractional))
    }
}
