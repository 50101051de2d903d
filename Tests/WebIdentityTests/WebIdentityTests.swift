import Crypto
import Foundation
import Mdoc
import MdocVerifier
import SwiftASN1
import Testing
import VerificationCore
import WalletCBOR
import WalletCOSE
import WalletEncoding
import WalletVerifierTestSupport
import X509

@testable import WebIdentity

private let capture = "mdoc/dcapi-annex-c-chrome-android-jmandel/"

/// The real Chrome/Android capture: decrypted with the published test key and verified at the time
/// its README gives.
@Suite struct RealAnnexCCaptureTests {
    static let origin = "http://127.0.0.1:3010"
    static let verifyAt = RFC3339.parse("2026-05-01T17:30:00Z")!
    static let capturedAt = RFC3339.parse("2026-05-01T17:27:18Z")!

    static func encryptionInfo() throws -> String {
        try TestVectors.text(capture + "request/encryption-info.b64u").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func recipientKey() throws -> P256.KeyAgreement.PrivateKey {
        try WebRecipientKey.load(contents: try TestVectors.data(capture + "request/recipient-private.jwk.json"), name: "recipient-private.jwk.json")
    }

    static func response() throws -> [UInt8] {
        try DCAPIEncryptedResponse.responseBytes(fromSubmission: try TestVectors.data(capture + "response/wallet-response.digital-credential.json"))
    }

    /// The demo issuer's self-signed document signer, pinned (it is the only way to trust it).
    static func pinnedStore() throws -> IACATrustStore {
        let plaintext = try TestVectors.data(capture + "response/device-response.cbor")
        let response = try DeviceResponse(cborBytes: plaintext)
        let der = try response.documents[0].issuerSigned.issuerAuth.headers.x5chain()[0]
        return IACATrustStore(certificates: [try Certificate(derEncoded: der)])
    }

    /// ISO strict, except that the demo document signer has no Annex B extensions and no country.
    static var demoPolicy: MdocVerificationPolicy {
        var policy = MdocVerificationPolicy.iso18013Strict
        policy.requirements = policy.requirements.with(.mdocIssuerCertificateProfile, .advisory).with(.mdocIssuerCountry, .advisory)
        return policy
    }

    @Test func theWireFormatsMatchTheCapture() throws {
        let info = try DCAPIEncryptionInfo(base64URL: try Self.encryptionInfo())
        #expect(info.bytes == (try TestVectors.data(capture + "request/encryption-info.cbor")))
        #expect(info.nonce.count == 32)
        #expect(info.recipientPublicKey.x963Representation == (try Self.recipientKey()).publicKey.x963Representation)
        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: try Self.encryptionInfo(), origin: Self.origin)
        #expect(transcript.bytes == (try TestVectors.data(capture + "request/session-transcript.cbor")))
        #expect(try Self.response() == (try TestVectors.data(capture + "response/dcapi-response.cbor")))
        let envelope = try DCAPIEncryptedResponse(cborBytes: try Self.response())
        #expect(envelope.enc.count == 65)
        // The base64url text alone is accepted as well.
        let text = try TestVectors.text(capture + "response/wallet-response.digital-credential.json")
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
        let b64 = (object["data"] as! [String: Any])["response"] as! String
        #expect(try DCAPIEncryptedResponse.responseBytes(fromSubmission: Array(b64.utf8)) == (try Self.response()))
    }

    @Test func theCaptureDecryptsAndVerifiesAtTheReadmeTime() async throws {
        let verifier = WebIdentityVerifier(trustStore: try Self.pinnedStore(), policy: Self.demoPolicy, revocation: .off(because: "not under test"))
        let result = await verifier.verify(
            response: try Self.response(), encryptionInfo: try Self.encryptionInfo(), origin: Self.origin,
            recipientKey: try Self.recipientKey(), context: .at(Self.verifyAt))
        let report = result.report
        #expect(report.verdict == .accepted, "\(report.failures.map { "\($0.id): \($0.message)" })")
        #expect(report.flow == "webIdentity")
        for id in [
            CheckID.webEnvelopeStructure, .webEnvelopeEncryptionInfo, .webEnvelopeDecryption, .webPlaintextStructure,
            .mdocIssuerSignature, .mdocIssuerChain, .mdocValueDigests, .mdocValidity, .mdocDeviceAuthentication,
        ] {
            #expect(report.check(id)?.status == .passed, "\(id)")
        }
        #expect(report.check(.mdocIssuerChain)?.details["pinned"] == "true")
        // The report names the protocol that answered.
        #expect(report.check(.webEnvelopeStructure)?.details["protocol"] == "org-iso-mdoc")
        // The demo signer has neither the Annex B extensions nor a country: reported, advisory here.
        #expect(report.check(.mdocIssuerCertificateProfile)?.status == .failed)
        #expect(report.check(.mdocIssuerCountry)?.status == .failed)
        let document = try #require(result.documents.first)
        #expect(document.docType == "org.smarthealthit.checkin.1")
        #expect(document.element("org.smarthealthit.checkin", "smart_health_checkin_response")?.stringValue?.isEmpty == false)

        // Under ISO strict the same response is rejected for exactly those two reasons.
        let strict = await WebIdentityVerifier(trustStore: try Self.pinnedStore(), revocation: .off(because: "not under test")).verify(
            response: try Self.response(), encryptionInfo: try Self.encryptionInfo(), origin: Self.origin, recipientKey: try Self.recipientKey(),
            context: .at(Self.verifyAt)
        ).report
        #expect(strict.verdict == .rejected)
        #expect(Set(strict.failures.map(\.id)) == [.mdocIssuerCertificateProfile, .mdocIssuerCountry])
    }

    /// The README's lesson: the MSO's validFrom is 3 s after the capture, so a verifier without
    /// clock-skew tolerance rejects the response at the moment it was captured.
    @Test func zeroClockSkewRejectsAtCaptureTime() async throws {
        var zeroSkew = Self.demoPolicy
        zeroSkew.clockSkew = .seconds(0)
        let strictClock = await WebIdentityVerifier(trustStore: try Self.pinnedStore(), policy: zeroSkew, revocation: .off(because: "not under test"))
            .verify(
                response: try Self.response(), encryptionInfo: try Self.encryptionInfo(), origin: Self.origin, recipientKey: try Self.recipientKey(),
                context: .at(Self.capturedAt)
            ).report
        #expect(strictClock.verdict == .rejected)
        #expect(strictClock.check(.mdocValidity)?.reason == "notYetValid")
        #expect(strictClock.check(.webEnvelopeDecryption)?.status == .passed)

        // The default 60 s tolerance accepts at capture time.
        let tolerant = await WebIdentityVerifier(
            trustStore: try Self.pinnedStore(), policy: Self.demoPolicy, revocation: .off(because: "not under test")
        ).verify(
            response: try Self.response(), encryptionInfo: try Self.encryptionInfo(), origin: Self.origin, recipientKey: try Self.recipientKey(),
            context: .at(Self.capturedAt)
        ).report
        #expect(tolerant.verdict == .accepted)
        // A day and more later the document signer and the MSO have expired.
        let late = await WebIdentityVerifier(trustStore: try Self.pinnedStore(), policy: Self.demoPolicy, revocation: .off(because: "not under test"))
            .verify(
                response: try Self.response(), encryptionInfo: try Self.encryptionInfo(), origin: Self.origin, recipientKey: try Self.recipientKey(),
                context: .at(Self.verifyAt.addingTimeInterval(2 * 86_400))
            ).report
        #expect(late.verdict == .rejected)
        #expect(late.check(.mdocValidity)?.reason == "expired")
    }

    @Test func anotherOriginOrKeyCannotOpenTheResponse() async throws {
        let verifier = WebIdentityVerifier(trustStore: try Self.pinnedStore(), policy: Self.demoPolicy, revocation: .off(because: "not under test"))
        let wrongOrigin = await verifier.verify(
            response: try Self.response(), encryptionInfo: try Self.encryptionInfo(), origin: "https://127.0.0.1:3010",
            recipientKey: try Self.recipientKey(), context: .at(Self.verifyAt)
        ).report
        #expect(wrongOrigin.verdict == .rejected)
        #expect(wrongOrigin.check(.webEnvelopeDecryption)?.reason == "decryptionFailed")
        #expect(wrongOrigin.check(.webPlaintextStructure)?.reason == .prerequisiteFailed)
        #expect(wrongOrigin.check(.mdocResponseStructure)?.reason == .prerequisiteFailed)

        let otherKey = await verifier.verify(
            response: try Self.response(), encryptionInfo: try Self.encryptionInfo(), origin: Self.origin,
            recipientKey: P256.KeyAgreement.PrivateKey(), context: .at(Self.verifyAt)
        ).report
        #expect(otherKey.check(.webEnvelopeEncryptionInfo)?.reason == "recipientKeyMismatch")
        #expect(otherKey.check(.webEnvelopeDecryption)?.reason == .prerequisiteFailed)

        var tampered = try Self.response()
        tampered[tampered.count - 20] ^= 0x01
        let altered = await verifier.verify(
            response: tampered, encryptionInfo: try Self.encryptionInfo(), origin: Self.origin,
            recipientKey: try Self.recipientKey(), context: .at(Self.verifyAt)
        ).report
        #expect(altered.check(.webEnvelopeDecryption)?.reason == "decryptionFailed")
    }

    @Test func keyFilesLoadAsJWKOrPEMAndPublicKeysAreRefused() throws {
        let jwk = try Self.recipientKey()
        let pem = try WebRecipientKey.load(contents: Array(jwk.pemRepresentation.utf8), name: "key.pem")
        #expect(pem.rawRepresentation == jwk.rawRepresentation)
        #expect(throws: WebKeyError.self) {
            try WebRecipientKey.load(contents: try TestVectors.data(capture + "request/recipient-public.jwk.json"), name: "public.jwk")
        }
        do {
            _ = try WebRecipientKey.load(contents: try TestVectors.data(capture + "request/recipient-public.jwk.json"), name: "public.jwk")
        } catch {
            #expect(String(describing: error).contains("no private part"))
        }
        #expect(throws: WebKeyError.self) { try WebRecipientKey.load(contents: Array(#"{"kty":"EC","crv":"P-384","d":"AA"}"#.utf8), name: "k") }
        #expect(throws: WebKeyError.self) { try WebRecipientKey.load(contents: Array("hello".utf8), name: "k") }
        // x and y that do not belong to d.
        let other = P256.KeyAgreement.PrivateKey()
        let mixed =
            #"{"kty":"EC","crv":"P-256","d":"\#(Base64.encodeURL(jwk.rawRepresentation))","x":"\#(Base64.encodeURL(other.publicKey.x963Representation.dropFirst().prefix(32)))","y":"\#(Base64.encodeURL(other.publicKey.x963Representation.suffix(32)))"}"#
        #expect(throws: WebKeyError.self) { try WebRecipientKey.load(contents: Array(mixed.utf8), name: "k") }
    }
}

/// The whole flow with fixtures: the server creates the request, a "wallet" answers it, the server
/// verifies it once.
@Suite struct WebSessionTests {
    let time = Date(timeIntervalSince1970: 1_700_000_000 + 3600)
    let origin = "https://verifier.example"

    var photoIDRequest: WebDocumentRequest { .photoIDFixture }

    func answer(_ presentation: WebPresentationRequest, pki: PassportPKI, fixture: PhotoIDFixture = PhotoIDFixture()) throws -> [UInt8] {
        let plaintext = try fixture.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: presentation.sessionTranscript)
        return try DCAPIResponseFixture.encrypt(
            plaintext, encryptionInfoBase64URL: presentation.encryptionInfo.base64URL, origin: presentation.origin,
            recipientPublicKey: presentation.encryptionInfo.recipientPublicKey)
    }

    @Test func theRequestHasTheAnnexCShape() throws {
        let key = P256.KeyAgreement.PrivateKey()
        let presentation = try WebPresentationRequest(
            request: photoIDRequest, origin: origin, nonce: Array(repeating: 5, count: 32), recipientPublicKey: key.publicKey)
        let json = try JSONSerialization.jsonObject(with: Data(presentation.navigatorCredentialsGetArgument.utf8)) as! [String: Any]
        let requests = (json["digital"] as! [String: Any])["requests"] as! [[String: Any]]
        #expect(requests.count == 1)
        #expect(requests[0]["protocol"] as? String == "org-iso-mdoc")
        let data = requests[0]["data"] as! [String: String]
        #expect(data["encryptionInfo"] == presentation.encryptionInfo.base64URL)
        let deviceRequestText = try #require(data["deviceRequest"])
        let deviceRequestBytes = try #require(Base64.decodeURL(deviceRequestText))
        let deviceRequest = try CBORDecoder.decode(deviceRequestBytes).map()
        #expect(deviceRequest["version"]?.textValue == "1.0")
        let items = try EmbeddedCBOR<CBORNode>(cbor: try deviceRequest["docRequests"]!.array()[0].map()["itemsRequest"]!).value.map()
        #expect(items["docType"]?.textValue == PhotoIDFixture.docType)
        let elements = try items["nameSpaces"]!.map()[PhotoIDFixture.nameSpace]!.map()
        #expect(elements.count == PhotoIDFixture.defaultElements.count)
        #expect(elements["document_number"]?.value == .boolean(true))
        #expect(elements["given_name_unicode"]?.value == .boolean(false))
        // EncryptionInfo round-trips and names the key.
        let info = try DCAPIEncryptionInfo(base64URL: presentation.encryptionInfo.base64URL)
        #expect(info.nonce == Array(repeating: 5, count: 32))
        #expect(info.recipientPublicKey.x963Representation == key.publicKey.x963Representation)
    }

    @Test func elementArgumentsParse() throws {
        let retained = try WebDocumentRequest.Element(argument: "org.iso.23220.1/document_number:retain")
        #expect(retained.nameSpace == "org.iso.23220.1" && retained.identifier == "document_number" && retained.intentToRetain)
        let plain = try WebDocumentRequest.Element(argument: "org.iso.18013.5.1/age_over_21")
        #expect(!plain.intentToRetain)
        for bad in ["no-slash", "/x", "ns/", "ns/a/b", "ns/:retain", "ns/a:b", "ns/x:retain:retain", "H/,:retain*"] {
            #expect(throws: WebRequestError.self) { try WebDocumentRequest.Element(argument: bad) }
        }
        #expect(throws: WebRequestError.self) { try WebDocumentRequest(docType: "d", elements: [plain, plain]).validate() }
    }

    @Test func aResponseIsAcceptedOnceThroughTheSessions() async throws {
        let pki = try PassportPKI()
        let recipient = P256.KeyAgreement.PrivateKey()
        let verifier = WebIdentityVerifier(
            trustStore: .includingPassports([pki.iaca]), policy: .passport, revocation: .off(because: "not under test"))
        let sessions = WebRequestSessions(store: InMemoryReplayStore(), verifier: verifier)
        let created = try await sessions.create(request: photoIDRequest, origin: origin, recipientPublicKey: recipient.publicKey, now: time)
        #expect(!created.description.contains(Hex.encode(created.presentation.encryptionInfo.nonce)))
        let response = try answer(created.presentation, pki: pki)

        let first = await sessions.verify(
            requestID: created.requestID, response: response, recipientKey: recipient, context: .at(time.addingTimeInterval(30)))
        #expect(first.report.verdict == .accepted, "\(first.report.failures.map { "\($0.id): \($0.message)" })")
        #expect(first.report.check(.replayNonce)?.status == .passed)
        #expect(first.report.check(.webRequestElements)?.status == .passed)
        #expect(first.report.check(.photoIDDocType)?.status == .passed)
        #expect(first.report.check(.photoIDElements)?.status == .passed)

        let replay = await sessions.verify(
            requestID: created.requestID, response: response, recipientKey: recipient, context: .at(time.addingTimeInterval(40)))
        #expect(replay.report.verdict == .rejected)
        #expect(replay.report.check(.replayNonce)?.reason == "nonceReused")
        #expect(replay.documents.isEmpty)

        let unknown = await sessions.verify(requestID: "nope", response: response, recipientKey: recipient, context: .at(time))
        #expect(unknown.report.check(.replayNonce)?.reason == "unknownRequest")

        let late = try await sessions.create(request: photoIDRequest, origin: origin, recipientPublicKey: recipient.publicKey, now: time)
        let expired = await sessions.verify(
            requestID: late.requestID, response: try answer(late.presentation, pki: pki), recipientKey: recipient,
            context: .at(time.addingTimeInterval(601)))
        #expect(expired.report.check(.replayNonce)?.reason == "nonceExpired")
    }

    /// The DC API gives the reader no key agreement with the device, so a deviceMac cannot be
    /// checked: it is a failed check (rejected), not an indeterminate "reader key required".
    @Test func aDeviceMacIsNotAllowed() async throws {
        let pki = try MdocPKI()
        let recipient = P256.KeyAgreement.PrivateKey()
        let request = WebDocumentRequest(
            docType: MdocFixture.mDL,
            elements: MdocFixture.defaultElements.map { .init(nameSpace: $0.nameSpace, identifier: $0.identifier, intentToRetain: false) })
        let presentation = try WebPresentationRequest(
            request: request, origin: origin, nonce: Array(repeating: 2, count: 32), recipientPublicKey: recipient.publicKey)
        var fixture = MdocFixture()
        fixture.macReaderKey = P256.KeyAgreement.PrivateKey().publicKey
        let plaintext = try fixture.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: presentation.sessionTranscript)
        let response = try DCAPIResponseFixture.encrypt(
            plaintext, encryptionInfoBase64URL: presentation.encryptionInfo.base64URL, origin: origin,
            recipientPublicKey: recipient.publicKey)
        let verifier = WebIdentityVerifier(
            trustStore: .includingPassports([pki.iaca]), policy: .iso18013Strict, revocation: .off(because: "not under test"))
        let result = await verifier.verify(
            response: response, encryptionInfo: presentation.encryptionInfo.base64URL, origin: origin, recipientKey: recipient, request: request,
            context: .at(time))
        let device = try #require(result.report.check(.mdocDeviceAuthentication))
        #expect(device.status == .failed)
        #expect(device.reason == .deviceMacNotAllowed)
        #expect(result.report.verdict == .rejected)
    }

    @Test func aResponseToAnotherRequestDoesNotOpen() async throws {
        let pki = try PassportPKI()
        let recipient = P256.KeyAgreement.PrivateKey()
        let verifier = WebIdentityVerifier(
            trustStore: .includingPassports([pki.iaca]), policy: .passport, revocation: .off(because: "not under test"))
        let sessions = WebRequestSessions(store: InMemoryReplayStore(), verifier: verifier)
        let one = try await sessions.create(request: photoIDRequest, origin: origin, recipientPublicKey: recipient.publicKey, now: time)
        let two = try await sessions.create(request: photoIDRequest, origin: origin, recipientPublicKey: recipient.publicKey, now: time)
        // The wallet answered request two; the page posts it against request one.
        let result = await sessions.verify(
            requestID: one.requestID, response: try answer(two.presentation, pki: pki), recipientKey: recipient, context: .at(time))
        #expect(result.report.check(.webEnvelopeDecryption)?.reason == "decryptionFailed")
        #expect(result.report.verdict == .rejected)
    }

    @Test func unrequestedElementsAndOtherDocTypesAreRejected() async throws {
        let pki = try PassportPKI()
        let recipient = P256.KeyAgreement.PrivateKey()
        let verifier = WebIdentityVerifier(
            trustStore: .includingPassports([pki.iaca]), policy: .iso18013Strict, revocation: .off(because: "not under test"))
        var narrow = photoIDRequest
        narrow.elements = narrow.elements.filter { $0.identifier != "portrait" }
        let presentation = try WebPresentationRequest(
            request: narrow, origin: origin, nonce: Array(repeating: 1, count: 32), recipientPublicKey: recipient.publicKey)
        let result = await verifier.verify(
            response: try answer(presentation, pki: pki), encryptionInfo: presentation.encryptionInfo.base64URL, origin: origin,
            recipientKey: recipient, request: narrow, context: .at(time))
        #expect(result.report.check(.webRequestElements)?.reason == "unrequestedElement")
        #expect(result.report.check(.webRequestElements)?.details["unrequested"] == "org.iso.23220.1/portrait")
        #expect(result.report.verdict == .rejected)

        var licence = PhotoIDFixture()
        licence.docType = MdocFixture.mDL
        let other = await verifier.verify(
            response: try answer(presentation, pki: pki, fixture: licence), encryptionInfo: presentation.encryptionInfo.base64URL,
            origin: origin, recipientKey: recipient, request: narrow, context: .at(time))
        // Refused whole before any signature: the docType was not asked for.
        #expect(other.report.check(.mdocResponseStructure)?.reason == "docTypeNotAccepted")
        #expect(other.report.check(.mdocIssuerSignature)?.status == .skipped)
        #expect(other.report.check(.mdocDocType)?.status == .skipped)
        #expect(other.report.check(.webRequestElements)?.status == .skipped)
        #expect(other.report.verdict == .rejected)
    }

    @Test func revocationIsCheckedInTheWebFlow() async throws {
        let pki = try PassportPKI()
        let recipient = P256.KeyAgreement.PrivateKey()
        let uri = "https://revocation.example/passport/1"
        let id: [UInt8] = [1, 2, 3, 4]
        var fixture = PhotoIDFixture()
        fixture.status = try RevocationListFixture.identifierListStatus(id: id, uri: uri)
        let list = try RevocationListFixture(
            content: .identifiers([id]), uri: uri, issuedAt: time.addingTimeInterval(-60), expiresAt: time.addingTimeInterval(86_400)
        )
        .signed(by: pki.revocation)
        var lists = OfflineRevocationLists()
        try lists.add(bytes: list, name: "passport-1.cwt")
        let store = IACATrustStore.includingPassports([pki.iaca])
        let verifier = WebIdentityVerifier(trustStore: store, policy: .passport, revocation: RevocationChecker(source: lists, trustStore: store))
        let presentation = try WebPresentationRequest(
            request: photoIDRequest, origin: origin, nonce: Array(repeating: 2, count: 32), recipientPublicKey: recipient.publicKey)
        let result = await verifier.verify(
            response: try answer(presentation, pki: pki, fixture: fixture), encryptionInfo: presentation.encryptionInfo.base64URL,
            origin: origin, recipientKey: recipient, request: photoIDRequest, context: .at(time))
        #expect(result.report.check(.mdocRevocationStatus)?.reason == "revoked")
        #expect(result.report.verdict == .rejected)
    }

    @Test(arguments: ["", "a0", "82656463617069a0", "8265646361706aa263656e634163636970686572546578744100", "ff"])
    func hostileResponsesFailTheEnvelopeCheck(_ input: String) async throws {
        let verifier = WebIdentityVerifier(trustStore: IACATrustStore(), revocation: .off(because: "not under test"))
        let report = await verifier.verify(
            response: Hex.decode(input) ?? [], encryptionInfo: "AAAA", origin: origin,
            recipientKey: P256.KeyAgreement.PrivateKey(), context: .at(time)
        ).report
        #expect(report.check(.webEnvelopeStructure)?.status == .failed)
        #expect(report.check(.webEnvelopeEncryptionInfo)?.reason == "malformedEncryptionInfo")
        #expect(report.verdict == .rejected)
    }
}

@Suite struct WebOriginParserTests {
    @Test func originsAsBrowsersSerializeThem() throws {
        let good: [(String, String)] = [
            ("https://shop.example", "https://shop.example"), ("HTTPS://Shop.Example", "https://shop.example"),
            ("https://shop.example:443", "https://shop.example"), ("https://shop.example:8443", "https://shop.example:8443"),
            ("https://shop.example/", "https://shop.example"), ("http://127.0.0.1:3010", "http://127.0.0.1:3010"),
            ("http://localhost:8080", "http://localhost:8080"), ("http://[::1]:80", "http://[::1]"),
            ("https://[2001:db8::1]", "https://[2001:db8::1]"),
        ]
        for (text, expected) in good { #expect(try WebOrigin.parse(text) == expected, "\(text)") }
        let bad = [
            "", "shop.example", "ftp://shop.example", "http://shop.example", "http://10.0.0.1", "https://shop.example/a",
            "https://shop.example?q", "https://shop.example#f", "https://u:p@shop.example", "https://shop.example:0",
            "https://shop.example:65536", "https://shop.example:x", "https://shop..example", "https://.shop.example",
            "https://shop example", "https://shop.example\u{0}", "https://shop.example\r\n", "https://shöp.example", "https://[::1",
            "https://shop.example//", "https://sh\\op.example",
        ]
        for text in bad { #expect(throws: WebRequestError.self, "\(text.debugDescription)") { try WebOrigin.parse(text) } }
    }

    /// Issue 29, item 5: http is for loopback hosts only, and a loopback host is parsed, not matched by prefix.
    @Test func httpOnlyForLoopbackLiterals() throws {
        for origin in ["http://127.0.0.1:3010", "http://127.1.2.3", "http://localhost:8080", "http://LOCALHOST", "http://[::1]:8080"] {
            #expect(throws: Never.self, "\(origin)") { try WebOrigin.parse(origin) }
        }
        for origin in [
            "http://127.attacker.example", "http://127.0.0.1.nip.io:3010", "http://localhost.attacker.example", "http://127.0.0.256",
            "http://127.0.0.01", "http://127.0.0", "http://[::2]",
        ] {
            #expect(throws: WebRequestError.self, "\(origin)") { try WebOrigin.parse(origin) }
        }
    }
}
