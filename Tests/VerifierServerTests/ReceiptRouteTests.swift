import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Mdoc
import NIOFoundationEssentialsCompat
import SwiftASN1
import Testing
import VerificationCore
import VerificationReceipts
import WalletCBOR
import WalletEncoding
import WalletVerifierTestSupport
import X509

@testable import VerifierServer

/// Signed verification receipts in the service's answers (`--receipt-key`): every verification
/// route answers one beside its report, `GET /v1/receipts/jwks` (public) verifies it, a rotated key
/// keeps verifying the receipts it signed, and an independent JOSE implementation agrees.
@Suite struct ReceiptRouteTests {
    static let issuer = "https://verifier.example"
    static let token = "receipt-test-token-0123456789"

    /// A receipt key (and, with `certificate`, its self-signed certificate) written into the fixture's directory.
    struct KeyFiles {
        let key: P256.Signing.PrivateKey
        let keyPath: String
        let certificatePath: String?

        init(_ fixture: ServiceFixture, name: String = "receipt", certificate: Bool = true) throws {
            key = P256.Signing.PrivateKey()
            keyPath = fixture.directory.appendingPathComponent("\(name)-key.pem").path
            certificatePath = certificate ? fixture.directory.appendingPathComponent("\(name)-cert.pem").path : nil
            try write(fixture)
        }

        init(replacing files: KeyFiles, _ fixture: ServiceFixture) throws {
            key = P256.Signing.PrivateKey()
            keyPath = files.keyPath
            certificatePath = files.certificatePath
            try write(fixture)
        }

        func write(_ fixture: ServiceFixture) throws {
            try Data(key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: keyPath))
            if let certificatePath { try Data(try ReceiptRouteTests.certificatePEM(key).utf8).write(to: URL(fileURLWithPath: certificatePath)) }
        }

        var flags: ServerSettings.Source {
            var flags: ServerSettings.Source = ["receiptKey": [keyPath], "receiptIssuer": [ReceiptRouteTests.issuer]]
            if let certificatePath { flags["receiptCert"] = [certificatePath] }
            return flags
        }
    }

    static func certificatePEM(_ key: P256.Signing.PrivateKey) throws -> String {
        let name = try DistinguishedName { CommonName("wallet-verifier receipts (test)") }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: Date(timeIntervalSince1970: 1_600_000_000),
            notValidAfter: Date(timeIntervalSince1970: 2_000_000_000), issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: Certificate.Extensions {}, issuerPrivateKey: .init(key))
        return try certificate.serializeAsPEM().pemString
    }

    /// The API token file of `fixture`.
    static func tokenFlags(_ fixture: ServiceFixture) throws -> ServerSettings.Source {
        let path = fixture.directory.appendingPathComponent("api-token").path
        try Data(token.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return ["apiTokenFile": [path]]
    }

    static var headers: HTTPFields { [.contentType: "application/json", .authorization: "Bearer \(token)"] }

    /// One verification answer: its report and receipt, with what the receipt must state.
    struct Answer {
        let flow: String
        let status: HTTPResponse.Status
        let report: [String: Any]
        let receipt: String?
        /// SHA-256 of the bytes submitted.
        let submissionSHA256: [UInt8]
        let requestID: String?
        let protocolName: String?
        /// The answer as sent.
        let body: ByteBuffer
    }

    /// Runs an accepted and a rejected verification of every flow through `client` (with the API token).
    static func answersOfEveryFlow(_ client: some TestClientProtocol, fixture: ServiceFixture) async throws -> [Answer] {
        var answers: [Answer] = []
        func post(_ uri: String, _ body: String) async throws -> (HTTPResponse.Status, [String: Any]) {
            let response = try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body))
            return (response.status, try RouterTests.json(response.body))
        }
        func answer(_ flow: String, _ uri: String, _ body: String, submission: [UInt8], requestID: String? = nil, protocolName: String? = nil)
            async throws
        {
            let response = try await client.execute(uri: uri, method: .post, headers: headers, body: ByteBuffer(string: body))
            let report = try RouterTests.json(response.body)
            answers.append(
                Answer(
                    flow: flow, status: response.status, report: report, receipt: report["receipt"] as? String,
                    submissionSHA256: Array(SHA256.hash(data: submission)), requestID: requestID, protocolName: protocolName,
                    body: response.body))
        }

        // In-app identity: accepted, then the same envelope again (rejected: the nonce is used).
        let (createdStatus, created) = try await post("/v1/identity/requests", #"{"descriptor":\#(ServiceFixture.descriptorJSON)}"#)
        #expect(createdStatus == .created)
        let identityID = try #require(created["requestId"] as? String)
        let nonce = [UInt8](try #require((created["nonce"] as? String).flatMap { Data(base64Encoded: $0) }))
        let envelope = try fixture.identityResponse(nonce: nonce)
        let identityBody = #"{"requestId":"\#(identityID)","encryptedData":"\#(Data(envelope).base64EncodedString())"}"#
        for _ in 0..<2 { try await answer("identity", "/v1/identity/verify", identityBody, submission: envelope, requestID: identityID) }

        // Web (Annex C): accepted as a credential, then the same response again (rejected).
        let (webStatus, web) = try await post(
            "/v1/web/requests", #"{"docType":"\#(MdocFixture.mDL)","origin":"\#(fixture.webOrigin)","elements":["org.iso.18013.5.1/family_name"]}"#)
        #expect(webStatus == .created)
        let webID = try #require(web["requestId"] as? String)
        let argument = try #require(web["navigatorCredentialsGetArgument"] as? [String: Any])
        let first = try #require(((argument["digital"] as? [String: Any])?["requests"] as? [[String: Any]])?.first)
        let encryptionInfo = try #require((first["data"] as? [String: Any])?["encryptionInfo"] as? String)
        var requested = MdocFixture()
        requested.elements = [.init(MdocFixture.isoNameSpace, "family_name", .text("Mustermann"))]
        let sealed = try fixture.webResponse(encryptionInfo: encryptionInfo, origin: fixture.webOrigin, fixture: requested)
        let credential = #"{"protocol":"org-iso-mdoc","data":{"response":"\#(sealed.base64URL)"}}"#
        try await answer(
            "web", "/v1/web/verify", #"{"requestId":"\#(webID)","credential":\#(credential)}"#, submission: Array(credential.utf8),
            requestID: webID, protocolName: "org-iso-mdoc")
        try await answer(
            "web", "/v1/web/verify", #"{"requestId":"\#(webID)","response":"\#(sealed.base64URL)"}"#, submission: sealed.cbor, requestID: webID,
            protocolName: "org-iso-mdoc")

        // A DeviceResponse with its transcript: accepted, then with another transcript (rejected).
        let transcript = IdentityEnvelopeFixture.transcript(
            nonce: Array(repeating: 7, count: 32), merchantID: fixture.merchantID, teamID: fixture.teamID, recipient: fixture.identityKey.publicKey)
        let other = IdentityEnvelopeFixture.transcript(
            nonce: Array(repeating: 8, count: 32), merchantID: fixture.merchantID, teamID: fixture.teamID, recipient: fixture.identityKey.publicKey)
        // The web PKI follows the ISO/IEC 18013-5 certificate profile that terminal input is held to.
        let deviceResponse = try MdocFixture().deviceResponse(pki: fixture.webPKI, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        for sessionTranscript in [transcript, other] {
            try await answer(
                "mdoc", "/v1/mdoc/verify",
                #"{"deviceResponse":"\#(Data(deviceResponse).base64EncodedString())","sessionTranscript":"\#(Data(sessionTranscript.bytes).base64EncodedString())"}"#,
                submission: deviceResponse)
        }

        // Apple Pay: accepted, then the same token again (rejected: the transaction is recorded).
        let token = try fixture.applePayToken()
        let tokenBody = #"{"token":\#(String(decoding: token, as: UTF8.self)),"expect":{"currency":"840","amount":1999}}"#
        for _ in 0..<2 {
            try await answer("applepay", "/v1/applepay/decrypt", tokenBody, submission: token, protocolName: "EC_v1")
        }
        return answers
    }

    /// The checks of a report or a receipt as `id|status|reason|scope`, in order.
    static func checks(_ object: [String: Any]) -> [String] {
        ((object["checks"] as? [[String: Any]]) ?? []).map { check in
            ["id", "status", "reason", "scope"].map { (check[$0] as? String) ?? "-" }.joined(separator: "|")
        }
    }

    /// What a receipt must state of `answer`: flow, verdict, checks in order, submission, request,
    /// protocol, issuer, time.
    static func expectReceipt(_ payload: [String: Any], states answer: Answer, label: String) {
        #expect(payload["flow"] as? String == answer.flow, "\(label)")
        #expect(payload["verdict"] as? String == answer.report["verdict"] as? String, "\(label)")
        #expect(checks(payload) == checks(answer.report), "\(label)")
        #expect(!checks(payload).isEmpty, "\(label)")
        #expect((payload["submission"] as? [String: Any])?["sha256"] as? String == Base64.encodeURL(answer.submissionSHA256), "\(label)")
        #expect((payload["request"] as? [String: Any])?["id"] as? String == answer.requestID, "\(label)")
        #expect(payload["protocol"] as? String == answer.protocolName, "\(label)")
        #expect(payload["iss"] as? String == issuer, "\(label)")
        #expect((payload["iat"] as? NSNumber)?.int64Value == Int64(ServiceFixture.time.timeIntervalSince1970.rounded(.down)), "\(label)")
        #expect(payload["policy"] as? String == answer.report["policy"] as? String, "\(label)")
    }

    @Test func everyVerificationAnswerCarriesAReceiptTheJWKSVerifies() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let keys = try KeyFiles(fixture)
        let services = try await RouterTests.services(fixture, extra: keys.flags.merging(try Self.tokenFlags(fixture)) { $1 })
        #expect(services.certificates.contains { $0.kind == .receipt })
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let answers = try await Self.answersOfEveryFlow(client, fixture: fixture)
            #expect(answers.count == 8)
            // The JWKS takes no token; the verification routes do.
            let jwks = try await client.execute(uri: "/v1/receipts/jwks", method: .get)
            #expect(jwks.status == .ok)
            #expect(jwks.headers[.contentType] == "application/json")
            ContractSamples.record(jwks.body, schema: "ReceiptKeySet", name: "receipt-jwks")
            let listed = try #require(try RouterTests.json(jwks.body)["keys"] as? [[String: Any]])
            #expect(listed.count == 1)
            #expect(listed.first?["kid"] as? String == ReceiptKeys.thumbprint(keys.key.publicKey))
            #expect((listed.first?["x5c"] as? [String])?.count == 1)
            let unauthorized = try await client.execute(
                uri: "/v1/mdoc/verify", method: .post, headers: RouterTests.jsonHeaders, body: ByteBuffer(string: "{}"))
            #expect(unauthorized.status == .unauthorized)

            for (index, answer) in answers.enumerated() {
                let label = "\(answer.flow) #\(index): \(answer.report["verdict"] ?? "?")"
                #expect(
                    answer.report["verdict"] as? String == (index % 2 == 0 ? "accepted" : "rejected"),
                    "\(label): \(Self.checks(answer.report).filter { !$0.contains("|passed|") && !$0.contains("|skipped|") })")
                #expect(answer.status == .ok, "\(label)")
                let receipt = try #require(answer.receipt, "\(label)")
                let verified = try ReceiptVerifier.verify(receipt, jwks: Array(buffer: jwks.body))
                #expect(verified.keyID == ReceiptKeys.thumbprint(keys.key.publicKey))
                let payload = try #require(try JSONSerialization.jsonObject(with: Data(verified.payload)) as? [String: Any])
                Self.expectReceipt(payload, states: answer, label: label)
                // Apple Pay is verified here against a test root (--applepay-root): its receipts say so;
                // mdoc documents name the root that anchored them and the kind of source, not its path.
                #expect((payload["testOnly"] as? Bool ?? false) == (answer.flow == "applepay"), "\(label)")
                if index % 2 == 0, answer.flow != "applepay" {
                    let document = try #require((payload["documents"] as? [[String: Any]])?.first, "\(label)")
                    #expect((document["trustAnchor"] as? [String: String])?["source"] == "file", "\(label): \(document)")
                    #expect(!String(decoding: verified.payload, as: UTF8.self).contains(fixture.iacaPath), "\(label)")
                }
                if index % 2 == 0 {
                    ContractSamples.record(
                        answer.body, schema: answer.flow == "applepay" ? "ApplePayResult" : "IdentityResult", name: "\(answer.flow)-receipt")
                }
                // The report's own members are unchanged: the receipt is one more member beside them.
                #expect(answer.report["checks"] != nil && answer.report["evaluatedAt"] != nil && answer.report["warnings"] != nil)
            }
            // Web answers name the origin they were for; receipts are distinct.
            let web = try #require(answers.first { $0.flow == "web" }?.receipt)
            let webPayload = try #require(
                try JSONSerialization.jsonObject(with: Data(try ReceiptVerifier.verify(web, jwks: Array(buffer: jwks.body)).payload))
                    as? [String: Any])
            #expect((webPayload["request"] as? [String: Any])?["origin"] as? String == fixture.webOrigin)
            #expect(Set(answers.compactMap(\.receipt)).count == answers.count)
            // The answer holds nothing of the submission beyond its digest: no element value, no token data.
            #expect(!web.contains("Mustermann"))
        }
    }

    @Test func withoutAReceiptKeyAnswersCarryNoneAndTheJWKSIs501() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let services = try await RouterTests.services(fixture, extra: try Self.tokenFlags(fixture))
        #expect(!services.certificates.contains { $0.kind == .receipt })
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let answers = try await Self.answersOfEveryFlow(client, fixture: fixture)
            #expect(answers.count == 8)
            for answer in answers {
                #expect(answer.receipt == nil && answer.report["receipt"] == nil)
                #expect(answer.report["verdict"] as? String != nil)
            }
            let jwks = try await client.execute(uri: "/v1/receipts/jwks", method: .get)
            #expect(jwks.status == .notImplemented)
            #expect(jwks.headers[.contentType] == "application/problem+json")
            #expect((try RouterTests.json(jwks.body)["detail"] as? String)?.contains("--receipt-key") == true)
        }
    }

    @Test func anIndeterminateAnswerCarriesAReceiptToo() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let keys = try KeyFiles(fixture)
        let services = try await RouterTests.services(fixture, store: .sqlite, extra: keys.flags)
        let token = try fixture.applePayToken()
        await services.shutdown()  // the embedded store is closed: the replay check cannot be decided
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let response = try await client.execute(
                uri: "/v1/applepay/decrypt", method: .post, headers: RouterTests.jsonHeaders,
                body: ByteBuffer(string: #"{"token":\#(String(decoding: token, as: UTF8.self)),"expect":{"currency":"840","amount":1999}}"#))
            #expect(response.status == .serviceUnavailable)
            let report = try RouterTests.json(response.body)
            #expect(report["verdict"] as? String == "indeterminate")
            let receipt = try #require(report["receipt"] as? String)
            // The key set comes from the configuration, not the store: it answers with the store closed.
            let served = try await client.execute(uri: "/v1/receipts/jwks", method: .get)
            #expect(served.status == .ok)
            let jwks = Array(buffer: served.body)
            let payload = try #require(
                try JSONSerialization.jsonObject(with: Data(try ReceiptVerifier.verify(receipt, jwks: jwks).payload)) as? [String: Any])
            #expect(payload["verdict"] as? String == "indeterminate")
            #expect(Self.checks(payload) == Self.checks(report))
        }
    }

    @Test func malformedSubmissionsGetProblemsWithoutReceipts() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let keys = try KeyFiles(fixture, certificate: false)
        let services = try await RouterTests.services(fixture, extra: keys.flags)
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            for uri in ["/v1/identity/verify", "/v1/web/verify", "/v1/mdoc/verify", "/v1/applepay/decrypt"] {
                let response = try await client.execute(uri: uri, method: .post, headers: RouterTests.jsonHeaders, body: ByteBuffer(string: "{}"))
                #expect(response.status == .badRequest, "\(uri)")
                #expect(!String(buffer: response.body).contains("receipt"), "\(uri)")
            }
            // Without --receipt-cert the JWKS key has no x5c; receipts still verify.
            let jwks = try await client.execute(uri: "/v1/receipts/jwks", method: .get)
            #expect((try RouterTests.json(jwks.body)["keys"] as? [[String: Any]])?.first?["x5c"] == nil)
        }
    }

    @Test func aReceiptKeyOfAnotherCertificateOrUnreadableStopsTheStart() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let keys = try KeyFiles(fixture)
        let other = try KeyFiles(fixture, name: "other")
        // The certificate of another key.
        await #expect {
            _ = try await RouterTests.services(fixture, extra: keys.flags.merging(["receiptCert": [other.certificatePath!]]) { $1 })
        } throws: {
            "\($0)".contains("--receipt-cert \(other.certificatePath!)") && "\($0)".contains("not the receipt key's")
        }
        // A key file that is not a key.
        let broken = fixture.directory.appendingPathComponent("broken.pem").path
        try Data("-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: broken))
        await #expect {
            _ = try await RouterTests.services(fixture, extra: ["receiptKey": [broken]])
        } throws: {
            "\($0)".contains("--receipt-key \(broken)")
        }
        // A missing file.
        await #expect {
            _ = try await RouterTests.services(fixture, extra: ["receiptKey": [broken + ".missing"]])
        } throws: {
            "\($0)".contains("cannot read --receipt-key \(broken).missing")
        }
        // A certificate without a key.
        #expect(throws: SettingsError.self) {
            _ = try ServerSettings.resolve(flags: ["receiptCert": [keys.certificatePath!]], environment: [:], configFile: nil)
        }
    }

    @Test func serveCheckChecksTheReceiptKeyAgainstItsCertificate() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let keys = try KeyFiles(fixture)
        let other = try KeyFiles(fixture, name: "other")
        func findings(_ flags: ServerSettings.Source) async throws -> [String: PreflightFinding.Status] {
            var all = flags
            all["store"] = ["memory"]
            all["dataDir"] = [fixture.directory.appendingPathComponent("data").path]
            let settings = try ServerSettings.resolve(flags: all, environment: [:], configFile: nil)
            let found = await ServicePreflight.run(settings: settings, logger: Logger(label: "test"), now: ServiceFixture.time)
            return Dictionary(found.filter { $0.check.contains("receipt") }.map { ($0.check, $0.status) }) { first, _ in first }
        }
        #expect(try await findings(keys.flags) == ["receipt-key": .ok, "certificate receipt": .ok])
        #expect(try await findings(keys.flags.merging(["receiptCert": [other.certificatePath!]]) { $1 }) == ["receipt-key": .fail])
        #expect(try await findings([:]).isEmpty)
    }

    @Test func aRotatedKeySignsNewReceiptsAndTheJWKSVerifiesBoth() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let keys = try KeyFiles(fixture)
        let services = try await RouterTests.services(fixture, extra: keys.flags)
        let settings = services.settings
        let live = LiveServices(services)
        try await VerifierApplication.build(live: live, logger: Logger(label: "test")).test(.router) { client in
            let transcript = IdentityEnvelopeFixture.transcript(
                nonce: Array(repeating: 9, count: 32), merchantID: fixture.merchantID, teamID: fixture.teamID,
                recipient: fixture.identityKey.publicKey)
            let deviceResponse = try MdocFixture().deviceResponse(pki: fixture.webPKI, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
            let body = try RouterTests.body([
                "deviceResponse": Data(deviceResponse).base64EncodedString(), "sessionTranscript": Data(transcript.bytes).base64EncodedString(),
            ])
            func receipt() async throws -> String {
                let answer = try await client.execute(uri: "/v1/mdoc/verify", method: .post, headers: RouterTests.jsonHeaders, body: body)
                return try #require(try RouterTests.json(answer.body)["receipt"] as? String)
            }
            func jwks() async throws -> [UInt8] { Array(buffer: try await client.execute(uri: "/v1/receipts/jwks", method: .get).body) }

            let before = try await receipt()
            // The old key kept aside as a previous key; the same paths, new contents: a reload (what
            // SIGHUP does) takes the new key and lists the previous one.
            let previousPath = fixture.directory.appendingPathComponent("receipt-previous-key.pem").path
            try Data(keys.key.pemRepresentation.utf8).write(to: URL(fileURLWithPath: previousPath))
            var rotatedSettings = settings
            rotatedSettings.receiptPreviousKeys = [previousPath]
            let rotated = try KeyFiles(replacing: keys, fixture)
            try await live.reload(settings: rotatedSettings, logger: Logger(label: "test"))
            let after = try await receipt()
            let set = try await jwks()
            let kids = (try JSONSerialization.jsonObject(with: Data(set)) as? [String: Any])?["keys"] as? [[String: Any]]
            let expected = Set([ReceiptKeys.thumbprint(keys.key.publicKey), ReceiptKeys.thumbprint(rotated.key.publicKey)])
            #expect(Set(kids?.compactMap { $0["kid"] as? String } ?? []) == expected)
            #expect(expected.count == 2)
            #expect(try ReceiptVerifier.verify(before, jwks: set).keyID == ReceiptKeys.thumbprint(keys.key.publicKey))
            #expect(try ReceiptVerifier.verify(after, jwks: set).keyID == ReceiptKeys.thumbprint(rotated.key.publicKey))
            // The current key comes first.
            #expect(kids?.first?["kid"] as? String == ReceiptKeys.thumbprint(rotated.key.publicKey))
            // A reload that keeps the keys changes nothing.
            try await live.reload(settings: rotatedSettings, logger: Logger(label: "test"))
            #expect(try ReceiptVerifier.verify(before, jwks: try await jwks()).keyID == ReceiptKeys.thumbprint(keys.key.publicKey))
            #expect(try ReceiptVerifier.verify(try await receipt(), jwks: try await jwks()).keyID == ReceiptKeys.thumbprint(rotated.key.publicKey))
            // A previous key no longer named (it leaked, say) is withdrawn at once.
            try await live.reload(settings: settings, logger: Logger(label: "test"))
            let withdrawn = try await jwks()
            let left = (try JSONSerialization.jsonObject(with: Data(withdrawn)) as? [String: Any])?["keys"] as? [[String: Any]]
            #expect(left?.compactMap { $0["kid"] as? String } == [ReceiptKeys.thumbprint(rotated.key.publicKey)])
            #expect(throws: ReceiptVerificationError.self) { try ReceiptVerifier.verify(before, jwks: withdrawn) }
        }
    }

    /// A receipt whose payload was changed after signing: the same header and signature.
    static func tampered(_ receipt: String) throws -> String {
        let parts = receipt.split(separator: ".").map(String.init)
        let bytes = try #require(Base64.decodeURL(parts[1]))
        var payload = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        payload["verdict"] = payload["verdict"] as? String == "accepted" ? "rejected" : "accepted"
        return parts[0] + "." + Base64.encodeURL(Array(try JSONSerialization.data(withJSONObject: payload))) + "." + parts[2]
    }

    @Test func anIndependentJOSEImplementationVerifiesReceiptsOfEveryFlow() async throws {
        guard ReceiptInterop.available() else { return }
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let keys = try KeyFiles(fixture)
        let services = try await RouterTests.services(fixture, extra: keys.flags.merging(try Self.tokenFlags(fixture)) { $1 })
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            let answers = try await Self.answersOfEveryFlow(client, fixture: fixture)
            let receipts = answers.compactMap(\.receipt)
            #expect(receipts.count == 8)
            let jwks = try JSONSerialization.jsonObject(with: Data(buffer: try await client.execute(uri: "/v1/receipts/jwks", method: .get).body))
            let output = try await ReceiptInterop.verify(["jwks": jwks, "receipts": receipts + [try Self.tampered(receipts[0])]])
            let results = try #require(
                (try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])?["results"] as? [[String: Any]])
            #expect(results.count == receipts.count + 1)
            for (answer, result) in zip(answers, results) {
                #expect(result["ok"] as? Bool == true, "\(answer.flow): \(result["error"] ?? "")")
                #expect(result["kid"] as? String == ReceiptKeys.thumbprint(keys.key.publicKey))
                let payload = try #require(result["payload"] as? [String: Any])
                Self.expectReceipt(payload, states: answer, label: "joserfc \(answer.flow)")
            }
            #expect(results.last?["ok"] as? Bool == false)
        }
    }
}

/// Runs `Interop/verify_receipt.py` with the Python of `.venv-interop` (joserfc, installed by
/// scripts/test). Skipped when that Python is missing, unless CI=true.
enum ReceiptInterop {
    static func available() -> Bool {
        if InteropPython.python != nil { return true }
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("python with joserfc is not installed in .venv-interop (scripts/test installs it)")
        }
        return false
    }

    /// The script's standard output for `input`.
    static func verify(_ input: [String: Any]) async throws -> String {
        try await InteropPython.run("Tests/VerifierServerTests/Interop/verify_receipt.py", input: input)
    }
}
