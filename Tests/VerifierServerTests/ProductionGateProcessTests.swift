import Crypto
import Foundation
import SwiftASN1
import Testing
import WalletVerifierTestSupport
import X509

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `serve --check` as a deployment pipeline's gate, and `serve` agreeing with it, through real
/// processes: an open API, kept receipts without a token, secrets others may read and development
/// stand-ins are refused; `--development`, `--allow-open-api` and `--identity off` are the ways out.
@Suite struct ProductionGateProcessTests {
    /// `serve --check --format json` with `arguments`: the exit status and each check's status and message.
    static func check(_ arguments: [String]) async throws -> (status: Int32?, findings: [String: (status: String, message: String)], output: String) {
        let run = try await CommandProcess.run(["serve", "--check", "--format", "json"] + arguments)
        let list = (try? JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [[String: String]]) ?? []
        var findings: [String: (status: String, message: String)] = [:]
        for finding in list {
            let check = finding["check"] ?? ""
            // The worst status of a check that appears more than once.
            if findings[check]?.status == "fail" { continue }
            findings[check] = (finding["status"] ?? "", finding["message"] ?? "")
        }
        return (run.status, findings, run.output)
    }

    /// The fixture's production-like flags: identity and web keys, merchant values, a root, the SQLite
    /// store. (The fixture's Apple Pay certificate chains to a test root and has expired: it is added
    /// only where a test is about it.)
    static func production(_ fixture: ServiceFixture) -> [String] {
        [
            "--identity-key", fixture.identityKeyPath, "--merchant-id", fixture.merchantID, "--team-id", fixture.teamID, "--trust", fixture.iacaPath,
            "--web-key", fixture.webKeyPath, "--web-origin", fixture.webOrigin, "--revocation", "off", "--store", "sqlite", "--data-dir",
            fixture.directory.appendingPathComponent("data").path,
        ]
    }

    @Test func aProductionConfigurationPassesAndEachStandInFailsUnlessDevelopment() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let ready = try await Self.check(Self.production(fixture))
        #expect(ready.status == 0, "\(ready.output)")
        #expect(ready.findings["api-access"]?.status == "ok", "\(ready.output)")

        // Nothing configured: the development stand-ins, each a failure naming what to do.
        let data = fixture.directory.appendingPathComponent("bare").path
        let bare = try await Self.check(["--store", "memory", "--data-dir", data, "--web-origin", fixture.webOrigin])
        #expect(bare.status == 1, "\(bare.output)")
        for check in ["identity-keys", "identity-merchant", "web-keys", "trust", "store"] {
            #expect(bare.findings[check]?.status == "fail", "\(check): \(bare.output)")
            #expect(bare.findings[check]?.message.contains("--development") == true, "\(check)")
        }
        #expect(bare.findings["identity-keys"]?.message.contains("--identity off") == true)
        // On a developer's machine they are warnings, and the check passes.
        let development = try await Self.check(["--store", "memory", "--data-dir", data, "--web-origin", fixture.webOrigin, "--development"])
        #expect(development.status == 0, "\(development.output)")
        for check in ["identity-keys", "identity-merchant", "web-keys", "trust", "store"] {
            #expect(development.findings[check]?.status == "warn", "\(check): \(development.output)")
        }

        // A test Apple Pay root, and Google's TEST key list: stand-ins too.
        let testRoot = try await Self.check(
            Self.production(fixture) + [
                "--applepay-cert", fixture.merchantCertificatePath, "--applepay-key", fixture.merchantKeyPath, "--applepay-root",
                fixture.applePayRootPath,
            ])
        #expect(testRoot.status == 1)
        #expect(testRoot.findings["applepay-root"]?.status == "fail", "\(testRoot.output)")
        let keyPath = fixture.directory.appendingPathComponent("googlepay.key.pem").path
        try Data(P256.KeyAgreement.PrivateKey().pemRepresentation.utf8).write(to: URL(fileURLWithPath: keyPath))
        let googleTest = try await Self.check(
            Self.production(fixture) + [
                "--googlepay-key", keyPath, "--googlepay-merchant-id", "12345678901234567890",
                "--googlepay-root-keys", "https://payments.developers.google.com/paymentmethodtoken/test/keys.json",
                "--fetch-timeout", "1", "--fetch-allow", "0.0.0.0/0",
            ])
        #expect(googleTest.findings["googlepay-root-keys"]?.status == "fail", "\(googleTest.output)")
        #expect(googleTest.output.contains("TEST key list"), "\(googleTest.output)")

        // A deployment without identity in apps says so, and needs no identity key.
        let payments = try await Self.check(
            ["--identity", "off", "--store", "sqlite", "--data-dir", fixture.directory.appendingPathComponent("payments").path])
        #expect(payments.status == 0, "\(payments.output)")
        #expect(payments.findings["identity"]?.status == "ok")
        #expect(payments.findings["identity-keys"] == nil)
        #expect(payments.findings["trust"]?.status == "ok", "\(payments.output)")
    }

    @Test func anOpenAPIIsRefusedByServeAndTheCheckUnlessAllowed() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let open = Self.production(fixture) + ["--host", "0.0.0.0", "--port", "0"]
        let gate = try await Self.check(open + ["--development"])
        #expect(gate.status == 1, "\(gate.output)")
        #expect(gate.findings["api-access"]?.status == "fail")
        #expect(gate.findings["api-access"]?.message.contains("--api-token-file") == true)
        #expect(gate.findings["api-access"]?.message.contains("--allow-open-api") == true)

        let refused = try await CommandProcess.run(["serve"] + open, seconds: 30)
        #expect(refused.status != nil && refused.status != 0, "\(refused.output)")
        #expect(refused.output.contains("--host 0.0.0.0 listens beyond this machine"), "\(refused.output)")
        #expect(!refused.output.contains("listening on"))

        // With --allow-open-api it starts, and says so.
        let allowed = try await CommandProcess.run(["serve", "--allow-open-api"] + open, seconds: 8)
        #expect(allowed.output.contains("listening on http://0.0.0.0:"), "\(allowed.output)")
        #expect(allowed.output.contains("--allow-open-api"), "\(allowed.output)")
        let allowedCheck = try await Self.check(open + ["--allow-open-api"])
        #expect(allowedCheck.status == 0, "\(allowedCheck.output)")
        #expect(allowedCheck.findings["api-access"]?.status == "ok")
    }

    @Test func keptReceiptsNeedAToken() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let keyPath = fixture.directory.appendingPathComponent("receipt.key.pem").path
        try Data(P256.Signing.PrivateKey().pemRepresentation.utf8).write(to: URL(fileURLWithPath: keyPath))
        let keep = Self.production(fixture) + ["--receipt-key", keyPath, "--receipts", "keep", "--port", "0"]
        let refused = try await CommandProcess.run(["serve"] + keep, seconds: 30)
        #expect(refused.status != nil && refused.status != 0, "\(refused.output)")
        #expect(refused.output.contains("--receipts keep without --api-token-file"), "\(refused.output)")
        let gate = try await Self.check(keep)
        #expect(gate.findings["receipts"]?.status == "fail", "\(gate.output)")

        // With a token, receipts are kept and read with it only.
        let tokenPath = fixture.directory.appendingPathComponent("api-token").path
        try Data("a-token-of-enough-length-0123456789".utf8).write(to: URL(fileURLWithPath: tokenPath))
        let service = try await ServiceInstance(arguments: keep + ["--api-token-file", tokenPath])
        defer { service.stop() }
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(service.port)/v1/receipts")!)
        #expect((try await URLSession.shared.data(for: request).1 as? HTTPURLResponse)?.statusCode == 401)
        request.setValue("Bearer a-token-of-enough-length-0123456789", forHTTPHeaderField: "Authorization")
        #expect((try await URLSession.shared.data(for: request).1 as? HTTPURLResponse)?.statusCode == 200)
    }

    @Test func aSecretOthersMayReadStopsServeAndFailsTheCheck() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let tokenPath = fixture.directory.appendingPathComponent("api-token").path
        try Data("a-token-of-enough-length-0123456789".utf8).write(to: URL(fileURLWithPath: tokenPath))
        for (flag, path) in [
            ("--applepay-key", fixture.merchantKeyPath), ("--identity-key", fixture.identityKeyPath), ("--api-token-file", tokenPath),
        ] {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
            let extra =
                flag == "--api-token-file"
                ? [flag, path] : flag == "--applepay-key" ? ["--applepay-cert", fixture.merchantCertificatePath, flag, path] : []
            let arguments = Self.production(fixture) + extra + ["--port", "0"]
            let gate = try await Self.check(arguments)
            #expect(gate.status == 1, "\(flag): \(gate.output)")
            #expect(gate.output.contains("\(flag) \(path) may be read by other users"), "\(flag): \(gate.output)")
            let refused = try await CommandProcess.run(["serve"] + arguments, seconds: 30)
            #expect(refused.status != nil && refused.status != 0, "\(flag): \(refused.output)")
            #expect(refused.output.contains("mode 0644"), "\(flag): \(refused.output)")
            #expect(refused.output.contains("chmod 600 \(path)"), "\(flag): \(refused.output)")
            // Restricted again, nothing is said of it.
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            let restricted = try await Self.check(arguments)
            #expect(!restricted.output.contains("may be read by other users"), "\(flag): \(restricted.output)")
            #expect(restricted.output.contains("\"status\":\"ok\""))
        }
        // A link to a restricted secret (how mounted secrets appear) is judged by the file it leads to.
        let link = fixture.directory.appendingPathComponent("linked-key.pem").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: fixture.identityKeyPath)
        var linked = Self.production(fixture)
        linked[linked.firstIndex(of: fixture.identityKeyPath)!] = link
        #expect(try await Self.check(linked).status == 0)
    }

    /// What the configuration says that no single file shows: one key for two purposes, a receipt
    /// issuer that is not an https URL, merchant validation pointed at this machine's network.
    @Test func keyReuseAnIssuerThatIsNoURLAndPrivateValidationHostsFail() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let reuse = try await Self.check(Self.production(fixture) + ["--receipt-key", fixture.webKeyPath])
        #expect(reuse.status == 1, "\(reuse.output)")
        #expect(reuse.findings["key-reuse"]?.message.contains("--receipt-key and --web-key are the same key") == true, "\(reuse.output)")
        let separate = fixture.directory.appendingPathComponent("receipt.key.pem").path
        try Data(P256.Signing.PrivateKey().pemRepresentation.utf8).write(to: URL(fileURLWithPath: separate))
        let own = try await Self.check(Self.production(fixture) + ["--receipt-key", separate, "--receipt-issuer", "https://verifier.example"])
        #expect(own.status == 0, "\(own.output)")
        #expect(own.findings["key-reuse"] == nil)

        let urn = try await Self.check(Self.production(fixture) + ["--receipt-key", separate, "--receipt-issuer", "urn:example:verifier"])
        #expect(urn.status == 1)
        #expect(urn.findings["receipt-issuer"]?.status == "fail", "\(urn.output)")

        let identity = try MerchantValidationRouteTests.IdentityFiles(fixture, ca: try PortalFixtureCA(now: Date()))
        let validation = [
            "--applepay-identity-cert", identity.certificatePath, "--applepay-identity-key", identity.keyPath, "--applepay-domain",
            MerchantValidationRouteTests.domain, "--applepay-display-name", MerchantValidationRouteTests.displayName,
        ]
        let apple = try await Self.check(Self.production(fixture) + validation)
        #expect(apple.status == 0, "\(apple.output)")
        #expect(apple.findings["applepay-identity-tls"]?.status == "ok", "\(apple.output)")
        let local = try await Self.check(Self.production(fixture) + validation + ["--applepay-validation-hosts", "127.0.0.1:8443,localhost"])
        #expect(local.status == 1)
        #expect(local.findings["applepay-validation-hosts"]?.status == "fail", "\(local.output)")
        #expect(local.output.contains("127.0.0.1:8443 is a loopback address"), "\(local.output)")
        let developer = try await Self.check(
            Self.production(fixture) + validation + ["--applepay-validation-hosts", "127.0.0.1:8443", "--development"])
        #expect(developer.status == 0, "\(developer.output)")
    }

    /// A Merchant Identity certificate and key that match, but that the TLS library cannot load (a
    /// real Apple Pay certificate of 2014, standing in): before, every session was a 502; now the check
    /// fails and serve does not start.
    @Test func aMerchantIdentityTLSCannotLoadFailsTheCheckAndTheStart() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let keyPath = fixture.directory.appendingPathComponent("old-merchant.key.pem").path
        try Data(try TestVectors.data("applepay/seatgeek-2014-ec/private_key.pem")).write(to: URL(fileURLWithPath: keyPath))
        let flags = [
            "--applepay-identity-cert", TestVectors.path("applepay/seatgeek-2014-ec/certificate.pem"), "--applepay-identity-key", keyPath,
            "--applepay-domain", "shop.example", "--applepay-display-name", "Shop",
        ]
        let gate = try await Self.check(Self.production(fixture) + flags)
        #expect(gate.status == 1)
        #expect(gate.findings["applepay-identity-tls"]?.status == "fail", "\(gate.output)")
        #expect(gate.findings["applepay-identity-tls"]?.message.contains("cannot be loaded for TLS") == true)
        let refused = try await CommandProcess.run(["serve"] + Self.production(fixture) + flags + ["--port", "0"], seconds: 30)
        #expect(refused.status != nil && refused.status != 0, "\(refused.output)")
        #expect(refused.output.contains("cannot be loaded for TLS"), "\(refused.output)")
    }

    @Test func identityOffAnswers501() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let service = try await ServiceInstance(
            arguments: ["--identity", "off", "--store", "memory", "--data-dir", fixture.directory.appendingPathComponent("data").path])
        defer { service.stop() }
        let created = try await service.post("/v1/identity/requests", ["descriptor": ["document": "mDL", "elements": ["age"]]])
        #expect(created.status == 501, "\(created.body)")
        #expect((created.body["detail"] as? String)?.contains("--identity off") == true)
        let verified = try await service.post("/v1/identity/verify", ["requestId": "x", "encryptedData": "AAAA"])
        #expect(verified.status == 501)
    }

    @Test func anIdentityCertificateIsCheckedWatchedAndListed() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let portal = try PortalFixtureCA(now: Date())
        let key = try Certificate.PublicKey(P256.Signing.PublicKey(x963Representation: fixture.identityKey.publicKey.x963Representation))
        let subject = try DistinguishedName { CommonName("merchant.com.example.service") }
        func write(_ certificate: Certificate, _ name: String) throws -> String {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            let path = fixture.directory.appendingPathComponent(name).path
            try Data(PEMDocument(type: "CERTIFICATE", derBytes: serializer.serializedBytes).pemString.utf8).write(to: URL(fileURLWithPath: path))
            return path
        }
        // Five days left: a warning in the check, a line in keys status (exit 1 within 30 days).
        let expiring = try write(
            try portal.issue(
                publicKey: key, subject: subject, profile: .identityEncryption, notBefore: Date().addingTimeInterval(-86_400),
                notAfter: Date().addingTimeInterval(5 * 86_400 + 3_600)), "identity.cert.pem")
        let flags = Self.production(fixture) + ["--identity-cert", expiring]
        let gate = try await Self.check(flags)
        #expect(gate.status == 0, "\(gate.output)")
        #expect(gate.findings["certificate identity"]?.status == "warn", "\(gate.output)")
        let status = try await CommandProcess.run(["keys", "status"] + flags)
        #expect(status.status == 1, "\(status.output)")
        #expect(status.output.contains("identity"), "\(status.output)")
        #expect(status.output.contains("    5 day(s)"), "\(status.output)")

        // A day and a bit past its end: -1 day, not -2.
        let expired = try write(
            try portal.issue(
                publicKey: key, subject: subject, profile: .identityEncryption, notBefore: Date().addingTimeInterval(-30 * 86_400),
                notAfter: Date().addingTimeInterval(-(86_400 + 3_600))), "identity-expired.cert.pem")
        let old = try await CommandProcess.run(["keys", "status", "--format", "json"] + Self.production(fixture) + ["--identity-cert", expired])
        let listed = (try? JSONSerialization.jsonObject(with: Data(old.output.utf8)) as? [[String: Any]]) ?? []
        #expect(listed.first { $0["kind"] as? String == "identity" }?["daysLeft"] as? Int == -1, "\(old.output)")

        // A certificate of another key stops the check, naming the file.
        let other = try write(
            try portal.issue(
                publicKey: Certificate.PublicKey(P256.Signing.PrivateKey().publicKey), subject: subject, profile: .identityEncryption,
                notBefore: Date().addingTimeInterval(-86_400), notAfter: Date().addingTimeInterval(365 * 86_400)), "identity-other.cert.pem")
        let wrong = try await Self.check(Self.production(fixture) + ["--identity-cert", other])
        #expect(wrong.status == 1)
        #expect(wrong.findings["identity-cert"]?.message.contains("identity-other.cert.pem") == true, "\(wrong.output)")

        // The running service lists it in /v1/trust.
        let service = try await ServiceInstance(arguments: flags)
        defer { service.stop() }
        let trust = try await service.getJSON("/v1/trust")
        let certificates = trust["certificates"] as? [[String: Any]] ?? []
        #expect(certificates.contains { $0["kind"] as? String == "identity" }, "\(trust)")
        let metrics = try await service.getText("/metrics")
        #expect(metrics.contains(#"wallet_verifier_certificate_expiry_timestamp_seconds{kind="identity""#), "\(metrics.prefix(2000))")
        // The daily warning names it at start: it expires within the warning period.
        #expect(service.log.contains("the identity certificate"), "\(service.log.suffix(2000))")
    }

    @Test func keysStatusWithNothingConfiguredExits1NamingTheKinds() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let none = try await CommandProcess.run(["keys", "status", "--store", "memory", "--data-dir", fixture.directory.path])
        #expect(none.status == 1, "\(none.output)")
        for flag in ["--applepay-cert", "--identity-cert", "--reader-cert", "--request-signing-cert", "--receipt-cert", "--applepay-identity-cert"] {
            #expect(none.output.contains(flag), "\(flag): \(none.output)")
        }
    }
}
