import ApplePayVerifier
import Foundation
import Hummingbird
import Mdoc
import MdocVerifier
import VerificationCore
import WalletCBOR
import WalletIdentity
import WalletJSON

/// `GET /`: a server-rendered page to paste or upload an encrypted identity response, an mdoc
/// DeviceResponse or an Apple Pay token, and see the report: each check green or red with its reason,
/// the disclosed elements, the portrait, the Apple Pay amount and currency with the account number
/// masked. No front-end build step; the only script reads an uploaded file into the text field.
/// The page shows personal data: serve it only where operators may see it.
struct WebPage: Sendable {
    let services: VerifierServices

    func register(on router: Router<BasicRequestContext>) {
        router.get("") { _, _ in html(page(result: nil)) }
        router.post("ui/verify") { request, _ -> Response in
            let buffer: ByteBuffer
            do {
                buffer = try await request.body.collect(upTo: services.settings.bodyLimit)
            } catch {
                var response = html(page(result: errorBox("The submission is larger than \(services.settings.bodyLimit) bytes.")))
                response.status = .contentTooLarge
                return response
            }
            let form = FormData(String(buffer: buffer))
            return html(page(result: await verify(form)))
        }
    }

    func html(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The result section for one submitted form.
    func verify(_ form: FormData) async -> String {
        let time: Date
        if let at = form["at"], !at.isEmpty {
            guard let parsed = RFC3339Time.parse(at) else { return errorBox("The verification time \"\(at)\" is not an RFC 3339 time such as 2022-04-01T00:00:00Z.") }
            time = parsed
        } else {
            time = services.clock.now()
        }
        switch form["kind"] {
        case "identity":
            guard let data = Self.binary(form["envelope"] ?? "") else { return errorBox("The encrypted response is not base64 or hex.") }
            guard let nonce = Hex.decode(form["nonce"] ?? ""), !nonce.isEmpty else { return errorBox("The nonce must be hex.") }
            let base = services.identity.verifier
            let merchant = (form["merchantId"] ?? "").isEmpty ? base.merchantID : form["merchantId"]!
            let team = (form["teamId"] ?? "").isEmpty ? base.teamID : form["teamId"]!
            let verifier = AppleIdentityVerifier(keyRing: base.keyRing, merchantID: merchant, teamID: team, trustStore: base.mdocVerifier.trustStore, policy: base.policy)
            let result = await verifier.verify(encryptedData: data, nonce: nonce, at: time)
            return reportSection(result.report) + documentsSection(result.documents, accepted: result.report.verdict == .accepted)
        case "mdoc":
            guard let response = Self.binary(form["deviceResponse"] ?? "") else { return errorBox("The DeviceResponse is not base64 or hex.") }
            guard let transcriptBytes = Self.binary(form["sessionTranscript"] ?? ""), let transcript = try? SessionTranscript(bytes: transcriptBytes) else {
                return errorBox("The session transcript is not a base64 or hex SessionTranscript.")
            }
            let verifier = services.identity.verifier.mdocVerifier
            let result = await verifier.verify(deviceResponse: response, transcript: transcript, at: time)
            return reportSection(result.report) + documentsSection(result.documents, accepted: result.report.verdict == .accepted)
        case "applepay":
            guard let verifier = services.applePay else { return errorBox("Apple Pay is not configured on this server.") }
            let token = Array((form["token"] ?? "").utf8)
            let result = await verifier.verify(token, context: VerificationContext(time: time, clockSkew: .seconds(services.settings.clockSkew)))
            return reportSection(result.report) + paymentSection(result)
        default:
            return errorBox("Choose what to verify.")
        }
    }

    static func binary(_ text: String) -> [UInt8]? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        if let hex = Hex.decode(trimmed), !hex.isEmpty, (try? CBORDecoder.decode(hex)) != nil { return hex }
        return Base64Decoding.lenient(trimmed.replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: "\r", with: ""))
    }

    func errorBox(_ message: String) -> String {
        "<section id=\"result\"><p class=\"error\" id=\"input-error\">\(escape(message))</p></section>"
    }

    func reportSection(_ report: VerificationReport) -> String {
        var rows = ""
        for check in report.checks {
            let scope = check.scope.map { " <small>[\(escape($0))]</small>" } ?? ""
            let reason = check.status == .passed ? "" : " <code>\(escape(check.reason.rawValue))</code>"
            rows += "<tr class=\"check \(check.status.rawValue)\" data-check=\"\(escape(check.id.rawValue))\" data-status=\"\(check.status.rawValue)\"><td>\(check.status.rawValue)</td><td>\(escape(check.id.rawValue))\(scope)</td><td>\(escape(check.message))\(reason)</td></tr>\n"
        }
        let warnings = report.warnings.map { "<li class=\"warning\">\(escape($0.message))</li>" }.joined()
        let testOnly = report.testOnly ? " <strong>(test only)</strong>" : ""
        return """
        <section id="result">
        <h2>Verdict: <span id="verdict" class="verdict \(report.verdict.rawValue)">\(report.verdict.rawValue)</span>\(testOnly)</h2>
        <p>Policy \(escape(report.policy)), verified at \(escape(RFC3339Time.format(report.evaluatedAt))).</p>
        <table class="checks"><thead><tr><th>status</th><th>check</th><th>message</th></tr></thead><tbody>
        \(rows)</tbody></table>
        \(warnings.isEmpty ? "" : "<ul class=\"warnings\">\(warnings)</ul>")
        </section>
        """
    }

    func documentsSection(_ documents: [VerifiedDocument], accepted: Bool) -> String {
        guard accepted else { return "<p id=\"elements-hidden\">Elements are shown only for an accepted response.</p>" }
        var out = ""
        for document in documents {
            out += "<section class=\"document\"><h3>\(escape(document.docType))</h3>"
            for space in document.issuerSigned {
                out += "<h4>\(escape(space.name))</h4><dl>"
                for element in space.elements {
                    out += "<dt>\(escape(element.identifier))</dt><dd data-element=\"\(escape(space.name))/\(escape(element.identifier))\">\(valueHTML(element.value, identifier: element.identifier))</dd>"
                }
                out += "</dl>"
            }
            out += "</section>"
        }
        return out
    }

    func valueHTML(_ value: ElementValue, identifier: String) -> String {
        if case .bytes(let bytes) = value {
            if bytes.starts(with: [0xff, 0xd8]) {
                return "<img class=\"portrait\" alt=\"\(escape(identifier))\" src=\"data:image/jpeg;base64,\(Data(bytes).base64EncodedString())\">"
            }
            return "&lt;\(bytes.count) bytes&gt;"
        }
        if case .text(let text) = value { return escape(text) }
        return "<code>\(escape(value.json))</code>"
    }

    func paymentSection(_ result: ApplePayResult) -> String {
        guard result.report.verdict == .accepted, let payment = result.payment else {
            return "<p id=\"payment-hidden\">Payment data is shown only for an accepted token.</p>"
        }
        return """
        <section id="payment"><h3>Payment</h3><dl>
        <dt>amount</dt><dd id="amount">\(escape("\(payment.transactionAmount)"))</dd>
        <dt>currency</dt><dd id="currency">\(escape(payment.currencyCode))</dd>
        <dt>account number</dt><dd id="pan">\(escape(payment.maskedAccountNumber))</dd>
        <dt>expires</dt><dd>\(escape(payment.applicationExpirationDate))</dd>
        <dt>type</dt><dd>\(escape(payment.paymentDataType))</dd>
        </dl></section>
        """
    }

    func page(result: String?) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>wallet-verifier</title>
        <style>
        body { font-family: system-ui, sans-serif; margin: 2rem; max-width: 70rem; }
        textarea { width: 100%; height: 6rem; font-family: monospace; }
        fieldset { margin-bottom: 1rem; }
        table.checks { border-collapse: collapse; width: 100%; }
        table.checks td { border-bottom: 1px solid #ddd; padding: .3rem; vertical-align: top; }
        tr.passed td:first-child { color: #fff; background: #1a7f37; }
        tr.failed td:first-child { color: #fff; background: #cf222e; }
        tr.error td:first-child { color: #000; background: #d4a72c; }
        tr.skipped td:first-child { color: #000; background: #ddd; }
        .verdict.accepted { color: #1a7f37; } .verdict.rejected { color: #cf222e; } .verdict.indeterminate { color: #9a6700; }
        img.portrait { max-width: 12rem; border: 1px solid #ccc; }
        .error { color: #cf222e; }
        </style></head><body>
        <h1>wallet-verifier</h1>
        <p>Paste or upload what Apple Wallet handed over. Binary data as base64 or hex. Leave the time empty to verify now.</p>
        <form method="post" action="/ui/verify" id="identity-form">
        <fieldset><legend>Verify with Wallet identity response (encryptedData)</legend>
        <input type="hidden" name="kind" value="identity">
        <textarea name="envelope" id="envelope" placeholder="base64 or hex of PKIdentityDocument.encryptedData"></textarea>
        <input type="file" data-target="envelope">
        <label>nonce (hex) <input name="nonce" id="nonce" size="70"></label>
        <label>merchant id <input name="merchantId" id="merchantId" placeholder="\(escape(services.identity.verifier.merchantID))"></label>
        <label>team id <input name="teamId" id="teamId" placeholder="\(escape(services.identity.verifier.teamID))"></label>
        <label>time <input name="at" id="identity-at" placeholder="2022-04-01T00:00:00Z"></label>
        <button type="submit" id="verify-identity">Verify identity response</button>
        </fieldset></form>
        <form method="post" action="/ui/verify" id="mdoc-form">
        <fieldset><legend>ISO 18013-5 DeviceResponse</legend>
        <input type="hidden" name="kind" value="mdoc">
        <textarea name="deviceResponse" placeholder="DeviceResponse, base64 or hex"></textarea>
        <input type="file" data-target="deviceResponse">
        <textarea name="sessionTranscript" placeholder="SessionTranscript, base64 or hex"></textarea>
        <label>time <input name="at" placeholder="2021-01-01T00:00:00Z"></label>
        <button type="submit">Verify DeviceResponse</button>
        </fieldset></form>
        <form method="post" action="/ui/verify" id="applepay-form">
        <fieldset><legend>Apple Pay payment token</legend>
        <input type="hidden" name="kind" value="applepay">
        <textarea name="token" placeholder="paymentData JSON or a whole PKPaymentToken"></textarea>
        <label>time <input name="at" placeholder="2014-10-27T19:52:43Z"></label>
        <button type="submit">Verify and decrypt token</button>
        </fieldset></form>
        \(result ?? "")
        <script>
        for (const input of document.querySelectorAll('input[type=file]')) {
          input.addEventListener('change', async () => {
            const file = input.files[0]; if (!file) return;
            const bytes = new Uint8Array(await file.arrayBuffer());
            let text = ''; for (const b of bytes) text += String.fromCharCode(b);
            input.form.elements[input.dataset.target].value = /^[\\x20-\\x7e\\s]*$/.test(text) ? text : btoa(text);
          });
        }
        </script>
        </body></html>
        """
    }
}

func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.count)
    for character in text {
        switch character {
        case "&": out += "&amp;"
        case "<": out += "&lt;"
        case ">": out += "&gt;"
        case "\"": out += "&quot;"
        case "'": out += "&#39;"
        default: out.append(character)
        }
    }
    return out
}

/// `application/x-www-form-urlencoded` fields.
struct FormData {
    private var fields: [String: String] = [:]

    init(_ body: String) {
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String {
                String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            guard let key = parts.first else { continue }
            fields[decode(key)] = parts.count > 1 ? decode(parts[1]) : ""
        }
    }

    subscript(key: String) -> String? { fields[key] }
}
