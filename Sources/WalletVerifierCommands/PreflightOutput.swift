import Foundation
import Logging
import VerifierServer

/// `serve --check`'s output: a table (status, check, message; one line per check) or, with
/// `--format json`, a JSON array of `{"check", "status", "message"}`. Ends with exit code 1 when a
/// check failed; warnings leave it at 0.
enum PreflightOutput {
    /// Runs the checks of `settings` and writes them; throws ``CommandExit`` (1) when one failed.
    static func run(settings: ServerSettings, json: Bool, development: Bool = false) async throws {
        // What loading logs (development keys, permissions) is in the findings; the log stays quiet.
        let logger = Logger(label: "wallet-verifier") { _ in SwiftLogNoOpLogHandler() }
        let findings = await ServicePreflight.run(settings: settings, logger: logger, development: development)
        let output = CLIOutput.current
        if json {
            let list = findings.map { ["check": $0.check, "status": $0.status.rawValue, "message": $0.message] }
            let data = (try? JSONSerialization.data(withJSONObject: list, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("[]".utf8)
            output.out(String(decoding: data, as: UTF8.self))
        } else {
            let width = findings.map(\.check.count).max() ?? 5
            for finding in findings {
                let check = finding.check.padding(toLength: width, withPad: " ", startingAt: 0)
                output.out("\(finding.status.rawValue.padding(toLength: 4, withPad: " ", startingAt: 0))  \(check)  \(finding.message)")
            }
            let failed = findings.filter { $0.status == .fail }.count, warned = findings.filter { $0.status == .warn }.count
            output.out(failed == 0 ? "ready: \(warned) warning(s)" : "not ready: \(failed) check(s) failed, \(warned) warning(s)")
        }
        if findings.contains(where: { $0.status == .fail }) { throw CommandExit(code: 1) }
    }
}
