import Crypto
import Foundation
import Mdoc
import Testing
import WalletCBOR
import WalletVerifierTestSupport

@testable import VerifierServer

/// The web page in a real browser (headless Chromium) against a real `serve`: signed in with the
/// page token, the page's form verifies an identity response for a request the service issued;
/// hostile text from the input renders as text and runs no script; a form from elsewhere without
/// the CSRF token, or a browser without the token, gets nothing.
@Suite(.serialized) struct WebPageBrowserTests {
    static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"

    /// Runs Chromium headless on a URL with a browser profile (kept between calls, so a cookie set
    /// once is sent later) and returns the DOM it rendered.
    static func render(_ url: String, chromium: String, profile: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--user-data-dir=\(profile)", "--virtual-time-budget=15000", "--dump-dom", url,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// A page (served from another port of 127.0.0.1, so the same site as the page) that fills a form
    /// and submits it to the web page, as a person — or an attacker's page — would.
    static func driver(action: String, fields: [String: String]) -> LocalHTTPServer.Response {
        let inputs = fields.map { "<textarea name=\"\(escape($0.key))\">\(escape($0.value))</textarea>" }.joined()
        let html =
            "<!doctype html><html><body><form id=\"f\" method=\"post\" action=\"\(action)\">\(inputs)</form><script>document.getElementById('f').submit()</script></body></html>"
        return LocalHTTPServer.Response(body: Array(html.utf8), headers: [("Content-Type", "text/html")])
    }

    @Test func thePageInABrowser() async throws {
        guard let chromium = Self.chromium else {
            if Self.inCI { Issue.record("Chromium is not installed; scripts/test installs it with apt-get") }
            return
        }
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let token = "browser-test-token-0123456789abcdef"
        let tokenFile = fixture.directory.appendingPathComponent("ui-token").path
        try Data(token.utf8).write(to: URL(fileURLWithPath: tokenFile))
        let instance = try await ServiceInstance(
            arguments: ["--store", "memory"] + fixture.serveArguments + ["--ui-listen", "127.0.0.1:0", "--ui-token-file", tokenFile])
        defer { instance.stop() }
        let uiPort = try #require(instance.uiPort)
        let page = "http://127.0.0.1:\(uiPort)"
        let csrf = WebPageAccess(token: token, generated: false).csrfToken
        let drivers = try LocalHTTPServer()
        defer { drivers.stop() }
        let profile = fixture.directory.appendingPathComponent("chromium-profile").path

        // Signed in once with the token: the page.
        let signedIn = try Self.render("\(page)/?token=\(token)", chromium: chromium, profile: profile)
        #expect(signedIn.contains("id=\"identity-form\""), "\(signedIn.prefix(500))")

        // An identity request created through the API, answered by a "wallet", submitted through the page.
        let (status, created) = try await instance.post(
            "/v1/identity/requests", ["descriptor": try JSONSerialization.jsonObject(with: Data(ServiceFixture.descriptorJSON.utf8))])
        #expect(status == 201)
        let requestID = try #require(created["requestId"] as? String)
        let nonce = try #require((created["nonce"] as? String).flatMap { Data(base64Encoded: $0) })
        var mdoc = MdocFixture()
        let now = Date()
        mdoc.signed = now.addingTimeInterval(-60)
        mdoc.validFrom = now.addingTimeInterval(-60)
        mdoc.validUntil = now.addingTimeInterval(86_400)
        let envelope = Data(try fixture.identityResponse(nonce: [UInt8](nonce), fixture: mdoc)).base64EncodedString()
        drivers.set(
            "/identity.html",
            Self.driver(action: "\(page)/ui/verify", fields: ["kind": "identity", "requestId": requestID, "envelope": envelope, "csrf": csrf]))
        let accepted = try Self.render(drivers.url("/identity.html"), chromium: chromium, profile: profile)
        #expect(accepted.contains(#"<span id="verdict" class="verdict accepted">accepted</span>"#), "\(accepted.prefix(1500))")
        #expect(accepted.contains(#"data-element="org.iso.18013.5.1/given_name">Erika</dd>"#))
        #expect(accepted.contains(#"data-check="replay.nonce" data-status="passed""#))

        // Hostile text in a DeviceResponse (its docType) renders as text: no element, no script.
        let payloads = [
            "\u{600}<img id=\"pwned-img\" src=x onerror=\"document.body.setAttribute('data-pwned','1')\">",
            ">\u{301}<script>document.body.setAttribute('data-pwned','2')</script>",
        ]
        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: "AAAA", origin: "https://shop.example")
        for (index, payload) in payloads.enumerated() {
            var hostile = MdocFixture()
            hostile.docType = payload
            let response = try hostile.deviceResponse(pki: fixture.mdocPKI, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
            drivers.set(
                "/hostile\(index).html",
                Self.driver(
                    action: "\(page)/ui/verify",
                    fields: [
                        "kind": "mdoc", "deviceResponse": Data(response).base64EncodedString(),
                        "sessionTranscript": Data(transcript.bytes).base64EncodedString(), "csrf": csrf,
                    ]))
            let rendered = try Self.render(drivers.url("/hostile\(index).html"), chromium: chromium, profile: profile)
            #expect(rendered.contains("id=\"verdict\""), "\(rendered.prefix(1500))")
            // The payload is there as text (escaped), never as markup: no element, no attribute set.
            #expect(!rendered.contains("<body data-pwned"), "payload \(index) ran")
            #expect(!rendered.contains("<img id=\"pwned-img\""))
            #expect(!rendered.contains("<script>document.body"))
            #expect(rendered.contains("&lt;img") || rendered.contains("&lt;script"), "payload \(index) is not shown as text")
        }

        // The same form without the CSRF token (another site's page cannot know it): refused.
        drivers.set(
            "/forged.html", Self.driver(action: "\(page)/ui/verify", fields: ["kind": "identity", "requestId": requestID, "envelope": envelope]))
        let forged = try Self.render(drivers.url("/forged.html"), chromium: chromium, profile: profile)
        #expect(forged.contains("CSRF"))
        #expect(!forged.contains("id=\"verdict\""))

        // A browser that never had the token: not signed in.
        let stranger = try Self.render(
            drivers.url("/identity.html"), chromium: chromium, profile: fixture.directory.appendingPathComponent("other-profile").path)
        #expect(stranger.contains("Not signed in"))
        #expect(!stranger.contains("id=\"verdict\""))

        // The API listener has no page at all, and keeps answering.
        #expect(try await instance.get("/healthz") == 200)
        #expect(try await instance.get("/") == 404)
    }
}
