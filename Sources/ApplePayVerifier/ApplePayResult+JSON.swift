import Foundation
import VerificationCore
import WalletEncoding
import WalletJSON

extension ApplePayResult {
    /// The report's JSON plus `token` (non-secret facts) and, only when accepted, `payment`: the
    /// decrypted JSON exactly as Apple sent it, and `card`: the card in the shape shared with Google Pay. What `applepay decrypt --format json` prints and
    /// `POST /v1/applepay/decrypt` answers.
    public var json: String { String(decoding: jsonBytes, as: UTF8.self) }

    /// ``json`` as UTF-8 bytes, what the HTTP API sends: the payment is copied in as received, and no
    /// `String` of the whole answer is made.
    public var jsonBytes: [UInt8] {
        let result = self
        var tokenJSON: [UInt8]?
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
            tokenJSON = writer.bytes
        }
        let payment = result.verdict == .accepted ? result.payment : nil
        return result.report.jsonBytes(appending: [("token", tokenJSON), ("payment", payment?.rawJSON), ("card", payment?.card.jsonBytes)])
    }
}
