import Foundation
import Testing
import WalletVerifierTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The service's own certificates and their expiry, through the real binary: the start-up warning,
/// `/metrics`, `GET /v1/trust`, and `keys status`.
@Suite("Certificate expiry")
struct CertificateExpiryProcessTests {
    /// A configuration whose Apple Pay certificate expires in 10 days (whole seconds), and its notAfter.
    static func shortLived() throws -> (CheckConfiguration, notAfter: Date) {
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let notAfter = now.addingTimeInterval(10 * 86_400)
        return (try CheckConfiguration(merchantValidity: (now.addingTimeInterval(-86_400), notAfter)), notAfter)
    }

    @Test("serve warns at start about a certificate expiring within 30 days; /metrics and /v1/trust list every certificate")
    func startWarningMetricsAndTrust() async throws {
        let (configuration, notAfter) = try Self.shortLived()
        defer { configuration.fixture.remove() }
        // Without the token files: /v1/trust is then open, and the page is off.
        let arguments = Array(configuration.arguments().prefix(while: { $0 != "--api-token-file" })) + ["--data-dir", configuration.dataDirectory]
        let service = try await ServiceInstance(arguments: arguments)
        defer { service.stop() }

        let warned = try await ServiceInstance.waitFor { service.log.contains("certificate: the applePay certificate") }
        #expect(warned, "serve should warn about the Apple Pay certificate expiring in 10 days: \(service.log)")
        let line = service.log.split(separator: "\n").first { $0.contains("certificate: the applePay certificate") } ?? ""
        #expect(line.contains("in 9 day(s)") || line.contains("in 10 day(s)"), "the warning says how many days are left: \(line)")
        #expect(line.contains("--applepay-cert"), "the warning says what to do: \(line)")
        #expect(!service.log.contains("certificate: the readerAuthentication certificate"), "the reader certificate (2033) is not expiring")

        let trust = try await service.getJSON("/v1/trust")
        let certificates = try #require(trust["certificates"] as? [[String: Any]], "GET /v1/trust has certificates: \(trust)")
        let applePay = try #require(certificates.first { $0["kind"] as? String == "applePay" })
        let hash = try #require((trust["applePayKeys"] as? [[String: Any]])?.first?["publicKeyHash"] as? String)
        #expect(applePay["id"] as? String == hash, "the Apple Pay certificate is named by its publicKeyHash")
        #expect(applePay["notAfter"] as? String == ISO8601DateFormatter().string(from: notAfter))
        let reader = try #require(certificates.first { $0["kind"] as? String == "readerAuthentication" })
        let readerID = try #require(reader["id"] as? String)
        #expect(readerID.count == 64 && readerID.allSatisfy(\.isHexDigit), "the reader certificate is named by its SHA-256: \(readerID)")
        #expect(
            !certificates.contains { $0["kind"] as? String == "requestSigning" }, "the reader key signs OpenID4VP; no own request-signing certificate"
        )

        let (data, _) = try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(service.port)/metrics")!)
        let metrics = String(decoding: data, as: UTF8.self)
        let prefix = #"wallet_verifier_certificate_expiry_timestamp_seconds{kind="applePay",id="\#(hash)"} "#
        let sample = try #require(metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }, "no \(prefix) line in /metrics:\n\(metrics)")
        #expect(Double(sample.dropFirst(prefix.count)) == notAfter.timeIntervalSince1970, "the gauge is the notAfter in Unix seconds: \(sample)")
        #expect(metrics.contains(#"wallet_verifier_certificate_expiry_timestamp_seconds{kind="readerAuthentication",id="\#(readerID)"}"#))
        #expect(metrics.contains("# TYPE wallet_verifier_certificate_expiry_timestamp_seconds gauge"))
    }

    @Test("--certificate-warning-days 5: no warning for a certificate with 10 days left")
    func warningDays() async throws {
        let (configuration, _) = try Self.shortLived()
        defer { configuration.fixture.remove() }
        let arguments = Array(configuration.arguments().prefix(while: { $0 != "--api-token-file" })) + ["--data-dir", configuration.dataDirectory]
        let service = try await ServiceInstance(arguments: arguments + ["--certificate-warning-days", "5"])
        defer { service.stop() }
        // The warning is logged before the listener starts; the status answers once it runs.
        #expect(try await service.get("/healthz") == 200)
        #expect(!service.log.contains("certificate: the applePay certificate"), "\(service.log)")
    }

    @Test("keys status: exit 1 when a certificate expires within --warn-days, 0 otherwise, 2 for a key that is not its certificate's")
    func keysStatus() async throws {
        let (configuration, _) = try Self.shortLived()
        defer { configuration.fixture.remove() }
        let expiring = try await CLIProcess.run(["keys", "status"] + configuration.arguments())
        #expect(expiring.code == 1, "10 days left is within the default 30: \(expiring.stdout)\(expiring.stderr)")
        let line = expiring.stdout.split(separator: "\n").first { $0.contains("applePay") } ?? ""
        #expect(line.hasPrefix("EXPIRING") && (line.contains(" 9 day(s)") || line.contains(" 10 day(s)")), "\(line)")
        #expect(expiring.stdout.split(separator: "\n").contains { $0.hasPrefix("ok") && $0.contains("readerAuthentication") }, "\(expiring.stdout)")
        #expect(expiring.stderr.contains("--applepay-cert"), "the warning says what to do: \(expiring.stderr)")

        let relaxed = try await CLIProcess.run(["keys", "status", "--warn-days", "5", "--format", "json"] + configuration.arguments())
        #expect(relaxed.code == 0, "\(relaxed.stdout)\(relaxed.stderr)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(relaxed.stdout.utf8)) as? [[String: Any]])
        #expect(Set(list.compactMap { $0["kind"] as? String }) == ["applePay", "readerAuthentication"])
        #expect(list.allSatisfy { $0["status"] as? String == "ok" })

        let mismatched = try await CLIProcess.run(["keys", "status"] + configuration.arguments(merchantKey: configuration.otherMerchantKey))
        #expect(mismatched.code == 2, "\(mismatched.stderr)")
        #expect(mismatched.stderr.contains("does not belong to the certificate"))
    }
}
