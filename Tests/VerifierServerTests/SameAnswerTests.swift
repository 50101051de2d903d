import Crypto
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOFoundationEssentialsCompat
import Testing
import VerificationCore
import VerifierServer
import WalletCBOR
import WalletEncoding
import WalletVerifierCommands
import WalletVerifierTestSupport
import X509

/// The CLI and the service give the same report for the same input, in the in-app and the web flow:
/// the same checks (id, scope, status, reason), the same warnings and the same verdict. The service
/// adds only what a request session adds (`replay.nonce`, and on the web `web.request.elements` and
/// `photoid.docType` for a request of a photo ID, which the CLI runs only with `--session`).
@Suite struct SameAnswerTests {
    /// What both answers are compared on.
    struct Answer: Equatable, CustomStringConvertible {
        var verdict: String
        var checks: [String]
        var warnings: [String]

        init(_ report: [String: Any], ignoring: Set<String>) {
            verdict = report["verdict"] as? String ?? "?"
            checks = ((report["checks"] as? [[String: Any]]) ?? []).compactMap { check -> String? in
                guard let id = check["id"] as? String, !ignoring.contains(id) else { return nil }
                return [id, check["scope"] as? String ?? "", check["status"] as? String ?? "", check["reason"] as? String ?? ""].joined(
                    separator: "|")
            }.sorted()
            warnings = ((report["warnings"] as? [[String: Any]]) ?? []).compactMap { $0["code"] as? String }.sorted()
        }

        func check(_ id: String) -> [String] { checks.filter { $0.hasPrefix(id + "|") } }
        var description: String { "\(verdict) \(checks) \(warnings)" }
    }

    struct Outcome {
        var service: Answer
        /// "docType kind" of each document in the service's answer.
        var serviceDocuments: [String] = []
        var status: Int
        var retryAfter: String?
        var cli: Answer
        var exitCode: Int32
    }

    static let passportDescriptor =
        #"{"document":"photoID","elements":[{"element":"givenName","intentToStore":"willNotStore"},{"element":"familyName","intentToStore":"willNotStore"},{"element":"dateOfBirth","intentToStore":"willNotStore"},{"element":"documentNumber","intentToStore":"willNotStore"},{"element":"issuingAuthority","intentToStore":"willNotStore"},{"element":"documentExpirationDate","intentToStore":"willNotStore"},{"element":"nationality","intentToStore":"willNotStore"}]}"#

    static func passport(expiry: String = "2031-02-28", country: String = "US") -> MdocFixture {
        var mdoc = MdocFixture()
        mdoc.docType = PhotoIDFixture.docType
        let ns = PhotoIDFixture.nameSpace
        mdoc.elements = [
            .init(ns, "given_name_unicode", .text("Åsa")), .init(ns, "family_name_unicode", .text("Søndergård")),
            .init(ns, "birth_date", try! .map(["birth_date": .tagged(1004, .text("1990-07-04"))])),
            .init(ns, "document_number", .text("X12345678")), .init(ns, "issuing_authority_unicode", .text("Test Passport Authority")),
            .init(ns, "issuing_country", .text(country)), .init(ns, "expiry_date", .tagged(1004, .text(expiry))),
            .init(ns, "nationality", .text("US")),
        ]
        return mdoc
    }

    static func licence(expiry: String? = nil, country: String? = nil) -> MdocFixture {
        var mdoc = MdocFixture()
        if let expiry { mdoc.elements.append(.init(MdocFixture.isoNameSpace, "expiry_date", .tagged(1004, .text(expiry)))) }
        if let country { mdoc.elements.append(.init(MdocFixture.isoNameSpace, "issuing_country", .text(country))) }
        return mdoc
    }

    static func licenceDescriptor(for mdoc: MdocFixture, requireUnexpired: Bool = false) -> String {
        var elements = [
            #"{"element":"givenName","intentToStore":"willNotStore"}"#, #"{"element":"familyName","intentToStore":"willNotStore"}"#,
            #"{"element":"dateOfBirth","intentToStore":"willNotStore"}"#, #"{"element":"age","atLeast":21,"intentToStore":"willNotStore"}"#,
            #"{"element":"portrait","intentToStore":"willNotStore"}"#, #"{"element":"documentNumber","intentToStore":"willNotStore"}"#,
        ]
        if mdoc.elements.contains(where: { $0.identifier == "expiry_date" }) {
            elements.append(#"{"element":"documentExpirationDate","intentToStore":"willNotStore"}"#)
        }
        if mdoc.elements.contains(where: { $0.identifier == "issuing_country" }) {
            elements.append(#"{"element":"issuingAuthority","intentToStore":"willNotStore"}"#)
        }
        return #"{"document":"driversLicense","elements":["# + elements.joined(separator: ",") + "]"
            + (requireUnexpired ? #","requireUnexpired":true}"# : "}")
    }

    /// One in-app submission, through `POST /v1/identity/verify` and through `identity verify`.
    static func inApp(
        _ mdoc: MdocFixture, descriptor: String, pki choose: (ServiceFixture) -> MdocPKI, cliFlags: [String] = [],
        serviceFlags: ServerSettings.Source = [:], fixture given: ServiceFixture? = nil
    ) async throws -> Outcome {
        let fixture = try given ?? ServiceFixture()
        defer { if given == nil { fixture.remove() } }
        let pki = try trusting(choose(fixture), in: fixture)
        let app = VerifierApplication.build(
            services: try await RouterTests.services(fixture, extra: Self.passportTrust(fixture).merging(serviceFlags) { $1 }),
            logger: Logger(label: "test"))
        struct Served: Sendable {
            var body: Data
            var status: Int
            var retryAfter: String?
            var envelope: [UInt8]
            var nonce: [UInt8]
        }
        let served: Served = try await app.test(.router) { client in
            let descriptorObject = try JSONSerialization.jsonObject(with: Data(descriptor.utf8))
            let created = try await client.execute(
                uri: "/v1/identity/requests", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["descriptor": descriptorObject]))
            #expect(created.status == .created, "\(String(buffer: created.body))")
            let request = try RouterTests.json(created.body)
            let nonce = [UInt8](try #require((request["nonce"] as? String).flatMap { Data(base64Encoded: $0) }))
            let envelope = try fixture.identityResponse(nonce: nonce, fixture: mdoc, pki: pki)
            let verified = try await client.execute(
                uri: "/v1/identity/verify", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body([
                    "requestId": try #require(request["requestId"] as? String), "encryptedData": Data(envelope).base64EncodedString(),
                ]))
            return Served(
                body: Data(buffer: verified.body), status: Int(verified.status.code), retryAfter: verified.headers[.retryAfter], envelope: envelope,
                nonce: nonce)
        }
        let (envelope, nonce) = (served.envelope, served.nonce)
        let serviceJSON = try #require(try JSONSerialization.jsonObject(with: served.body) as? [String: Any])
        let envelopePath = fixture.directory.appendingPathComponent("envelope.cbor").path
        try Data(envelope).write(to: URL(fileURLWithPath: envelopePath))
        let descriptorPath = fixture.directory.appendingPathComponent("descriptor.json").path
        try Data(descriptor.utf8).write(to: URL(fileURLWithPath: descriptorPath))
        let cli = await WalletVerifierCommand.runCapturing(
            [
                "identity", "verify", "--envelope", envelopePath, "--merchant-key", fixture.identityKeyPath, "--nonce", Hex.encode(nonce),
                "--merchant-id", fixture.merchantID, "--team-id", fixture.teamID, "--trust", fixture.iacaPath, "--request", descriptorPath,
                "--trust-doctype", "\(PhotoIDFixture.docType)=\(fixture.iacaPath)",
                "--at", RFC3339.format(ServiceFixture.time), "--format", "json",
            ]
                // The CLI checks revocation by default, as the service does (--revocation required, lists fetched).
                + cliFlags)
        let cliJSON = try #require(try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any], "\(cli.stdout)\(cli.stderr)")
        let ignoring: Set<String> = ["replay.nonce"]
        return Outcome(
            service: Answer(serviceJSON, ignoring: ignoring),
            serviceDocuments: ((serviceJSON["documents"] as? [[String: Any]]) ?? []).map {
                "\($0["docType"] as? String ?? "") \($0["kind"] as? String ?? "")"
            },
            status: served.status, retryAfter: served.retryAfter, cli: Answer(cliJSON, ignoring: ignoring), exitCode: cli.code)
    }

    /// One web submission, through `POST /v1/web/verify` and through `web verify`.
    static func web(_ mdoc: MdocFixture, pki choose: (ServiceFixture) -> MdocPKI, fixture given: ServiceFixture? = nil) async throws -> Outcome {
        let fixture = try given ?? ServiceFixture()
        defer { if given == nil { fixture.remove() } }
        let pki = try trusting(choose(fixture), in: fixture)
        let app = VerifierApplication.build(
            services: try await RouterTests.services(fixture, extra: Self.passportTrust(fixture)), logger: Logger(label: "test"))
        struct Served: Sendable {
            var body: Data
            var status: Int
            var retryAfter: String?
            var response: [UInt8]
            var encryptionInfo: String
        }
        let served: Served = try await app.test(.router) { client in
            let elements = mdoc.elements.map { "\($0.nameSpace)/\($0.identifier)" }
            let created = try await client.execute(
                uri: "/v1/web/requests", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["docType": mdoc.docType, "origin": fixture.webOrigin, "elements": elements]))
            #expect(created.status == .created, "\(String(buffer: created.body))")
            let request = try RouterTests.json(created.body)
            let argument = try #require(request["navigatorCredentialsGetArgument"] as? [String: Any])
            let data = try #require(((argument["digital"] as? [String: Any])?["requests"] as? [[String: Any]])?.first?["data"] as? [String: Any])
            let encryptionInfo = try #require(data["encryptionInfo"] as? String)
            let sealed = try fixture.webResponse(encryptionInfo: encryptionInfo, origin: fixture.webOrigin, fixture: mdoc, pki: pki)
            let credential: [String: Any] = ["protocol": "org-iso-mdoc", "data": ["response": sealed.base64URL]]
            let verified = try await client.execute(
                uri: "/v1/web/verify", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["requestId": try #require(request["requestId"] as? String), "credential": credential]))
            return Served(
                body: Data(buffer: verified.body), status: Int(verified.status.code), retryAfter: verified.headers[.retryAfter],
                response: sealed.cbor, encryptionInfo: encryptionInfo)
        }
        let (response, encryptionInfo) = (served.response, served.encryptionInfo)
        let serviceJSON = try #require(try JSONSerialization.jsonObject(with: served.body) as? [String: Any])
        let responsePath = fixture.directory.appendingPathComponent("response.cbor").path
        try Data(response).write(to: URL(fileURLWithPath: responsePath))
        let cli = await WalletVerifierCommand.runCapturing([
            "web", "verify", "--response", responsePath, "--encryption-info", encryptionInfo, "--origin", fixture.webOrigin,
            "--recipient-key", fixture.webKeyPath, "--trust", fixture.iacaPath, "--at", RFC3339.format(ServiceFixture.time), "--format", "json",
            "--fetch-revocation", "--trust-doctype", "\(PhotoIDFixture.docType)=\(fixture.iacaPath)",
        ])
        let cliJSON = try #require(try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any], "\(cli.stdout)\(cli.stderr)")
        // What the request session adds: the nonce, and the request's docType and elements.
        let ignoring: Set<String> = ["replay.nonce", "web.request.elements", "photoid.docType"]
        return Outcome(
            service: Answer(serviceJSON, ignoring: ignoring),
            serviceDocuments: ((serviceJSON["documents"] as? [[String: Any]]) ?? []).map {
                "\($0["docType"] as? String ?? "") \($0["kind"] as? String ?? "")"
            },
            status: served.status, retryAfter: served.retryAfter, cli: Answer(cliJSON, ignoring: ignoring), exitCode: cli.code)
    }

    /// The fixture's IACA also trusted for passports, which need a root scoped to their docType.
    static func passportTrust(_ fixture: ServiceFixture) -> ServerSettings.Source {
        ["trustDocTypes": ["\(PhotoIDFixture.docType)=\(fixture.iacaPath)"]]
    }

    /// A PKI of another IACA becomes the one the fixture's service and CLI trust.
    static func trusting(_ pki: MdocPKI, in fixture: ServiceFixture) throws -> MdocPKI {
        if pki.iaca != fixture.mdocPKI.iaca { try Data(pki.iacaPEM.utf8).write(to: URL(fileURLWithPath: fixture.iacaPath)) }
        return pki
    }

    static func expectSame(_ outcome: Outcome, verdict: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome.service == outcome.cli, "service \(outcome.service)\ncli     \(outcome.cli)", sourceLocation: sourceLocation)
        #expect(outcome.service.verdict == verdict, "\(outcome.service)", sourceLocation: sourceLocation)
        #expect(outcome.status == (verdict == "indeterminate" ? 503 : 200), sourceLocation: sourceLocation)
        #expect(outcome.exitCode == (verdict == "accepted" ? 0 : verdict == "rejected" ? 1 : 3), sourceLocation: sourceLocation)
        if verdict != "indeterminate" { #expect(outcome.retryAfter == nil, sourceLocation: sourceLocation) }
    }

    // MARK: Passports: the passport rules in every path (seed 002, issue item 3).

    @Test func aPassportGetsThePassportRulesInApp() async throws {
        let good = try await Self.inApp(Self.passport(), descriptor: Self.passportDescriptor, pki: { $0.webPKI })
        Self.expectSame(good, verdict: "accepted")
        #expect(good.service.check("photoid.docType") == ["photoid.docType||passed|ok"])
        #expect(good.service.check("photoid.elements") == ["photoid.elements|document[0]|passed|ok"])
        #expect(good.service.check("mdoc.issuingCountry.element") == ["mdoc.issuingCountry.element|document[0]|passed|ok"])
        #expect(good.serviceDocuments == [PhotoIDFixture.docType + " photoID"])
        // The long-lived document signer breaks Annex B's validity length: a warning for a licence
        // in the in-app flow, a failure for a passport — in the CLI and the service alike.
        let longLived = try await Self.inApp(Self.passport(), descriptor: Self.passportDescriptor, pki: { $0.mdocPKI })
        Self.expectSame(longLived, verdict: "rejected")
        #expect(longLived.service.check("mdoc.issuer.certificateProfile").first?.contains("|failed|") == true)
        let licence = try await Self.inApp(Self.licence(), descriptor: Self.licenceDescriptor(for: Self.licence()), pki: { $0.mdocPKI })
        Self.expectSame(licence, verdict: "accepted")
        #expect(licence.service.check("mdoc.issuer.certificateProfile") == ["mdoc.issuer.certificateProfile|document[0]|passed|ok"])
    }

    @Test func aPassportGetsThePassportRulesOnTheWeb() async throws {
        Self.expectSame(try await Self.web(Self.passport(), pki: { $0.webPKI }), verdict: "accepted")
        let longLived = try await Self.web(Self.passport(), pki: { $0.mdocPKI })
        Self.expectSame(longLived, verdict: "rejected")
        #expect(longLived.service.check("mdoc.issuer.certificateProfile").first?.contains("|failed|") == true)
        Self.expectSame(try await Self.web(Self.licence(), pki: { $0.webPKI }), verdict: "accepted")
    }

    /// A passport whose IACA and document signer have no countryName: countryName is required for
    /// passports in every flow; a licence from the same issuer only gets a warning in the in-app flow.
    @Test func aPassportWithoutCountryNameIsRejectedEverywhere() async throws {
        var options = MdocPKI.Options()
        options.iacaCountry = nil
        options.dsCountry = nil
        let noCountry = try MdocPKI(options)
        var passport = Self.passport()
        passport.elements.removeAll { $0.identifier == "issuing_country" }
        let inApp = try await Self.inApp(passport, descriptor: Self.passportDescriptor, pki: { _ in noCountry })
        Self.expectSame(inApp, verdict: "rejected")
        #expect(inApp.service.check("mdoc.issuer.country") == ["mdoc.issuer.country|document[0]|failed|countryNameMissing"])
        let web = try await Self.web(passport, pki: { _ in noCountry })
        Self.expectSame(web, verdict: "rejected")
        #expect(web.service.check("mdoc.issuer.country") == ["mdoc.issuer.country|document[0]|failed|countryNameMissing"])
        // A licence from the same issuer disclosing issuing_country: both country checks are skipped
        // (countryNameAbsent) under the in-app policy, and accepted; on the web (ISO strict) they fail.
        let disclosing = Self.licence(country: "US")
        let licence = try await Self.inApp(disclosing, descriptor: Self.licenceDescriptor(for: disclosing), pki: { _ in noCountry })
        Self.expectSame(licence, verdict: "accepted")
        #expect(licence.service.check("mdoc.issuer.country") == ["mdoc.issuer.country|document[0]|skipped|countryNameAbsent"])
        #expect(licence.service.check("mdoc.issuingCountry.element") == ["mdoc.issuingCountry.element|document[0]|skipped|countryNameAbsent"])
        let webLicence = try await Self.web(disclosing, pki: { _ in noCountry })
        Self.expectSame(webLicence, verdict: "rejected")
        #expect(webLicence.service.check("mdoc.issuingCountry.element") == ["mdoc.issuingCountry.element|document[0]|failed|countryNameMissing"])
    }

    // MARK: issuing_country (item 2)

    @Test func issuingCountryMustBeTheIACAs() async throws {
        let passport = try await Self.inApp(Self.passport(country: "FR"), descriptor: Self.passportDescriptor, pki: { $0.webPKI })
        Self.expectSame(passport, verdict: "rejected")
        #expect(passport.service.check("mdoc.issuingCountry.element") == ["mdoc.issuingCountry.element|document[0]|failed|issuingCountryMismatch"])
        let webPassport = try await Self.web(Self.passport(country: "FR"), pki: { $0.webPKI })
        Self.expectSame(webPassport, verdict: "rejected")
        #expect(webPassport.service.check("mdoc.issuingCountry.element") == ["mdoc.issuingCountry.element|document[0]|failed|issuingCountryMismatch"])
        let licence = Self.licence(country: "DE")
        let inApp = try await Self.inApp(licence, descriptor: Self.licenceDescriptor(for: licence), pki: { $0.mdocPKI })
        Self.expectSame(inApp, verdict: "rejected")
        #expect(inApp.service.check("mdoc.issuingCountry.element") == ["mdoc.issuingCountry.element|document[0]|failed|issuingCountryMismatch"])
        let same = Self.licence(country: "US")
        let matching = try await Self.inApp(same, descriptor: Self.licenceDescriptor(for: same), pki: { $0.mdocPKI })
        Self.expectSame(matching, verdict: "accepted")
        #expect(matching.service.check("mdoc.issuingCountry.element") == ["mdoc.issuingCountry.element|document[0]|passed|ok"])
    }

    // MARK: deviceMac where it cannot be carried (item 1)

    @Test func aDeviceMacIsRejectedNotRetried() async throws {
        var mac = Self.licence()
        mac.macReaderKey = P256.KeyAgreement.PrivateKey().publicKey
        let inApp = try await Self.inApp(mac, descriptor: Self.licenceDescriptor(for: mac), pki: { $0.mdocPKI })
        Self.expectSame(inApp, verdict: "rejected")
        #expect(inApp.service.check("mdoc.device.authentication") == ["mdoc.device.authentication|document[0]|failed|deviceMacNotAllowed"])
        let web = try await Self.web(mac, pki: { $0.webPKI })
        Self.expectSame(web, verdict: "rejected")
        #expect(web.service.check("mdoc.device.authentication") == ["mdoc.device.authentication|document[0]|failed|deviceMacNotAllowed"])
    }

    // MARK: the physical document's expiry (item 5)

    @Test func anExpiredDocumentWarnsOrFails() async throws {
        let expired = Self.licence(expiry: "2023-12-31")
        let advisory = try await Self.inApp(expired, descriptor: Self.licenceDescriptor(for: expired), pki: { $0.mdocPKI })
        Self.expectSame(advisory, verdict: "accepted")
        #expect(advisory.service.check("identity.document.expiry") == ["identity.document.expiry||failed|documentExpired"])
        // Required by the request descriptor.
        let required = try await Self.inApp(expired, descriptor: Self.licenceDescriptor(for: expired, requireUnexpired: true), pki: { $0.mdocPKI })
        Self.expectSame(required, verdict: "rejected")
        // Required by the CLI flag only: the service (no flag) warns, the CLI rejects.
        let flag = try await Self.inApp(
            expired, descriptor: Self.licenceDescriptor(for: expired), pki: { $0.mdocPKI }, cliFlags: ["--require-unexpired"])
        #expect(flag.service.verdict == "accepted" && flag.cli.verdict == "rejected" && flag.exitCode == 1)
        #expect(flag.cli.check("identity.document.expiry") == ["identity.document.expiry||failed|documentExpired"])
        // Unexpired (expiry on the day after the verification time): passed.
        let valid = Self.licence(expiry: "2024-01-02")
        let passed = try await Self.inApp(valid, descriptor: Self.licenceDescriptor(for: valid, requireUnexpired: true), pki: { $0.mdocPKI })
        Self.expectSame(passed, verdict: "accepted")
        #expect(passed.service.check("identity.document.expiry") == ["identity.document.expiry||passed|ok"])
        // On the web the same check is a warning (a web request cannot require an unexpired document).
        let web = try await Self.web(expired, pki: { $0.webPKI })
        Self.expectSame(web, verdict: "accepted")
        #expect(web.service.check("identity.document.expiry") == ["identity.document.expiry||failed|documentExpired"])
        let webPassport = try await Self.web(Self.passport(expiry: "2023-06-30"), pki: { $0.webPKI })
        Self.expectSame(webPassport, verdict: "accepted")
        #expect(webPassport.service.check("identity.document.expiry") == ["identity.document.expiry||failed|documentExpired"])
    }

    // MARK: revocation: the service checks MSO revocation lists as the CLI does

    /// A licence whose MSO names an identifier list, served at a loopback URL and signed under the
    /// document's IACA: the service (default `--revocation required`) and `identity verify
    /// --fetch-revocation` give the same answer when the list says valid, when it says revoked, and
    /// when it cannot be fetched (indeterminate: HTTP 503 with Retry-After, exit 3); the same with the
    /// list given as a file. `best-effort` makes an unreachable list a warning, `off` skips with reason
    /// `disabled`.
    @Test func revocationListsAreCheckedTheSameWay() async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        // The fixture's IACA allows no intermediate (path length 0): the list signer is issued by it directly.
        let signer = try ServiceRevocationProcessTests.ListSigner(fixture.mdocPKI)
        func list(revoking ids: [[UInt8]], uri: String) throws -> [UInt8] {
            try signer.sign(
                RevocationListFixture(
                    content: .identifiers(ids), uri: uri, issuedAt: ServiceFixture.time.addingTimeInterval(-3600),
                    expiresAt: ServiceFixture.time.addingTimeInterval(86_400)))
        }
        func listed(_ uri: String) throws -> MdocFixture {
            var mdoc = Self.licence()
            mdoc.msoStatus = try RevocationListFixture.identifierListStatus(id: [1, 2, 3], uri: uri)
            return mdoc
        }
        let valid = server.url("/valid"), revoked = server.url("/revoked")
        server.set("/valid", .init(body: try list(revoking: [[9, 9]], uri: valid)))
        server.set("/revoked", .init(body: try list(revoking: [[1, 2, 3]], uri: revoked)))
        let descriptor = Self.licenceDescriptor(for: Self.licence())

        let notRevoked = try await Self.inApp(try listed(valid), descriptor: descriptor, pki: { $0.mdocPKI }, fixture: fixture)
        Self.expectSame(notRevoked, verdict: "accepted")
        #expect(notRevoked.service.check("mdoc.revocation.status") == ["mdoc.revocation.status|document[0]|passed|ok"])
        let isRevoked = try await Self.inApp(try listed(revoked), descriptor: descriptor, pki: { $0.mdocPKI }, fixture: fixture)
        Self.expectSame(isRevoked, verdict: "rejected")
        #expect(isRevoked.service.check("mdoc.revocation.status").first?.contains("|failed|") == true)
        let unreachable = LocalHTTPServer.unreachableURL("/gone")
        let unavailable = try await Self.inApp(try listed(unreachable), descriptor: descriptor, pki: { $0.mdocPKI }, fixture: fixture)
        Self.expectSame(unavailable, verdict: "indeterminate")
        #expect(unavailable.retryAfter != nil)
        #expect(unavailable.service.check("mdoc.revocation.list") == ["mdoc.revocation.list|document[0]|error|listUnavailable"])

        // The list as a file, on both sides, for a uri that cannot be fetched.
        let offlineURI = "https://issuer.example/offline-list"
        let file = fixture.directory.appendingPathComponent("list.cwt").path
        try Data(try list(revoking: [[1, 2, 3]], uri: offlineURI)).write(to: URL(fileURLWithPath: file))
        let offline = try await Self.inApp(
            try listed(offlineURI), descriptor: descriptor, pki: { $0.mdocPKI }, cliFlags: ["--revocation-list", file],
            serviceFlags: ["revocationLists": [file]], fixture: fixture)
        Self.expectSame(offline, verdict: "rejected")
        #expect(offline.service.check("mdoc.revocation.status").first?.contains("|failed|") == true)

        // best-effort: unreachable is a warning; off: skipped, disabled.
        let bestEffort = try await Self.inApp(
            try listed(unreachable), descriptor: descriptor, pki: { $0.mdocPKI }, serviceFlags: ["revocation": ["best-effort"]], fixture: fixture)
        #expect(bestEffort.service.verdict == "accepted" && bestEffort.status == 200)
        #expect(bestEffort.service.warnings.contains("listUnavailable"))
        let off = try await Self.inApp(
            try listed(revoked), descriptor: descriptor, pki: { $0.mdocPKI }, serviceFlags: ["revocation": ["off"]], fixture: fixture)
        #expect(off.service.verdict == "accepted")
        #expect(off.service.check("mdoc.revocation.list") == ["mdoc.revocation.list|document[0]|skipped|disabled"])
        #expect(off.service.check("mdoc.revocation.status") == ["mdoc.revocation.status|document[0]|skipped|disabled"])
        // off on both sides: the same skipped checks, with the reason in each.
        let offBoth = try await Self.inApp(
            try listed(revoked), descriptor: descriptor, pki: { $0.mdocPKI }, cliFlags: ["--revocation", "off"],
            serviceFlags: ["revocation": ["off"]], fixture: fixture)
        Self.expectSame(offBoth, verdict: "accepted")
        #expect(offBoth.service.check("mdoc.revocation.status") == ["mdoc.revocation.status|document[0]|skipped|disabled"])
        // Passports (seed 002: "validate the MSO, its validity period, and the revocation list"): revoked
        // and not revoked, the same through the CLI and the service.
        var passport = Self.passport()
        passport.msoStatus = try RevocationListFixture.identifierListStatus(id: [1, 2, 3], uri: revoked)
        let revokedPassport = try await Self.inApp(passport, descriptor: Self.passportDescriptor, pki: { $0.webPKI }, fixture: fixture)
        Self.expectSame(revokedPassport, verdict: "rejected")
        #expect(revokedPassport.service.check("mdoc.revocation.status") == ["mdoc.revocation.status|document[0]|failed|revoked"])
        passport.msoStatus = try RevocationListFixture.identifierListStatus(id: [1, 2, 3], uri: valid)
        let goodPassport = try await Self.inApp(passport, descriptor: Self.passportDescriptor, pki: { $0.webPKI }, fixture: fixture)
        Self.expectSame(goodPassport, verdict: "accepted")
        #expect(goodPassport.service.check("mdoc.revocation.status") == ["mdoc.revocation.status|document[0]|passed|ok"])
        // The web flow checks the same list.
        let web = try await Self.web(try listed(revoked), pki: { $0.webPKI }, fixture: fixture)
        Self.expectSame(web, verdict: "rejected")
        #expect(web.service.check("mdoc.revocation.status").first?.contains("|failed|") == true)
        // Shared caching across instances and restarts is DocumentCacheTests' subject; here every
        // service and every CLI run starts with an empty cache.
    }

    // MARK: Apple Pay: merchant tokens and authentication responses (item 8)

    /// A merchant-token payment with authentication responses and a member nobody knows: the CLI and
    /// the service answer with the same payment, byte for byte, and the text output names the typed
    /// fields without the authentication data.
    @Test func merchantTokenPaymentsReadTheSame() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let plaintext =
            #"{"applicationPrimaryAccountNumber":"4111111111111111","applicationExpirationDate":"281231","currencyCode":"840","transactionAmount":1999,"deviceManufacturerIdentifier":"040010030273","paymentDataType":"3DSecure","merchantTokenIdentifier":"DNITHE302308980427388297","merchantTokenMetadata":{"recurring":{"amount":"1999"}},"authenticationResponses":[{"merchantIdentifier":"merchant.com.example.partner","authenticationData":"QUJDREVGR0g=","transactionAmount":500}],"somethingNew":{"kept":true},"paymentData":{"onlinePaymentCryptogram":"AM8lJ8PaVr5bAAeoLxMCAoABFA==","eciIndicator":"7"}}"#
        var builder = ApplePayTokenBuilder(merchant: fixture.merchant)
        builder.plaintext = Array(plaintext.utf8)
        let token = try builder.build().json(asPKPaymentToken: true)
        let app = VerifierApplication.build(services: try await RouterTests.services(fixture), logger: Logger(label: "test"))
        let served: Data = try await app.test(.router) { client in
            let body = try RouterTests.body([
                "token": try JSONSerialization.jsonObject(with: Data(token)), "expect": ["currency": "840", "amount": 1999],
            ])
            let answer = try await client.execute(uri: "/v1/applepay/decrypt", method: .post, headers: RouterTests.jsonHeaders, body: body)
            #expect(answer.status == .ok)
            return Data(buffer: answer.body)
        }
        let tokenPath = fixture.directory.appendingPathComponent("token.json").path
        try Data(token).write(to: URL(fileURLWithPath: tokenPath))
        let arguments = [
            "applepay", "decrypt", "--token", tokenPath, "--merchant-cert", fixture.merchantCertificatePath, "--merchant-key",
            fixture.merchantKeyPath,
            "--root", fixture.applePayRootPath, "--at", RFC3339.format(ServiceFixture.time), "--expect-currency", "840", "--expect-amount", "1999",
        ]
        let cli = await WalletVerifierCommand.runCapturing(arguments + ["--format", "json"])
        #expect(cli.code == 0, "\(cli.stdout)\(cli.stderr)")
        let service = String(decoding: served, as: UTF8.self)
        for answer in [service, cli.stdout] {
            #expect(answer.contains(#""payment":"# + plaintext), "\(answer.prefix(400))")
        }
        let serviceJSON = try #require(try JSONSerialization.jsonObject(with: served) as? [String: Any])
        let cliJSON = try #require(try JSONSerialization.jsonObject(with: Data(cli.stdout.utf8)) as? [String: Any])
        #expect(Answer(serviceJSON, ignoring: ["applepay.replay"]) == Answer(cliJSON, ignoring: ["applepay.replay"]))
        #expect(
            NSDictionary(dictionary: serviceJSON["payment"] as? [String: Any] ?? [:]).isEqual(to: cliJSON["payment"] as? [String: Any] ?? ["": 0]))
        let text = await WalletVerifierCommand.runCapturing(arguments)
        #expect(text.stdout.contains("merchantTokenIdentifier") && text.stdout.contains("DNITHE302308980427388297"))
        #expect(text.stdout.contains("merchantTokenMetadata") && text.stdout.contains("members recurring"))
        #expect(
            text.stdout.contains("authenticationResponses[0]")
                && text.stdout.contains("merchant merchant.com.example.partner, amount 500, authenticationData (present, not shown)"))
        #expect(!text.stdout.contains("QUJDREVGR0g="))
    }
}
