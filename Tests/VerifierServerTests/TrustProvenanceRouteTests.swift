import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import MdocVerifier
import Synchronization
import Testing
import TrustDocuments
import VerificationCore
import VerifierServer
import WalletCBOR
import WalletEncoding
import WalletVerifierCommands
import WalletVerifierTestSupport
import X509

/// Trust you can see: a root fetched from a pinned URL (served by a real loopback server) is named,
/// with its source, by the report that it anchored, the receipt, `GET /v1/trust` and `trust list`;
/// a wrong pin stops the start naming both fingerprints; an unreachable root with no kept copy is
/// named in `/readyz`, `/v1/trust` and the metrics while the service runs without it.
@Suite struct TrustProvenanceRouteTests {
    /// Settings on an embedded SQLite store in the fixture's directory, with a receipt key.
    static func settings(_ fixture: ServiceFixture, _ extra: ServerSettings.Source) throws -> ServerSettings {
        let receiptKey = fixture.directory.appendingPathComponent("receipt-key.pem").path
        if !FileManager.default.fileExists(atPath: receiptKey) {
            try Data(P256.Signing.PrivateKey().pemRepresentation.utf8).write(to: URL(fileURLWithPath: receiptKey))
        }
        var flags: ServerSettings.Source = [
            "store": ["sqlite"], "dataDir": [fixture.directory.appendingPathComponent("data").path],
            "identityKeys": [fixture.identityKeyPath], "merchantId": [fixture.merchantID], "teamId": [fixture.teamID],
            "webKeys": [fixture.webKeyPath], "webOrigins": [fixture.webOrigin], "receiptKey": [receiptKey],
        ]
        flags.merge(extra) { $1 }
        return try ServerSettings.resolve(flags: flags, environment: [:], configFile: nil)
    }

    /// An accepted identity answer of `client`: the report and the receipt's payload.
    static func verifyIdentity(_ client: some TestClientProtocol, _ fixture: ServiceFixture, receipts: Bool = true) async throws -> (
        report: [String: Any], receipt: [String: Any]
    ) {
        let descriptor = try JSONSerialization.jsonObject(with: Data(ServiceFixture.descriptorJSON.utf8))
        let created = try RouterTests.json(
            try await client.execute(
                uri: "/v1/identity/requests", method: .post, headers: RouterTests.jsonHeaders, body: try RouterTests.body(["descriptor": descriptor])
            ).body)
        let nonce = [UInt8](try #require((created["nonce"] as? String).flatMap { Data(base64Encoded: $0) }))
        let envelope = try fixture.identityResponse(nonce: nonce)
        let report = try RouterTests.json(
            try await client.execute(
                uri: "/v1/identity/verify", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body([
                    "requestId": try #require(created["requestId"] as? String), "encryptedData": Data(envelope).base64EncodedString(),
                ])
            ).body)
        guard receipts else { return (report, [:]) }
        let jws = try #require(report["receipt"] as? String)
        let parts = jws.split(separator: ".")
        let payload = try #require(parts.count == 3 ? Base64.decodeURL(String(parts[1])) : nil)
        return (report, try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]))
    }

    static func check(_ report: [String: Any], _ id: String) -> [String: Any]? {
        (report["checks"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    @Test func aPinnedRootIsNamedByTheReportTheReceiptTrustAndTrustList() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        server.set("/iaca.pem", .init(body: TrustRootFixtures.pem(fixture.mdocPKI.iaca)))
        let pin = IACATrustStore.sha256(fixture.mdocPKI.iaca)
        let url = server.url("/iaca.pem")
        let flags: ServerSettings.Source = ["trust": ["\(url)#sha256=\(pin)"]]
        let services = try await VerifierServices.make(
            settings: try Self.settings(fixture, flags), logger: Logger(label: "test"), clock: FixedClock(ServiceFixture.time))
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let (report, receipt) = try await Self.verifyIdentity(client, fixture)
            #expect(report["verdict"] as? String == "accepted", "\(report)")
            // The report: the anchoring root and where it came from.
            let chain = try #require(Self.check(report, "mdoc.issuer.chain"))
            let details = try #require(chain["details"] as? [String: String])
            #expect(details["rootSHA256"] == pin && details["trustSource"] == "url" && details["trustLocation"] == url, "\(details)")
            #expect((chain["message"] as? String)?.contains("trusted through pinned URL \(url)") == true, "\(chain)")
            // The receipt: the root's hash and the kind of source, not its location.
            let document = try #require((receipt["documents"] as? [[String: Any]])?.first)
            let anchor = try #require(document["trustAnchor"] as? [String: String])
            #expect(anchor == ["sha256": Base64.encodeURL(try #require(Hex.decode(pin))), "source": "url"])
            #expect(!String(decoding: try JSONSerialization.data(withJSONObject: receipt), as: UTF8.self).contains("127.0.0.1"))
            // GET /v1/trust: the same root, with its provenance, and its source in use.
            let trustBody = try await client.execute(uri: "/v1/trust", method: .get).body
            ContractSamples.record(trustBody, schema: "Trust", name: "trust-pinned-url")
            let trust = try RouterTests.json(trustBody)
            let root = try #require((trust["roots"] as? [[String: Any]])?.first)
            #expect(root["sha256"] as? String == pin)
            let provenance = try #require(root["provenance"] as? [String: Any])
            #expect(provenance["kind"] as? String == "url" && provenance["url"] as? String == url && provenance["pin"] as? String == pin)
            #expect(provenance["fetchedAt"] as? String == RFC3339.format(ServiceFixture.time))
            let source = try #require((trust["sources"] as? [[String: Any]])?.first { $0["kind"] as? String == "url" })
            #expect(source["roots"] as? Int == 1 && source["problem"] is NSNull && source["stale"] as? Bool == false)
        }
        // trust list, with the same flags as serve: the same root and source.
        let listed = await WalletVerifierCommand.runCapturing(
            ["trust", "list", "--format", "json", "--store", "sqlite", "--data-dir", fixture.directory.appendingPathComponent("data").path]
                + ["--identity-key", fixture.identityKeyPath, "--trust", "\(url)#sha256=\(pin)"])
        #expect(listed.code == 0, "\(listed.stderr)")
        let list = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [String: Any])
        let listedRoot = try #require((list["roots"] as? [[String: Any]])?.first)
        #expect(listedRoot["sha256"] as? String == pin)
        #expect((listedRoot["provenance"] as? [String: Any])?["kind"] as? String == "url")
        #expect((listedRoot["provenance"] as? [String: Any])?["url"] as? String == url)
        let text = await WalletVerifierCommand.runCapturing(
            ["trust", "list", "--store", "sqlite", "--data-dir", fixture.directory.appendingPathComponent("data").path]
                + ["--identity-key", fixture.identityKeyPath, "--trust", "\(url)#sha256=\(pin)"])
        #expect(text.code == 0 && text.stdout.contains("sha256 \(pin)") && text.stdout.contains("from: pinned URL \(url)"), "\(text.stdout)")
    }

    @Test func aKeptRootServesARestartAndAMissingOneIsNamedEverywhere() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let server = try LocalHTTPServer()
        server.set("/iaca.pem", .init(body: TrustRootFixtures.pem(fixture.mdocPKI.iaca)))
        let pin = IACATrustStore.sha256(fixture.mdocPKI.iaca)
        let url = server.url("/iaca.pem")
        let first = try await VerifierServices.make(
            settings: try Self.settings(fixture, ["trust": ["\(url)#sha256=\(pin)"]]), logger: Logger(label: "test"),
            clock: FixedClock(ServiceFixture.time))
        #expect(first.trustStore.anchors.count == 1)
        await first.shutdown()
        server.stop()
        // A restart on the same SQLite store while the publisher is down: the kept copy.
        let later = ServiceFixture.time.addingTimeInterval(3600)
        let restarted = try await VerifierServices.make(
            settings: try Self.settings(fixture, ["trust": ["\(url)#sha256=\(pin)"]]), logger: Logger(label: "test"), clock: FixedClock(later))
        #expect(restarted.trustStore.anchors.first?.provenance == .url(url, pin: pin, fetchedAt: ServiceFixture.time))
        await restarted.shutdown()

        // Another pinned root nobody kept and nobody serves: the service starts without it, and says so.
        let other = try MdocPKI()
        let missing = LocalHTTPServer.unreachableURL("/other.pem")
        let logs = LogCapture()
        let services = try await VerifierServices.make(
            settings: try Self.settings(
                fixture, ["trust": ["\(url)#sha256=\(pin)", "\(missing)#sha256=\(IACATrustStore.sha256(other.iaca))"]]),
            logger: logs.logger, clock: FixedClock(later))
        #expect(services.trustStore.anchors.count == 1)
        #expect(logs.text.contains("the service starts without this root") && logs.text.contains(missing), "\(logs.text)")
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let ready = try RouterTests.json(try await client.execute(uri: "/readyz", method: .get).body)
            #expect(ready["status"] as? String == "ready")
            #expect((ready["trust"] as? [String])?.contains { $0.hasPrefix("url:\(missing):") } == true, "\(ready)")
            let trust = try RouterTests.json(try await client.execute(uri: "/v1/trust", method: .get).body)
            let source = try #require((trust["sources"] as? [[String: Any]])?.first { $0["location"] as? String == missing })
            #expect(source["roots"] as? Int == 0 && (source["problem"] as? String)?.contains("could not be fetched") == true)
            let metrics = String(buffer: try await client.execute(uri: "/metrics", method: .get).body)
            #expect(metrics.contains("wallet_verifier_trust_roots{source=\"url:\(missing)\"} 0"), "\(metrics)")
            #expect(metrics.contains("wallet_verifier_trust_roots{source=\"url:\(url)\"} 1"))
            #expect(metrics.contains("wallet_verifier_trust_source_last_success_timestamp_seconds{source=\"url:\(url)\"}"))
        }
        await services.shutdown()
    }

    @Test func aWrongPinOrANonRootStopsTheStartNamingBothFingerprints() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        server.set("/iaca.pem", .init(body: TrustRootFixtures.pem(fixture.mdocPKI.iaca)))
        server.set("/ds.pem", .init(body: TrustRootFixtures.pem(fixture.mdocPKI.ds)))
        let served = IACATrustStore.sha256(fixture.mdocPKI.iaca)
        let wrong = IACATrustStore.sha256(try MdocPKI().iaca)
        await #expect {
            _ = try await VerifierServices.make(
                settings: try Self.settings(fixture, ["trust": ["\(server.url("/iaca.pem"))#sha256=\(wrong)"]]), logger: Logger(label: "test"),
                clock: FixedClock(ServiceFixture.time))
        } throws: { error in
            "\(error)".contains(server.url("/iaca.pem")) && "\(error)".contains(wrong) && "\(error)".contains(served)
                && "\(error)".contains("--trust")
        }
        await #expect {
            _ = try await VerifierServices.make(
                settings: try Self.settings(
                    fixture, ["trustDocTypes": ["\(MdocFixture.mDL)=\(server.url("/ds.pem"))#sha256=\(IACATrustStore.sha256(fixture.mdocPKI.ds))"]]),
                logger: Logger(label: "test"), clock: FixedClock(ServiceFixture.time))
        } throws: { error in
            "\(error)".contains("not self-signed") && "\(error)".contains("--trust-doctype")
        }
        // A URL without its pin is a settings error before anything is fetched.
        await #expect {
            _ = try await VerifierServices.make(
                settings: try Self.settings(fixture, ["trust": [server.url("/iaca.pem")]]), logger: Logger(label: "test"),
                clock: FixedClock(ServiceFixture.time))
        } throws: { error in
            "\(error)".contains("needs its SHA-256 pin")
        }
        #expect(server.requestedPaths == ["/iaca.pem", "/ds.pem"])
        // serve --check fails on the wrong pin, naming it.
        let findings = await ServicePreflight.run(
            settings: try Self.settings(fixture, ["trust": ["\(server.url("/iaca.pem"))#sha256=\(wrong)"]]), logger: Logger(label: "test"))
        #expect(findings.contains { $0.check == "trust" && $0.status == .fail && $0.message.contains(wrong) }, "\(findings)")
    }

    /// Writes `certificate` as PEM into the fixture's directory; its path.
    static func write(_ certificate: Certificate, in fixture: ServiceFixture) throws -> String {
        let path = fixture.directory.appendingPathComponent("root-\(UUID().uuidString).pem").path
        try Data(TrustRootFixtures.pem(certificate)).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func anUntrustedSignerNamesItsIssuersCountryAndState() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        var options = MdocPKI.Options()
        options.iacaState = "CA"
        options.iacaCountry = "US"
        let californian = try MdocPKI(options)
        let signerPath = fixture.directory.appendingPathComponent("ds.pem").path
        try Data(TrustRootFixtures.pem(californian.ds)).write(to: URL(fileURLWithPath: signerPath))
        let at = RFC3339.format(MdocPKI.dsNotBefore.addingTimeInterval(86_400))
        let base = ["--store", "memory", "--identity-key", fixture.identityKeyPath, "--at", at]
        // Trusted: the fixture's own IACA vouches for its own signer, named with its provenance.
        let own = fixture.directory.appendingPathComponent("own-ds.pem").path
        try Data(TrustRootFixtures.pem(fixture.mdocPKI.ds)).write(to: URL(fileURLWithPath: own))
        let trusted = await WalletVerifierCommand.runCapturing(["trust", "check", own, "--trust", fixture.iacaPath] + base)
        #expect(trusted.code == 0, "\(trusted.stdout)\(trusted.stderr)")
        #expect(trusted.stdout.contains("trusted: ") && trusted.stdout.contains("from: file \(fixture.iacaPath)"), "\(trusted.stdout)")
        // Not trusted: the issuer's country and state, and the sources consulted.
        let untrusted = await WalletVerifierCommand.runCapturing(["trust", "check", signerPath, "--trust", fixture.iacaPath] + base)
        #expect(untrusted.code == 1, "\(untrusted.stdout)\(untrusted.stderr)")
        #expect(untrusted.stdout.contains("issuer country: US") && untrusted.stdout.contains("issuer state or province: CA"), "\(untrusted.stdout)")
        #expect(untrusted.stdout.contains("file:\(fixture.iacaPath): 1 root(s)"), "\(untrusted.stdout)")

        // A DeviceResponse, and the identity plaintext around one: the document's docType, its signer.
        let transcript = IdentityEnvelopeFixture.transcript(
            nonce: [1, 2, 3], merchantID: fixture.merchantID, teamID: fixture.teamID, recipient: fixture.identityKey.publicKey)
        let node = try MdocFixture().deviceResponseNode(pki: californian, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let responsePath = fixture.directory.appendingPathComponent("response.cbor").path
        try Data(node.encodedBytes).write(to: URL(fileURLWithPath: responsePath))
        let plaintextPath = fixture.directory.appendingPathComponent("plaintext.cbor").path
        try Data(try CBORNode.map(["identity": node]).encodedBytes).write(to: URL(fileURLWithPath: plaintextPath))
        for path in [responsePath, plaintextPath] {
            let untrustedDocument = await WalletVerifierCommand.runCapturing(["trust", "check", path, "--trust", fixture.iacaPath] + base)
            #expect(untrustedDocument.code == 1, "\(untrustedDocument.stdout)\(untrustedDocument.stderr)")
            #expect(untrustedDocument.stdout.contains("for \(MdocFixture.mDL)") && untrustedDocument.stdout.contains("issuer state or province: CA"))
            let trustedDocument = await WalletVerifierCommand.runCapturing(
                ["trust", "check", path, "--trust-doctype", "\(MdocFixture.mDL)=\(fixture.iacaPath)"] + base
                    + ["--trust-doctype", "\(MdocFixture.mDL)=\(try Self.write(californian.iaca, in: fixture))"])
            #expect(trustedDocument.code == 0, "\(trustedDocument.stdout)\(trustedDocument.stderr)")
            #expect(trustedDocument.stdout.contains("docTypes: \(MdocFixture.mDL)"), "\(trustedDocument.stdout)")
        }
        // Not a document at all: unreadable input.
        let garbage = fixture.directory.appendingPathComponent("garbage.bin").path
        try Data("not a document".utf8).write(to: URL(fileURLWithPath: garbage))
        #expect(await WalletVerifierCommand.runCapturing(["trust", "check", garbage, "--trust", fixture.iacaPath] + base).code == 2)

        // An identity envelope, opened with serve's identity key: the Californian signer is untrusted, and the
        // report's own message names the country and the state in words.
        let nonce: [UInt8] = Array(repeating: 7, count: 16)
        let envelopePath = fixture.directory.appendingPathComponent("envelope.cbor").path
        try Data(try fixture.identityResponse(nonce: nonce, pki: californian)).write(to: URL(fileURLWithPath: envelopePath))
        let envelopeArguments =
            ["trust", "check", envelopePath, "--nonce", Hex.encode(nonce), "--merchant-id", fixture.merchantID, "--team-id", fixture.teamID]
            + [
                "--trust", fixture.iacaPath, "--store", "memory", "--identity-key", fixture.identityKeyPath, "--at",
                RFC3339.format(ServiceFixture.time),
            ]
        let envelope = await WalletVerifierCommand.runCapturing(envelopeArguments)
        #expect(envelope.code == 1, "\(envelope.stdout)\(envelope.stderr)")
        #expect(envelope.stdout.contains("state or province CA, country US"), "\(envelope.stdout)")
        #expect(envelope.stdout.contains("issuer state or province: CA") && envelope.stdout.contains("reason: untrustedIssuer"), "\(envelope.stdout)")
        // The same envelope with its issuer's root configured: trusted, naming the root and its source.
        let rootPath = fixture.directory.appendingPathComponent("californian-iaca.pem").path
        try Data(TrustRootFixtures.pem(californian.iaca)).write(to: URL(fileURLWithPath: rootPath))
        let trustedEnvelope = await WalletVerifierCommand.runCapturing(envelopeArguments + ["--trust", rootPath])
        #expect(trustedEnvelope.code == 0, "\(trustedEnvelope.stdout)\(trustedEnvelope.stderr)")
        #expect(trustedEnvelope.stdout.contains("sha256 \(IACATrustStore.sha256(californian.iaca))"), "\(trustedEnvelope.stdout)")
        #expect(trustedEnvelope.stdout.contains("from: file \(rootPath)"), "\(trustedEnvelope.stdout)")
        // A wrong nonce: the envelope does not open, which is unreadable input, not a verdict.
        let wrong = await WalletVerifierCommand.runCapturing(
            envelopeArguments.map { $0 == Hex.encode(nonce) ? Hex.encode([UInt8](repeating: 8, count: 16)) : $0 })
        #expect(wrong.code == 2, "\(wrong.stdout)\(wrong.stderr)")
    }
}

/// A logger whose lines a test reads (the log-redaction tests' handler).
final class LogCapture: Sendable {
    let box = LogRedactionTests.Box()

    var text: String { box.records.withLock { $0.joined(separator: "\n") } }

    var logger: Logger { Logger(label: "test") { [box] _ in LogRedactionTests.CapturingHandler(box) } }
}
