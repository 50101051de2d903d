import ApplePayVerifier
import Foundation
import Hummingbird
import Mdoc
import MdocVerifier
import VerificationCore
import WalletCBOR
import WalletEncoding
import WalletIdentity
import WalletJSON
import WebIdentity

/// The operators' web page, on its own listener (`serve --ui-listen`), never on the API listener:
/// paste or upload an encrypted identity response or a web credential (for a request this service issued), an mdoc
/// DeviceResponse or an Apple Pay token, and see the report — each check green or red with its
/// reason, the disclosed elements, the portrait, the Apple Pay amount and currency with the account
/// number masked. It shows personal data and decrypts with the service's keys, so:
/// - every request carries the page token (a cookie set by opening `/?token=…` once, or
///   `Authorization: Bearer`), compared in constant time; anything else is a 401;
/// - every form carries a CSRF token derived from the page token (a 403 without it), and the cookie
///   is `SameSite=Strict`, so another site cannot submit a form in an operator's browser;
/// - identity responses verify only against outstanding request sessions (the nonce is consumed, as
///   through the API), and every verification uses the server's clock: no caller-chosen time,
///   merchant or team; offline debugging of old captures is the CLI's job;
/// - responses carry a Content-Security-Policy without inline script or style, `nosniff`,
///   `frame-ancestors 'none'` and `no-store`; every text from the input is escaped per Unicode scalar.
struct WebPage: Sendable {
    let live: LiveServices
    /// The configuration of the submission being answered (taken when it starts).
    var services: VerifierServices
    let access: WebPageAccess

    func current() -> WebPage {
        var page = self
        page.services = live.current
        return page
    }

    func register(on router: Router<VerifierRequestContext>) {
        router.add(middleware: WebPageHeadersMiddleware())
        router.add(middleware: WebPageAuthMiddleware(access: access))
        router.get("") { _, _ in html(page(result: nil)) }
        router.get("ui/page.css") { _, _ in asset(Self.stylesheet, type: "text/css; charset=utf-8") }
        router.get("ui/page.js") { _, _ in asset(Self.script, type: "text/javascript; charset=utf-8") }
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
            guard access.isValidCSRF(form["csrf"] ?? "") else {
                var response = html(
                    page(result: errorBox("The form is not one this page served (missing or wrong CSRF token): reload the page and submit again.")))
                response.status = .forbidden
                return response
            }
            return html(page(result: await current().verify(form)))
        }
    }

    func asset(_ text: String, type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    func html(_ text: String) -> Response {
        Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    /// The result section for one submitted form. Every verification uses the server's clock, and a
    /// failed device signature names the transcript it was made for, whatever
    /// `--explain-device-failures` says (the page is the operator's).
    func verify(_ form: FormData) async -> String {
        let time = services.clock.now()
        switch form["kind"] {
        case "identity":
            // Only against a request this service issued and that is still outstanding: the nonce is
            // consumed exactly as through POST /v1/identity/verify.
            guard let requestID = form["requestId"]?.trimmingCharacters(in: .whitespacesAndNewlines), !requestID.isEmpty else {
                return errorBox("Give the requestId of the identity request this service created (POST /v1/identity/requests).")
            }
            guard let data = Self.binary(form["envelope"] ?? "") else { return errorBox("The encrypted response is not base64 or hex.") }
            let result = await services.identity.explainingDeviceFailures().verify(
                requestID: requestID, encryptedData: data, sessionBinding: nil, context: .at(time))
            return reportSection(result.report) + documentsSection(result.documentsRegardlessOfVerdict, accepted: result.report.verdict == .accepted)
        case "web":
            // Only against a web request this service issued and that is still outstanding: the request
            // is consumed exactly as through POST /v1/web/verify, whichever protocol answered.
            guard !services.webOrigins.isEmpty else {
                return errorBox("Verify with Wallet on the Web is not configured on this server (--web-origin).")
            }
            guard let requestID = form["requestId"]?.trimmingCharacters(in: .whitespacesAndNewlines), !requestID.isEmpty else {
                return errorBox("Give the requestId of the web request this service created (POST /v1/web/requests).")
            }
            let credential: WebCredential
            do { credential = try WebCredential.fromSubmission(Array((form["credential"] ?? "").utf8)) } catch {
                return errorBox("The credential is not one a page receives from navigator.credentials.get: \(error).")
            }
            let result = await services.web.explainingDeviceFailures().verify(
                requestID: requestID, credential: credential, recipientKeys: services.webKeys, context: .at(time))
            return reportSection(result.report) + documentsSection(result.documentsRegardlessOfVerdict, accepted: result.report.verdict == .accepted)
        case "mdoc":
            guard let response = Self.binary(form["deviceResponse"] ?? "") else { return errorBox("The DeviceResponse is not base64 or hex.") }
            guard let transcriptBytes = Self.binary(form["sessionTranscript"] ?? ""), let transcript = try? SessionTranscript(bytes: transcriptBytes)
            else {
                return errorBox("The session transcript is not a base64 or hex SessionTranscript.")
            }
            // Exactly the composition of POST /v1/mdoc/verify: revocation, VICALs and the passport rules included.
            let result = await services.mdocFlowVerifier().verify(
                deviceResponse: response, transcript: transcript, readerKey: nil, context: .at(time), explainDeviceFailures: true)
            return reportSection(result.report) + documentsSection(result.documentsRegardlessOfVerdict, accepted: result.report.verdict == .accepted)
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
        return Base64.decodeLenient(trimmed.replacingOccurrences(of: "\n", with: "").replacingOccurrences(of: "\r", with: ""))
    }

    func errorBox(_ message: String) -> String {
        "<section id=\"result\"><p class=\"error\" id=\"input-error\">\(escape(message))</p></section>"
    }

    func reportSection(_ report: VerificationReport) -> String {
        var rows = ""
        for check in report.checks {
            let scope = check.scope.map { " <small>[\(escape($0))]</small>" } ?? ""
            let reason = check.status == .passed ? "" : " <code>\(escape(check.reason.rawValue))</code>"
            rows +=
                "<tr class=\"check \(check.status.rawValue)\" data-check=\"\(escape(check.id.rawValue))\" data-status=\"\(check.status.rawValue)\"><td>\(check.status.rawValue)</td><td>\(escape(check.id.rawValue))\(scope)</td><td>\(escape(check.message))\(reason)</td></tr>\n"
        }
        let warnings = report.warnings.map { "<li class=\"warning\">\(escape($0.message))</li>" }.joined()
        let testOnly = report.testOnly ? " <strong>(test only)</strong>" : ""
        return """
            <section id="result">
            <h2>Verdict: <span id="verdict" class="verdict \(report.verdict.rawValue)">\(report.verdict.rawValue)</span>\(testOnly)</h2>
            <p>Policy \(escape(report.policy)), verified at \(escape(RFC3339.format(report.evaluatedAt))).</p>
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
                    out +=
                        "<dt>\(escape(element.identifier))</dt><dd data-element=\"\(escape(space.name))/\(escape(element.identifier))\">\(valueHTML(element.value, identifier: element.identifier))</dd>"
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
                return "<img class=\"portrait\" alt=\"\(escape(identifier))\" src=\"data:image/jpeg;base64,\(Base64.encode(bytes))\">"
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
        let csrf = "<input type=\"hidden\" name=\"csrf\" value=\"\(escape(access.csrfToken))\">"
        return """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>wallet-verifier</title>
            <link rel="stylesheet" href="/ui/page.css">
            </head><body>
            <h1>wallet-verifier</h1>
            <p>Paste or upload what Apple Wallet handed over. Binary data as base64 or hex. Everything is verified at the server's time.</p>
            <form method="post" action="/ui/verify" id="identity-form">
            <fieldset><legend>Verify with Wallet identity response (encryptedData) for a request this service created</legend>
            <input type="hidden" name="kind" value="identity">\(csrf)
            <label>requestId <input name="requestId" id="requestId" size="40"></label>
            <textarea name="envelope" id="envelope" placeholder="base64 or hex of PKIdentityDocument.encryptedData"></textarea>
            <input type="file" data-target="envelope">
            <button type="submit" id="verify-identity">Verify identity response</button>
            </fieldset></form>
            <form method="post" action="/ui/verify" id="web-form">
            <fieldset><legend>Verify with Wallet on the Web credential (org-iso-mdoc or OpenID4VP) for a request this service created</legend>
            <input type="hidden" name="kind" value="web">\(csrf)
            <label>requestId <input name="requestId" id="webRequestId" size="40"></label>
            <textarea name="credential" id="credential" placeholder="what navigator.credentials.get returned: {&quot;protocol&quot;: ..., &quot;data&quot;: {&quot;response&quot;: ...}}"></textarea>
            <input type="file" data-target="credential">
            <button type="submit" id="verify-web">Verify web credential</button>
            </fieldset></form>
            <form method="post" action="/ui/verify" id="mdoc-form">
            <fieldset><legend>ISO 18013-5 DeviceResponse</legend>
            <input type="hidden" name="kind" value="mdoc">\(csrf)
            <textarea name="deviceResponse" placeholder="DeviceResponse, base64 or hex"></textarea>
            <input type="file" data-target="deviceResponse">
            <textarea name="sessionTranscript" placeholder="SessionTranscript, base64 or hex"></textarea>
            <button type="submit">Verify DeviceResponse</button>
            </fieldset></form>
            <form method="post" action="/ui/verify" id="applepay-form">
            <fieldset><legend>Apple Pay payment token</legend>
            <input type="hidden" name="kind" value="applepay">\(csrf)
            <textarea name="token" placeholder="paymentData JSON or a whole PKPaymentToken"></textarea>
            <button type="submit">Verify and decrypt token</button>
            </fieldset></form>
            \(result ?? "")
            <script src="/ui/page.js"></script>
            </body></html>
            """
    }

    static let stylesheet = """
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
        """

    /// The only script: reads an uploaded file into its text field (served from the page's origin,
    /// so the Content-Security-Policy allows no inline script).
    static let script = """
        for (const input of document.querySelectorAll('input[type=file]')) {
          input.addEventListener('change', async () => {
            const file = input.files[0]; if (!file) return;
            const bytes = new Uint8Array(await file.arrayBuffer());
            let text = ''; for (const b of bytes) text += String.fromCharCode(b);
            input.form.elements[input.dataset.target].value = /^[\\x20-\\x7e\\s]*$/.test(text) ? text : btoa(text);
          });
        }
        """
}

/// HTML text and attribute escaping, per Unicode scalar: walking characters (grapheme clusters) would
/// let `"\u{600}<"` or `">\u{301}"` carry a raw `<` or `>` through as part of one cluster.
func escape(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
        switch scalar {
        case "&": out.append(contentsOf: "&amp;".unicodeScalars)
        case "<": out.append(contentsOf: "&lt;".unicodeScalars)
        case ">": out.append(contentsOf: "&gt;".unicodeScalars)
        case "\"": out.append(contentsOf: "&quot;".unicodeScalars)
        case "'": out.append(contentsOf: "&#39;".unicodeScalars)
        default:
            // Controls other than tab and line breaks have no business in the page.
            if scalar.value < 0x20 && scalar != "\n" && scalar != "\t" && scalar != "\r" || scalar.value == 0x7f {
                out.append(contentsOf: "&#xFFFD;".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
    }
    return String(out)
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
