import Foundation
import MdocVerifier
import Testing
import WalletVerifierTestSupport

/// Pinned roots across real `serve` processes on one PostgreSQL (WALLET_VERIFIER_POSTGRES_URL): the
/// first instance fetches the root and keeps it in the store; a second one, started while the
/// publisher is down, anchors on the kept copy; `/v1/trust` of both names the same root and source.
@Suite(.serialized) struct TrustProcessTests {
    @Test func twoInstancesOnPostgreSQLShareAPinnedRoot() async throws {
        guard let postgres = DeploymentTests.postgresURL else {
            if DeploymentTests.inCI { Issue.record("WALLET_VERIFIER_POSTGRES_URL is not set; scripts/test starts a throwaway PostgreSQL") }
            return
        }
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        // A path of its own per run: the store's copy is this run's.
        let path = "/iaca-\(UUID().uuidString).pem"
        server.set(path, .init(body: TrustRootFixtures.pem(fixture.mdocPKI.iaca)))
        let pin = IACATrustStore.sha256(fixture.mdocPKI.iaca)
        let url = server.url(path)
        let arguments = [
            "--store", "postgres", "--postgres-url", postgres, "--identity-key", fixture.identityKeyPath, "--merchant-id", fixture.merchantID,
            "--team-id", fixture.teamID, "--web-key", fixture.webKeyPath, "--web-origin", fixture.webOrigin, "--trust", "\(url)#sha256=\(pin)",
        ]
        func root(_ instance: ServiceInstance) async throws -> [String: Any]? {
            (try await instance.getJSON("/v1/trust")["roots"] as? [[String: Any]])?.first
        }
        let a = try await ServiceInstance(arguments: arguments)
        defer { a.stop() }
        let first = try #require(try await root(a), "\(a.log)")
        #expect(first["sha256"] as? String == pin)
        #expect(server.requestedPaths == [path])

        server.stop()
        let b = try await ServiceInstance(arguments: arguments)
        defer { b.stop() }
        // The second instance starts before PostgreSQL answers it, then takes the kept copy once it does.
        #expect(try await ServiceInstance.waitFor { try await root(b)?["sha256"] as? String == pin }, "\(b.log)")
        let second = try #require(try await root(b))
        let provenance = try #require(second["provenance"] as? [String: Any])
        #expect(provenance["kind"] as? String == "url" && provenance["url"] as? String == url && provenance["pin"] as? String == pin)
        #expect(provenance["fetchedAt"] as? String == (first["provenance"] as? [String: Any])?["fetchedAt"] as? String)
        let ready = try await b.getJSON("/readyz")
        #expect(ready["status"] as? String == "ready" && ready["trust"] == nil, "\(ready)")
    }

    /// A VICAL URL past its nextUpdate on PostgreSQL: both instances use the one copy fetched (the
    /// second starts while the list's server is down) and both say it is stale.
    @Test func twoInstancesOnPostgreSQLShareAStaleVICAL() async throws {
        guard let postgres = DeploymentTests.postgresURL else {
            if DeploymentTests.inCI { Issue.record("WALLET_VERIFIER_POSTGRES_URL is not set; scripts/test starts a throwaway PostgreSQL") }
            return
        }
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        var vical = try VICALFixture()
        vical.date = Date().addingTimeInterval(-40 * 86_400)
        vical.nextUpdate = Date().addingTimeInterval(-10 * 86_400)
        vical.issueID = UInt64(Date().timeIntervalSince1970)
        vical.entries = [.init(fixture.mdocPKI.iaca, docTypes: [MdocFixture.mDL])]
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let path = "/vical-\(UUID().uuidString)"
        server.set(path, .init(body: try vical.signed()))
        let anchorPath = fixture.directory.appendingPathComponent("vical-anchor.pem").path
        try Data(vical.anchorPEM.utf8).write(to: URL(fileURLWithPath: anchorPath))
        let url = server.url(path)
        let arguments = [
            "--store", "postgres", "--postgres-url", postgres, "--identity-key", fixture.identityKeyPath, "--merchant-id", fixture.merchantID,
            "--team-id", fixture.teamID, "--web-key", fixture.webKeyPath, "--web-origin", fixture.webOrigin, "--vical", url, "--vical-trust",
            anchorPath,
        ]
        func source(_ instance: ServiceInstance) async throws -> [String: Any]? {
            (try await instance.getJSON("/v1/trust")["sources"] as? [[String: Any]])?.first { $0["kind"] as? String == "vical" }
        }
        let a = try await ServiceInstance(arguments: arguments)
        defer { a.stop() }
        #expect(try await ServiceInstance.waitFor { try await source(a)?["roots"] as? Int == 1 }, "\(a.log)")
        #expect(try await source(a)?["stale"] as? Bool == true)
        #expect(a.log.contains("past its next update"), "\(a.log)")
        let fetches = server.requestedPaths.count
        server.stop()
        let b = try await ServiceInstance(arguments: arguments)
        defer { b.stop() }
        #expect(try await ServiceInstance.waitFor { try await source(b)?["roots"] as? Int == 1 }, "\(b.log)")
        let shared = try #require(try await source(b))
        let original = try #require(try await source(a))
        #expect(shared["stale"] as? Bool == true && shared["lastSuccess"] as? String == original["lastSuccess"] as? String, "\(shared)")
        #expect(server.requestedPaths.count == fetches)
        let metrics = try await b.getText("/metrics")
        #expect(metrics.contains("wallet_verifier_trust_roots{source=\"vical:\(url)\"} 1"), "\(metrics)")
    }
}
