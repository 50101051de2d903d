import Foundation
import VerificationCore

/// How verify commands print a report: `text` (a table for people) or `json` (the public contract,
/// the same JSON as the HTTP API).
public enum OutputFormat: String, CaseIterable, Sendable {
    /// `text`: a table for people; `json`: the public contract.
    case text, json
}

/// Rendering of a verification report, as JSON or as a table for a terminal.
public enum ReportOutput {
    /// The report's JSON object with extra top-level members spliced in as raw JSON (for example the
    /// decrypted payment exactly as received, or the documents).
    public static func json(_ report: VerificationReport, extra: [(key: String, rawJSON: String)] = []) -> String {
        report.json(extra: extra)
    }

    /// A table of checks, then warnings and the verdict. Messages, reasons and scopes quote what the
    /// input said (subjects, docTypes): their control characters are escaped (``TerminalText``).
    public static func text(_ report: VerificationReport) -> String {
        var lines: [String] = []
        let idWidth = min(48, report.checks.map { $0.id.rawValue.count + ($0.scope.map { $0.count + 3 } ?? 0) }.max() ?? 10)
        for check in report.checks {
            let marker: String
            switch check.status {
            case .passed: marker = "PASS"
            case .failed: marker = check.requirement == .required ? "FAIL" : "warn"
            case .skipped: marker = "SKIP"
            case .error: marker = "ERR "
            }
            var name = check.id.rawValue
            if let scope = check.scope { name += " [\(TerminalText.escape(scope))]" }
            let padded = name.padding(toLength: max(idWidth, name.count), withPad: " ", startingAt: 0)
            let reason = check.status == .passed ? "" : " (\(TerminalText.escape(check.reason.rawValue)))"
            lines.append("\(marker)  \(padded)  \(TerminalText.escape(check.message))\(reason)")
        }
        for warning in report.warnings {
            lines.append("WARNING  \(TerminalText.escape(warning.message)) (\(TerminalText.escape(warning.code.rawValue)))")
        }
        var verdict = "verdict: \(report.verdict.rawValue)"
        if report.testOnly { verdict += " (TEST ONLY: made under a developer policy; never trust it in production)" }
        lines.append(verdict)
        return lines.joined(separator: "\n")
    }
}
