import Foundation
import Testing
import WalletVerifierTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The service as it is deployed: real `wallet-verifier serve` processes, a real SQLite file, a real
/// PostgreSQL shared by two instances, concurrent duplicate submissions over HTTP on loopback.
@Suite(.serialized) struct DeploymentTests {
    static let postgresURL: String? = ProcessInfo.processInfo.environment["WALLET_VERIFIER_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let inCI = ProcessInfo.processInfo.environment["CI"] == "true"

    static func createRequest(on instance: ServiceInstance) async throws -> (id: String, nonce: [UInt8]) {
        let descriptor = try JSONSerialization.jsonObject(with: Data(ServiceFixture.descriptorJSON.utf8))
        let created = try await instance.post("/v1/identity/requests", ["descriptor": descriptor])
        #expect(created.status == 201)
        let id = try #require(created.body["requestId"] as? String)
        let nonce = try #require((created.body["nonce"] as? String).flatMap { Data(base64Encoded: $0) })
        return (id, [UInt8](nonce))
    }

    /// Sends the same submission `count` times concurrently, round-robin over the instances.
    static func submitConcurrently(_ path: String, _ body: [String: Any], to instances: [ServiceInstance], count: Int) async throws -> [(
        status: Int, verdict: String?
    )] {
        let payload = try JSONSerialization.data(withJSONObject: body)
        return try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for index in 0..<count {
                let instance = instances[index % instances.count]
                group.addTask {
                    let object = try JSONSerialization.jsonObject(with: payload) as! [String: Any]
                    let response = try await instance.post(path, object)
                    return (response.status, response.body["verdict"] as? String)
                }
            }
            var results: [(status: Int, verdict: String?)] = []
            for try await result in group { results.append((status: result.0, verdict: result.1)) }
            return results
        }
    }

    static func expectExactlyOneAccepted(_ results: [(status: Int, verdict: String?)], _ label: String) {
        #expect(results.allSatisfy { $0.status == 200 }, "\(label): \(results.map(\.status))")
        #expect(results.filter { $0.verdict == "accepted" }.count == 1, "\(label): \(results.map { $0.verdict ?? "-" })")
        #expect(results.filter { $0.verdict == "rejected" }.count == results.count - 1, "\(label)")
    }

    /// Also with request handlers on the event loops (the SQLite store then answers on the caller's loop).
    @Test(arguments: ["off", "on"])
    func oneInstanceOnSQLiteAcceptsOnceAndRemembersAfterRestart(eventLoopExecutor: String) async throws {
        let environment = ["WALLET_VERIFIER_EVENT_LOOP_EXECUTOR": eventLoopExecutor]
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let dataDirectory = fixture.directory.appendingPathComponent("data").path
        // The fixtures are valid at a fixed time; the service reads the clock, so give it time-independent inputs:
        // fresh MSOs valid now and a signing time of now.
        let arguments = ["--store", "sqlite", "--data-dir", dataDirectory] + fixture.serveArguments
        var instance = try await ServiceInstance(arguments: arguments, environment: environment)
        #expect(try await instance.get("/readyz") == 200)
        let request = try await Self.createRequest(on: instance)
        let envelope = try fixture.identityResponse(nonce: request.nonce, fixture: Self.currentFixture())
        let submission: [String: Any] = ["requestId": request.id, "encryptedData": Data(envelope).base64EncodedString()]
        Self.expectExactlyOneAccepted(
            try await Self.submitConcurrently("/v1/identity/verify", submission, to: [instance], count: 16), "identity/sqlite/\(eventLoopExecutor)")

        let token = try JSONSerialization.jsonObject(with: Data(try fixture.applePayToken(signedAt: Date())))
        Self.expectExactlyOneAccepted(
            try await Self.submitConcurrently(
                "/v1/applepay/decrypt", ["token": token, "expect": ["currency": "840", "amount": 1999]], to: [instance], count: 16),
            "applepay/sqlite/\(eventLoopExecutor)")

        // A restarted service still rejects the consumed nonce.
        instance.stop()
        instance = try await ServiceInstance(arguments: arguments, environment: environment)
        defer { instance.stop() }
        let again = try await instance.post("/v1/identity/verify", submission)
        #expect(again.status == 200)
        #expect(again.body["verdict"] as? String == "rejected")
        #expect((again.body["checks"] as? [[String: Any]])?.first { $0["id"] as? String == "replay.nonce" }?["reason"] as? String == "nonceReused")
    }

    @Test func twoInstancesOnOnePostgreSQLAcceptOnce() async throws {
        guard let url = Self.postgresURL else {
            if Self.inCI { Issue.record("WALLET_VERIFIER_POSTGRES_URL is not set; scripts/test starts a throwaway PostgreSQL") }
            return
        }
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let arguments = ["--store", "postgres", "--postgres-url", url] + fixture.serveArguments
        let a = try await ServiceInstance(arguments: arguments)
        defer { a.stop() }
        let b = try await ServiceInstance(arguments: arguments)
        defer { b.stop() }
        #expect(try await a.get("/readyz") == 200)
        #expect(try await b.get("/readyz") == 200)

        let request = try await Self.createRequest(on: a)
        let envelope = try fixture.identityResponse(nonce: request.nonce, fixture: Self.currentFixture())
        let submission: [String: Any] = ["requestId": request.id, "encryptedData": Data(envelope).base64EncodedString()]
        Self.expectExactlyOneAccepted(
            try await Self.submitConcurrently("/v1/identity/verify", submission, to: [a, b], count: 24), "identity/postgres")

        let token = try JSONSerialization.jsonObject(with: Data(try fixture.applePayToken(signedAt: Date())))
        Self.expectExactlyOneAccepted(
            try await Self.submitConcurrently(
                "/v1/applepay/decrypt", ["token": token, "expect": ["currency": "840", "amount": 1999]], to: [a, b], count: 24), "applepay/postgres")
    }

    /// An mdoc valid around now (the service verifies at its own clock).
    static func currentFixture() -> MdocFixture {
        var fixture = MdocFixture()
        fixture.signed = Date().addingTimeInterval(-3600)
        fixture.validFrom = fixture.signed
        fixture.validUntil = Date().addingTimeInterval(30 * 86400)
        return fixture
    }
}
