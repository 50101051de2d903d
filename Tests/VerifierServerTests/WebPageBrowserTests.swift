import Foundation
import Testing
import WalletCBOR
import WalletVerifierTestSupport

/// The web page in a real browser: headless Chromium submits Apple's sample response through the
/// page's form and the test reads what Chromium rendered.
@Suite struct WebPageBrowserTests {
    static let chromium: String? = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"
    static let sample = "mdoc/apple-verify-with-wallet-sample/sample/"

    /// Runs Chromium headless on a URL and returns the DOM it rendered.
    static func render(_ url: String, chromium: String, screenshot: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID())").path
        var arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                         "--user-data-dir=\(profile)", "--virtual-time-budget=15000"]
        if let screenshot { arguments += ["--screenshot=\(screenshot)", "--window-size=1200,2400"] } else { arguments.append("--dump-dom") }
        process.arguments = arguments + [url]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = Pipe()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: profile)
        return String(decoding: data, as: UTF8.self)
    }

    @Test func appleSampleRendersWithChecksElementsAndPortrait() async throws {
        guard let chromium = Self.chromium else {
            if Self.inCI { Issue.record("Chromium is not installed; scripts/test installs it with apt-get") }
            return
        }
        let instance = try ServiceInstance(arguments: [
            "--store", "memory",
            "--identity-key", TestVectors.path(Self.sample + "merchant_encryption.key"),
            "--merchant-id", "PassKit_Identity_Test_Merchant_ID", "--team-id", "PassKit_Identity_Test_Team_ID",
            "--trust", TestVectors.path(Self.sample + "issuer_root.crt"),
        ])
        defer { instance.stop() }
        let envelope = try TestVectors.text(Self.sample + "hpke_envelope.cbor").trimmingCharacters(in: .whitespacesAndNewlines)
        let nonceLine = try TestVectors.text(Self.sample + "session_transcript_parameters.txt").split(separator: "\n").first { $0.hasPrefix("Nonce") }!
        let nonce = nonceLine.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)

        // A page that fills the service's identity form and submits it, as a person would.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("browser-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let driver = directory.appendingPathComponent("submit.html")
        try Data("""
        <!doctype html><html><body>
        <form id="f" method="post" action="http://127.0.0.1:\(instance.port)/ui/verify">
        <input type="hidden" name="kind" value="identity">
        <textarea name="envelope">\(envelope)</textarea>
        <input name="nonce" value="\(nonce)"><input name="at" value="2022-04-01T00:00:00Z">
        </form><script>document.getElementById('f').submit()</script></body></html>
        """.utf8).write(to: driver)

        let dom = try Self.render(driver.absoluteString, chromium: chromium)
        #expect(dom.contains(#"<span id="verdict" class="verdict accepted">accepted</span>"#), "\(dom.prefix(2000))")
        for check in ["identity.envelope.decryption", "mdoc.issuer.signature", "mdoc.issuer.chain", "mdoc.valueDigests", "mdoc.device.authentication"] {
            #expect(dom.contains(#"data-check="\#(check)" data-status="passed""#), "\(check)")
        }
        #expect(dom.contains(#"data-element="org.iso.18013.5.1/given_name">Jane</dd>"#))
        #expect(dom.contains(#"data-element="org.iso.18013.5.1/family_name">Doe</dd>"#))
        #expect(dom.contains(#"<img class="portrait" alt="portrait" src="data:image/jpeg;base64,/9j/"#))

        // The same page with a wrong nonce shows the failed check in red and no elements.
        let wrong = directory.appendingPathComponent("wrong.html")
        try Data(String(decoding: try Data(contentsOf: driver), as: UTF8.self).replacingOccurrences(of: nonce, with: "00" + nonce.dropFirst(2)).utf8).write(to: wrong)
        let rejected = try Self.render(wrong.absoluteString, chromium: chromium)
        #expect(rejected.contains(#"class="verdict rejected""#))
        #expect(rejected.contains(#"data-check="identity.envelope.transcript" data-status="failed""#))
        #expect(rejected.contains("id=\"elements-hidden\""))
        #expect(!rejected.contains("Jane"))
    }
}
