import Crypto
import Foundation
import VerificationCore
import WalletEncoding
import WalletJOSE
import WalletJSON

/// A receipt as issued: the compact JWS and what a store keeps of it.
public struct IssuedReceipt: Sendable {
    /// The receipt's `jti`.
    public let id: String
    /// The receipt's `iat`, to the second.
    public let issuedAt: Date
    /// The receipt's `flow`.
    public let flow: String
    /// The receipt's `verdict`.
    public let verdict: String
    /// The compact JWS.
    public let jws: String
    /// The signed payload (JSON).
    public let payload: [UInt8]

    /// What a receipt store keeps: id, time, flow, verdict and the JWS.
    public var stored: StoredReceipt { StoredReceipt(id: id, issuedAt: issuedAt, flow: flow, verdict: verdict, jws: jws) }
}

/// Signed verification receipts: evidence that a verification ran, when, against which issuer and
/// with what outcome, without personal data. A receipt is a compact JWS (ES256) with the header
/// `{"alg": "ES256", "typ": "wallet-verifier-receipt+jwt", "kid", "x5c"?}` and a JSON payload
/// written here, member by member, so the CLI, the service and library users sign the same bytes
/// for the same content (``payload(_:issuer:issuedAt:id:)``).
public enum VerificationReceipt {
    /// The JWS `typ` of every receipt.
    public static let type = "wallet-verifier-receipt+jwt"

    /// Signs a receipt of `content` with `signer`, issued at `now` (whole seconds) by `issuer` (the
    /// `iss`, left out when nil), with a random 128-bit `jti` unless `id` is given.
    public static func issue(_ content: ReceiptContent, signer: some ReceiptSigner, issuer: String?, now: Date, id: String? = nil) async throws
        -> IssuedReceipt
    {
        let issuedAt = Date(timeIntervalSince1970: now.timeIntervalSince1970.rounded(.down))
        let id = id ?? randomID()
        let payload = payload(content, issuer: issuer, issuedAt: issuedAt, id: id)
        let input = JWS.signingInputES256(payload: payload, type: type, keyID: signer.keyID, x5c: signer.certificateChain)
        let signature = try await signer.signES256(Array(input.utf8))
        let jws = try JWS.compact(signingInput: input, signature: signature)
        return IssuedReceipt(
            id: id, issuedAt: issuedAt, flow: content.flow, verdict: content.report.verdict.rawValue, jws: jws, payload: payload)
    }

    /// base64url of 16 bytes from the system CSPRNG.
    public static func randomID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64.encodeURL((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// The payload JSON: `iss`, `iat`, `jti`, `flow`, `protocol`, `time`, `policy`, `testOnly` (only
    /// when true), `verdict`, `checks` (`id`, `status`, `reason`, `scope`), `submission.sha256`,
    /// `request`, `documents`, `payment`; absent facts are left out, never written as null.
    public static func payload(_ content: ReceiptContent, issuer: String?, issuedAt: Date, id: String) -> [UInt8] {
        var writer = JSONWriter(capacity: 1024 + content.report.checks.count * 96 + content.documents.count * 512)
        var object = ObjectWriter(taking: &writer)
        object.string("iss", issuer)
        object.number("iat", Int64(issuedAt.timeIntervalSince1970.rounded(.down)))
        object.string("jti", id)
        object.string("flow", content.flow)
        object.string("protocol", content.protocol)
        object.string("time", RFC3339.format(content.report.evaluatedAt))
        object.string("policy", content.report.policy)
        if content.report.testOnly || content.testRoot { object.bool("testOnly", true) }
        object.string("verdict", content.report.verdict.rawValue)
        object.array("checks", content.report.checks) { check, writer in
            var item = ObjectWriter(taking: &writer)
            item.string("id", check.id.rawValue)
            item.string("status", check.status.rawValue)
            item.string("reason", check.reason.rawValue)
            item.string("scope", check.scope)
            writer = item.close()
        }
        object.strings("submission", [("sha256", Base64.encodeURL(content.submissionSHA256))])
        if let request = content.request { object.strings("request", [("id", request.id), ("origin", request.origin)]) }
        if !content.documents.isEmpty {
            object.array("documents", content.documents) { document, writer in Self.write(document, into: &writer) }
        }
        if let payment = content.payment {
            object.strings(
                "payment",
                [
                    ("merchantId", payment.merchantID), ("publicKeyHash", payment.publicKeyHash), ("currency", payment.currency),
                    ("amount", payment.amount), ("paymentDataType", payment.paymentDataType),
                    ("transactionIdSha256", payment.transactionIDSHA256.map { Base64.encodeURL($0) }),
                ])
        }
        writer = object.close()
        return writer.bytes
    }

    static func write(_ document: ReceiptContent.Document, into writer: inout JSONWriter) {
        var item = ObjectWriter(taking: &writer)
        item.string("docType", document.docType)
        if let issuer = document.issuer {
            item.strings(
                "issuer", [("subject", issuer.subject), ("country", issuer.country), ("sha256", Base64.encodeURL(issuer.certificateSHA256))])
        }
        if let anchor = document.trustAnchor {
            item.strings("trustAnchor", [("sha256", Base64.encodeURL(anchor.sha256)), ("source", anchor.source)])
        }
        if let signer = document.documentSignerSHA256 { item.strings("documentSigner", [("sha256", Base64.encodeURL(signer))]) }
        if document.signed != nil || document.validFrom != nil || document.validUntil != nil {
            item.strings(
                "mso",
                [
                    ("signed", document.signed.map(RFC3339.format)), ("validFrom", document.validFrom.map(RFC3339.format)),
                    ("validUntil", document.validUntil.map(RFC3339.format)),
                ])
        }
        if let revocation = document.revocation {
            item.strings(
                "revocation",
                [
                    ("status", revocation.status), ("reason", revocation.reason), ("uri", revocation.uri),
                    ("listIssuedAt", revocation.listIssuedAt),
                ])
        }
        item.array("requested", document.requested) { element, writer in
            var member = ObjectWriter(taking: &writer)
            member.string("name", element.name)
            member.bool("intentToRetain", element.intentToRetain)
            writer = member.close()
        }
        item.array("disclosed", document.disclosed) { name, writer in writer.string(name) }
        if !document.ageOver.isEmpty {
            item.array("ageOver", document.ageOver) { answer, writer in
                var member = ObjectWriter(taking: &writer)
                member.number("years", Int64(answer.years))
                if let value = answer.value { member.bool("value", value) } else { member.null("value") }
                writer = member.close()
            }
        }
        writer = item.close()
    }
}

/// Writes one JSON object member by member, with the commas between them.
struct ObjectWriter {
    private var writer: JSONWriter
    private var first = true

    /// Takes over `writer` (left empty, so the bytes are not copied) and opens an object.
    init(taking writer: inout JSONWriter) {
        self.writer = writer
        writer = JSONWriter(capacity: 0)
        self.writer.raw("{")
    }

    private mutating func member(_ name: String) {
        if !first { writer.raw(",") }
        first = false
        writer.key(name)
    }

    /// A string member; nothing when `value` is nil.
    mutating func string(_ name: String, _ value: String?) {
        guard let value else { return }
        member(name)
        writer.string(value)
    }

    mutating func number(_ name: String, _ value: Int64) {
        member(name)
        writer.raw(String(value))
    }

    mutating func bool(_ name: String, _ value: Bool) {
        member(name)
        writer.bool(value)
    }

    mutating func null(_ name: String) {
        member(name)
        writer.raw("null")
    }

    /// A member that is an object of string members (nil ones left out).
    mutating func strings(_ name: String, _ members: [(String, String?)]) {
        member(name)
        var nested = ObjectWriter(taking: &writer)
        for (key, value) in members { nested.string(key, value) }
        writer = nested.close()
    }

    mutating func array<Element>(_ name: String, _ elements: [Element], _ body: (Element, inout JSONWriter) -> Void) {
        member(name)
        writer.raw("[")
        for (index, element) in elements.enumerated() {
            if index > 0 { writer.raw(",") }
            body(element, &writer)
        }
        writer.raw("]")
    }

    /// Closes the object and gives the writer back.
    consuming func close() -> JSONWriter {
        writer.raw("}")
        return writer
    }
}
