import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import VerificationCore
import WalletCBOR
import WalletEncoding
import WalletIdentity
import WalletVerifierTestSupport

@testable import VerifierServer

/// The web page: off the API listener, behind its token, forms protected by a CSRF token, identity
/// responses only for outstanding requests, the server's clock, strict headers and escaping.
@Suite struct WebPageSecurityTests {
    static let token = "page-token-for-tests-0123456789"

    static func pageApp(_ services: VerifierServices) -> some ApplicationProtocol {
        VerifierApplication.buildWebPage(
            services: services, access: WebPageAccess(token: token, generated: false), host: "127.0.0.1", port: 0, logger: Logger(label: "test"))
    }

    static var cookie: HTTPFields { [.cookie: "\(WebPageAccess.cookieName)=\(token)"] }

    static func form(_ fields: [String: String]) -> ByteBuffer {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return ByteBuffer(
            string: fields.map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&"))
    }

    @Test func theAPIListenerServesNoPage() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await RouterTests.services(fixture), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.status == .notFound)
            let verify = try await client.execute(uri: "/ui/verify", method: .post, body: Self.form(["kind": "mdoc"]))
            #expect(verify.status == .notFound)
        }
    }

    @Test func theTokenSignsInAndEveryResponseCarriesTheHeaders() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        try await Self.pageApp(try await RouterTests.services(fixture)).test(.router) { client in
            let anonymous = try await client.execute(uri: "/", method: .get)
            #expect(anonymous.status == .unauthorized)
            #expect(try await client.execute(uri: "/?token=wrong", method: .get).status == .unauthorized)
            #expect(try await client.execute(uri: "/", method: .get, headers: [.cookie: "\(WebPageAccess.cookieName)=wrong"]).status == .unauthorized)
            let signIn = try await client.execute(uri: "/?token=\(Self.token)", method: .get)
            #expect(signIn.status == .seeOther)
            #expect(signIn.headers[.location] == "/")
            let setCookie = try #require(signIn.headers[.setCookie])
            #expect(
                setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict")
                    && setCookie.hasPrefix("\(WebPageAccess.cookieName)=\(Self.token)"))
            let page = try await client.execute(uri: "/", method: .get, headers: Self.cookie)
            #expect(page.status == .ok)
            let bearer = try await client.execute(uri: "/", method: .get, headers: [.authorization: "Bearer \(Self.token)"])
            #expect(bearer.status == .ok)
            for response in [anonymous, page] {
                let csp = try #require(response.headers[.contentSecurityPolicy])
                #expect(csp.contains("img-src data:"))
                #expect(
                    csp.contains("default-src 'none'") && csp.contains("script-src 'self'") && csp.contains("frame-ancestors 'none'")
                        && csp.contains("form-action 'self'"))
                #expect(!csp.contains("unsafe-inline"))
                #expect(response.headers[.xContentTypeOptions] == "nosniff")
                #expect(response.headers[.cacheControl] == "no-store")
            }
            let html = String(buffer: page.body)
            // No inline script or style: the CSP would block them, and none is needed.
            #expect(!html.contains("<script>") && !html.contains("<style>"))
            #expect(html.contains("<script src=\"/ui/page.js\"></script>"))
            // No caller-chosen time, nonce, merchant or team: identity verifies against request sessions.
            for removed in ["name=\"at\"", "name=\"nonce\"", "name=\"merchantId\"", "name=\"teamId\""] { #expect(!html.contains(removed)) }
            #expect(html.contains("name=\"requestId\""))
            #expect(try await client.execute(uri: "/ui/page.js", method: .get, headers: Self.cookie).status == .ok)
        }
    }

    @Test func formsNeedTheCSRFTokenAndIdentityNeedsAnOutstandingRequest() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.services(fixture)
        let csrf = WebPageAccess(token: Self.token, generated: false).csrfToken
        let descriptor = try IdentityRequestDescriptor.decode(json: Data(ServiceFixture.descriptorJSON.utf8))
        let created = try await services.identity.create(descriptor: descriptor, sessionBinding: nil, now: ServiceFixture.time)
        let envelope = Data(try fixture.identityResponse(nonce: created.nonce)).base64EncodedString()
        try await Self.pageApp(services).test(.router) { client in
            let fields = ["kind": "identity", "requestId": created.requestID, "envelope": envelope]
            // Signed in but without the form's CSRF token (a cross-site form): refused.
            let forged = try await client.execute(uri: "/ui/verify", method: .post, headers: Self.cookie, body: Self.form(fields))
            #expect(forged.status == .forbidden)
            // Without the page token at all: 401.
            var withCSRF = fields
            withCSRF["csrf"] = csrf
            #expect(try await client.execute(uri: "/ui/verify", method: .post, body: Self.form(withCSRF)).status == .unauthorized)
            // The page's own form: verified against the outstanding request, whose nonce is consumed.
            let first = try await client.execute(uri: "/ui/verify", method: .post, headers: Self.cookie, body: Self.form(withCSRF))
            #expect(first.status == .ok)
            #expect(String(buffer: first.body).contains(#"<span id="verdict" class="verdict accepted">accepted</span>"#))
            let second = try await client.execute(uri: "/ui/verify", method: .post, headers: Self.cookie, body: Self.form(withCSRF))
            #expect(String(buffer: second.body).contains(#"data-check="replay.nonce" data-status="failed""#))
            // A captured response for no request of this service: nothing is decrypted.
            var unknown = withCSRF
            unknown["requestId"] = "not-issued-here"
            let stranger = String(
                buffer: try await client.execute(uri: "/ui/verify", method: .post, headers: Self.cookie, body: Self.form(unknown)).body)
            #expect(stranger.contains(#"data-check="replay.nonce" data-status="failed""#))
            #expect(stranger.contains(#"data-check="identity.envelope.decryption" data-status="skipped""#))
        }
    }

    /// `--ui-listen PORT` is loopback; the token file is checked; a generated token is one of 43 characters.
    @Test func listenerAndTokenSettings() throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        #expect(
            try ServerSettings.resolve(flags: ["uiListen": ["8081"]], environment: [:], configFile: nil).uiListen
                == .init(host: "127.0.0.1", port: 8081))
        #expect(
            try ServerSettings.resolve(flags: ["uiListen": ["[::1]:8082"]], environment: [:], configFile: nil).uiListen
                == .init(host: "::1", port: 8082))
        for bad in ["", "host:", "a b:80", "99999", "x"] {
            #expect(throws: SettingsError.self, "\(bad)") {
                try ServerSettings.resolve(flags: ["uiListen": [bad]], environment: [:], configFile: nil)
            }
        }
        let file = fixture.directory.appendingPathComponent("ui-token").path
        for bad in ["short", "has space inside the token", "semicolon;inside-the-token", ""] {
            try Data(bad.utf8).write(to: URL(fileURLWithPath: file))
            #expect(throws: SettingsError.self, "\(bad)") { try WebPageAccess.load(tokenFile: file) }
        }
        #expect(throws: SettingsError.self) { try WebPageAccess.load(tokenFile: fixture.directory.appendingPathComponent("missing").path) }
        try Data("a-good-page-token-0123456789\n".utf8).write(to: URL(fileURLWithPath: file))
        #expect(try WebPageAccess.load(tokenFile: file).isValid("a-good-page-token-0123456789"))
        let generated = try WebPageAccess.load(tokenFile: nil)
        #expect(generated.generated)
        #expect(generated.signInURL(host: "127.0.0.1", port: 8081).count == "http://127.0.0.1:8081/?token=".count + 43)
        #expect(try WebPageAccess.load(tokenFile: nil).signInURL(host: "h", port: 1) != generated.signInURL(host: "h", port: 1))
    }

    /// Fields the page no longer has — a verification time, a merchant, a team — are ignored when posted:
    /// an Apple Pay token signed long before the server's clock stays outside its signing window.
    @Test func postedTimesAndMerchantsAreIgnored() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.services(fixture)
        let csrf = WebPageAccess(token: Self.token, generated: false).csrfToken
        let signedAt = ServiceFixture.time.addingTimeInterval(-86_400)
        let token = String(decoding: try fixture.applePayToken(signedAt: signedAt), as: UTF8.self)
        try await Self.pageApp(services).test(.router) { client in
            let answer = try await client.execute(
                uri: "/ui/verify", method: .post, headers: Self.cookie,
                body: Self.form([
                    "kind": "applepay", "token": token, "csrf": csrf, "at": RFC3339.format(signedAt),
                    "merchantId": "merchant.com.attacker", "teamId": "ATTACKER01",
                ]))
            #expect(answer.status == .ok)
            let html = String(buffer: answer.body)
            #expect(html.contains(#"data-check="applepay.signingTime" data-status="failed""#), "\(html.prefix(400))")
            #expect(html.contains(#"class="verdict rejected""#))
        }
    }

    @Test func escapingWorksPerUnicodeScalar() {
        // Combining and prepended-concatenation marks form one grapheme cluster with < or >.
        for payload in ["\u{600}<script>alert(1)</script>", ">\u{301}<img src=x onerror=alert(1)>", "a\"b'c&d", "x\u{1b}[31m"] {
            let escaped = escape(payload)
            #expect(
                !escaped.unicodeScalars.contains { $0 == "<" || $0 == ">" || $0 == "\"" || $0 == "'" || $0.value == 0x1b },
                "\(payload.debugDescription)")
        }
        #expect(escape("\u{600}<") == "\u{600}&lt;")
        #expect(escape(">\u{301}") == "&gt;\u{301}")
    }
}
