import Foundation
import VerificationCore
import WalletEncoding
import WalletJSON

extension GooglePayResult {
    /// The report's JSON plus `token` (non-secret facts, when the token could be read) and, only
    /// when accepted, `payment`: the decrypted message exactly as decrypted (it holds the card).
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
        var writer = JSONWriter(capacity: 512 + report.checks.count * 256 + (payment?.rawJSON.count ?? 0))
        report.writeJSON(into: &writer) { writer in
            if let tokenJSON {
                writer.raw(UInt8(ascii: ","))
                writer.key("token")
                writer.raw(bytes: tokenJSON)
            }
            if let payment {
                writer.raw(UInt8(ascii: ","))
                writer.key("payment")
                writer.raw(bytes: payment.rawJSON)
            }
        }
        return writer.bytes
    }
}
