import Crypto
import Foundation
import Mdoc
import MdocVerifier
import Testing
import VerificationCore
import WalletCBOR
import WalletCOSE
import WalletEncoding
import WalletVerifierCommands
import WalletVerifierTestSupport

private let capture = "mdoc/dcapi-annex-c-chrome-android-jmandel/"

/// A scratch directory for one test's files. Each test removes it with ``remove()`` in a `defer` (a run
/// of the suite otherwise left a directory of keys and captures behind per test).
struct Scratch {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("wallet-web-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Removes the directory and everything in it.
    func remove() { try? FileManager.default.removeItem(at: url) }

    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = url.appendingPathComponent(name)
        try Data(bytes).write(to: file)
        return file.path
    }

    func write(_ name: String, _ text: String) throws -> String { try write(name, Array(text.utf8)) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

func pem(_ der: [UInt8]) -> String {
    let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
    return "-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n"
}

func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

func check(_ object: [String: Any], _ id: String) -> [String: Any]? {
    (object["checks"] as? [[String: Any]])?.first { $0["id"] as? String == id }
}

@Suite struct WebVerifyCommandTests {
    /// The demo issuer's self-signed document signer as a PEM file (the only way to trust it).
    func pinnedSigner(_ scratch: Scratch) throws -> String {
        let response = try CBORDecoder.decode(try TestVectors.data(capture + "response/device-response.cbor")).map()
        let issuerAuth = try response["documents"]!.array()[0].map()["issuerSigned"]!.map()["issuerAuth"]!.array()
        let chain = try #require(try issuerAuth[1].map()[Int64(33)])
        let der = try chain.bytesValue ?? chain.array()[0].bytes()
        return try scratch.write("demo-signer.pem", pem(Array(der)))
    }

    func realCapture(_ extra: [String], scratch: Scratch) throws -> [String] {
        [
            "web", "verify",
            "--response", TestVectors.path(capture + "response/wallet-response.digital-credential.json"),
            "--encryption-info", try TestVectors.text(capture + "request/encryption-info.b64u").trimmingCharacters(in: .whitespacesAndNewlines),
            "--origin", "http://127.0.0.1:3010",
            "--recipient-key", TestVectors.path(capture + "request/recipient-private.jwk.json"),
            "--trust", try pinnedSigner(scratch),
        ] + extra
    }

    @Test func theRealCaptureVerifiesUnderTheDeveloperPolicy() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let result = await WalletVerifierCommand.runCapturing(
            try realCapture(["--at", "2026-05-01T17:30:00Z", "--policy", "developer", "--format", "json"], scratch: scratch))
        #expect(result.code == 0, "\(result.stdout)\(result.stderr)")
        let object = try json(result.stdout)
        #expect(object["verdict"] as? String == "accepted")
        #expect(object["testOnly"] as? Bool == true)
        #expect(object["flow"] as? String == "webIdentity")
        #expect(check(object, "web.envelope.decryption")?["status"] as? String == "passed")
        #expect(check(object, "mdoc.device.authentication")?["status"] as? String == "passed")
        let documents = try #require(object["documents"] as? [[String: Any]])
        #expect(documents.first?["docType"] as? String == "org.smarthealthit.checkin.1")

        // ISO strict (the default): rejected only for the demo signer's missing profile and country.
        let strict = await WalletVerifierCommand.runCapturing(
            try realCapture(["--at", "2026-05-01T17:30:00Z", "--format", "json"], scratch: scratch))
        #expect(strict.code == 1)
        let failed = (try json(strict.stdout)["checks"] as! [[String: Any]]).filter { $0["status"] as? String == "failed" }.map {
            $0["id"] as! String
        }
        #expect(Set(failed) == ["mdoc.issuer.certificateProfile", "mdoc.issuer.country"])
    }

    @Test func zeroClockSkewRejectsTheCaptureAtCaptureTime() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let zero = await WalletVerifierCommand.runCapturing(
            try realCapture(["--at", "2026-05-01T17:27:18Z", "--policy", "developer", "--clock-skew", "0", "--format", "json"], scratch: scratch))
        #expect(zero.code == 1)
        #expect(check(try json(zero.stdout), "mdoc.validity")?["reason"] as? String == "notYetValid")
        let tolerant = await WalletVerifierCommand.runCapturing(
            try realCapture(["--at", "2026-05-01T17:27:18Z", "--policy", "developer"], scratch: scratch))
        #expect(tolerant.code == 0)
        #expect(tolerant.stdout.contains("verdict: accepted"))
    }

    @Test func theEncryptionInfoMayBeAFileAndTheWrongOriginFails() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var arguments = try realCapture(["--at", "2026-05-01T17:30:00Z", "--policy", "developer"], scratch: scratch)
        let index = try #require(arguments.firstIndex(of: "--encryption-info"))
        arguments[index + 1] = TestVectors.path(capture + "request/encryption-info.b64u")
        #expect(await WalletVerifierCommand.runCapturing(arguments).code == 0)
        let originIndex = try #require(arguments.firstIndex(of: "--origin"))
        arguments[originIndex + 1] = "https://127.0.0.1:3010"
        let wrong = await WalletVerifierCommand.runCapturing(arguments)
        #expect(wrong.code == 1)
        #expect(wrong.stdout.contains("decryptionFailed"))
    }

    @Test func usageErrors() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let trust = try pinnedSigner(scratch)
        let response = TestVectors.path(capture + "response/wallet-response.digital-credential.json")
        // Neither a session nor the three request options.
        #expect(await WalletVerifierCommand.runCapturing(["web", "verify", "--response", response, "--trust", trust]).code == 2)
        #expect(
            await WalletVerifierCommand.runCapturing([
                "web", "verify", "--response", response, "--trust", trust, "--origin", "x", "--encryption-info", "AAAA",
            ]).code == 2)
        #expect(
            await WalletVerifierCommand.runCapturing([
                "web", "verify", "--response", response, "--trust", trust, "--session", "s.json", "--origin", "x",
            ]).code == 2)
        // A public JWK cannot open anything.
        let publicKey = await WalletVerifierCommand.runCapturing([
            "web", "verify", "--response", response, "--trust", trust, "--origin", "x",
            "--encryption-info", "AAAA", "--recipient-key", TestVectors.path(capture + "request/recipient-public.jwk.json"),
        ])
        #expect(publicKey.code == 2)
        #expect(publicKey.stderr.contains("no private part"))
        // web request without elements, with a bad element, with a bad origin.
        let key = TestVectors.path(capture + "request/recipient-private.jwk.json")
        #expect(
            await WalletVerifierCommand.runCapturing([
                "web", "request", "--doctype", "d", "--origin", "https://a.example", "--recipient-key", key, "--out", scratch.path("s"),
            ]).code == 2)
        #expect(
            await WalletVerifierCommand.runCapturing([
                "web", "request", "--doctype", "d", "--element", "nope", "--origin", "https://a.example", "--recipient-key", key, "--out",
                scratch.path("s"),
            ]).code == 2)
        #expect(
            await WalletVerifierCommand.runCapturing([
                "web", "request", "--doctype", "d", "--element", "a/b", "--origin", "not an origin", "--recipient-key", key, "--out",
                scratch.path("s"),
            ]).code == 2)
    }
}

/// `web request` then `web verify --session`, with a passport fixture and a revocation list.
@Suite struct WebSessionCommandTests {
    static let at = "2023-11-14T23:13:20Z"  // an hour after the fixture was signed
    static let time = RFC3339.parse(at)!

    @Test func aSessionVerifiesOneResponse() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let recipient = P256.KeyAgreement.PrivateKey()
        let keyPath = try scratch.write("recipient.pem", recipient.pemRepresentation)
        let sessionPath = scratch.path("session.json")
        let ns = PhotoIDFixture.nameSpace
        let request = await WalletVerifierCommand.runCapturing(
            [
                "web", "request", "--doctype", PhotoIDFixture.docType, "--origin", "https://verifier.example", "--recipient-key", keyPath, "--out",
                sessionPath,
            ]
                + PhotoIDFixture.defaultElements.flatMap {
                    ["--element", "\(ns)/\($0.identifier)" + ($0.identifier == "document_number" ? ":retain" : "")]
                })
        #expect(request.code == 0, "\(request.stderr)")
        let argument = try json(request.stdout)
        let data = try #require((((argument["digital"] as? [String: Any])?["requests"] as? [[String: Any]])?.first?["data"]) as? [String: String])
        let session = try json(String(decoding: try Data(contentsOf: URL(fileURLWithPath: sessionPath)), as: UTF8.self))
        #expect(session["encryptionInfo"] as? String == data["encryptionInfo"])
        #expect(session["origin"] as? String == "https://verifier.example")
        #expect(!(String(decoding: try Data(contentsOf: URL(fileURLWithPath: sessionPath)), as: UTF8.self)).contains("PRIVATE KEY"))
        let permissions = try FileManager.default.attributesOfItem(atPath: sessionPath)[.posixPermissions] as? Int
        #expect(permissions == 0o600)

        // The wallet answers with a passport whose MSO points at an identifier list.
        let pki = try PassportPKI()
        let uri = "https://revocation.example/passport/3"
        var fixture = PhotoIDFixture()
        fixture.status = try RevocationListFixture.identifierListStatus(id: [7, 7, 7], uri: uri)
        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: data["encryptionInfo"]!, origin: "https://verifier.example")
        let plaintext = try fixture.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let encrypted = try DCAPIResponseFixture.encrypt(
            plaintext, encryptionInfoBase64URL: data["encryptionInfo"]!, origin: "https://verifier.example",
            recipientPublicKey: recipient.publicKey)
        let b64url = Data(encrypted).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        let responsePath = try scratch.write("credential.json", #"{"protocol":"org-iso-mdoc","data":{"response":"\#(b64url)"}}"#)
        let iaca = try scratch.write("iaca.pem", pki.iacaPEM)
        let list = try RevocationListFixture(
            content: .identifiers([[1]]), uri: uri, issuedAt: Self.time.addingTimeInterval(-60), expiresAt: Self.time.addingTimeInterval(86_400)
        )
        .signed(by: pki.revocation)
        let listPath = try scratch.write("passport-3.cwt", list)

        let verify = [
            "web", "verify", "--response", responsePath, "--session", sessionPath, "--trust-doctype", "\(PhotoIDFixture.docType)=\(iaca)", "--at",
            Self.at,
            "--revocation-list", listPath, "--format", "json",
        ]
        let first = await WalletVerifierCommand.runCapturing(verify)
        #expect(first.code == 0, "\(first.stdout)\(first.stderr)")
        let report = try json(first.stdout)
        #expect(check(report, "replay.nonce")?["status"] as? String == "passed")
        #expect(check(report, "web.request.elements")?["status"] as? String == "passed")
        #expect(check(report, "photoid.docType")?["status"] as? String == "passed")
        #expect(check(report, "mdoc.revocation.list")?["status"] as? String == "passed")
        #expect(check(report, "mdoc.revocation.status")?["status"] as? String == "passed")
        let elements = try #require(((report["documents"] as? [[String: Any]])?.first?["elements"]) as? [String: [String: Any]])
        #expect(elements[ns]?["given_name_unicode"] as? String == "Åsa")

        // The same session again: a replay.
        let second = await WalletVerifierCommand.runCapturing(verify)
        #expect(second.code == 1)
        #expect(check(try json(second.stdout), "replay.nonce")?["reason"] as? String == "nonceReused")
        #expect(!second.stdout.contains("Åsa"))

        // Another key file than the session's is refused before anything is used.
        let other = try scratch.write("other.pem", P256.KeyAgreement.PrivateKey().pemRepresentation)
        let swapped = await WalletVerifierCommand.runCapturing(verify + ["--recipient-key", other])
        #expect(swapped.code == 2)
    }
}

/// `--revocation-list`, `--fetch-revocation`, `--vical` and `--vical-trust` on `mdoc verify` and `identity verify`.
@Suite(.serialized) struct TrustListCommandTests {
    static let at = "2023-11-14T23:13:20Z"
    static let time = RFC3339.parse(at)!
    static let uri = "https://revocation.example/passport/5"
    static let id: [UInt8] = [5, 5]

    struct Setup {
        let scratch: Scratch
        let pki: PassportPKI
        let response: String
        let transcript: String
        let iaca: String

        init(uri: String = TrustListCommandTests.uri) throws {
            scratch = try Scratch()
            pki = try PassportPKI()
            let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: "AAAA", origin: "https://verifier.example")
            var fixture = PhotoIDFixture()
            fixture.status = try RevocationListFixture.identifierListStatus(id: TrustListCommandTests.id, uri: uri)
            response = try scratch.write(
                "response.cbor", try fixture.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript))
            self.transcript = try scratch.write("transcript.cbor", transcript.bytes)
            iaca = try scratch.write("iaca.pem", pki.iacaPEM)
        }

        func list(
            _ ids: [[UInt8]], issuedAt: Date = TrustListCommandTests.time.addingTimeInterval(-60),
            expiresAt: Date = TrustListCommandTests.time.addingTimeInterval(86_400),
            uri: String = TrustListCommandTests.uri
        ) throws -> [UInt8] {
            try RevocationListFixture(content: .identifiers(ids), uri: uri, issuedAt: issuedAt, expiresAt: expiresAt).signed(by: pki.revocation)
        }

        func mdocVerify(_ extra: [String]) async -> (code: Int32, stdout: String, stderr: String) {
            await WalletVerifierCommand.runCapturing(
                [
                    "mdoc", "verify", "--device-response", response, "--session-transcript", transcript,
                    "--at", TrustListCommandTests.at, "--format", "json",
                ] + extra)
        }
    }

    @Test func mdocVerifyWithRevocationLists() async throws {
        let setup = try Setup()
        defer { setup.scratch.remove() }
        let clean = try setup.scratch.write("clean.cwt", try setup.list([[1, 2]]))
        let accepted = await setup.mdocVerify(["--trust-doctype", "\(PhotoIDFixture.docType)=\(setup.iaca)", "--revocation-list", clean])
        #expect(accepted.code == 0, "\(accepted.stdout)")
        let report = try json(accepted.stdout)
        #expect(check(report, "mdoc.revocation.status")?["status"] as? String == "passed")
        #expect(check(report, "mdoc.revocation.list")?["scope"] as? String == "document[0]")
        #expect(check(report, "photoid.elements")?["status"] as? String == "passed")

        let revoked = try setup.scratch.write("revoked.cwt", try setup.list([Self.id]))
        let rejected = await setup.mdocVerify(["--trust-doctype", "\(PhotoIDFixture.docType)=\(setup.iaca)", "--revocation-list", revoked])
        #expect(rejected.code == 1)
        #expect(check(try json(rejected.stdout), "mdoc.revocation.status")?["reason"] as? String == "revoked")

        let expired = try setup.scratch.write(
            "expired.cwt", try setup.list([], issuedAt: Self.time.addingTimeInterval(-7200), expiresAt: Self.time.addingTimeInterval(-3600)))
        let undetermined = await setup.mdocVerify(["--trust-doctype", "\(PhotoIDFixture.docType)=\(setup.iaca)", "--revocation-list", expired])
        #expect(undetermined.code == 3)
        #expect(check(try json(undetermined.stdout), "mdoc.revocation.list")?["reason"] as? String == "listExpired")

        // A list for another uri: no list for this document.
        let other = try setup.scratch.write("other.cwt", try setup.list([], uri: "https://revocation.example/other"))
        let missing = await setup.mdocVerify(["--trust-doctype", "\(PhotoIDFixture.docType)=\(setup.iaca)", "--revocation-list", other])
        #expect(missing.code == 3)
        #expect(check(try json(missing.stdout), "mdoc.revocation.list")?["reason"] as? String == "listUnavailable")

        // Without revocation options the list is fetched from the MSO's uri, as the service does (here
        // it cannot be reached: indeterminate, exit 3); `--revocation off` skips both checks and says so.
        let byDefault = await setup.mdocVerify(["--trust-doctype", "\(PhotoIDFixture.docType)=\(setup.iaca)"])
        #expect(byDefault.code == 3, "\(byDefault.stdout)")
        #expect(check(try json(byDefault.stdout), "mdoc.revocation.list")?["reason"] as? String == "listUnavailable")
        let off = await setup.mdocVerify(["--trust-doctype", "\(PhotoIDFixture.docType)=\(setup.iaca)", "--revocation", "off"])
        #expect(off.code == 0, "\(off.stdout)")
        for id in ["mdoc.revocation.list", "mdoc.revocation.status"] {
            #expect(check(try json(off.stdout), id)?["reason"] as? String == "disabled", "\(id)")
        }
        #expect((check(try json(off.stdout), "mdoc.revocation.list")?["message"] as? String)?.contains("--revocation off") == true)
        let lenient = await setup.mdocVerify(["--trust-doctype", "\(PhotoIDFixture.docType)=\(setup.iaca)", "--revocation", "best-effort"])
        #expect(lenient.code == 0, "\(lenient.stdout)")
        #expect(lenient.stdout.contains("listUnavailable"))
        #expect(
            await setup.mdocVerify(["--trust-doctype", "\(PhotoIDFixture.docType)=\(setup.iaca)", "--revocation", "off", "--fetch-revocation"]).code
                == 2)

        // A file that is not a list is a usage error.
        let junk = try setup.scratch.write("junk.cwt", [0x01, 0x02])
        #expect(await setup.mdocVerify(["--trust-doctype", "\(PhotoIDFixture.docType)=\(setup.iaca)", "--revocation-list", junk]).code == 2)
    }

    @Test func mdocVerifyFetchesTheListFromALocalServer() async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let uri = server.url("/passport/5")
        let setup = try Setup(uri: uri)
        defer { setup.scratch.remove() }
        server.set("/passport/5", .init(body: try setup.list([], uri: uri)))
        let fetched = await setup.mdocVerify(["--trust-doctype", "\(PhotoIDFixture.docType)=\(setup.iaca)", "--fetch-revocation"])
        #expect(fetched.code == 0, "\(fetched.stdout)")
        #expect(check(try json(fetched.stdout), "mdoc.revocation.list")?["details"].flatMap { ($0 as? [String: String])?["source"] } == "fetched")
        #expect(server.requestedPaths == ["/passport/5"])

        server.stop()
        let down = await setup.mdocVerify(["--trust-doctype", "\(PhotoIDFixture.docType)=\(setup.iaca)", "--fetch-revocation"])
        #expect(down.code == 3)
        let list = try #require(check(try json(down.stdout), "mdoc.revocation.list"))
        #expect(list["reason"] as? String == "listUnavailable")
        #expect(list["retryable"] as? Bool == true)
    }

    /// Issue 29: the CLI's fetch has the same deadline as the service's (`--fetch-timeout`, default 10 s).
    @Test func mdocVerifyStopsATricklingListAtTheFetchTimeout() async throws {
        let server = try LocalHTTPServer()
        defer { server.stop() }
        let uri = server.url("/passport/5")
        let setup = try Setup(uri: uri)
        defer { setup.scratch.remove() }
        server.set("/passport/5", .init(body: try setup.list([], uri: uri), trickle: 0.5))
        let started = Date()
        let result = await setup.mdocVerify(["--trust-doctype", "\(PhotoIDFixture.docType)=\(setup.iaca)", "--fetch-timeout", "2"])
        let seconds = Date().timeIntervalSince(started)
        #expect(result.code == 3, "\(result.stdout)\(result.stderr)")
        let list = try #require(check(try json(result.stdout), "mdoc.revocation.list"))
        #expect(list["reason"] as? String == "listUnavailable")
        #expect((list["message"] as? String)?.contains("did not answer within 2 s") == true, "\(list)")
        #expect(seconds < 5, "took \(seconds) s")
        let refused = await setup.mdocVerify(["--trust-doctype", "\(PhotoIDFixture.docType)=\(setup.iaca)", "--fetch-timeout", "0"])
        #expect(refused.code == 2, "\(refused.stderr)")
    }

    @Test func mdocVerifyWithAVICAL() async throws {
        let setup = try Setup()
        defer { setup.scratch.remove() }
        var vical = try VICALFixture()
        vical.entries = [.init(setup.pki.iaca, docTypes: [PhotoIDFixture.docType])]
        let vicalPath = try setup.scratch.write("vical.cbor", try vical.signed())
        let anchor = try setup.scratch.write("vical-anchor.pem", vical.anchorPEM)
        // Revocation is not what this test is about (the fixture's list uri is not served here).
        let result = await setup.mdocVerify(["--vical", vicalPath, "--vical-trust", anchor, "--revocation", "off"])
        #expect(result.code == 0, "\(result.stdout)\(result.stderr)")
        let report = try json(result.stdout)
        for id in ["vical.structure", "vical.signature", "vical.chain", "vical.validity"] {
            #expect(check(report, id)?["status"] as? String == "passed", "\(id)")
        }
        #expect(check(report, "mdoc.issuer.chain")?["status"] as? String == "passed")

        // The VICAL's anchor is not the one given: the VICAL is not trusted and neither is the document.
        let wrongAnchor = await setup.mdocVerify(["--vical", vicalPath, "--vical-trust", setup.iaca])
        #expect(wrongAnchor.code == 1)
        let wrong = try json(wrongAnchor.stdout)
        #expect(check(wrong, "vical.chain")?["reason"] as? String == "untrustedSigner")
        #expect(check(wrong, "mdoc.issuer.chain")?["reason"] as? String == "noTrustAnchor")

        #expect(await setup.mdocVerify(["--vical", vicalPath]).code == 2)
        #expect(await setup.mdocVerify(["--vical-trust", anchor, "--trust-doctype", "\(PhotoIDFixture.docType)=\(setup.iaca)"]).code == 2)
    }

    @Test func mdocVerifyWithAVICALFromAURL() async throws {
        let setup = try Setup()
        defer { setup.scratch.remove() }
        var vical = try VICALFixture()
        vical.entries = [.init(setup.pki.iaca, docTypes: [PhotoIDFixture.docType])]
        let anchor = try setup.scratch.write("vical-anchor.pem", vical.anchorPEM)
        let server = try LocalHTTPServer()
        defer { server.stop() }
        server.set("/vical", .init(body: try vical.signed()))
        // Fetched as the service fetches it (http to a loopback address), then verified as a file is.
        let result = await setup.mdocVerify(["--vical", server.url("/vical"), "--vical-trust", anchor, "--revocation", "off"])
        #expect(result.code == 0, "\(result.stdout)\(result.stderr)")
        let report = try json(result.stdout)
        for id in ["vical.structure", "vical.signature", "vical.chain", "vical.validity"] {
            #expect(check(report, id)?["status"] as? String == "passed", "\(id)")
        }
        let chain = try #require(check(report, "mdoc.issuer.chain"))
        #expect(chain["status"] as? String == "passed")
        // The report names the root that anchored the chain, and the VICAL entry it came from.
        let details = try #require(chain["details"] as? [String: String])
        #expect(details["trustSource"] == "vical" && details["trustLocation"] == server.url("/vical"), "\(details)")
        #expect(details["vicalIssuer"] == vical.provider && details["vicalIssueID"] == "42" && details["issuingCountry"] == "US", "\(details)")
        #expect(details["rootSHA256"] == IACATrustStore.sha256(setup.pki.iaca))
        #expect((chain["message"] as? String)?.contains("trusted through Test Trust Service's VICAL entry for") == true, "\(chain)")

        // A VICAL that cannot be fetched is unusable input (exit 2), as an unreadable file is.
        server.set("/gone", .init(status: 404))
        let gone = await setup.mdocVerify(["--vical", server.url("/gone"), "--vical-trust", anchor, "--revocation", "off"])
        #expect(gone.code == 2, "\(gone.stdout)\(gone.stderr)")
        #expect(gone.stderr.contains("could not be fetched"), "\(gone.stderr)")
        // Plain http to another host is never fetched.
        let remote = await setup.mdocVerify(["--vical", "http://vical.example/v", "--vical-trust", anchor, "--revocation", "off"])
        #expect(remote.code == 2, "\(remote.stderr)")
    }

    @Test func theRealAAMVAVICALOnTheCommandLine() async throws {
        // The AAMVA VICAL holds mDL roots only; at its issue day it is trusted, today it is not.
        let setup = try Setup()
        defer { setup.scratch.remove() }
        let vical = TestVectors.path("mdoc/aamva-vical-isomdl/aamva-vical-2025-11-18.cbor")
        let anchor = TestVectors.path("mdoc/aamva-vical-isomdl/aamva_dts_root_ca.pem")
        let onTheDay = await WalletVerifierCommand.runCapturing([
            "mdoc", "verify", "--device-response", setup.response, "--session-transcript", setup.transcript,
            "--vical", vical, "--vical-trust", anchor, "--at", "2025-11-18T19:00:00Z", "--format", "json",
        ])
        let report = try json(onTheDay.stdout)
        #expect(check(report, "vical.chain")?["status"] as? String == "passed")
        // The fixture passport's issuer is not an AAMVA member.
        #expect(check(report, "mdoc.issuer.chain")?["reason"] as? String == "noTrustAnchor")
        let today = await WalletVerifierCommand.runCapturing([
            "mdoc", "verify", "--device-response", setup.response, "--session-transcript", setup.transcript,
            "--vical", vical, "--vical-trust", anchor, "--at", "2026-11-21T00:00:00Z", "--format", "json",
        ])
        #expect(check(try json(today.stdout), "vical.chain")?["reason"] as? String == "certificateExpired")
        #expect(today.code == 1)
    }

    @Test func identityVerifyWithARevocationList() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let pki = try PassportPKI()
        let recipient = P256.KeyAgreement.PrivateKey()
        let nonce = [UInt8](repeating: 9, count: 32)
        let (merchant, team) = ("merchant.example", "TEAM000001")
        var fixture = PhotoIDFixture()
        fixture.status = try RevocationListFixture.identifierListStatus(id: Self.id, uri: Self.uri)
        let transcript = IdentityEnvelopeFixture.transcript(nonce: nonce, merchantID: merchant, teamID: team, recipient: recipient.publicKey)
        let response = try fixture.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let envelope = try IdentityEnvelopeFixture().envelope(
            deviceResponse: response, recipient: recipient.publicKey, nonce: nonce, merchantID: merchant, teamID: team)
        let envelopePath = try scratch.write("envelope.cbor", envelope)
        let keyPath = try scratch.write("merchant.pem", recipient.pemRepresentation)
        let iaca = try scratch.write("iaca.pem", pki.iacaPEM)
        func run(_ ids: [[UInt8]]) async throws -> (code: Int32, stdout: String, stderr: String) {
            let list = try RevocationListFixture(
                content: .identifiers(ids), uri: Self.uri, issuedAt: Self.time.addingTimeInterval(-60),
                expiresAt: Self.time.addingTimeInterval(86_400)
            )
            .signed(by: pki.revocation)
            let listPath = try scratch.write("list-\(ids.count).cwt", list)
            return await WalletVerifierCommand.runCapturing([
                "identity", "verify", "--envelope", envelopePath, "--merchant-key", keyPath,
                "--nonce", Hex.encode(nonce), "--merchant-id", merchant, "--team-id", team,
                "--trust-doctype", "\(PhotoIDFixture.docType)=\(iaca)", "--at", Self.at, "--revocation-list", listPath, "--format", "json",
            ])
        }
        let clean = try await run([])
        #expect(clean.code == 0, "\(clean.stdout)\(clean.stderr)")
        #expect(check(try json(clean.stdout), "mdoc.revocation.status")?["status"] as? String == "passed")
        #expect(try json(clean.stdout)["flow"] as? String == "walletIdentity")
        let revoked = try await run([Self.id])
        #expect(revoked.code == 1)
        #expect(check(try json(revoked.stdout), "mdoc.revocation.status")?["reason"] as? String == "revoked")
        #expect(!revoked.stdout.contains("Åsa"))
    }

    /// `identity verify --vical`: the in-app verifier puts the VICAL's checks first in its own report
    /// (no report is spliced afterwards), and trusts the VICAL's roots for their docTypes.
    @Test func identityVerifyWithAVICAL() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let pki = try PassportPKI()
        let recipient = P256.KeyAgreement.PrivateKey()
        let nonce = [UInt8](repeating: 7, count: 32)
        let (merchant, team) = ("merchant.example", "TEAM000001")
        let transcript = IdentityEnvelopeFixture.transcript(nonce: nonce, merchantID: merchant, teamID: team, recipient: recipient.publicKey)
        let response = try PhotoIDFixture().deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let envelope = try IdentityEnvelopeFixture().envelope(
            deviceResponse: response, recipient: recipient.publicKey, nonce: nonce, merchantID: merchant, teamID: team)
        var vical = try VICALFixture()
        vical.entries = [.init(pki.iaca, docTypes: [PhotoIDFixture.docType])]
        let result = await WalletVerifierCommand.runCapturing([
            "identity", "verify", "--envelope", try scratch.write("envelope.cbor", envelope),
            "--merchant-key", try scratch.write("merchant.pem", recipient.pemRepresentation),
            "--nonce", Hex.encode(nonce), "--merchant-id", merchant, "--team-id", team,
            "--vical", try scratch.write("vical.cbor", try vical.signed()), "--vical-trust", try scratch.write("anchor.pem", vical.anchorPEM),
            "--at", Self.at, "--revocation", "off", "--format", "json",
        ])
        #expect(result.code == 0, "\(result.stdout)\(result.stderr)")
        let report = try json(result.stdout)
        let ids = (report["checks"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        #expect(Array(ids.prefix(4)) == ["vical.structure", "vical.signature", "vical.chain", "vical.validity"], "\(ids)")
        #expect(ids.dropFirst(4).first == "identity.envelope.structure", "\(ids)")
        #expect(check(report, "mdoc.issuer.chain")?["status"] as? String == "passed")
        #expect(report["flow"] as? String == "walletIdentity")
    }
}
