import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOFoundationEssentialsCompat
import SwiftASN1
import Testing
import VerificationCore
import WalletCBOR
import WalletEncoding
import WalletJOSE
import WalletVerifierTestSupport
import WebIdentity
import X509

@testable import VerifierServer

/// OpenID4VP 1.0 over the Digital Credentials API beside Annex C (issue 31), through the service:
/// one request offers both, whichever protocol answers is verified with the same checks, and the
/// request is used once across protocols.
@Suite struct WebOpenID4VPRouteTests {
    static let elements = ["org.iso.18013.5.1/family_name", "org.iso.18013.5.1/age_over_21"]

    static func mdoc() -> MdocFixture {
        var mdoc = MdocFixture()
        mdoc.elements = [
            .init(MdocFixture.isoNameSpace, "family_name", .text("Mustermann")), .init(MdocFixture.isoNameSpace, "age_over_21", .bool(true)),
        ]
        return mdoc
    }

    static func create(_ client: some TestClientProtocol, origin: String, protocols: [String]? = nil) async throws -> (
        HTTPResponse.Status, [String: Any]
    ) {
        var body: [String: Any] = ["docType": MdocFixture.mDL, "origin": origin, "elements": elements]
        if let protocols { body["protocols"] = protocols }
        let response = try await client.execute(
            uri: "/v1/web/requests", method: .post, headers: RouterTests.jsonHeaders, body: try RouterTests.body(body))
        return (response.status, try RouterTests.json(response.body))
    }

    static func verify(_ client: some TestClientProtocol, _ body: [String: Any]) async throws -> (HTTPResponse.Status, [String: Any]) {
        let response = try await client.execute(
            uri: "/v1/web/verify", method: .post, headers: RouterTests.jsonHeaders, body: try RouterTests.body(body))
        return (response.status, try RouterTests.json(response.body))
    }

    static func check(_ report: [String: Any], _ id: String) -> [String: Any]? {
        (report["checks"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    /// A P-256 request-signing certificate (self-signed) with a DNS name and, optionally, Google's
    /// relying-party metadata extension; written with its key into `directory`.
    static func signingFiles(in directory: URL, dnsName: String? = "verifier.shop.example", metadataHash: [UInt8]? = nil) throws -> (
        key: String, certificate: String, leaf: Certificate, signingKey: P256.Signing.PrivateKey
    ) {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CountryName("US")
            OrganizationName("Example Shop")
            CommonName("verifier.shop.example")
        }
        var extensions = try Certificate.Extensions {
            Critical(KeyUsage(digitalSignature: true))
        }
        if let dnsName { try extensions.append(Certificate.Extension(SubjectAlternativeNames([.dnsName(dnsName)]), critical: false)) }
        if let metadataHash {
            var serializer = DER.Serializer()
            try serializer.serialize(ASN1OctetString(contentBytes: ArraySlice(metadataHash)))
            try extensions.append(
                Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 11129, 10, 1], critical: false, value: ArraySlice(serializer.serializedBytes)))
        }
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: Date(timeIntervalSince1970: 1_600_000_000),
            notValidAfter: Date(timeIntervalSince1970: 2_000_000_000), issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions, issuerPrivateKey: .init(key))
        let keyPath = directory.appendingPathComponent("request-signing.key").path
        try Data(key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: keyPath))
        let certificatePath = directory.appendingPathComponent("request-signing.pem").path
        try Data(ReaderPKI.pem(leaf).utf8).write(to: URL(fileURLWithPath: certificatePath))
        return (keyPath, certificatePath, leaf, key)
    }

    /// Without a request-signing key: Annex C first, then an unsigned OpenID4VP request; a wallet's
    /// OpenID4VP answer is accepted once; the same answer again, and an Annex C answer to the same
    /// request afterwards, are replays.
    @Test func bothProtocolsInOneRequestAndOneAnswer() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await RouterTests.services(fixture), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let (status, created) = try await Self.create(client, origin: fixture.webOrigin)
            #expect(status == .created, "\(created)")
            #expect(created["protocols"] as? [String] == ["org-iso-mdoc", "openid4vp-v1-unsigned"])
            let requests = try #require(
                ((created["navigatorCredentialsGetArgument"] as? [String: Any])?["digital"] as? [String: Any])?["requests"] as? [[String: Any]])
            #expect(requests.map { $0["protocol"] as? String } == ["org-iso-mdoc", "openid4vp-v1-unsigned"])
            let request = try #require(try OpenID4VPWallet.request(created))
            #expect(request.object["response_type"] as? String == "vp_token")
            #expect(request.object["response_mode"] as? String == "dc_api.jwt")
            #expect(request.object["client_id"] == nil && request.object["expected_origins"] == nil)
            #expect(request.jwk["alg"] as? String == "ECDH-ES" && request.jwk["kid"] is String)
            let key = try request.recipientKey()
            // The request's own key, derived from the web key and the request id.
            let requestID = try #require(created["requestId"] as? String)
            #expect(key.rawRepresentation == OpenID4VPRequestKey.derive(from: fixture.webKey, identifier: requestID).publicKey.rawRepresentation)
            #expect(key.rawRepresentation != fixture.webKey.publicKey.rawRepresentation)

            let credential = try OpenID4VPWallet.credential(for: request, origin: fixture.webOrigin, mdoc: Self.mdoc(), pki: fixture.webPKI)
            let (verified, report) = try await Self.verify(client, ["requestId": requestID, "credential": credential])
            #expect(verified == .ok)
            #expect(report["verdict"] as? String == "accepted", "\(report)")
            #expect(Self.check(report, "web.openid4vp.response")?["status"] as? String == "passed")
            #expect(Self.check(report, "web.openid4vp.credentials")?["status"] as? String == "passed")
            #expect(Self.check(report, "replay.nonce")?["status"] as? String == "passed")
            #expect(Self.check(report, "web.envelope.decryption") == nil)
            ContractSamples.record(
                ByteBuffer(data: try JSONSerialization.data(withJSONObject: report)), schema: "IdentityResult", name: "web-openid4vp")

            let (_, replay) = try await Self.verify(client, ["requestId": requestID, "credential": credential])
            #expect(replay["verdict"] as? String == "rejected")
            #expect(Self.check(replay, "replay.nonce")?["reason"] as? String == "nonceReused", "\(replay)")

            let annexC = try fixture.webResponse(
                encryptionInfo: try #require(OpenID4VPWallet.encryptionInfo(created)), origin: fixture.webOrigin, fixture: Self.mdoc())
            let (_, other) = try await Self.verify(
                client, ["requestId": requestID, "credential": ["protocol": "org-iso-mdoc", "data": ["response": annexC.base64URL]]])
            #expect(other["verdict"] as? String == "rejected")
            #expect(Self.check(other, "replay.nonce")?["reason"] as? String == "nonceReused", "\(other)")
        }
    }

    /// An Annex C answer first: the OpenID4VP answer to the same request is then a replay.
    @Test func anAnnexCAnswerUsesTheRequestForOpenID4VPToo() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await RouterTests.services(fixture), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let (_, created) = try await Self.create(client, origin: fixture.webOrigin)
            let requestID = try #require(created["requestId"] as? String)
            let annexC = try fixture.webResponse(
                encryptionInfo: try #require(OpenID4VPWallet.encryptionInfo(created)), origin: fixture.webOrigin, fixture: Self.mdoc())
            let (_, first) = try await Self.verify(client, ["requestId": requestID, "response": annexC.base64URL])
            #expect(first["verdict"] as? String == "accepted", "\(first)")
            let request = try #require(try OpenID4VPWallet.request(created))
            let credential = try OpenID4VPWallet.credential(for: request, origin: fixture.webOrigin, mdoc: Self.mdoc(), pki: fixture.webPKI)
            let (_, second) = try await Self.verify(client, ["requestId": requestID, "credential": credential])
            #expect(second["verdict"] as? String == "rejected")
            #expect(Self.check(second, "replay.nonce")?["reason"] as? String == "nonceReused", "\(second)")
        }
    }

    /// Each way an OpenID4VP answer can be wrong is rejected with its named check, and leaves the
    /// request open for the genuine answer (only an answer that opens and matches uses it).
    @Test func wrongAnswersAreRejectedByName() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await RouterTests.services(fixture), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let (_, created) = try await Self.create(client, origin: fixture.webOrigin)
            let requestID = try #require(created["requestId"] as? String)
            let request = try #require(try OpenID4VPWallet.request(created))
            let mdoc = Self.mdoc(), pki = fixture.webPKI
            func rejected(_ credential: [String: Any], _ check: String, _ reason: String? = nil) async throws {
                let (status, report) = try await Self.verify(client, ["requestId": requestID, "credential": credential])
                #expect(status == .ok)
                #expect(report["verdict"] as? String == "rejected", "\(report)")
                #expect(Self.check(report, check)?["status"] as? String == "failed", "\(check): \(report)")
                if let reason { #expect(Self.check(report, check)?["reason"] as? String == reason, "\(check): \(report)") }
            }
            // Another encryption key: the JWE does not open.
            try await rejected(
                try OpenID4VPWallet.credential(
                    for: request, origin: fixture.webOrigin, mdoc: mdoc, pki: pki, encryptTo: P256.KeyAgreement.PrivateKey().publicKey),
                "web.openid4vp.response")
            // Another kid.
            try await rejected(
                try OpenID4VPWallet.credential(for: request, origin: fixture.webOrigin, mdoc: mdoc, pki: pki, keyID: "another-key"),
                "web.openid4vp.response")
            // A credential id the request did not ask for.
            try await rejected(
                try OpenID4VPWallet.credential(for: request, origin: fixture.webOrigin, mdoc: mdoc, pki: pki, credentialID: "unasked"),
                "web.openid4vp.credentials")
            // Another nonce, another origin: the device signature is over another transcript.
            try await rejected(
                try OpenID4VPWallet.credential(
                    for: request, origin: fixture.webOrigin, mdoc: mdoc, pki: pki, nonce: OpenID4VPRequest.freshNonce()),
                "mdoc.device.authentication")
            try await rejected(
                try OpenID4VPWallet.credential(for: request, origin: "https://attacker.example", mdoc: mdoc, pki: pki), "mdoc.device.authentication")
            // A tampered JWE.
            var tampered = try OpenID4VPWallet.credential(for: request, origin: fixture.webOrigin, mdoc: mdoc, pki: pki)
            var parts = ((tampered["data"] as! [String: Any])["response"] as! String).split(separator: ".", omittingEmptySubsequences: false).map(
                String.init)
            parts[3] = String(parts[3].reversed())
            tampered["data"] = ["response": parts.joined(separator: ".")]
            try await rejected(tampered, "web.openid4vp.response")

            // The genuine answer is still accepted: it is the first that used the request.
            let genuine = try OpenID4VPWallet.credential(for: request, origin: fixture.webOrigin, mdoc: mdoc, pki: pki, encryption: .a256gcm)
            let (_, accepted) = try await Self.verify(client, ["requestId": requestID, "credential": genuine])
            #expect(accepted["verdict"] as? String == "accepted", "\(accepted)")

            // An element that was not requested, in an answer bound to its request (which it uses up).
            let (_, another) = try await Self.create(client, origin: fixture.webOrigin)
            var extra = mdoc
            extra.elements.append(.init(MdocFixture.isoNameSpace, "given_name", .text("Erika")))
            let (_, unrequested) = try await Self.verify(
                client,
                [
                    "requestId": try #require(another["requestId"] as? String),
                    "credential": try OpenID4VPWallet.credential(
                        for: try #require(try OpenID4VPWallet.request(another)), origin: fixture.webOrigin, mdoc: extra, pki: pki),
                ])
            #expect(Self.check(unrequested, "web.request.elements")?["reason"] as? String == "unrequestedElement", "\(unrequested)")
        }
    }

    /// `protocols` chooses what a request offers; a protocol it did not offer is refused without using the request.
    @Test func theProtocolsMember() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await RouterTests.services(fixture), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let (annexStatus, annexOnly) = try await Self.create(client, origin: fixture.webOrigin, protocols: ["org-iso-mdoc"])
            #expect(annexStatus == .created)
            #expect(annexOnly["protocols"] as? [String] == ["org-iso-mdoc"])
            #expect(try OpenID4VPWallet.request(annexOnly) == nil)
            let (_, reordered) = try await Self.create(client, origin: fixture.webOrigin, protocols: ["openid4vp-v1-unsigned", "org-iso-mdoc"])
            #expect(reordered["protocols"] as? [String] == ["org-iso-mdoc", "openid4vp-v1-unsigned"])
            let (_, openOnly) = try await Self.create(client, origin: fixture.webOrigin, protocols: ["openid4vp-v1-unsigned"])
            #expect(OpenID4VPWallet.encryptionInfo(openOnly) == nil)
            for bad in [[], ["org-iso-mdoc", "org-iso-mdoc"], ["openid4vp-v1-multisigned"], ["openid4vp-v1-signed"]] {
                let (status, problem) = try await Self.create(client, origin: fixture.webOrigin, protocols: bad)
                #expect(status == .badRequest, "\(bad)")
                #expect((problem["detail"] as? String)?.hasPrefix("/protocols") == true, "\(problem)")
            }

            // An OpenID4VP answer to an Annex C-only request: rejected, and the request stays open.
            let annexID = try #require(annexOnly["requestId"] as? String)
            let (_, other) = try await Self.create(client, origin: fixture.webOrigin, protocols: ["openid4vp-v1-unsigned"])
            let credential = try OpenID4VPWallet.credential(
                for: try #require(try OpenID4VPWallet.request(other)), origin: fixture.webOrigin, mdoc: Self.mdoc(), pki: fixture.webPKI)
            let (_, refused) = try await Self.verify(client, ["requestId": annexID, "credential": credential])
            #expect(Self.check(refused, "replay.nonce")?["reason"] as? String == "protocolNotOffered", "\(refused)")
            let annexC = try fixture.webResponse(
                encryptionInfo: try #require(OpenID4VPWallet.encryptionInfo(annexOnly)), origin: fixture.webOrigin, fixture: Self.mdoc())
            let (_, accepted) = try await Self.verify(client, ["requestId": annexID, "response": annexC.base64URL])
            #expect(accepted["verdict"] as? String == "accepted", "\(accepted)")

            // The credential's shape: a JWE for OpenID4VP, base64url for Annex C; else a 400 naming the member.
            for body: [String: Any] in [
                ["requestId": annexID, "credential": ["protocol": "openid4vp-v1-signed", "data": ["response": "not-a-jwe"]]],
                ["requestId": annexID, "credential": ["protocol": "openid4vp-v1-signed", "data": [:] as [String: Any]]],
                ["requestId": annexID, "credential": ["protocol": "openid4vp", "data": ["response": "a.b.c.d.e"]]],
            ] {
                let response = try await client.execute(
                    uri: "/v1/web/verify", method: .post, headers: RouterTests.jsonHeaders, body: try RouterTests.body(body))
                #expect(response.status == .badRequest, "\(body)")
                #expect((try RouterTests.json(response.body)["detail"] as? String)?.hasPrefix("/credential") == true)
            }
        }
    }

    /// With a request-signing key: the OpenID4VP request is a JWS (ES256, typ oauth-authz-req+jwt,
    /// x5c) that the leaf's key verifies, naming the verifier by its DNS name and the page's origin as
    /// the expected one; the answer to it is accepted. `GET /v1/trust` shows the certificate and
    /// Google's relying-party metadata hash.
    @Test(arguments: ["x509_san_dns", "x509_hash"])
    func signedRequests(clientID scheme: String) async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let hash = Array(SHA256.hash(data: Data("RelyingPartyMetadataBytes".utf8)))
        let files = try Self.signingFiles(in: fixture.directory, metadataHash: hash)
        let services = try await RouterTests.services(
            fixture,
            extra: ["requestSigningKey": [files.key], "requestSigningCerts": [files.certificate], "openid4vpClientId": [scheme]])
        let app = VerifierApplication.build(services: services, logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let (status, created) = try await Self.create(client, origin: fixture.webOrigin)
            #expect(status == .created, "\(created)")
            #expect(created["protocols"] as? [String] == ["org-iso-mdoc", "openid4vp-v1-signed"])
            let request = try #require(try OpenID4VPWallet.request(created))
            let jws = try #require(request.jws)
            let parts = jws.split(separator: ".").map(String.init)
            let headerBytes = try #require(Base64.decodeURL(parts[0]))
            let header = try #require(try JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any])
            #expect(header["alg"] as? String == "ES256" && header["typ"] as? String == "oauth-authz-req+jwt")
            var serializer = DER.Serializer()
            try serializer.serialize(files.leaf)
            #expect((header["x5c"] as? [String])?.first == Data(serializer.serializedBytes).base64EncodedString())
            let signatureBytes = try #require(Base64.decodeURL(parts[2]))
            let signature = try P256.Signing.ECDSASignature(rawRepresentation: signatureBytes)
            #expect(files.signingKey.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
            let expectedClientID =
                scheme == "x509_san_dns"
                ? "x509_san_dns:verifier.shop.example" : "x509_hash:" + Base64.encodeURL(Array(SHA256.hash(data: serializer.serializedBytes)))
            #expect(request.object["client_id"] as? String == expectedClientID)
            #expect(request.object["expected_origins"] as? [String] == [fixture.webOrigin])

            let credential = try OpenID4VPWallet.credential(for: request, origin: fixture.webOrigin, mdoc: Self.mdoc(), pki: fixture.webPKI)
            let (_, report) = try await Self.verify(client, ["requestId": try #require(created["requestId"] as? String), "credential": credential])
            #expect(report["verdict"] as? String == "accepted", "\(report)")

            let trust = try RouterTests.json(try await client.execute(uri: "/v1/trust", method: .get).body)
            let signing = try #require(trust["requestSigning"] as? [String: Any])
            #expect(signing["clientId"] as? String == expectedClientID)
            #expect(signing["relyingPartyMetadataHash"] as? String == Hex.encode(hash))
            #expect(signing["dnsNames"] as? [String] == ["verifier.shop.example"])
            #expect(signing["source"] as? String == "requestSigningKey")
            #expect(trust["webProtocols"] as? [String] == ["org-iso-mdoc", "openid4vp-v1-signed"])
        }
    }

    /// The request-signing settings: together or not at all; x509_san_dns needs a DNS name; the reader
    /// key signs when no own key is given; `--web-protocols` sets the default.
    @Test func signingSettings() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let noName = try Self.signingFiles(in: fixture.directory, dnsName: nil)
        #expect(throws: SettingsError.self) {
            try ServerSettings.resolve(flags: ["requestSigningKey": [noName.key]], environment: [:], configFile: nil)
        }
        #expect(throws: SettingsError.self) {
            try ServerSettings.resolve(flags: ["openid4vpClientId": ["x509_san_uri"]], environment: [:], configFile: nil)
        }
        #expect(throws: SettingsError.self) {
            try ServerSettings.resolve(flags: ["webProtocols": ["openid4vp-v1-signed"]], environment: [:], configFile: nil)
        }
        await #expect(throws: SettingsError.self) {
            _ = try await RouterTests.services(
                fixture,
                extra: ["requestSigningKey": [noName.key], "requestSigningCerts": [noName.certificate], "openid4vpClientId": ["x509_san_dns"]])
        }
        // Without a DNS name the default is x509_hash.
        let hashed = try await RouterTests.services(fixture, extra: ["requestSigningKey": [noName.key], "requestSigningCerts": [noName.certificate]])
        #expect(hashed.requestSigning?.clientID.hasPrefix("x509_hash:") == true)
        // The reader key signs OpenID4VP requests too.
        let reader = try await RouterTests.services(fixture, extra: ["readerKey": [noName.key], "readerCerts": [noName.certificate]])
        #expect(reader.requestSigning?.source == "readerKey")
        #expect(reader.defaultWebProtocols == [.annexC, .openID4VPSigned])
        // --web-protocols from the environment.
        let settings = try ServerSettings.resolve(
            flags: [:], environment: ["WALLET_VERIFIER_WEB_PROTOCOLS": "openid4vp-v1-unsigned, org-iso-mdoc"], configFile: nil)
        #expect(settings.webProtocols == [.annexC, .openID4VPUnsigned])
        let only = try await RouterTests.services(fixture, extra: ["webProtocols": ["org-iso-mdoc"]])
        #expect(only.defaultWebProtocols == [.annexC])
    }

    /// Sessions stored by the code before OpenID4VP (no `protocols`, with or without `recipientKey`)
    /// still verify their Annex C answer once; an OpenID4VP answer to one is refused without using it.
    @Test func sessionsStoredBeforeOpenID4VPStillVerify() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.services(fixture)
        let app = VerifierApplication.build(services: services, logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let (_, other) = try await Self.create(client, origin: fixture.webOrigin, protocols: ["openid4vp-v1-unsigned"])
            let openID4VP = try OpenID4VPWallet.credential(
                for: try #require(try OpenID4VPWallet.request(other)), origin: fixture.webOrigin, mdoc: Self.mdoc(), pki: fixture.webPKI)
            for (index, withKey) in [false, true].enumerated() {
                let request = WebDocumentRequest(
                    docType: MdocFixture.mDL,
                    elements: [
                        .init(nameSpace: "org.iso.18013.5.1", identifier: "family_name"),
                        .init(nameSpace: "org.iso.18013.5.1", identifier: "age_over_21"),
                    ])
                let presentation = try WebPresentationRequest(
                    request: request, origin: fixture.webOrigin, nonce: (0..<32).map { _ in UInt8.random(in: 0...255) },
                    recipientPublicKey: fixture.webKey.publicKey)
                let key = withKey ? #","recipientKey":"\#(WebRecipientKey.thumbprint(fixture.webKey.publicKey))""# : ""
                let payload =
                    #"{"encryptionInfo":"\#(presentation.encryptionInfo.base64URL)","origin":"\#(fixture.webOrigin)","request":{"docType":"org.iso.18013.5.1.mDL","elements":[{"nameSpace":"org.iso.18013.5.1","identifier":"family_name","intentToRetain":false},{"nameSpace":"org.iso.18013.5.1","identifier":"age_over_21","intentToRetain":false}]}\#(key)}"#
                let requestID = "stored-before-openid4vp-\(index)"
                try await services.store.issueNonce(requestID, payload: Array(payload.utf8), expiresAt: ServiceFixture.time.addingTimeInterval(600))
                let (_, refused) = try await Self.verify(client, ["requestId": requestID, "credential": openID4VP])
                #expect(Self.check(refused, "replay.nonce")?["reason"] as? String == "protocolNotOffered", "\(refused)")
                let sealed = try fixture.webResponse(
                    encryptionInfo: presentation.encryptionInfo.base64URL, origin: fixture.webOrigin, fixture: Self.mdoc())
                let (_, accepted) = try await Self.verify(client, ["requestId": requestID, "response": sealed.base64URL])
                #expect(accepted["verdict"] as? String == "accepted", "\(accepted)")
                let (_, replay) = try await Self.verify(client, ["requestId": requestID, "response": sealed.base64URL])
                #expect(Self.check(replay, "replay.nonce")?["reason"] as? String == "nonceReused")
            }
        }
    }

    /// The identifier of an in-app identity request sent to the web flow: rejected as a request this
    /// flow did not issue (found by schemathesis' stateful phase, which answered it with a 503).
    @Test func anIdentityRequestIDIsNoWebRequest() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await RouterTests.services(fixture), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let descriptor = try JSONSerialization.jsonObject(with: Data(ServiceFixture.descriptorJSON.utf8))
            let identity = try RouterTests.json(
                try await client.execute(
                    uri: "/v1/identity/requests", method: .post, headers: RouterTests.jsonHeaders,
                    body: try RouterTests.body(["descriptor": descriptor])
                ).body)
            let requestID = try #require(identity["requestId"] as? String)
            for credential: [String: Any] in [
                ["protocol": "openid4vp-v1-signed", "data": ["response": "...."]], ["protocol": "org-iso-mdoc", "data": ["response": "AAAA"]],
            ] {
                let (status, report) = try await Self.verify(client, ["requestId": requestID, "credential": credential])
                #expect(status == .ok, "\(report)")
                #expect(report["verdict"] as? String == "rejected")
                #expect(Self.check(report, "replay.nonce")?["reason"] as? String == "unknownRequest", "\(report)")
            }
        }
    }

    /// The operators' page verifies a web credential (either protocol) for a request this service
    /// issued, consuming it as the API does.
    @Test func theOperatorsPageTakesAWebCredential() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.services(fixture)
        let created = try await services.web.create(
            request: WebDocumentRequest(
                docType: MdocFixture.mDL,
                elements: [
                    .init(nameSpace: "org.iso.18013.5.1", identifier: "family_name"),
                    .init(nameSpace: "org.iso.18013.5.1", identifier: "age_over_21"),
                ]),
            origin: fixture.webOrigin, recipientPublicKey: fixture.webKey.publicKey, now: ServiceFixture.time,
            protocols: [.annexC, .openID4VPUnsigned], recipientPrivateKey: fixture.webKey)
        let argument = try #require(
            try JSONSerialization.jsonObject(with: Data(created.navigatorCredentialsGetArgument.utf8)) as? [String: Any])
        let request = try #require(try OpenID4VPWallet.request(["navigatorCredentialsGetArgument": argument]))
        let credential = try OpenID4VPWallet.credential(for: request, origin: fixture.webOrigin, mdoc: Self.mdoc(), pki: fixture.webPKI)
        let json = String(decoding: try JSONSerialization.data(withJSONObject: credential), as: UTF8.self)
        let csrf = WebPageAccess(token: WebPageSecurityTests.token, generated: false).csrfToken
        try await WebPageSecurityTests.pageApp(services).test(.router) { client in
            let fields = ["kind": "web", "requestId": created.requestID, "credential": json, "csrf": csrf]
            let first = try await client.execute(
                uri: "/ui/verify", method: .post, headers: WebPageSecurityTests.cookie, body: WebPageSecurityTests.form(fields))
            let page = String(buffer: first.body)
            #expect(page.contains(#"<span id="verdict" class="verdict accepted">accepted</span>"#), "\(page.suffix(3000))")
            #expect(page.contains(#"data-check="web.openid4vp.response" data-status="passed""#))
            let second = String(
                buffer: try await client.execute(
                    uri: "/ui/verify", method: .post, headers: WebPageSecurityTests.cookie, body: WebPageSecurityTests.form(fields)
                ).body)
            #expect(second.contains(#"data-check="replay.nonce" data-status="failed""#))
            var garbage = fields
            garbage["credential"] = "{\"protocol\": \"openid4vp-v1-signed\", \"data\": {\"response\": \"x\"}}"
            let refused = String(
                buffer: try await client.execute(
                    uri: "/ui/verify", method: .post, headers: WebPageSecurityTests.cookie, body: WebPageSecurityTests.form(garbage)
                ).body)
            #expect(refused.contains(#"id="input-error""#))
        }
    }

    /// The mirror: a web request's identifier sent to the in-app flow is a request that flow did not
    /// issue, not a corrupt store (a 503 would tell the client to retry forever).
    @Test func aWebRequestIDIsNoIdentityRequest() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let app = VerifierApplication.build(services: try await RouterTests.services(fixture), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            for protocols in [["org-iso-mdoc"], ["org-iso-mdoc", "openid4vp-v1-unsigned"]] {
                let (created, request) = try await Self.create(client, origin: fixture.webOrigin, protocols: protocols)
                #expect(created == .created, "\(request)")
                let requestID = try #require(request["requestId"] as? String)
                let envelope = try fixture.identityResponse(nonce: Array(repeating: 7, count: 32))
                let response = try await client.execute(
                    uri: "/v1/identity/verify", method: .post, headers: RouterTests.jsonHeaders,
                    body: try RouterTests.body(["requestId": requestID, "encryptedData": Data(envelope).base64EncodedString()]))
                #expect(response.status == .ok)
                let report = try RouterTests.json(response.body)
                #expect(report["verdict"] as? String == "rejected")
                #expect(Self.check(report, "replay.nonce")?["reason"] as? String == "unknownRequest", "\(report)")
                #expect((Self.check(report, "replay.nonce")?["message"] as? String)?.contains("/v1/web/verify") == true)
            }
        }
    }
}
