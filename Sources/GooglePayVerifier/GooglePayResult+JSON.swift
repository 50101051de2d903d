import Foundation
import VerificationCore
import WalletEncoding
import WalletJSON

extension GooglePayResult {
    /// The report's JSON plus `token` (non-secret facts, when the token could be read) and, only
    /// when accepted, `payment`: the decrypted message exactly as decrypted (it holds the card), and
    /// `card`: the card in the shape shared with Apple Pay.
    public var json: String { String(decoding: jsonBytes, as: UTF8.self) }

    /// ``json`` as UTF-8 bytes: the payment is copied in as decrypted.
    public var jsonBytes: [UInt8] {
        var tokenJSON: [UInt8]?
        if let summary {
            var token: [String: String] = ["protocolVersion": summary.protocolVersion]
            if let expiration = summary.intermediateKeyExpiration { token["intermediateKeyExpiration"] = RFC3339.format(expiration) }
            if let key = summary.merchantPublicKey { token["merchantPublicKey"] = key }
            if let messageId = summary.messageId { token["messageId"] = messageId }
            if let expiration = summary.messageExpiration { token["messageExpiration"] = RFC3339.format(expiration) }
            if let authMethod = summary.authMethod { token["authMethod"] = authMethod.rawValue }
            var writer = JSONWriter(capacity: 256)
            writer.sortedStringObject(token)
            tokenJSON = writer.bytes
        }
        let payment = verdict == .accepted ? payment : nil
        return report.jsonBytes(appending: [("token", tokenJSON), ("payment", payment?.rawJSON), ("card", payment?.card.jsonBytes)])
    }
}
