import Foundation
import Synchronization
import Testing
import WalletVerifierTestSupport
import X509

/// Runs `wallet-verifier` to completion as a process (`serve --check`, `keys status`), reading its
/// output on a thread of its own so that no cooperative thread is blocked.
enum CLIProcess {
    static func run(_ arguments: [String], environment extra: [String: String] = [:]) async throws -> (code: Int32, stdout: String, stderr: String) {
        let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("wallet-verifier")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment.merge(extra) { _, new in new }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let stderrData = Mutex<Data>(Data())
                let reader = Thread { stderrData.withLock { $0 = err.fileHandleForReading.readDataToEndOfFile() } }
                reader.start()
                let stdout = out.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                while !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
                let stderr = stderrData.withLock { $0 }
                continuation.resume(
                    returning: (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self)))
            }
        }
    }
}

/// Files of a configuration `serve --check` finds ready: the service fixture's keys and IACA, an
/// Apple Pay merchant certificate valid around the real clock, a reader key and certificate (which
/// also sign OpenID4VP requests), token files of mode 0600 and a data directory of its own.
struct CheckConfiguration {
    let fixture: ServiceFixture
    let merchantCertificate: String
    let merchantKey: String
    let otherMerchantKey: String
    let readerKey: String
    let readerCertificate: String
    let apiToken: String
    let uiToken: String
    let dataDirectory: String

    /// `merchantValidity`: the Apple Pay certificate's validity (default: a year around now).
    init(merchantValidity: (notBefore: Date, notAfter: Date)? = nil, readerOptions: ReaderPKI.Options = ReaderPKI.Options()) throws {
        let fixture = try ServiceFixture()
        self.fixture = fixture
        func write(_ name: String, _ text: String) throws -> String {
            let path = fixture.directory.appendingPathComponent(name).path
            guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw VectorError("cannot write \(path)")
            }
            return path
        }
        let now = Date()
        let merchant = try ApplePayFixtureMerchant.ec(
            validity: merchantValidity ?? (now.addingTimeInterval(-86_400), now.addingTimeInterval(365 * 86_400)))
        merchantCertificate = try write("current-merchant.pem", merchant.certificatePEM)
        merchantKey = try write("current-merchant-key.pem", merchant.pkcs8KeyPEM)
        otherMerchantKey = try write("other-merchant-key.pem", try ApplePayFixtureMerchant.ec().pkcs8KeyPEM)
        let reader = try ReaderPKI(readerOptions)
        readerKey = try write("reader-key.pem", reader.readerKeyPEM)
        readerCertificate = try write("reader.pem", ReaderPKI.pem(reader.reader))
        apiToken = try write("api-token", "check-api-token-0123456789")
        uiToken = try write("ui-token", "check-ui-token-0123456789")
        dataDirectory = fixture.directory.appendingPathComponent("data").path
    }

    /// `serve` flags of this configuration, the Apple Pay key given by `merchantKey`.
    func arguments(merchantKey: String? = nil) -> [String] {
        [
            "--identity-key", fixture.identityKeyPath, "--merchant-id", fixture.merchantID, "--team-id", fixture.teamID, "--trust", fixture.iacaPath,
            "--web-key", fixture.webKeyPath, "--web-origin", fixture.webOrigin, "--applepay-cert", merchantCertificate, "--applepay-key",
            merchantKey ?? self.merchantKey, "--reader-key", readerKey, "--reader-cert", readerCertificate, "--api-token-file", apiToken,
            "--ui-token-file", uiToken, "--data-dir", dataDirectory,
        ]
    }
}

/// `serve --check` through the real binary: what it finds, and its exit codes.
@Suite("serve --check")
struct ServeCheckProcessTests {
    static func findings(_ json: String) throws -> [[String: String]] {
        let list = try #require(
            try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: String]], "not a JSON array of strings: \(json)")
        for entry in list {
            #expect(Set(entry.keys) == ["check", "status", "message"], "each finding has check, status and message: \(entry)")
            #expect(["ok", "warn", "fail"].contains(entry["status"] ?? ""), "a status is ok, warn or fail: \(entry)")
        }
        return list
    }

    @Test("a good configuration: exit 0, every check ok, each kind of check present; JSON parses")
    func goodConfiguration() async throws {
        let configuration = try CheckConfiguration()
        defer { configuration.fixture.remove() }
        let result = try await CLIProcess.run(["serve", "--check", "--format", "json"] + configuration.arguments())
        #expect(result.code == 0, "serve --check should find this configuration ready: \(result.stdout)\(result.stderr)")
        let findings = try Self.findings(result.stdout)
        let notOK = findings.filter { $0["status"] != "ok" }
        #expect(notOK.isEmpty, "every check should be ok: \(notOK)")
        let checks = Set(findings.compactMap { $0["check"] })
        for expected in [
            "identity-keys", "web-keys", "applepay-key", "certificate applePay", "reader-key", "certificate readerAuthentication", "trust",
            "web-request org-iso-mdoc", "web-request openid4vp-v1-signed", "store", "api-token-file", "ui-token-file",
        ] {
            #expect(checks.contains(expected), "serve --check should report \(expected); it reported \(checks.sorted())")
        }
        // Binding no port: nothing says it listens.
        #expect(!result.stdout.contains("listening on") && !result.stderr.contains("listening on"))

        let table = try await CLIProcess.run(["serve", "--check"] + configuration.arguments())
        #expect(table.code == 0)
        #expect(table.stdout.split(separator: "\n").contains { $0.hasPrefix("ok    store") }, "the table has a line per check: \(table.stdout)")
        #expect(table.stdout.contains("ready: 0 warning(s)"))
    }

    @Test("an Apple Pay key that is not its certificate's: exit 1, the applepay-key check names the files")
    func mismatchedApplePayKey() async throws {
        let configuration = try CheckConfiguration()
        defer { configuration.fixture.remove() }
        let result = try await CLIProcess.run(
            ["serve", "--check", "--format", "json"] + configuration.arguments(merchantKey: configuration.otherMerchantKey))
        #expect(result.code == 1, "a mismatched Apple Pay key should fail the check: \(result.stdout)")
        let failed = try Self.findings(result.stdout).filter { $0["status"] == "fail" }
        #expect(failed.map { $0["check"] } == ["applepay-key"], "only the Apple Pay pair should fail: \(failed)")
        let message = failed.first?["message"] ?? ""
        #expect(message.contains(configuration.otherMerchantKey) && message.contains(configuration.merchantCertificate), "\(message)")
        #expect(message.contains("does not belong to the certificate"), "\(message)")
    }

    @Test("an expired Apple Pay certificate: exit 1; one expiring within --certificate-warning-days: a warning, exit 0")
    func certificateValidity() async throws {
        let now = Date()
        let expired = try CheckConfiguration(merchantValidity: (now.addingTimeInterval(-400 * 86_400), now.addingTimeInterval(-86_400)))
        defer { expired.fixture.remove() }
        let result = try await CLIProcess.run(["serve", "--check", "--format", "json"] + expired.arguments())
        #expect(result.code == 1, "an expired certificate should fail the check: \(result.stdout)")
        let entry = try Self.findings(result.stdout).first { $0["check"] == "certificate applePay" }
        #expect(entry?["status"] == "fail" && entry?["message"]?.contains("expired on") == true, "\(String(describing: entry))")

        let soon = try CheckConfiguration(merchantValidity: (now.addingTimeInterval(-86_400), now.addingTimeInterval(10 * 86_400)))
        defer { soon.fixture.remove() }
        let warned = try await CLIProcess.run(["serve", "--check", "--format", "json"] + soon.arguments())
        #expect(warned.code == 0, "a warning alone leaves the service ready: \(warned.stdout)")
        let warning = try Self.findings(warned.stdout).first { $0["check"] == "certificate applePay" }
        #expect(warning?["status"] == "warn" && warning?["message"]?.contains("renew it") == true, "\(String(describing: warning))")
        let relaxed = try await CLIProcess.run(["serve", "--check", "--format", "json", "--certificate-warning-days", "5"] + soon.arguments())
        #expect(try Self.findings(relaxed.stdout).first { $0["check"] == "certificate applePay" }?["status"] == "ok")
    }

    @Test("an expired reader certificate: exit 1, and the Annex C request it signs does not verify")
    func expiredReaderCertificate() async throws {
        var options = ReaderPKI.Options()
        options.notAfter = Date().addingTimeInterval(-86_400)
        let configuration = try CheckConfiguration(readerOptions: options)
        defer { configuration.fixture.remove() }
        let result = try await CLIProcess.run(["serve", "--check", "--format", "json"] + configuration.arguments())
        #expect(result.code == 1)
        let failed = Set(try Self.findings(result.stdout).filter { $0["status"] == "fail" }.compactMap { $0["check"] })
        #expect(failed.contains("certificate readerAuthentication") && failed.contains("web-request org-iso-mdoc"), "\(failed)")
    }

    @Test("a token file other users may read: exit 1, with the chmod to run")
    func worldReadableToken() async throws {
        let configuration = try CheckConfiguration()
        defer { configuration.fixture.remove() }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: configuration.apiToken)
        let result = try await CLIProcess.run(["serve", "--check", "--format", "json"] + configuration.arguments())
        #expect(result.code == 1)
        let failed = try Self.findings(result.stdout).filter { $0["status"] == "fail" }
        #expect(failed.map { $0["check"] } == ["api-token-file"], "\(failed)")
        #expect(failed.first?["message"]?.contains("chmod 600") == true)
    }

    @Test("an unreachable PostgreSQL: exit 1, the store check says why")
    func unreachablePostgres() async throws {
        let configuration = try CheckConfiguration()
        defer { configuration.fixture.remove() }
        let result = try await CLIProcess.run(
            [
                "serve", "--check", "--format", "json", "--store", "postgres", "--postgres-url", "postgres://check:check@127.0.0.1:1/check",
                "--fetch-timeout", "3",
            ]
                + configuration.arguments())
        #expect(result.code == 1)
        let store = try Self.findings(result.stdout).first { $0["check"] == "store" }
        #expect(store?["status"] == "fail", "\(String(describing: store))")
        let message = store?["message"] ?? ""
        #expect(message.contains("PostgreSQL cannot be reached") && message.contains("--postgres-url"), "\(message)")
        #expect(message.contains("127.0.0.1:1") && message.lowercased().contains("refused"), "the message names the cause: \(message)")
        #expect(!message.contains("check:check@"), "the URL's password is never printed: \(message)")
    }

    @Test("a reachable PostgreSQL (WALLET_VERIFIER_POSTGRES_URL): the store check writes and deletes a row", .enabled(if: postgresURL != nil))
    func reachablePostgres() async throws {
        let configuration = try CheckConfiguration()
        defer { configuration.fixture.remove() }
        let result = try await CLIProcess.run(
            ["serve", "--check", "--format", "json", "--store", "postgres", "--postgres-url", Self.postgresURL ?? ""] + configuration.arguments())
        let store = try Self.findings(result.stdout).first { $0["check"] == "store" }
        #expect(store?["status"] == "ok", "\(String(describing: store))")
        #expect(result.code == 0)
    }

    static let postgresURL = ProcessInfo.processInfo.environment["WALLET_VERIFIER_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    @Test("a VICAL file: ok when it verifies against its --vical-trust, a failure naming why against another anchor")
    func vicalFile() async throws {
        let configuration = try CheckConfiguration()
        defer { configuration.fixture.remove() }
        var vical = try VICALFixture()
        vical.date = Date().addingTimeInterval(-86_400)
        vical.nextUpdate = Date().addingTimeInterval(30 * 86_400)
        vical.entries = [.init(configuration.fixture.mdocPKI.iaca, docTypes: [MdocFixture.mDL])]
        let directory = configuration.fixture.directory
        let vicalPath = directory.appendingPathComponent("vical.cbor").path
        try Data(try vical.signed()).write(to: URL(fileURLWithPath: vicalPath))
        let anchorPath = directory.appendingPathComponent("vical-anchor.pem").path
        try Data(vical.anchorPEM.utf8).write(to: URL(fileURLWithPath: anchorPath))
        let otherAnchorPath = directory.appendingPathComponent("other-anchor.pem").path
        try Data(try VICALFixture().anchorPEM.utf8).write(to: URL(fileURLWithPath: otherAnchorPath))

        let good = try await CLIProcess.run(
            ["serve", "--check", "--format", "json", "--vical", vicalPath, "--vical-trust", anchorPath] + configuration.arguments())
        #expect(good.code == 0, "\(good.stdout)")
        let ok = try Self.findings(good.stdout).first { $0["check"] == "vical \(vicalPath)" }
        #expect(ok?["status"] == "ok" && ok?["message"]?.contains("1 IACA root(s)") == true, "\(String(describing: ok))")

        let bad = try await CLIProcess.run(
            ["serve", "--check", "--format", "json", "--vical", vicalPath, "--vical-trust", otherAnchorPath] + configuration.arguments())
        #expect(bad.code == 1, "\(bad.stdout)")
        let failed = try Self.findings(bad.stdout).filter { $0["status"] == "fail" }
        #expect(failed.map { $0["check"] } == ["vical \(vicalPath)"], "\(failed)")
        #expect(failed.first?["message"]?.contains("does not verify against \(otherAnchorPath)") == true, "\(failed)")
    }

    @Test("its own request-signing key: the OpenID4VP request verifies for every --web-origin, its certificate is checked and listed")
    func ownRequestSigningKey() async throws {
        let configuration = try CheckConfiguration()
        defer { configuration.fixture.remove() }
        let signing = try WebOpenID4VPRouteTests.signingFiles(in: configuration.fixture.directory)
        let arguments =
            configuration.arguments() + [
                "--request-signing-key", signing.key, "--request-signing-cert", signing.certificate, "--openid4vp-client-id", "x509_san_dns",
                "--web-origin", "https://second.example",
            ]
        let result = try await CLIProcess.run(["serve", "--check", "--format", "json"] + arguments)
        #expect(result.code == 0, "\(result.stdout)")
        let findings = try Self.findings(result.stdout)
        let openID4VP = findings.first { $0["check"] == "web-request openid4vp-v1-signed" }
        #expect(openID4VP?["status"] == "ok", "\(String(describing: openID4VP))")
        #expect(
            openID4VP?["message"]?.contains("x509_san_dns:verifier.shop.example") == true && openID4VP?["message"]?.contains("2 origin(s)") == true)
        #expect(findings.first { $0["check"] == "certificate requestSigning" }?["status"] == "ok")
        #expect(findings.first { $0["check"] == "web-request org-iso-mdoc" }?["message"]?.contains("2 origin(s)") == true)

        let status = try await CLIProcess.run(["keys", "status", "--format", "json"] + arguments)
        #expect(status.code == 0, "\(status.stdout)\(status.stderr)")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
        #expect(Set(listed.compactMap { $0["kind"] as? String }) == ["applePay", "readerAuthentication", "requestSigning"])
    }

    @Test("--format without --check is a usage error (exit 2)")
    func formatWithoutCheck() async throws {
        let result = try await CLIProcess.run(["serve", "--format", "json"])
        #expect(result.code == 2, "\(result.stderr)")
        #expect(result.stderr.contains("--format goes with --check"))
    }
}
