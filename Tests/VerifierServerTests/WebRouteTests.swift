import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Mdoc
import NIOFoundationEssentialsCompat
import Testing
import VerificationCore
import WalletCBOR
import WalletCOSE
import WalletEncoding
import WalletVerifierTestSupport
import WebIdentity

@testable import VerifierServer

/// The web flow (ISO/IEC 18013-7 Annex C) through the service: create a request, answer it as a
/// wallet would (HPKE to the service's key, transcript from the request), verify once.
@Suite struct WebRouteTests {
    @Test func webRequestThenVerifyOnce() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.services(fixture)
        let app = VerifierApplication.build(services: services, logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let origin = "https://shop.example"
            let created = try await client.execute(
                uri: "/v1/web/requests", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body([
                    "docType": MdocFixture.mDL, "origin": origin,
                    "elements": ["org.iso.18013.5.1/family_name", "org.iso.18013.5.1/age_over_21"],
                ]))
            #expect(created.status == .created, "\(String(buffer: created.body))")
            let request = try RouterTests.json(created.body)
            let requestID = try #require(request["requestId"] as? String)
            let argument = try #require(request["navigatorCredentialsGetArgument"] as? [String: Any])
            let digital = try #require(argument["digital"] as? [String: Any])
            let first = try #require((digital["requests"] as? [[String: Any]])?.first)
            #expect(first["protocol"] as? String == "org-iso-mdoc")
            let encryptionInfo = try #require((first["data"] as? [String: Any])?["encryptionInfo"] as? String)

            // The wallet's side.
            let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: encryptionInfo, origin: origin)
            var mdoc = MdocFixture()
            mdoc.elements = [
                .init(MdocFixture.isoNameSpace, "family_name", .text("Mustermann")), .init(MdocFixture.isoNameSpace, "age_over_21", .bool(true)),
            ]
            let deviceResponse = try mdoc.deviceResponse(pki: fixture.webPKI, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
            let suite = HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_128)
            var sender = try HPKE.Sender(recipientKey: fixture.webKey.publicKey, ciphersuite: suite, info: Data(transcript.bytes))
            let cipherText = try sender.seal(deviceResponse, authenticating: Data())
            let encrypted = CBORNode.array([.text("dcapi"), try .map(["enc": .bytes(sender.encapsulatedKey), "cipherText": .bytes(cipherText)])])
            let response = Data(encrypted.encodedBytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let credential: [String: Any] = ["protocol": "org-iso-mdoc", "data": ["response": response]]

            let verified = try await client.execute(
                uri: "/v1/web/verify", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["requestId": requestID, "credential": credential]))
            #expect(verified.status == .ok)
            let report = try RouterTests.json(verified.body)
            #expect(report["verdict"] as? String == "accepted", "\(String(buffer: verified.body))")
            ContractSamples.record(verified.body, schema: "IdentityResult", name: "web-verify")
            let again = try await client.execute(
                uri: "/v1/web/verify", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["requestId": requestID, "response": response]))
            #expect(try RouterTests.json(again.body)["verdict"] as? String == "rejected")

            let bad = try await client.execute(
                uri: "/v1/web/requests", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["docType": MdocFixture.mDL, "origin": "shop.example", "elements": ["x"]]))
            #expect(bad.status == .badRequest)
            // Input the request builder refuses (the same element twice) is a 400, not a store failure.
            let duplicate = try await client.execute(
                uri: "/v1/web/requests", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body([
                    "docType": MdocFixture.mDL, "origin": origin,
                    "elements": ["org.iso.18013.5.1/family_name", "org.iso.18013.5.1/family_name"],
                ]))
            #expect(duplicate.status == .badRequest, "\(String(buffer: duplicate.body))")
        }
    }
}

/// Annex C binds a response to the page's origin: the service accepts only the origins it is
/// configured for, and encrypts web responses to its own, rotatable web keys.
@Suite struct WebOriginTests {
    /// A wallet's answer to a created request, encrypted to `recipient`.
    static func answer(_ created: [String: Any], origin: String, fixture: ServiceFixture, recipient: P256.KeyAgreement.PublicKey) throws -> String {
        let argument = try #require(created["navigatorCredentialsGetArgument"] as? [String: Any])
        let first = try #require(((argument["digital"] as? [String: Any])?["requests"] as? [[String: Any]])?.first)
        let encryptionInfo = try #require((first["data"] as? [String: Any])?["encryptionInfo"] as? String)
        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: encryptionInfo, origin: origin)
        var mdoc = MdocFixture()
        mdoc.elements = [.init(MdocFixture.isoNameSpace, "family_name", .text("Mustermann"))]
        let deviceResponse = try mdoc.deviceResponse(pki: fixture.webPKI, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let suite = HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_128)
        var sender = try HPKE.Sender(recipientKey: recipient, ciphersuite: suite, info: Data(transcript.bytes))
        let cipherText = try sender.seal(deviceResponse, authenticating: Data())
        let encrypted = CBORNode.array([.text("dcapi"), try .map(["enc": .bytes(sender.encapsulatedKey), "cipherText": .bytes(cipherText)])])
        return Data(encrypted.encodedBytes).base64EncodedString()
    }

    static var body: [String: Any] { ["docType": MdocFixture.mDL, "elements": ["org.iso.18013.5.1/family_name"]] }

    @Test func onlyConfiguredOriginsAreAccepted() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await RouterTests.servicesFromValues(fixture), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            func create(_ origin: String) async throws -> (HTTPResponse.Status, [String: Any]) {
                var body = Self.body
                body["origin"] = origin
                let response = try await client.execute(
                    uri: "/v1/web/requests", method: .post, headers: RouterTests.jsonHeaders, body: try RouterTests.body(body))
                return (response.status, try RouterTests.json(response.body))
            }
            // The attack: a request bound to an origin the caller names.
            let attacker = try await create("https://attacker.example")
            #expect(attacker.0 == .badRequest)
            #expect((attacker.1["detail"] as? String)?.hasPrefix("/origin:") == true)
            for bad in [
                "https://shop.example/path", "https://user@shop.example", "https://shop.example\u{0}", "https://shop.example\nX: y",
                "http://shop.example", "ftp://shop.example", "https://shop.example?x=1", "https://shop.example#f", " https://shop.example",
            ] {
                #expect(try await create(bad).0 == .badRequest, "\(bad.debugDescription)")
            }
            // The configured origin, also written with its default port or a trailing slash.
            for good in ["https://shop.example", "https://SHOP.example:443", "https://shop.example/"] {
                #expect(try await create(good).0 == .created, "\(good)")
            }
        }
    }

    /// docTypes, namespaces and identifiers are names: no control characters, no whitespace, bounded;
    /// the problem's detail names the field by JSON pointer.
    @Test func namesWithControlCharactersAreRefused() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await RouterTests.servicesFromValues(fixture), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            func create(_ docType: String, _ elements: [String]) async throws -> (HTTPResponse.Status, String?) {
                let response = try await client.execute(
                    uri: "/v1/web/requests", method: .post, headers: RouterTests.jsonHeaders,
                    body: try RouterTests.body(["docType": docType, "origin": fixture.webOrigin, "elements": elements]))
                return (response.status, try RouterTests.json(response.body)["detail"] as? String)
            }
            let control = try await create("org.iso.18013.5.1.mDL\u{0}", ["org.iso.18013.5.1/family_name"])
            #expect(control.0 == .badRequest)
            #expect(control.1?.hasPrefix("/docType:") == true)
            #expect(try await create(String(repeating: "a", count: 300), ["org.iso.18013.5.1/family_name"]).0 == .badRequest)
            let element = try await create(MdocFixture.mDL, ["org.iso.18013.5.1/family_name", "org.iso.18013.5.1/given\nname"])
            #expect(element.0 == .badRequest)
            #expect(element.1?.hasPrefix("/elements/1:") == true)
            #expect(try await create(MdocFixture.mDL, ["org.iso 18013/x"]).0 == .badRequest)
            // An identifier holds no ':' (schemathesis' stateful phase sent "H/,:retain*", which was a 201).
            for colon in ["H/,:retain*", "org.iso.18013.5.1/family_name:retain:retain"] {
                let refused = try await create(MdocFixture.mDL, [colon])
                #expect(refused.0 == .badRequest, "\(colon)")
                #expect(refused.1?.hasPrefix("/elements/0:") == true)
            }
            #expect(try await create(MdocFixture.mDL, ["org.iso.18013.5.1/family_name"]).0 == .created)
        }
    }

    @Test func withoutConfiguredOriginsTheWebEndpointsAre503() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.services(fixture)
        var settings = services.settings
        settings.webOrigins = []
        let unconfigured = VerifierServices(
            settings: settings, store: services.store, identity: services.identity, applePay: services.applePay, web: services.web,
            webKeys: services.webKeys, metrics: services.metrics, clock: services.clock, backgroundServices: [], prepare: {}, shutdown: {})
        let app = VerifierApplication.build(services: unconfigured, logger: Logger(label: "test"))
        try await app.test(.router) { client in
            var body = Self.body
            body["origin"] = fixture.webOrigin
            for path in ["/v1/web/requests", "/v1/web/verify"] {
                let response = try await client.execute(uri: path, method: .post, headers: RouterTests.jsonHeaders, body: try RouterTests.body(body))
                #expect(response.status == .notImplemented, "\(path)")
                #expect(response.headers[.retryAfter] == nil, "\(path)")
                #expect(response.headers[.contentType] == "application/problem+json")
                #expect((try RouterTests.json(response.body)["detail"] as? String)?.contains("--web-origin") == true)
            }
        }
    }

    /// Web responses go to the web key, not the in-app identity key; after a rotation (a new key
    /// first), responses to requests issued before still open with the key they were issued for.
    @Test func webKeysRotate() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.services(fixture)
        #expect(services.webKeys[0].publicKey.rawRepresentation == fixture.webKey.publicKey.rawRepresentation)
        #expect(services.webKeys[0].publicKey.rawRepresentation != fixture.identityKey.publicKey.rawRepresentation)
        var body = Self.body
        body["origin"] = fixture.webOrigin
        let requestBody = try JSONSerialization.data(withJSONObject: body)
        let createdData: Data = try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            Data(
                buffer: try await client.execute(
                    uri: "/v1/web/requests", method: .post, headers: RouterTests.jsonHeaders, body: ByteBuffer(data: requestBody)
                ).body)
        }
        let createdBefore = try #require(try JSONSerialization.jsonObject(with: createdData) as? [String: Any])
        let beforeID = try #require(createdBefore["requestId"] as? String)
        let beforeResponse = try Self.answer(createdBefore, origin: fixture.webOrigin, fixture: fixture, recipient: fixture.webKey.publicKey)
        // Rotate: a new key first, the old one kept; same store.
        let newKey = P256.KeyAgreement.PrivateKey()
        let rotated = VerifierServices(
            settings: services.settings, store: services.store, identity: services.identity, applePay: services.applePay, web: services.web,
            webKeys: [newKey, fixture.webKey], metrics: services.metrics, clock: services.clock, backgroundServices: [], prepare: {}, shutdown: {})
        try await VerifierApplication.build(services: rotated, logger: Logger(label: "test")).test(.router) { client in
            let verified = try await client.execute(
                uri: "/v1/web/verify", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["requestId": beforeID, "response": beforeResponse]))
            #expect(try RouterTests.json(verified.body)["verdict"] as? String == "accepted", "\(String(buffer: verified.body))")
            // A new request goes to the new key.
            let created = try RouterTests.json(
                try await client.execute(
                    uri: "/v1/web/requests", method: .post, headers: RouterTests.jsonHeaders, body: ByteBuffer(data: requestBody)
                ).body)
            let toNew = try Self.answer(created, origin: fixture.webOrigin, fixture: fixture, recipient: newKey.publicKey)
            let second = try await client.execute(
                uri: "/v1/web/verify", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["requestId": created["requestId"] as! String, "response": toNew]))
            #expect(try RouterTests.json(second.body)["verdict"] as? String == "accepted")
        }
    }

    @Test func badOriginsAreRefusedAtStart() throws {
        for bad in ["shop.example", "https://shop.example/x", "http://shop.example", "https://a b"] {
            #expect(throws: SettingsError.self) { try ServerSettings.resolve(flags: ["webOrigins": [bad]], environment: [:], configFile: nil) }
        }
        let settings = try ServerSettings.resolve(
            flags: [:], environment: ["WALLET_VERIFIER_WEB_ORIGINS": "https://a.example, http://127.0.0.1:3010"], configFile: nil)
        #expect(settings.webOrigins == ["https://a.example", "http://127.0.0.1:3010"])
    }
}

/// serve --reader-key/--reader-cert: every /v1/web/requests answer carries reader authentication that
/// an independent verifier accepts; a key that does not match the leaf stops the start.
@Suite struct WebReaderAuthTests {
    @Test(arguments: [false, true])
    func webRequestsAreSigned(all: Bool) async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        var options = ReaderPKI.Options()
        options.intermediate = true
        let reader = try ReaderPKI(options)
        let key = fixture.directory.appendingPathComponent("reader-key.pem").path
        try Data(reader.readerKeyPEM.utf8).write(to: URL(fileURLWithPath: key))
        let leaf = fixture.directory.appendingPathComponent("reader.pem").path
        try Data((ReaderPKI.pem(reader.reader) + ReaderPKI.pem(reader.intermediate!)).utf8).write(to: URL(fileURLWithPath: leaf))
        let base = try await RouterTests.services(fixture)
        var flags: ServerSettings.Source = [
            "store": ["memory"], "dataDir": [fixture.directory.appendingPathComponent("data").path], "identityKeys": [fixture.identityKeyPath],
            "webKeys": [fixture.webKeyPath], "webOrigins": [fixture.webOrigin], "readerKey": [key], "readerCerts": [leaf],
        ]
        var environment: [String: String] = [:]
        if all {
            // The same configuration from the environment: a SEC1 key, the leaf and the intermediate
            // in separate files (comma-separated), and readerAuthAll.
            flags["readerKey"] = nil
            flags["readerCerts"] = nil
            let sec1 = fixture.directory.appendingPathComponent("reader-sec1.pem").path
            try Data(reader.readerKeySEC1PEM.utf8).write(to: URL(fileURLWithPath: sec1))
            let leafOnly = fixture.directory.appendingPathComponent("leaf.pem").path,
                intermediate = fixture.directory.appendingPathComponent("intermediate.der").path
            try Data(ReaderPKI.pem(reader.reader).utf8).write(to: URL(fileURLWithPath: leafOnly))
            try Data(reader.chainDER[1]).write(to: URL(fileURLWithPath: intermediate))
            environment = [
                "WALLET_VERIFIER_READER_KEY": sec1, "WALLET_VERIFIER_READER_CERTS": "\(leafOnly), \(intermediate)",
                "WALLET_VERIFIER_READER_AUTH_ALL": "true",
            ]
            let settings = try ServerSettings.resolve(flags: flags, environment: environment, configFile: nil)
            #expect(settings.readerKey == sec1 && settings.readerCertificates == [leafOnly, intermediate] && settings.readerAuthAll)
            #expect(throws: SettingsError.self) {
                try ServerSettings.resolve(
                    flags: flags, environment: environment.merging(["WALLET_VERIFIER_READER_AUTH_ALL": "yes"]) { $1 }, configFile: nil)
            }
        }
        let services = try await VerifierServices.make(
            settings: try ServerSettings.resolve(flags: flags, environment: environment, configFile: nil),
            logger: Logger(label: "test"), clock: base.clock)
        #expect(services.readerAuth != nil)
        let body = try JSONSerialization.data(withJSONObject: [
            "docType": MdocFixture.mDL, "origin": fixture.webOrigin, "elements": ["org.iso.18013.5.1/family_name"],
        ])
        let data: Data = try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            Data(
                buffer: try await client.execute(
                    uri: "/v1/web/requests", method: .post, headers: RouterTests.jsonHeaders, body: ByteBuffer(data: body)
                ).body)
        }
        let created = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let argument = try #require(created["navigatorCredentialsGetArgument"] as? [String: Any])
        let request = try #require(((argument["digital"] as? [String: Any])?["requests"] as? [[String: Any]])?.first?["data"] as? [String: Any])
        let deviceRequest = try #require((request["deviceRequest"] as? String).flatMap(Base64.decodeURL))
        let transcript = SessionTranscript.dcapi(
            encryptionInfoBase64URL: try #require(request["encryptionInfo"] as? String), origin: fixture.webOrigin)
        let report = await ReaderAuthVerifier(roots: [reader.root]).verify(
            deviceRequest: deviceRequest, transcript: transcript, context: .at(ServiceFixture.time))
        #expect(report.verdict == .accepted, "\(report.failures.map(\.message))")
        #expect(try ReceivedDeviceRequest(cborBytes: deviceRequest).version == (all ? "1.1" : "1.0"))

        #expect(report.check(.readerAuthChain)?.details["chainLength"] == "3")

        // A key that is not the leaf's: the service does not start.
        let other = fixture.directory.appendingPathComponent("other-key.pem").path
        try Data(P256.Signing.PrivateKey().pemRepresentation.utf8).write(to: URL(fileURLWithPath: other))
        flags["readerKey"] = [other]
        flags["readerCerts"] = [leaf]
        await #expect(throws: SettingsError.self) {
            _ = try await VerifierServices.make(
                settings: try ServerSettings.resolve(flags: flags, environment: [:], configFile: nil), logger: Logger(label: "test"))
        }
        flags["readerCerts"] = nil
        #expect(throws: SettingsError.self) { try ServerSettings.resolve(flags: flags, environment: [:], configFile: nil) }
    }
}
