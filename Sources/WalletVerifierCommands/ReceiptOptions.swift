import ArgumentParser
import Foundation
import VerificationCore
import VerificationReceipts
import WalletJSON

/// `--receipt-key FILE [--receipt-cert FILE] [--receipt-issuer URI]`, shared by the commands that
/// verify something and print a report (`mdoc verify`, `identity verify`, `web verify`, `applepay
/// decrypt`): with a key, the output carries a signed verification receipt of the result it prints.
struct ReceiptOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            "Sign a verification receipt (ES256 JWS, no personal data) of the result with this P-256 private key (PEM, PKCS#8 or SEC1): --format json adds a receipt member, text output a receipt line."
    )
    var receiptKey: String?

    @Option(name: .long, help: "The certificate chain of --receipt-key (PEM, leaf first): the receipt's x5c header.")
    var receiptCert: String?

    @Option(name: .long, help: "The receipt's issuer (its iss claim), e.g. https://verifier.example. Default: none.")
    var receiptIssuer: String?

    func validate() throws {
        if receiptKey == nil && receiptCert != nil {
            throw ValidationError("--receipt-cert needs --receipt-key (the key the certificate is for)")
        }
        if receiptKey == nil && receiptIssuer != nil {
            throw ValidationError("--receipt-issuer needs --receipt-key (receipts are signed with it)")
        }
        if let receiptIssuer, receiptIssuer.trimmingCharacters(in: .whitespaces).isEmpty {
            throw ValidationError("--receipt-issuer must not be empty")
        }
    }

    /// The receipt signer, nil without `--receipt-key`. Commands load it before they verify
    /// anything, so a key that cannot be read (exit 2) changes nothing: no web session is used up.
    func signer() throws -> ReceiptSigningKey? {
        guard let receiptKey else { return nil }
        let keyText = String(decoding: try InputFiles.readFile(receiptKey), as: UTF8.self)
        let certificateText = try receiptCert.map { String(decoding: try InputFiles.readFile($0), as: UTF8.self) }
        do {
            return try ReceiptSigningKey.load(
                keyPEM: keyText, keyName: "--receipt-key \(receiptKey)", certificatePEM: certificateText,
                certificateName: "--receipt-cert \(receiptCert ?? "")")
        } catch {
            throw CLIInputError(error.description)
        }
    }

    /// The receipt of `content` signed by `signer` now (the real clock: the verification time is
    /// the receipt's `time`), or nil when there is no signer; `content` is built only when needed.
    func issue(signer: ReceiptSigningKey?, _ content: () -> ReceiptContent) async throws -> IssuedReceipt? {
        guard let signer else { return nil }
        do {
            return try await VerificationReceipt.issue(content(), signer: signer, issuer: receiptIssuer, now: Date())
        } catch {
            throw CLIInputError("--receipt-key \(receiptKey ?? ""): the receipt could not be signed: \(error)")
        }
    }
}

/// How a receipt joins a command's output: a `receipt` member at the end of the JSON object, or
/// two lines after the text (`receipt: <jti>`, then the compact JWS).
enum ReceiptOutput {
    /// `json` (one JSON object) with `"receipt": "<compact JWS>"` added as its last member; `json`
    /// unchanged without a receipt.
    static func json(_ json: String, adding receipt: IssuedReceipt?) -> String {
        guard let receipt, json.hasSuffix("}") else { return json }
        var writer = JSONWriter(capacity: receipt.jws.utf8.count + 16)
        writer.raw(",")
        writer.key("receipt")
        writer.string(receipt.jws)
        writer.raw("}")
        return String(json.dropLast()) + writer.text
    }

    /// The text lines of a receipt: a blank line, `receipt: <jti>`, then the compact JWS.
    static func text(_ receipt: IssuedReceipt) -> String {
        "\nreceipt: \(receipt.id)\n\(receipt.jws)"
    }

    /// A whole rendered output (`format`) with the receipt added, as ``json(_:adding:)`` or after the text.
    static func render(_ output: String, format: OutputFormat, receipt: IssuedReceipt?) -> String {
        guard let receipt else { return output }
        switch format {
        case .json: return json(output, adding: receipt)
        case .text: return output + "\n" + text(receipt)
        }
    }
}
