import Foundation
import GooglePayVerifier
import VerificationCore
import WalletEncoding

/// Rendering of Google Pay results for `googlepay verify` and `googlepay decrypt`: the library's
/// JSON, or a table for a terminal.
public enum GooglePayOutput {
    /// The result as its JSON (``GooglePayResult/json``) or ``text(_:)``, as `format` says.
    public static func render(_ result: GooglePayResult, format: OutputFormat) -> String {
        switch format {
        case .json: return result.json
        case .text: return text(result)
        }
    }

    /// The check table, the token's non-secret facts, then the card with the account number masked
    /// and the cryptogram and expiry hidden.
    public static func text(_ result: GooglePayResult) -> String {
        var lines = [ReportOutput.text(result.report)]
        if let summary = result.summary {
            var facts = "token: \(summary.protocolVersion)"
            if let expiration = summary.intermediateKeyExpiration { facts += ", intermediate key expires \(RFC3339.format(expiration))" }
            if let messageId = summary.messageId { facts += ", messageId \(messageId.prefix(16))…" }
            if let expiration = summary.messageExpiration { facts += ", message expires \(RFC3339.format(expiration))" }
            lines.append(TerminalText.escape(facts))
        }
        guard result.verdict == .accepted, let payment = result.payment else { return lines.joined(separator: "\n") }
        var rows: [(String, String)] = [
            ("pan", payment.maskedPAN),
            ("expiration", "(present, not shown; use --format json)"),
            ("authMethod", payment.authMethod.rawValue),
        ]
        if payment.cryptogram != nil { rows.append(("cryptogram", "(present, not shown; use --format json)")) }
        if let eci = payment.eciIndicator { rows.append(("eciIndicator", eci)) }
        if let gateway = payment.gatewayMerchantId { rows.append(("gatewayMerchantId", gateway)) }
        let width = rows.map(\.0.count).max() ?? 0
        lines.append("payment:")
        for (name, value) in rows {
            lines.append("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + TerminalText.escape(value))
        }
        return lines.joined(separator: "\n")
    }
}
