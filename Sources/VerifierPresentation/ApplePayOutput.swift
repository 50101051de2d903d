import ApplePayVerifier
import Foundation
import VerificationCore
import WalletEncoding
import WalletJSON

/// Rendering of Apple Pay results, the same for `applepay decrypt` and the HTTP service.
public enum ApplePayOutput {
    /// The result as ``json(_:)`` or ``text(_:)``, as `format` says.
    public static func render(_ result: ApplePayResult, format: OutputFormat) -> String {
        switch format {
        case .json: return json(result)
        case .text: return text(result)
        }
    }

    /// The report's JSON plus `token` (non-secret facts) and, only when accepted, `payment`: the
    /// decrypted JSON exactly as Apple sent it.
    public static func json(_ result: ApplePayResult) -> String {
        var extra: [(key: String, rawJSON: String)] = []
        if let summary = result.summary {
            var token: [String: String] = [
                "version": summary.version.rawValue,
                "transactionId": summary.transactionId,
                "publicKeyHash": summary.publicKeyHash,
            ]
            if let applicationData = summary.applicationData { token["applicationData"] = applicationData }
            if let signingTime = summary.signingTime { token["signingTime"] = RFC3339.format(signingTime) }
            if let signer = summary.signer { token["signer"] = signer }
            if let identifier = summary.transactionIdentifier { token["transactionIdentifier"] = identifier }
            var writer = JSONWriter(capacity: 512)
            if let method = summary.paymentMethod {
                // The PKPaymentToken's paymentMethod (not signed), as an object beside the strings.
                var methodWriter = JSONWriter(capacity: 128)
                methodWriter.sortedStringObject(
                    [("displayName", method.displayName), ("network", method.network), ("type", method.type)]
                        .reduce(into: [String: String]()) { if let value = $1.1 { $0[$1.0] = value } })
                var members = token.map {
                    (
                        key: $0.key,
                        json: {
                            var w = JSONWriter(capacity: 64)
                            w.string($0.value)
                            return w.text
                        }($0)
                    )
                }
                members.append((key: "paymentMethod", json: methodWriter.text))
                members.sort { $0.key < $1.key }
                writer.raw("{")
                for (index, member) in members.enumerated() {
                    if index > 0 { writer.raw(",") }
                    writer.string(member.key)
                    writer.raw(":")
                    writer.raw(member.json)
                }
                writer.raw("}")
            } else {
                writer.sortedStringObject(token)
            }
            extra.append(("token", writer.text))
        }
        if result.verdict == .accepted, let payment = result.payment {
            extra.append(("payment", String(decoding: payment.rawJSON, as: UTF8.self)))
        }
        return ReportOutput.json(result.report, extra: extra)
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
