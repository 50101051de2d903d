import Foundation
import Testing
import VerificationCore
import VerifierServer
import WalletVerifierTestSupport

/// Revocation-list and VICAL uris that lead to the service's own network, through real `serve`
/// processes: a private, link-local or loopback-by-another-name address is refused before any
/// connection, with a reason that names the address class and `--fetch-allow`; `--fetch-allow`
/// makes it an ordinary fetch again.
@Suite(.serialized) struct FetchAddressProcessTests {
    static func message(_ body: [String: Any], _ id: String) -> String {
        let found = (body["checks"] as? [[String: Any]])?.first { $0["id"] as? String == id }
        return found?["message"] as? String ?? "\(found ?? [:])"
    }

    @Test func theAllowListComesFromFlagEnvironmentOrFile() throws {
        #expect(try ServerSettings.resolve(flags: [:], environment: [:], configFile: nil).fetchAllow.isEmpty)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("fetch-allow-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(#"{"fetchAllow": ["10.0.0.0/8", "fd00::/8"]}"#.utf8).write(to: file)
        #expect(
            try ServerSettings.resolve(flags: [:], environment: [:], configFile: file.path).fetchAllow.map(\.description) == [
                "10.0.0.0/8", "fd00::/8",
            ])
        let environment = ["WALLET_VERIFIER_FETCH_ALLOW": "169.254.0.0/16, 192.168.1.5"]
        #expect(
            try ServerSettings.resolve(flags: [:], environment: environment, configFile: file.path).fetchAllow.map(\.description) == [
                "169.254.0.0/16", "192.168.1.5/32",
            ])
        #expect(
            try ServerSettings.resolve(flags: ["fetchAllow": ["100.64.0.0/10,fe80::/10"]], environment: environment, configFile: nil)
                .fetchAllow.map(\.description) == ["100.64.0.0/10", "fe80::/10"])
        for bad in ["10.0.0.0/33", "metadata.internal", "10/8", "fe80::1%eth0"] {
            #expect(throws: SettingsError.self, "\(bad)") {
                try ServerSettings.resolve(flags: ["fetchAllow": [bad]], environment: [:], configFile: nil)
            }
        }
    }

    /// Before the fix, each of these uris was fetched (and failed only as unreachable, or at the
    /// fetch timeout): now each is refused at once with `addressNotAllowed`, the class and the address.
    @Test func aStatusURIOnAPrivateOrLinkLocalAddressIsRefused() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let instance = try await ServiceInstance(
            arguments: ["--store", "memory", "--revocation", "required", "--fetch-timeout", "8"] + fixture.serveArguments)
        defer { instance.stop() }
        let cases: [(uri: String, says: String)] = [
            ("https://169.254.169.254/latest/meta-data/list", "link-local address 169.254.169.254"),
            ("https://10.0.0.1/list", "private address 10.0.0.1"),
            ("https://100.64.0.1/list", "shared (CGNAT) address 100.64.0.1"),
            ("https://[fe80::1]/list", "link-local address fe80::1"),
            ("https://[fd00::1]/list", "unique-local address fd00::1"),
            ("https://[::ffff:169.254.169.254]/list", "link-local address ::ffff:169.254.169.254"),
            ("https://0.0.0.0/list", "unspecified address 0.0.0.0"),
            // Loopback by another spelling: the resolver reads it as 127.0.0.1, LoopbackHost does not.
            ("https://0x7f.1/list", "loopback address 127.0.0.1 (0x7f.1 resolves to it)"),
            ("https://2130706433/list", "loopback address 127.0.0.1"),
        ]
        for (uri, says) in cases {
            let document = ServiceRevocationProcessTests.document(status: try RevocationListFixture.identifierListStatus(id: [1], uri: uri))
            let started = Date()
            let answer = try await ServiceRevocationProcessTests.verify(document, pki: fixture.mdocPKI, fixture: fixture, on: instance)
            let seconds = Date().timeIntervalSince(started)
            #expect(answer.body["verdict"] as? String != "accepted", "\(uri): \(answer.body)")
            #expect(
                ServiceRevocationProcessTests.check(answer.body, "mdoc.revocation.list") == ("error", "addressNotAllowed"), "\(uri): \(answer.body)")
            let message = Self.message(answer.body, "mdoc.revocation.list")
            #expect(message.contains(says) && message.contains("--fetch-allow"), "\(uri): \(message)")
            // Refused before connecting: nowhere near the 8 s fetch timeout.
            #expect(seconds < 4, "\(uri) took \(seconds) s")
        }
    }

    /// With `--fetch-allow 169.254.0.0/16`, the link-local uri is fetched like any other: it fails as
    /// unavailable (nothing answers there), not as refused.
    @Test func fetchAllowMakesItAnOrdinaryFetch() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let instance = try await ServiceInstance(
            arguments: ["--store", "memory", "--revocation", "required", "--fetch-timeout", "2", "--fetch-allow", "169.254.0.0/16"]
                + fixture.serveArguments)
        defer { instance.stop() }
        let uri = "https://169.254.169.254/latest/meta-data/list"
        let document = ServiceRevocationProcessTests.document(status: try RevocationListFixture.identifierListStatus(id: [1], uri: uri))
        let answer = try await ServiceRevocationProcessTests.verify(document, pki: fixture.mdocPKI, fixture: fixture, on: instance)
        #expect(ServiceRevocationProcessTests.check(answer.body, "mdoc.revocation.list") == ("error", "listUnavailable"), "\(answer.body)")
        #expect(!Self.message(answer.body, "mdoc.revocation.list").contains("link-local address"))
        // Other private addresses stay refused.
        let other = ServiceRevocationProcessTests.document(
            status: try RevocationListFixture.identifierListStatus(id: [1], uri: "https://10.0.0.1/list"))
        let refused = try await ServiceRevocationProcessTests.verify(other, pki: fixture.mdocPKI, fixture: fixture, on: instance)
        #expect(ServiceRevocationProcessTests.check(refused.body, "mdoc.revocation.list") == ("error", "addressNotAllowed"), "\(refused.body)")
    }

    /// A VICAL URL on a link-local address: refused at start with the reason, at once; with
    /// `--fetch-allow` it is fetched (and fails as unreachable instead).
    @Test func aVICALURLOnALinkLocalAddressIsRefused() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let vical = try VICALFixture()
        let anchorPath = fixture.directory.appendingPathComponent("vical-anchor.pem").path
        try Data(vical.anchorPEM.utf8).write(to: URL(fileURLWithPath: anchorPath))
        let source = "https://169.254.169.254/vical"
        func start(_ extra: [String]) async -> (log: String, seconds: Double) {
            let started = Date()
            let log: String
            do {
                let instance = try await ServiceInstance(
                    arguments: ["--store", "memory", "--fetch-timeout", "8", "--vical", source, "--vical-trust", anchorPath] + extra
                        + fixture.serveArguments)
                _ = try? await ServiceInstance.waitFor { instance.log.contains("vical") }
                log = instance.log
                instance.stop()
            } catch {
                log = "\(error)"
            }
            return (log, Date().timeIntervalSince(started))
        }
        let refused = await start([])
        #expect(refused.log.contains("link-local address 169.254.169.254") && refused.log.contains("--fetch-allow"), "\(refused.log)")
        #expect(refused.seconds < 6, "the refusal took \(refused.seconds) s")
        let allowed = await start(["--fetch-allow", "169.254.169.254"])
        #expect(!allowed.log.contains("link-local address"), "\(allowed.log)")
        #expect(allowed.log.contains("169.254.169.254"), "\(allowed.log)")
    }
}
