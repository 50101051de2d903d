import ApplePayVerifier
import Foundation
import VerificationCore
import WalletEncoding
import WalletJSON

/// Rendering of Apple Pay results for `applepay decrypt`: the library's JSON, or a table for a terminal.
public enum ApplePayOutput {
    /// The result as ``json(_:)`` or ``text(_:)``, as `format` says.
    public static func render(_ result: ApplePayResult, format: OutputFormat) -> String {
        switch format {
        case .json: return json(result)
        case .text: return text(result)
        }
    }

    /// The result's JSON (``ApplePayResult/json``): the report, `token` and, when accepted, `payment`.
    public static func json(_ result: ApplePayResult) -> String {
        result.json
    }

    /// The check table, then the payment data with the account number masked and the cryptogram,
    /// EMV data, PIN block and cardholder name hidden.
    public static func text(_ result: ApplePayResult) -> String {
        var lines = [ReportOutput.text(result.report)]
        if let summary = result.summary {
            var facts = "token: \(summary.version.rawValue), transactionId \(summary.transactionId), publicKeyHash \(summary.publicKeyHash)"
            if let signingTime = summary.signingTime { facts += ", signed \(RFC3339.format(signingTime))" }
            lines.append(TerminalText.escape(facts))
        }
        guard result.verdict == .accepted, let payment = result.payment else { return lines.joined(separator: "\n") }
        var rows: [(String, String)] = [
            ("applicationPrimaryAccountNumber", payment.maskedAccountNumber),
            ("applicationExpirationDate", payment.applicationExpirationDate),
            ("currencyCode", payment.currencyCode),
            ("transactionAmount", "\(payment.transactionAmount)"),
            ("paymentDataType", payment.paymentDataType),
        ]
        if let device = payment.deviceManufacturerIdentifier { rows.append(("deviceManufacturerIdentifier", device)) }
        if payment.cardholderName != nil { rows.append(("cardholderName", "(present, not shown)")) }
        if payment.details.onlinePaymentCryptogram != nil { rows.append(("onlinePaymentCryptogram", "(present, not shown; use --format json)")) }
        if let eci = payment.details.eciIndicator { rows.append(("eciIndicator", eci)) }
        if payment.details.emvData != nil { rows.append(("emvData", "(present, not shown; use --format json)")) }
        if payment.details.encryptedPINData != nil { rows.append(("encryptedPINData", "(present, not shown; use --format json)")) }
        if let token = payment.merchantTokenIdentifier { rows.append(("merchantTokenIdentifier", token)) }
        if let metadata = payment.merchantTokenMetadata {
            rows.append(("merchantTokenMetadata", "members " + metadata.members.map(\.name).joined(separator: ", ") + " (use --format json)"))
        }
        for (position, response) in payment.authenticationResponses.enumerated() {
            let amount = response.transactionAmount.map { "\($0)" } ?? "-"
            rows.append(
                (
                    "authenticationResponses[\(position)]",
                    "merchant \(response.merchantIdentifier ?? "-"), amount \(amount)"
                        + (response.authenticationData == nil ? "" : ", authenticationData (present, not shown)")
                ))
        }
        let width = rows.map(\.0.count).max() ?? 0
        lines.append("payment:")
        for (name, value) in rows {
            lines.append("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + TerminalText.escape(value))
        }
        return lines.joined(separator: "\n")
    }
}
