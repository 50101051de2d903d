import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing
import VerificationCore
import WalletVerifierTestSupport

@testable import VerifierServer

/// What the service logs while it creates requests, verifies identity responses and decrypts a
/// payment: method, path, status and time — never a nonce, a request body, an element value, a
/// payment's data or a key.
@Suite struct LogRedactionTests {
    /// Keeps every record (message and metadata) as text.
    struct CapturingHandler: LogHandler {
        let box: Box
        init(_ box: Box) { self.box = box }
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { _, new in new }
            box.records.withLock {
                $0.append("\(event.level) \(event.message) \(all.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: " "))")
            }
        }
    }

    final class Box: Sendable {
        let records = Mutex<[String]>([])
    }

    @Test func nothingSecretOrPersonalIsLogged() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let box = Box()
        let logger = Logger(label: "capture") { _ in CapturingHandler(box) }
        let services = try await RouterTests.services(fixture)
        let app = VerifierApplication.build(services: services, logger: logger)
        let tokenBytes = try fixture.applePayToken()
        try await app.test(.router) { client in
            let (requestID, nonce) = try await HardeningRouteTests.createIdentityRequest(client)
            let envelope = try fixture.identityResponse(nonce: [UInt8](nonce))
            let encrypted = Data(envelope).base64EncodedString()
            let verified = try await client.execute(
                uri: "/v1/identity/verify", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["requestId": requestID, "encryptedData": encrypted]))
            #expect(try RouterTests.json(verified.body)["verdict"] as? String == "accepted")
            let token = try JSONSerialization.jsonObject(with: Data(tokenBytes))
            let paid = try await client.execute(
                uri: "/v1/applepay/decrypt", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["token": token, "expect": ["currency": "840", "amount": 1999]]))
            let payment = try #require(try RouterTests.json(paid.body)["payment"] as? [String: Any])
            let pan = try #require(payment["applicationPrimaryAccountNumber"] as? String)
            let bad = try await client.execute(
                uri: "/v1/identity/verify", method: .post, headers: RouterTests.jsonHeaders,
                body: ByteBuffer(string: #"{"requestId": "secret-request-id", "encryptedData": "not base64 at all!"}"#))
            #expect(bad.status == .badRequest)

            let text = box.records.withLock { $0.joined(separator: "\n") }
            #expect(text.contains("path=/v1/identity/verify"), "\(text)")
            #expect(text.contains("status=200"))
            for secret in [
                nonce.base64EncodedString(), String(encrypted.prefix(24)), "Erika", "Mustermann", "D1234567", pan, "secret-request-id", requestID,
            ] {
                #expect(!text.contains(secret), "logged: \(secret.prefix(8))…")
            }
        }
    }
}
