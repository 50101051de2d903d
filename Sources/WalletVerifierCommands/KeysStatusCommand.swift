import ArgumentParser
import Foundation
import Logging
import VerificationCore
import VerifierServer

/// `wallet-verifier keys status`: the service's own certificates (as `serve` reads them, from the
/// same flags, environment and config file) with the days each has left; exit 1 when one expires
/// within `--warn-days`.
struct KeysStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "List the service's certificates and the days each has left; exit 1 when one expires within --warn-days.",
        discussion: """
            Takes serve's flags (or --config and the WALLET_VERIFIER_* environment) and reads the Apple Pay, identity, \
            reader, request-signing, receipt and Merchant Identity certificates with their keys, as serve would. Days left \
            are whole days, counted toward zero. Exit codes: 0 none expires within --warn-days, 1 one does (or has \
            expired) or no certificate is configured at all, 2 a file cannot be read or a key does not match its certificate.
            """
    )

    @OptionGroup var options: ServeOptions
    @Option(name: .long, help: "Exit 1 when a certificate expires within this many days (default 30).") var warnDays = 30
    @Option(name: .long, help: "table (default) or json.") var format = "table"

    func validate() throws {
        guard warnDays >= 0 else { throw ValidationError("--warn-days takes a number of days, 0 or more") }
        guard format == "table" || format == "json" else { throw ValidationError("--format takes table or json, got \"\(format)\"") }
    }

    func run() async throws {
        let settings: ServerSettings
        let certificates: [ServiceCertificate]
        do {
            settings = try ServerSettings.resolve(flags: options.flags, environment: ProcessInfo.processInfo.environment, configFile: options.config)
            certificates = try ServiceCertificate.load(settings: settings)
        } catch {
            throw CLIInputError("\(error)")
        }
        let now = Date()
        let output = CLIOutput.current
        let expiring = certificates.filter { $0.expires(within: warnDays, at: now) }
        if format == "json" {
            let list = certificates.map { certificate -> [String: Any] in
                [
                    "kind": certificate.kind.rawValue, "subject": certificate.subject, "id": certificate.id,
                    "notAfter": ISO8601DateFormatter().string(from: certificate.notAfter), "daysLeft": certificate.daysLeft(at: now),
                    "status": certificate.expires(within: warnDays, at: now) ? "expiring" : "ok",
                ]
            }
            let data = (try? JSONSerialization.data(withJSONObject: list, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("[]".utf8)
            output.out(String(decoding: data, as: UTF8.self))
        } else if !certificates.isEmpty {
            let kindWidth = certificates.map(\.kind.rawValue.count).max() ?? 0
            for certificate in certificates {
                let days = certificate.daysLeft(at: now)
                let status = certificate.expires(within: warnDays, at: now) ? (days < 0 ? "EXPIRED " : "EXPIRING") : "ok      "
                output.out(
                    "\(status)  \(certificate.kind.rawValue.padding(toLength: kindWidth, withPad: " ", startingAt: 0))  \(String(format: "%5d", days)) day(s)  \(ISO8601DateFormatter().string(from: certificate.notAfter))  \(certificate.id)  \(certificate.subject)"
                )
            }
            for certificate in expiring { output.err(certificate.expiryWarning(at: now)) }
        }
        if certificates.isEmpty {
            // A job watching the wrong configuration must not stay green.
            output.err(
                "no certificate configured: keys status looks for --applepay-cert, --identity-cert, --reader-cert, --request-signing-cert, --receipt-cert and --applepay-identity-cert (flags, WALLET_VERIFIER_* or --config)"
            )
            throw CommandExit(code: 1)
        }
        if !expiring.isEmpty { throw CommandExit(code: 1) }
    }
}
