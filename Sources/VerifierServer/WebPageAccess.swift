import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import VerificationCore
import WalletEncoding

/// Who may use the web page: whoever holds its token. The token comes from `--ui-token-file` or is
/// generated at start (and logged once, with the page's address). A browser presents it as the
/// `wv-ui` cookie, set by opening `/?token=…` once (`HttpOnly`, `SameSite=Strict`), or a client as
/// `Authorization: Bearer …`. Forms carry a CSRF token derived from the page token.
public struct WebPageAccess: Sendable {
    /// The name of the cookie that carries the page token.
    public static let cookieName = "wv-ui"
    let token: String
    /// HMAC-SHA256(token, "wallet-verifier csrf"), hex: the same for every form of this token, and not
    /// computable without it.
    let csrfToken: String
    /// Whether the token was generated here (then it is logged once at start).
    public let generated: Bool

    /// Access for the given page token; the CSRF token of its forms is derived from it.
    public init(token: String, generated: Bool) {
        self.token = token
        self.generated = generated
        let mac = HMAC<SHA256>.authenticationCode(for: Data("wallet-verifier csrf".utf8), using: SymmetricKey(data: Data(token.utf8)))
        csrfToken = mac.map { String(format: "%02x", $0) }.joined()
    }

    /// The token of `--ui-token-file` (trimmed; at least 16 characters), or a new random one.
    public static func load(tokenFile: String?) throws -> WebPageAccess {
        guard let tokenFile else {
            var bytes = [UInt8](repeating: 0, count: 32)
            var generator = SystemRandomNumberGenerator()
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
            let token = Base64.encodeURL(bytes)
            return WebPageAccess(token: token, generated: true)
        }
        guard let data = FileManager.default.contents(atPath: tokenFile) else { throw SettingsError("cannot read --ui-token-file \(tokenFile)") }
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard token.utf8.count >= 16, token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f && $0 != ";" && $0 != "," && $0 != "\"" })
        else {
            throw SettingsError("--ui-token-file \(tokenFile) must hold a token of at least 16 visible ASCII characters (no ; , or \")")
        }
        try ServiceMaterial.requireOwnerOnly(tokenFile, flag: "--ui-token-file")
        return WebPageAccess(token: token, generated: false)
    }

    func isValid(_ candidate: String) -> Bool { Self.constantTimeEqual(candidate, token) }

    /// The address that signs a browser in (it carries the token: log it only when the token was
    /// generated for this run, and only once).
    public func signInURL(host: String, port: Int) -> String { "http://\(host):\(port)/?token=\(token)" }

    func isValidCSRF(_ candidate: String) -> Bool { Self.constantTimeEqual(candidate, csrfToken) }

    /// Compares without an early exit on the first differing byte.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}

/// Every page response: a Content-Security-Policy without inline script or style, no sniffing, no
/// framing, no referrer, no caching.
struct WebPageHeadersMiddleware: RouterMiddleware {
    typealias Context = VerifierRequestContext
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        response.headers[.cacheControl] = "no-store"
        return response
    }
}

/// The page token on every request: `/?token=` sets the cookie and redirects to `/`; otherwise the
/// cookie or a bearer token must match, or the answer is a 401.
struct WebPageAuthMiddleware: RouterMiddleware {
    typealias Context = VerifierRequestContext
    let access: WebPageAccess

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.method == .get, let offered = request.uri.queryParameters.get("token") {
            guard access.isValid(offered) else { return Self.unauthorized() }
            // The token leaves the address bar: a redirect to the page, with the cookie.
            var response = Response(status: .seeOther, headers: [.location: "/"])
            response.headers[.setCookie] = "\(WebPageAccess.cookieName)=\(access.token); Path=/; Max-Age=28800; HttpOnly; SameSite=Strict"
            return response
        }
        let cookie = request.cookies[WebPageAccess.cookieName]?.value
        var bearer: String?
        if let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") {
            bearer = String(authorization.dropFirst(7))
        }
        guard let presented = cookie ?? bearer, access.isValid(presented) else { return Self.unauthorized() }
        return try await next(request, context)
    }

    static func unauthorized() -> Response {
        let body =
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>wallet-verifier</title></head><body><h1>Not signed in</h1><p>Open the page with the address the service logged at start (it ends in <code>/?token=…</code>), or with the token of <code>--ui-token-file</code>.</p></body></html>"
        var response = Response(
            status: .unauthorized, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: body)))
        response.headers[.wwwAuthenticate] = "Bearer"
        return response
    }
}
