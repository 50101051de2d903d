import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MdocVerifier
import NIOFoundationEssentialsCompat
import Testing
import VerificationCore
import WalletCBOR
import WalletEncoding
import WalletVerifierCommands
import WalletVerifierTestSupport

@testable import VerifierServer

/// ISO/IEC 18013-5 terminal input through the service (POST /v1/mdoc/verify) and the CLI
/// (`mdoc verify`), as ProximityReader or a reader hands it over: the same report from both.
@Suite struct MdocRouteTests {
    static let annexD = "mdoc/iso18013-5-annex-d/"

    static func readerScalar() throws -> [UInt8] { try TestVectors.hex(annexD + "ereader_key_private_d.hex") }

    /// The reader key as a COSE_Key with d.
    static func coseKey() throws -> [UInt8] {
        let key = try P256.KeyAgreement.PrivateKey(rawRepresentation: try readerScalar())
        let point = Array(key.publicKey.x963Representation)
        return Array(
            try CBORNode.map([
                (.int(1), .int(2)), (.int(-1), .int(1)), (.int(-2), .bytes(point[1...32])), (.int(-3), .bytes(point[33...])),
                (.int(-4), .bytes(try readerScalar())),
            ]).encodedBytes)
    }

    @Test func theServiceAndTheCLIGiveTheSameReport() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mdoc-route-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let time = RFC3339.parse("2021-01-01T00:00:00Z")!
        let flags: ServerSettings.Source = [
            "store": ["memory"], "dataDir": [directory.appendingPathComponent("data").path],
            "trust": [TestVectors.path(Self.annexD + "document_signer.pem")],
        ]
        let services = try await VerifierServices.make(
            settings: try ServerSettings.resolve(flags: flags, environment: [:], configFile: nil),
            logger: Logger(label: "test"), clock: FixedClock(time))
        let response = try TestVectors.data(Self.annexD + "device_response.cbor")
        let transcript = try TestVectors.data(Self.annexD + "session_transcript_bytes.cbor")
        // The reader key as base64 of every form it is handed over in (ProximityReader's raw data gives
        // CryptoKit's x963Representation: 04 ‖ X ‖ Y ‖ d).
        let readerKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: try Self.readerScalar())
        let jwkText =
            #"{"kty":"EC","crv":"P-256","d":"\#(Base64.encodeURL(try Self.readerScalar()))"}"#
        let keyForms = [
            try Self.readerScalar(), try Self.coseKey(), Array(readerKey.x963Representation), Array(readerKey.pemRepresentation.utf8),
            Array(jwkText.utf8),
        ].map { Data($0).base64EncodedString() }
        let bodies = keyForms.map { key in
            ["deviceResponse": Data(response).base64EncodedString(), "sessionTranscript": Data(transcript).base64EncodedString(), "readerKey": key]
        }
        let answers: [Data] = try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            var answers: [Data] = []
            for body in bodies {
                let answer = try await client.execute(
                    uri: "/v1/mdoc/verify", method: .post, headers: RouterTests.jsonHeaders, body: try RouterTests.body(body))
                #expect(answer.status == .ok)
                answers.append(Data(buffer: answer.body))
            }
            var withoutKey = bodies[0]
            withoutKey["readerKey"] = nil
            // A deviceMac answer without the reader key is a request to complete, not an outage: 400, no Retry-After.
            let withoutReaderKey = try await client.execute(
                uri: "/v1/mdoc/verify", method: .post, headers: RouterTests.jsonHeaders, body: try RouterTests.body(withoutKey))
            #expect(withoutReaderKey.status == .badRequest)
            #expect(withoutReaderKey.headers[.retryAfter] == nil)
            #expect((try RouterTests.json(withoutReaderKey.body)["detail"] as? String)?.hasPrefix("/readerKey: missing") == true)
            let bad = try await client.execute(
                uri: "/v1/mdoc/verify", method: .post, headers: RouterTests.jsonHeaders,
                body: try RouterTests.body(["deviceResponse": "AAAA", "sessionTranscript": "not base64!"]))
            #expect(bad.status == .badRequest)
            return answers
        }
        func summary(_ data: Data) throws -> [String] {
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            return ((object["checks"] as? [[String: Any]]) ?? []).map {
                "\($0["id"] as? String ?? "") \($0["status"] as? String ?? "") \($0["reason"] as? String ?? "")"
            }
                + ["verdict \(object["verdict"] as? String ?? "")"]
        }
        let service = try summary(answers[0])
        #expect(service.last == "verdict accepted", "\(service)")
        ContractSamples.record(ByteBuffer(bytes: answers[0]), schema: "IdentityResult", name: "mdoc-verify-annex-d")
        for (index, answer) in answers.enumerated().dropFirst() { #expect(try summary(answer) == service, "key form \(index)") }
        #expect(answers.count == 5)

        // The CLI with the reader key in each form it takes.
        let jwk =
            #"{"kty":"EC","crv":"P-256","d":"\#(Data(try Self.readerScalar()).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: ""))"}"#
        let forms: [(String, [UInt8])] = [
            ("scalar.hex", Array(Hex.encode(try Self.readerScalar()).utf8)), ("scalar.bin", try Self.readerScalar()),
            ("cose.cbor", try Self.coseKey()), ("cose.hex", Array(Hex.encode(try Self.coseKey()).utf8)),
            ("key.jwk", Array(jwk.utf8)),
            ("key.pem", Array(try P256.KeyAgreement.PrivateKey(rawRepresentation: try Self.readerScalar()).pemRepresentation.utf8)),
            ("key.x963", Array(readerKey.x963Representation)), ("key.x963.b64", Array(Data(readerKey.x963Representation).base64EncodedString().utf8)),
        ]
        for (name, contents) in forms {
            let path = directory.appendingPathComponent(name).path
            try Data(contents).write(to: URL(fileURLWithPath: path))
            let result = await WalletVerifierCommand.runCapturing([
                "mdoc", "verify", "--device-response", TestVectors.path(Self.annexD + "device_response.cbor"),
                "--session-transcript", TestVectors.path(Self.annexD + "session_transcript_bytes.cbor"),
                "--trust", TestVectors.path(Self.annexD + "document_signer.pem"), "--reader-key", path,
                "--at", "2021-01-01T00:00:00Z", "--format", "json",
                // The service checks revocation by default (--revocation required): the same here.
                "--fetch-revocation",
            ])
            #expect(result.code == 0, "\(name): \(result.stderr)")
            #expect(try summary(Data(result.stdout.utf8)) == service, "\(name)")
        }
    }
}

/// Several --merchant-id/--team-id pairs: a request records the merchant it was made for, and its
/// response is verified with that merchant's transcript.
@Suite struct SeveralMerchantsTests {
    @Test func eachRequestIsVerifiedForItsMerchant() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let flags: ServerSettings.Source = [
            "store": ["memory"], "dataDir": [fixture.directory.appendingPathComponent("data").path], "identityKeys": [fixture.identityKeyPath],
            "merchantId": [fixture.merchantID, "merchant.com.example.second"], "teamId": [fixture.teamID, "TEAMSECOND"], "trust": [fixture.iacaPath],
        ]
        let services = try await VerifierServices.make(
            settings: try ServerSettings.resolve(flags: flags, environment: [:], configFile: nil),
            logger: Logger(label: "test"), clock: FixedClock(ServiceFixture.time))
        let second = (merchantID: "merchant.com.example.second", teamID: "TEAMSECOND")
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            func create(_ merchant: String?) async throws -> (HTTPResponse.Status, [String: Any]) {
                var body: [String: Any] = ["descriptor": try JSONSerialization.jsonObject(with: Data(ServiceFixture.descriptorJSON.utf8))]
                if let merchant { body["merchantId"] = merchant }
                let response = try await client.execute(
                    uri: "/v1/identity/requests", method: .post, headers: RouterTests.jsonHeaders, body: try RouterTests.body(body))
                return (response.status, try RouterTests.json(response.body))
            }
            func verify(_ created: [String: Any], merchant: (merchantID: String, teamID: String)) async throws -> [String: Any] {
                let nonce = try #require((created["nonce"] as? String).flatMap { Data(base64Encoded: $0) })
                let envelope = try fixture.identityResponse(nonce: [UInt8](nonce), merchant: merchant)
                let answer = try await client.execute(
                    uri: "/v1/identity/verify", method: .post, headers: RouterTests.jsonHeaders,
                    body: try RouterTests.body(["requestId": created["requestId"] as! String, "encryptedData": Data(envelope).base64EncodedString()]))
                return try RouterTests.json(answer.body)
            }
            let (status, forSecond) = try await create(second.merchantID)
            #expect(status == .created)
            #expect(forSecond["merchantId"] as? String == second.merchantID)
            #expect(try await verify(forSecond, merchant: second)["verdict"] as? String == "accepted")
            // A response made for the default merchant does not answer a request for the second.
            let (_, another) = try await create(second.merchantID)
            let mismatch = try await verify(another, merchant: (fixture.merchantID, fixture.teamID))
            #expect(
                (mismatch["checks"] as? [[String: Any]])?.contains {
                    $0["id"] as? String == "identity.envelope.transcript" && $0["reason"] as? String == "infoHashMismatch"
                } == true)
            // The default merchant without merchantId, and an unknown one refused.
            let (_, byDefault) = try await create(nil)
            #expect(byDefault["merchantId"] as? String == fixture.merchantID)
            #expect(try await verify(byDefault, merchant: (fixture.merchantID, fixture.teamID))["verdict"] as? String == "accepted")
            #expect(try await create("merchant.com.unknown").0 == .badRequest)
        }
        #expect(throws: SettingsError.self) {
            try ServerSettings.resolve(flags: ["merchantId": ["a", "b"], "teamId": ["A"]], environment: [:], configFile: nil)
        }
    }
}

/// The reader key's forms, and what is not a key: an X9.63 form whose public point is not its scalar's.
@Suite struct ReaderKeyFormTests {
    @Test func x963FormIsReadAndAMismatchedPointIsNot() throws {
        let key = P256.KeyAgreement.PrivateKey()
        let x963 = Array(key.x963Representation)
        #expect(try ReaderKeyAgreementKey.load(contents: x963, name: "k").rawRepresentation == key.rawRepresentation)
        #expect(try ReaderKeyAgreementKey.load(base64: Data(x963).base64EncodedString(), name: "k").rawRepresentation == key.rawRepresentation)
        var mismatched = Array(P256.KeyAgreement.PrivateKey().publicKey.x963Representation) + x963[65...]
        #expect(throws: ReaderKeyError.self) { try ReaderKeyAgreementKey.load(contents: mismatched, name: "k") }
        mismatched[0] = 0x05
        #expect(throws: ReaderKeyError.self) { try ReaderKeyAgreementKey.load(contents: mismatched, name: "k") }
        // The message names the input, never the key.
        do {
            _ = try ReaderKeyAgreementKey.load(base64: Data(mismatched).base64EncodedString(), name: "readerKey")
        } catch {
            #expect(!error.message.contains(Data(x963[65...]).base64EncodedString()))
            #expect(error.message.hasPrefix("readerKey"))
        }
    }
}

/// Seed 002 (ProximityReader): mock data with a device signature and no issuer signature, or signed
/// by a key no trusted root vouches for, is rejected, and the report says it is test data — through
/// the service, as ProximityReader's raw triple comes to it.
@Suite struct ProximityReaderTestDataTests {
    /// `node` with every `issuerAuth` member removed, at any depth.
    static func withoutIssuerAuth(_ node: CBORNode) throws -> CBORNode {
        switch node.value {
        case .map(let map):
            var pairs: [(CBORNode, CBORNode)] = []
            for entry in map.entries {
                if case .textString("issuerAuth") = entry.key.value { continue }
                pairs.append((entry.key, try withoutIssuerAuth(entry.value)))
            }
            return try .map(pairs)
        case .array(let items):
            return .array(try items.map(withoutIssuerAuth))
        default:
            return node
        }
    }

    @Test func mockDataIsRejectedAsTestData() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mock-data-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        // Trusting another issuer than the Annex D response's: no root vouches for its signer.
        let flags: ServerSettings.Source = ["store": ["memory"], "dataDir": [directory.path], "trust": [fixture.iacaPath]]
        let services = try await VerifierServices.make(
            settings: try ServerSettings.resolve(flags: flags, environment: [:], configFile: nil), logger: Logger(label: "test"),
            clock: FixedClock(RFC3339.parse("2021-01-01T00:00:00Z")!))
        let response = try TestVectors.data(MdocRouteTests.annexD + "device_response.cbor")
        let unsigned = Array(try Self.withoutIssuerAuth(try CBORDecoder.decode(Array(response))).encodedBytes)
        let transcript = try TestVectors.data(MdocRouteTests.annexD + "session_transcript_bytes.cbor")
        let key = Data(try MdocRouteTests.readerScalar()).base64EncodedString()
        try await VerifierApplication.build(services: services, logger: Logger(label: "test")).test(.router) { client in
            for (bytes, id) in [(unsigned, "mdoc.document.structure"), (Array(response), "mdoc.issuer.chain")] {
                let body: [String: Any] = [
                    "deviceResponse": Data(bytes).base64EncodedString(), "sessionTranscript": Data(transcript).base64EncodedString(),
                    "readerKey": key,
                ]
                let answer = try await client.execute(
                    uri: "/v1/mdoc/verify", method: .post, headers: RouterTests.jsonHeaders, body: try RouterTests.body(body))
                #expect(answer.status == .ok)
                let object = try #require(try JSONSerialization.jsonObject(with: Data(buffer: answer.body)) as? [String: Any])
                #expect(object["verdict"] as? String == "rejected")
                let check = (object["checks"] as? [[String: Any]])?.first { $0["id"] as? String == id }
                #expect(check?["status"] as? String == "failed", "\(id): \(String(describing: object["checks"]))")
                #expect((check?["message"] as? String)?.contains("test data") == true, "\(id): \(String(describing: check))")
                // The reader key is never echoed.
                #expect(!String(buffer: answer.body).contains(key))
            }
        }
    }
}
