import Crypto
import Foundation
import Testing
import WalletCBOR
import WalletVerifierTestSupport
import X509

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The service's revocation and reload as deployed: real `serve` processes (their own clock), a real
/// loopback HTTP server serving identifier and status lists and counting requests, SQLite and a
/// PostgreSQL shared by two instances.
@Suite(.serialized) struct ServiceRevocationProcessTests {
    /// A list signer issued by the fixture's IACA (its path length allows no intermediate).
    struct ListSigner {
        let key = P256.Signing.PrivateKey()
        let certificate: Certificate

        init(_ pki: MdocPKI) throws {
            certificate = try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
                notValidBefore: pki.iaca.notValidBefore, notValidAfter: pki.iaca.notValidAfter,
                issuer: pki.iaca.subject,
                subject: try DistinguishedName {
                    CountryName("US")
                    CommonName("Test Revocation List Signer")
                },
                signatureAlgorithm: .ecdsaWithSHA256, extensions: try Certificate.Extensions { Critical(KeyUsage(digitalSignature: true)) },
                issuerPrivateKey: .init(pki.iacaKey))
        }

        func sign(_ list: RevocationListFixture) throws -> [UInt8] {
            try list.signed(key: key, x5chain: [RevocationSignerPKI.der(certificate)])
        }
    }

    static func identifierList(revoking ids: [[UInt8]], uri: String, expiresIn: TimeInterval = 86_400) -> RevocationListFixture {
        RevocationListFixture(
            content: .identifiers(ids), uri: uri, issuedAt: Date().addingTimeInterval(-60), expiresAt: Date().addingTimeInterval(expiresIn))
    }

    static let passportDescriptor =
        #"{"document":"photoID","elements":[{"element":"givenName","intentToStore":"willNotStore"},{"element":"familyName","intentToStore":"willNotStore"},{"element":"documentNumber","intentToStore":"willNotStore"}]}"#

    /// A licence (or a passport) valid now whose MSO names `status`.
    static func document(status: CBORNode?, passport: Bool = false) -> MdocFixture {
        var mdoc = DeploymentTests.currentFixture()
        if passport {
            mdoc.docType = PhotoIDFixture.docType
            let ns = PhotoIDFixture.nameSpace
            mdoc.elements = [
                .init(ns, "given_name_unicode", .text("Åsa")), .init(ns, "family_name_unicode", .text("Søndergård")),
                .init(ns, "document_number", .text("X12345678")),
            ]
        }
        mdoc.msoStatus = status
        return mdoc
    }

    /// Creates a request on `instance` and submits a response from `pki` for it.
    static func verify(
        _ mdoc: MdocFixture, pki: MdocPKI, fixture: ServiceFixture, on instance: ServiceInstance,
        descriptor: String = ServiceFixture.descriptorJSON
    ) async throws -> (status: Int, body: [String: Any]) {
        let created = try await instance.post("/v1/identity/requests", ["descriptor": try JSONSerialization.jsonObject(with: Data(descriptor.utf8))])
        #expect(created.status == 201, "\(created.body)")
        let id = try #require(created.body["requestId"] as? String)
        let nonce = [UInt8](try #require((created.body["nonce"] as? String).flatMap { Data(base64Encoded: $0) }))
        let envelope = try fixture.identityResponse(nonce: nonce, fixture: mdoc, pki: pki)
        return try await instance.post("/v1/identity/verify", ["requestId": id, "encryptedData": Data(envelope).base64EncodedString()])
    }

    static func check(_ body: [String: Any], _ id: String) -> (status: String?, reason: String?) {
        let found = (body["checks"] as? [[String: Any]])?.first { $0["id"] as? String == id }
        return (found?["status"] as? String, found?["reason"] as? String)
    }

    @Test func oneServiceChecksListsAsTheyAre() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let signer = try ListSigner(fixture.mdocPKI)
        let id: [UInt8] = [1, 2, 3]
        // Identifier lists: valid, revoked, expired; a status list with entries 0 (valid) and 1 (invalid).
        let valid = server.url("/id/valid"), revoked = server.url("/id/revoked"), expired = server.url("/id/expired"), status = server.url("/status")
        let huge = server.url("/huge"), slow = server.url("/slow"), down = LocalHTTPServer.unreachableURL("/down")
        server.set("/id/valid", .init(body: try signer.sign(Self.identifierList(revoking: [[9]], uri: valid))))
        server.set("/id/revoked", .init(body: try signer.sign(Self.identifierList(revoking: [id], uri: revoked))))
        var old = Self.identifierList(revoking: [], uri: expired)
        old.issuedAt = Date().addingTimeInterval(-7200)
        old.expiresAt = Date().addingTimeInterval(-3600)
        old.timeToLive = nil
        server.set("/id/expired", .init(body: try signer.sign(old)))
        server.set(
            "/status",
            .init(
                body: try signer.sign(
                    RevocationListFixture(
                        content: .statuses([0, 1], bits: 1), uri: status,
                        issuedAt: Date().addingTimeInterval(-60), expiresAt: Date().addingTimeInterval(86_400)))))
        server.set("/huge", .init(body: [UInt8](repeating: 0x41, count: 5 * 1024 * 1024)))
        server.set("/slow", .init(body: try signer.sign(Self.identifierList(revoking: [], uri: slow)), delay: 12))

        let arguments = ["--store", "sqlite", "--data-dir", fixture.directory.appendingPathComponent("data").path] + fixture.serveArguments
        let required = try await ServiceInstance(arguments: arguments)
        defer { required.stop() }
        func answer(_ status: CBORNode) async throws -> (status: Int, body: [String: Any]) {
            try await Self.verify(Self.document(status: status), pki: fixture.mdocPKI, fixture: fixture, on: required)
        }
        let notRevoked = try await answer(try RevocationListFixture.identifierListStatus(id: id, uri: valid))
        #expect(notRevoked.status == 200 && notRevoked.body["verdict"] as? String == "accepted", "\(notRevoked.body)")
        #expect(Self.check(notRevoked.body, "mdoc.revocation.status").status == "passed")
        let isRevoked = try await answer(try RevocationListFixture.identifierListStatus(id: id, uri: revoked))
        #expect(isRevoked.status == 200 && isRevoked.body["verdict"] as? String == "rejected")
        #expect(Self.check(isRevoked.body, "mdoc.revocation.status") == ("failed", "revoked"))
        let validEntry = try await answer(try RevocationListFixture.statusListStatus(index: 0, uri: status))
        #expect(validEntry.body["verdict"] as? String == "accepted", "\(validEntry.body)")
        let invalidEntry = try await answer(try RevocationListFixture.statusListStatus(index: 1, uri: status))
        #expect(invalidEntry.body["verdict"] as? String == "rejected")
        // Undecidable: server down, a list past its exp, a list over the size cap, a list too slow to come.
        for (uri, reason) in [(down, "listUnavailable"), (expired, "listExpired"), (huge, "listTooLarge"), (slow, "listUnavailable")] {
            let started = Date()
            let undecided = try await answer(try RevocationListFixture.identifierListStatus(id: id, uri: uri))
            #expect(undecided.status == 503 && undecided.body["verdict"] as? String == "indeterminate", "\(uri): \(undecided.body)")
            #expect(Self.check(undecided.body, "mdoc.revocation.list") == ("error", reason), "\(uri)")
            #expect(Date().timeIntervalSince(started) < 12, "\(uri) took \(Date().timeIntervalSince(started)) s")
        }
        // Each list was fetched once; the expired one is fetched again on each use, never used.
        #expect(server.requestedPaths.filter { $0 == "/id/valid" }.count == 1)
        let metrics = String(
            decoding: try await URLSession.shared.data(from: URL(string: "http://127.0.0.1:\(required.port)/metrics")!).0, as: UTF8.self)
        #expect(metrics.contains(#"wallet_verifier_revocation_list_fetches_total{outcome="fetched"}"#))
        #expect(metrics.contains(#"wallet_verifier_revocation_list_fetches_total{outcome="listTooLarge"} 1"#))

        // best-effort: the server down is a warning, the answer accepted.
        let bestEffort = try await ServiceInstance(arguments: ["--store", "memory", "--revocation", "best-effort"] + fixture.serveArguments)
        defer { bestEffort.stop() }
        let lenient = try await Self.verify(
            Self.document(status: try RevocationListFixture.identifierListStatus(id: id, uri: down)), pki: fixture.mdocPKI, fixture: fixture,
            on: bestEffort)
        #expect(lenient.status == 200 && lenient.body["verdict"] as? String == "accepted", "\(lenient.body)")
        #expect((lenient.body["warnings"] as? [[String: Any]])?.contains { $0["code"] as? String == "listUnavailable" } == true)
    }

    @Test func twoInstancesOnPostgreSQLFetchAListOnce() async throws {
        guard let url = DeploymentTests.postgresURL else {
            if DeploymentTests.inCI { Issue.record("WALLET_VERIFIER_POSTGRES_URL is not set; scripts/test starts a throwaway PostgreSQL") }
            return
        }
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let signer = try ListSigner(fixture.mdocPKI)
        let uri = server.url("/passports")
        server.set("/passports", .init(body: try signer.sign(Self.identifierList(revoking: [[7]], uri: uri)), delay: 0.3))
        // A passport signer that keeps all of Annex B and is valid now.
        let passportPKI = try fixture.mdocPKI.anotherDocumentSigner(notBefore: Date().addingTimeInterval(-30 * 86_400))
        let arguments = ["--store", "postgres", "--postgres-url", url] + fixture.passportServeArguments
        let a = try await ServiceInstance(arguments: arguments)
        var b = try await ServiceInstance(arguments: arguments)
        defer {
            a.stop()
            b.stop()
        }
        let passport = Self.document(status: try RevocationListFixture.identifierListStatus(id: [1], uri: uri), passport: true)
        let answers = try await withThrowingTaskGroup(of: (Int, String?, String?).self) { group in
            for index in 0..<20 {
                let instance = index % 2 == 0 ? a : b
                group.addTask {
                    let answer = try await Self.verify(
                        passport, pki: passportPKI, fixture: fixture, on: instance, descriptor: Self.passportDescriptor)
                    return (answer.status, answer.body["verdict"] as? String, Self.check(answer.body, "photoid.docType").status)
                }
            }
            var all: [(Int, String?, String?)] = []
            for try await answer in group { all.append(answer) }
            return all
        }
        #expect(answers.allSatisfy { $0.0 == 200 && $0.1 == "accepted" && $0.2 == "passed" }, "\(answers)")
        #expect(server.requestedPaths.count == 1, "\(server.requestedPaths)")
        // A restarted instance finds the list in the store.
        b.stop()
        b = try await ServiceInstance(arguments: arguments)
        let again = try await Self.verify(passport, pki: passportPKI, fixture: fixture, on: b, descriptor: Self.passportDescriptor)
        #expect(again.body["verdict"] as? String == "accepted")
        #expect(server.requestedPaths.count == 1)
        #expect(
            ((try await b.getJSON("/v1/trust")["revocation"] as? [String: Any])?["cachedLists"] as? [[String: Any]])?.contains {
                $0["uri"] as? String == uri
            } == true)
    }

    /// SIGHUP on a running service: a root added to the trust directory makes the next verification
    /// accepted; a broken identity key file keeps the running configuration; verifications running
    /// across reloads all answer.
    @Test func sighupAddsARootAndKeepsAnsweringThroughReloads() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let roots = fixture.directory.appendingPathComponent("roots")
        try FileManager.default.createDirectory(at: roots, withIntermediateDirectories: true)
        try Data(try MdocPKI().iacaPEM.utf8).write(to: roots.appendingPathComponent("unrelated.pem"))
        var arguments = fixture.serveArguments
        if let index = arguments.firstIndex(of: fixture.iacaPath) { arguments[index] = roots.path }
        let instance = try await ServiceInstance(
            arguments: ["--store", "sqlite", "--data-dir", fixture.directory.appendingPathComponent("data").path] + arguments)
        defer { instance.stop() }
        let licence = DeploymentTests.currentFixture()
        let before = try await Self.verify(licence, pki: fixture.mdocPKI, fixture: fixture, on: instance)
        #expect(before.body["verdict"] as? String == "rejected")
        #expect(Self.check(before.body, "mdoc.issuer.chain").status == "failed")

        try Data(fixture.mdocPKI.iacaPEM.utf8).write(to: roots.appendingPathComponent("issuer.pem"))
        instance.signal(SIGHUP)
        #expect(try await ServiceInstance.waitFor { (try await instance.getJSON("/v1/trust")["anchors"] as? [[String: Any]])?.count == 2 })
        let after = try await Self.verify(licence, pki: fixture.mdocPKI, fixture: fixture, on: instance)
        #expect(after.body["verdict"] as? String == "accepted", "\(after.body)")

        // A broken identity key file: refused, the running keys stay, the service keeps answering.
        let keyFile = URL(fileURLWithPath: fixture.identityKeyPath)
        let goodKey = try Data(contentsOf: keyFile)
        try Data("-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n".utf8).write(to: keyFile)
        instance.signal(SIGHUP)
        #expect(try await ServiceInstance.waitFor { instance.log.contains("reload: the new configuration was not loaded") })
        #expect(instance.log.contains(fixture.identityKeyPath))
        let stillGood = try await Self.verify(licence, pki: fixture.mdocPKI, fixture: fixture, on: instance)
        #expect(stillGood.body["verdict"] as? String == "accepted")
        try goodKey.write(to: keyFile)

        // Verifications in flight while the configuration is reloaded three times: every one answers.
        let answers = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<24 {
                group.addTask { try await Self.verify(licence, pki: fixture.mdocPKI, fixture: fixture, on: instance).body["verdict"] as? String }
            }
            group.addTask {
                for _ in 0..<3 {
                    instance.signal(SIGHUP)
                    try await Task.sleep(for: .milliseconds(40))
                }
                return "reloads"
            }
            var all: [String?] = []
            for try await answer in group { all.append(answer) }
            return all
        }
        #expect(answers.filter { $0 == "accepted" }.count == 24, "\(answers)")
        #expect(try await ServiceInstance.waitFor { instance.log.components(separatedBy: "reload: done").count - 1 >= 2 })
    }
}
