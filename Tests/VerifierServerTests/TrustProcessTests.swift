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
}
