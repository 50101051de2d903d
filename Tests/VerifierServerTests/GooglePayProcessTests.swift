import Crypto
import Foundation
import Testing
import WalletVerifierTestSupport

/// Google Pay across real `serve` processes on one PostgreSQL (WALLET_VERIFIER_POSTGRES_URL): one
/// token submitted concurrently over two instances is accepted exactly once; Google's root keys,
/// fetched from a URL, are shared through the store, so an instance starting while that URL is
/// down still verifies.
@Suite(.serialized) struct GooglePayProcessTests {
    @Test func oneTokenIsAcceptedOnceAcrossTwoInstancesOnPostgreSQL() async throws {
        guard let url = DeploymentTests.postgresURL else {
            if DeploymentTests.inCI { Issue.record("WALLET_VERIFIER_POSTGRES_URL is not set; scripts/test starts a throwaway PostgreSQL") }
            return
        }
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        // Keys of our own, valid now (the service reads the clock): the root list served over HTTP.
        let keys = GooglePayFixtureKeys()
        let server = try LocalHTTPServer()
        defer { server.stop() }
        // A list URL of its own per run: the store's copy is this run's.
        let path = "/keys-\(UUID().uuidString).json"
        server.set(
            path,
            .init(
                body: keys.rootKeyListJSON(expiration: Date().addingTimeInterval(86_400)),
                headers: [("Cache-Control", "public, max-age=3600"), ("Content-Type", "application/json")]))
        let keyPath = fixture.directory.appendingPathComponent("googlepay.key.pem").path
        try Data(keys.merchant.pemRepresentation.utf8).write(to: URL(fileURLWithPath: keyPath))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: keyPath)
        let listURL = server.url(path)
        let arguments =
            ["--store", "postgres", "--postgres-url", url] + fixture.serveArguments + [
                "--googlepay-key", keyPath, "--googlepay-merchant-id", "12345678901234567890", "--googlepay-root-keys", listURL,
            ]
        let a = try await ServiceInstance(arguments: arguments)
        defer { a.stop() }
        let b = try await ServiceInstance(arguments: arguments)
        defer { b.stop() }

        var builder = GooglePayTokenBuilder(keys: keys, validAt: Date())
        builder.messageId = "process-" + UUID().uuidString
        let token = try JSONSerialization.jsonObject(with: Data(try builder.build().json))
        let answers = try await DeploymentTests.submitConcurrently("/v1/googlepay/decrypt", ["token": token], to: [a, b], count: 20)
        DeploymentTests.expectExactlyOneAccepted(answers, "googlepay/postgres")

        // The list's server goes down: a third instance starts with the copy the others kept in the store.
        server.stop()
        let c = try await ServiceInstance(arguments: arguments)
        defer { c.stop() }
        let trust = try await c.getJSON("/v1/trust")
        let roots = ((trust["googlePay"] as? [String: Any])?["rootKeys"] as? [[String: Any]]) ?? []
        #expect(roots.count == 1 && roots.first?["source"] as? String == listURL, "\(trust["googlePay"] ?? "-"): \(c.log)")
        #expect(c.log.contains("googlepay: root keys of \(listURL) taken from the store"), "\(c.log)")
        var another = GooglePayTokenBuilder(keys: keys, validAt: Date())
        another.messageId = "process-" + UUID().uuidString
        let answer = try await c.post("/v1/googlepay/decrypt", ["token": try JSONSerialization.jsonObject(with: Data(try another.build().json))])
        #expect(answer.status == 200 && answer.body["verdict"] as? String == "accepted", "\(answer.body)")
    }
}
