import Crypto
import Foundation
import Mdoc
import MdocVerifier
import SwiftASN1
import Testing
import VerificationCore
import WalletCBOR
import WalletEncoding
import WalletJOSE
import WalletJSON
import WalletVerifierTestSupport
import X509

@testable import WebIdentity

/// OpenID4VP 1.0 over the Digital Credentials API: the request, the transcript and the verifier,
/// with fixtures answering as a wallet would.
@Suite struct OpenID4VPTests {
    let time = Date(timeIntervalSince1970: 1_700_000_000 + 3600)
    let origin = "https://verifier.example"

    var photoIDRequest: WebDocumentRequest { .photoIDFixture }

    /// B.2.6.2: the OpenID4VPDCAPIHandoverInfo, handover and SessionTranscript examples.
    @Test func theSpecHandoverExample() throws {
        let thumbprint = try #require(Hex.decode("4283ec927ae0f208daaa2d026a814f2b22dca52cf85ffa8f3f8626c6bd669047"))
        let info = SessionTranscript.openID4VPDCAPIHandoverInfo(
            origin: "https://example.com", nonce: "exc7gBkxjx1rdc9udRrveKvSsJIq80avlXeLHhGwqtA", jwkThumbprint: thumbprint)
        #expect(
            Hex.encode(info.encodedBytes)
                == "837368747470733a2f2f6578616d706c652e636f6d782b6578633767426b786a783172646339756452727665"
                + "4b7653734a4971383061766c58654c486847777174415820" + "4283ec927ae0f208daaa2d026a814f2b22dca52cf85ffa8f3f8626c6bd669047")
        let transcript = SessionTranscript.openID4VPDigitalCredentials(
            origin: "https://example.com", nonce: "exc7gBkxjx1rdc9udRrveKvSsJIq80avlXeLHhGwqtA", jwkThumbprint: thumbprint)
        #expect(
            Hex.encode(transcript.bytes)
                == "83f6f682764f70656e4944345650444341504948616e646f7665725820fbece366f4212f9762c74cfdbf83b8c69e371d5d68cea09cb4c48ca6daab761a")
        // The same through a session record of the spec's key.
        let jwk = try JWK(
            json: Array(
                #"{"kty":"EC","crv":"P-256","x":"DxiH5Q4Yx3UrukE2lWCErq8N8bqC9CHLLrAwLz5BmE0","y":"XtLM4-3h5o3HUH0MHVJV0kyq0iBlrBwlh8qEDMZ4-Pc"}"#
                    .utf8))
        let session = OpenID4VPSession(
            protocol: .unsigned, nonce: "exc7gBkxjx1rdc9udRrveKvSsJIq80avlXeLHhGwqtA", origin: "https://example.com",
            jwkThumbprint: Base64.encodeURL(jwk.thumbprint), keyID: "1", clientID: nil, credentials: [:])
        #expect(session.sessionTranscript.bytes == transcript.bytes)
        #expect(!session.description.contains(session.nonce))
    }

    @Test func theUnsignedRequestHasTheOpenID4VPShape() throws {
        let recipient = P256.KeyAgreement.PrivateKey()
        let request = try OpenID4VPRequest(requests: [photoIDRequest], origin: origin, recipientPublicKey: recipient.publicKey)
        #expect(request.protocol == .unsigned)
        let object = try #require(try StrictJSON.parse(Array(request.data.utf8)).object)
        #expect(object["response_type"]?.string == "vp_token")
        #expect(object["response_mode"]?.string == "dc_api.jwt")
        #expect(object["client_id"] == nil && object["expected_origins"] == nil)
        let nonce = try #require(object["nonce"]?.string)
        #expect(Base64.decodeURL(nonce)?.count == 32)
        let query = try #require(object["dcql_query"]?.object?["credentials"]?.array)
        #expect(query.count == 1)
        let credential = try #require(query[0].object)
        #expect(credential["id"]?.string == "org_iso_23220_photoid_1")
        #expect(credential["format"]?.string == "mso_mdoc")
        #expect(credential["meta"]?.object?["doctype_value"]?.string == PhotoIDFixture.docType)
        let claims = try #require(credential["claims"]?.array)
        #expect(claims.count == PhotoIDFixture.defaultElements.count)
        let documentNumber = try #require(claims.first { $0.object?["path"]?.array?.last?.string == "document_number" }?.object)
        #expect(documentNumber["path"] == .array([.string(PhotoIDFixture.nameSpace), .string("document_number")]))
        #expect(documentNumber["intent_to_retain"] == .bool(true))
        let metadata = try #require(object["client_metadata"]?.object)
        let keys = try #require(metadata["jwks"]?.object?["keys"]?.array)
        #expect(keys.count == 1)
        let jwk = try JWK(object: try #require(keys[0].object))
        #expect(jwk.publicKey.x963Representation == recipient.publicKey.x963Representation)
        #expect(jwk.use == "enc" && jwk.algorithm == "ECDH-ES" && jwk.keyID == request.session.keyID)
        #expect(Base64.encodeURL(jwk.thumbprint) == request.session.jwkThumbprint)
        #expect(metadata["encrypted_response_enc_values_supported"] == .array([.string("A128GCM"), .string("A256GCM")]))
        #expect(metadata["vp_formats_supported"]?.object?["mso_mdoc"]?.object?["deviceauth_alg_values"]?.array?.isEmpty == false)
        // The session.
        #expect(request.session.nonce == nonce && request.session.origin == origin && request.session.clientID == nil)
        #expect(!request.description.contains(nonce) && !String(describing: request.session).contains(nonce))
        #expect(request.session.credentials["org_iso_23220_photoid_1"] == photoIDRequest)
        let entry = try #require(try StrictJSON.parse(Array(request.digitalCredentialsRequest.utf8)).object)
        #expect(entry["protocol"]?.string == "openid4vp-v1-unsigned")
        // A fresh nonce each time; a given one is used; a short one is refused.
        let other = try OpenID4VPRequest(requests: [photoIDRequest], origin: origin, recipientPublicKey: recipient.publicKey)
        #expect(other.session.nonce != request.session.nonce)
        let fixed = try OpenID4VPRequest(
            requests: [photoIDRequest], origin: origin, recipientPublicKey: recipient.publicKey, nonce: "n-0S6_WzA2Mj-n-0S6_WzA2Mj")
        #expect(fixed.session.nonce == "n-0S6_WzA2Mj-n-0S6_WzA2Mj")
        #expect(throws: WebRequestError.self) {
            try OpenID4VPRequest(requests: [photoIDRequest], origin: origin, recipientPublicKey: recipient.publicKey, nonce: "short")
        }
        #expect(throws: WebRequestError.self) { try OpenID4VPRequest(requests: [], origin: origin, recipientPublicKey: recipient.publicKey) }
        #expect(throws: WebRequestError.self) {
            try OpenID4VPRequest(requests: [photoIDRequest, photoIDRequest], origin: origin, recipientPublicKey: recipient.publicKey)
        }
        #expect(throws: WebRequestError.self) {
            try OpenID4VPRequest(requests: [photoIDRequest], origin: "http://verifier.example", recipientPublicKey: recipient.publicKey)
        }
    }

    static func signingChain(dnsNames: [String]) throws -> (P256.Signing.PrivateKey, [Certificate]) {
        let rootKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName { CommonName("Test RP Root") }
        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey), notValidBefore: Date(timeIntervalSince1970: 1_600_000_000),
            notValidAfter: Date(timeIntervalSince1970: 2_000_000_000), issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions { Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0)) },
            issuerPrivateKey: .init(rootKey))
        let leafKey = P256.Signing.PrivateKey()
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey), notValidBefore: Date(timeIntervalSince1970: 1_600_000_000),
            notValidAfter: Date(timeIntervalSince1970: 2_000_000_000), issuer: rootName, subject: try DistinguishedName { CommonName("rp") },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                if !dnsNames.isEmpty { SubjectAlternativeNames(dnsNames.map { .dnsName($0) }) }
            },
            issuerPrivateKey: .init(rootKey))
        return (leafKey, [leaf, root])
    }

    @Test func theSignedRequestIsAJWSWithAnX509ClientID() throws {
        let (key, chain) = try Self.signingChain(dnsNames: ["rp.example", "verifier.example"])
        let recipient = P256.KeyAgreement.PrivateKey()
        let signer = try OpenID4VPRequestSigner(key: key, certificates: chain, clientIDPrefix: .x509SanDNS(nil))
        #expect(signer.clientID == "x509_san_dns:rp.example")
        #expect(
            try OpenID4VPRequestSigner(key: key, certificates: chain, clientIDPrefix: .x509SanDNS("Verifier.Example")).clientID
                == "x509_san_dns:verifier.example")
        let request = try OpenID4VPRequest(requests: [photoIDRequest], origin: origin, recipientPublicKey: recipient.publicKey, signer: signer)
        #expect(request.protocol == .signed)
        let data = try #require(try StrictJSON.parse(Array(request.data.utf8)).object)
        #expect(data.count == 1)
        let jws = try #require(data["request"]?.string)
        let verified = try JWS.verifyES256(jws, publicKey: key.publicKey)
        #expect(verified.payload == request.requestObject)
        #expect(verified.header["typ"]?.string == "oauth-authz-req+jwt")
        #expect(verified.header["x5c"]?.array?.compactMap(\.string) == signer.chain.map { Base64.encode($0) })
        let object = try #require(try StrictJSON.parse(verified.payload).object)
        #expect(object["client_id"]?.string == "x509_san_dns:rp.example")
        #expect(object["expected_origins"] == .array([.string(origin)]))
        #expect(request.session.clientID == "x509_san_dns:rp.example" && request.session.protocol == .signed)

        let hashed = try OpenID4VPRequestSigner(key: key, certificates: chain, clientIDPrefix: .x509Hash)
        #expect(hashed.clientID == "x509_hash:" + Base64.encodeURL(SHA256.hash(data: signer.chain[0])))

        // A name the leaf does not hold, a leaf without DNS names, a key of another leaf.
        #expect(throws: WebRequestError.self) {
            try OpenID4VPRequestSigner(key: key, certificates: chain, clientIDPrefix: .x509SanDNS("other.example"))
        }
        let (bareKey, bare) = try Self.signingChain(dnsNames: [])
        #expect(throws: WebRequestError.self) { try OpenID4VPRequestSigner(key: bareKey, certificates: bare, clientIDPrefix: .x509SanDNS(nil)) }
        #expect(try OpenID4VPRequestSigner(key: bareKey, certificates: bare, clientIDPrefix: .x509Hash).clientID.hasPrefix("x509_hash:"))
        #expect(throws: WebRequestError.self) { try OpenID4VPRequestSigner(key: bareKey, certificates: chain, clientIDPrefix: .x509Hash) }
        #expect(throws: WebRequestError.self) { try OpenID4VPRequestSigner(key: key, certificates: [], clientIDPrefix: .x509Hash) }
    }

    @Test func sessionRecordsRoundTripAndOldOnesDecode() throws {
        let request = try OpenID4VPRequest(requests: [photoIDRequest], origin: origin, recipientPublicKey: P256.KeyAgreement.PrivateKey().publicKey)
        let encoded = try JSONEncoder().encode(request.session)
        #expect(try JSONDecoder().decode(OpenID4VPSession.self, from: encoded) == request.session)
        // A record without version (the first format) decodes as version 1.
        let old = #"{"protocol":"openid4vp-v1-unsigned","nonce":"abc","origin":"https://a.example","jwkThumbprint":"t","keyID":"k","credentials":{}}"#
        let decoded = try JSONDecoder().decode(OpenID4VPSession.self, from: Data(old.utf8))
        #expect(decoded.version == 1 && decoded.clientID == nil)
    }

    // MARK: - The response

    struct Setup {
        let pki: PassportPKI
        let recipient: P256.KeyAgreement.PrivateKey
        let request: OpenID4VPRequest
        let verifier: OpenID4VPVerifier
    }

    func setup(policy: MdocVerificationPolicy = .passport, request: WebDocumentRequest? = nil) throws -> Setup {
        let pki = try PassportPKI()
        let recipient = P256.KeyAgreement.PrivateKey()
        let built = try OpenID4VPRequest(requests: [request ?? photoIDRequest], origin: origin, recipientPublicKey: recipient.publicKey)
        let verifier = OpenID4VPVerifier(
            mdocVerifier: MdocVerifier(trustStore: .includingPassports([pki.iaca]), policy: policy), revocation: .off(because: "not under test"))
        return Setup(pki: pki, recipient: recipient, request: built, verifier: verifier)
    }

    /// The wallet's answer: a DeviceResponse for `transcript` in `vp_token[id]`, encrypted to `to` as `{"response": JWE}`.
    static func answer(
        _ setup: Setup, fixture: PhotoIDFixture = PhotoIDFixture(), transcript: SessionTranscript? = nil, id: String? = nil,
        encryption: JWEContentEncryption = .a128gcm, keyID: String? = nil, to key: P256.KeyAgreement.PublicKey? = nil
    ) throws -> [UInt8] {
        let deviceResponse = try fixture.deviceResponse(
            pki: setup.pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript ?? setup.request.sessionTranscript)
        let payload = #"{"vp_token":{"\#(id ?? setup.request.dcqlQuery.credentials[0].id)":["\#(Base64.encodeURL(deviceResponse))"]}}"#
        let jwe = try JWE.encrypt(
            Array(payload.utf8), to: key ?? setup.recipient.publicKey, encryption: encryption, keyID: keyID ?? setup.request.session.keyID)
        return Array(#"{"response":"\#(jwe)"}"#.utf8)
    }

    func verify(_ setup: Setup, _ response: [UInt8], keys: [P256.KeyAgreement.PrivateKey]? = nil) async -> WebVerificationResult {
        await setup.verifier.verify(response: response, session: setup.request.session, recipientKeys: keys ?? [setup.recipient], context: .at(time))
    }

    @Test(arguments: JWEContentEncryption.allCases)
    func aWalletAnswerIsAccepted(_ encryption: JWEContentEncryption) async throws {
        let setup = try setup()
        let result = await verify(setup, try Self.answer(setup, encryption: encryption), keys: [P256.KeyAgreement.PrivateKey(), setup.recipient])
        let report = result.report
        #expect(report.verdict == .accepted, "\(report.failures.map { "\($0.id): \($0.message)" })")
        #expect(report.flow == "webIdentity")
        let response = try #require(report.check(.webOpenID4VPResponse))
        #expect(response.details["protocol"] == "openid4vp-v1-unsigned" && response.details["enc"] == encryption.rawValue)
        for id in [
            CheckID.webOpenID4VPCredentials, .mdocDeviceAuthentication, .mdocIssuerChain, .webRequestElements, .photoIDDocType, .photoIDElements,
        ] {
            #expect(report.check(id)?.status == .passed, "\(id)")
        }
        #expect(result.documents.first?.docType == PhotoIDFixture.docType)
        // Nothing of the nonce in the report.
        let json = String(decoding: try JSONEncoder().encode(report), as: UTF8.self)
        #expect(!json.contains(setup.request.session.nonce))
        // The JWE alone is accepted too, and the whole credential.
        let jwe = try #require(try StrictJSON.parse(try Self.answer(setup)).object?["response"]?.string)
        #expect(await verify(setup, Array(jwe.utf8)).report.verdict == .accepted)
        let credential = #"{"protocol":"openid4vp-v1-unsigned","data":{"response":"\#(jwe)"}}"#
        #expect(await verify(setup, Array(credential.utf8)).report.verdict == .accepted)
        let signedCredential = #"{"protocol":"openid4vp-v1-signed","data":{"response":"\#(jwe)"}}"#
        #expect(await verify(setup, Array(signedCredential.utf8)).report.check(.webOpenID4VPResponse)?.reason == .malformedResponse)
    }

    @Test func anotherOriginFailsTheDeviceSignatureWithAClearMessage() async throws {
        let setup = try setup()
        let session = setup.request.session
        let other = SessionTranscript.openID4VPDigitalCredentials(
            origin: "https://attacker.example", nonce: session.nonce, jwkThumbprint: Base64.decodeURL(session.jwkThumbprint))
        let report = await verify(setup, try Self.answer(setup, transcript: other)).report
        #expect(report.verdict == .rejected)
        #expect(report.check(.webOpenID4VPResponse)?.status == .passed)
        let device = try #require(report.check(.mdocDeviceAuthentication))
        #expect(device.reason == .deviceSignatureInvalid)
        #expect(device.message.contains(origin) && device.message.contains(session.jwkThumbprint))
        #expect(!device.message.contains(session.nonce) && !device.message.contains(session.nonce.prefix(8)))
        #expect(device.details["origin"] == origin && device.details["jwkThumbprint"] == session.jwkThumbprint)
        #expect(device.scope == "document[0]")
        // Only the failed device signature names the transcript.
        #expect(report.checks.filter { $0.message.contains("OpenID4VP transcript used here") }.map(\.id) == [.mdocDeviceAuthentication])
        // Another nonce or another key thumbprint: the same.
        let otherNonce = SessionTranscript.openID4VPDigitalCredentials(
            origin: origin, nonce: OpenID4VPRequest.freshNonce(), jwkThumbprint: Base64.decodeURL(session.jwkThumbprint))
        #expect(
            await verify(setup, try Self.answer(setup, transcript: otherNonce)).report.check(.mdocDeviceAuthentication)?.reason
                == .deviceSignatureInvalid)
        let otherKey = SessionTranscript.openID4VPDigitalCredentials(
            origin: origin, nonce: session.nonce, jwkThumbprint: [UInt8](repeating: 1, count: 32))
        #expect(
            await verify(setup, try Self.answer(setup, transcript: otherKey)).report.check(.mdocDeviceAuthentication)?.reason
                == .deviceSignatureInvalid)
    }

    @Test func theTranscriptTheWalletSignedIsNamed() async throws {
        let setup = try setup()
        let session = setup.request.session
        var verifier = setup.verifier
        verifier.explainDeviceFailures = true
        let thumbprint = Base64.decodeURL(session.jwkThumbprint)
        let cases: [(SessionTranscript, String?)] = [
            (.openID4VPDigitalCredentials(origin: origin + "/", nonce: session.nonce, jwkThumbprint: thumbprint), "originTrailingSlash"),
            (.openID4VPDigitalCredentialsDraft24(origin: origin, nonce: session.nonce), "otherProtocol:openid4vp-draft24"),
            (.openID4VPDigitalCredentials(origin: origin, nonce: session.nonce, jwkThumbprint: nil), "noKeyThumbprint"),
            (.openID4VPDigitalCredentials(origin: "https://attacker.example", nonce: session.nonce, jwkThumbprint: thumbprint), nil),
        ]
        for (signed, label) in cases {
            let report = await verifier.verify(
                response: try Self.answer(setup, transcript: signed), session: session, recipientKeys: [setup.recipient], context: .at(time)
            ).report
            #expect(report.verdict == .rejected)
            let device = try #require(report.check(.mdocDeviceAuthentication))
            #expect(device.reason == .deviceSignatureInvalid)
            #expect(device.details["transcriptDiagnosis"] == label, "\(device.message)")
            #expect(device.message.contains("The device signed the transcript of") == (label != nil))
            #expect(!device.message.contains(session.nonce))
        }
        // The thumbprint of another configured web key (here: the key list's first), in place of the request's key's.
        let other = P256.KeyAgreement.PrivateKey()
        let otherThumbprint = JWK(publicKey: other.publicKey).thumbprint
        let signedForOtherKey = await verifier.verify(
            response: try Self.answer(
                setup, transcript: .openID4VPDigitalCredentials(origin: origin, nonce: session.nonce, jwkThumbprint: otherThumbprint)),
            session: session, recipientKeys: [other, setup.recipient], context: .at(time)
        ).report
        let otherKeyCheck = try #require(signedForOtherKey.check(.mdocDeviceAuthentication))
        #expect(otherKeyCheck.details["transcriptDiagnosis"] == "otherKeyThumbprint", "\(otherKeyCheck.message)")
        #expect(!otherKeyCheck.message.contains(Base64.encodeURL(otherThumbprint)))
        // The same answer when that key is not configured: no candidate names it.
        let unconfigured = await verifier.verify(
            response: try Self.answer(
                setup, transcript: .openID4VPDigitalCredentials(origin: origin, nonce: session.nonce, jwkThumbprint: otherThumbprint)),
            session: session, recipientKeys: [setup.recipient], context: .at(time)
        ).report
        #expect(unconfigured.check(.mdocDeviceAuthentication)?.details["transcriptDiagnosis"] == nil)
        // Another protocol the request offered beside OpenID4VP (Annex C), given by the caller.
        let info = try DCAPIEncryptionInfo(nonce: Array(repeating: 9, count: 16), recipientPublicKey: setup.recipient.publicKey).base64URL
        let annexC = await verifier.verify(
            response: try Self.answer(setup, transcript: .dcapi(encryptionInfoBase64URL: info, origin: origin)), session: session,
            recipientKeys: [setup.recipient], context: .at(time),
            offeredAlongside: [WebTranscriptCandidates.annexCTranscript(encryptionInfo: info, origin: origin)]
        ).report
        #expect(annexC.check(.mdocDeviceAuthentication)?.details["transcriptDiagnosis"] == "otherProtocol:org-iso-mdoc")
        // Off by default.
        let plain = await verify(
            setup,
            try Self.answer(
                setup, transcript: .openID4VPDigitalCredentials(origin: origin + "/", nonce: session.nonce, jwkThumbprint: thumbprint))
        ).report
        #expect(plain.check(.mdocDeviceAuthentication)?.details["transcriptDiagnosis"] == nil)
    }

    @Test func keysAndKeyIDsThatDoNotMatchAreNamed() async throws {
        let setup = try setup()
        let wrongKid = await verify(setup, try Self.answer(setup, keyID: "other")).report
        let check = try #require(wrongKid.check(.webOpenID4VPResponse))
        #expect(check.reason == .unknownKeyID && check.message.contains("\"other\"") && check.message.contains(setup.request.session.keyID))
        #expect(wrongKid.check(.webOpenID4VPCredentials)?.reason == .prerequisiteFailed)
        #expect(wrongKid.check(.mdocResponseStructure)?.reason == .prerequisiteFailed)
        // The request's key is no longer configured.
        let rotated = await verify(setup, try Self.answer(setup), keys: [P256.KeyAgreement.PrivateKey()]).report
        #expect(rotated.check(.webOpenID4VPResponse)?.reason == .unknownKeyID)
        #expect(rotated.check(.webOpenID4VPResponse)?.message.contains(setup.request.session.jwkThumbprint) == true)
        // Encrypted to another key under the right kid: decryption fails.
        let otherKey = await verify(setup, try Self.answer(setup, to: P256.KeyAgreement.PrivateKey().publicKey)).report
        #expect(otherKey.check(.webOpenID4VPResponse)?.reason == .decryptionFailed)
    }

    @Test func credentialIDsAndDocTypesMustMatchTheQuery() async throws {
        let setup = try setup()
        let unrequested = await verify(setup, try Self.answer(setup, id: "something_else")).report
        #expect(unrequested.check(.webOpenID4VPCredentials)?.reason == .unrequestedCredential)
        #expect(unrequested.check(.webOpenID4VPCredentials)?.details["reasons"] == "unrequestedCredential,missingCredential")
        #expect(unrequested.verdict == .rejected)

        var licence = PhotoIDFixture()
        licence.docType = MdocFixture.mDL
        let wrongDocType = await verify(setup, try Self.answer(setup, fixture: licence)).report
        #expect(wrongDocType.check(.webOpenID4VPCredentials)?.reason == .wrongDocType)
        // Not verified at all: the mdoc checks are skipped after the credentials check.
        #expect(wrongDocType.check(.mdocResponseStructure)?.details["prerequisite"] == "web.openid4vp.credentials")
        #expect(wrongDocType.check(.mdocIssuerSignature) == nil)
        #expect(wrongDocType.verdict == .rejected)

        // Two presentations for one query that asked for one (DCQL multiple is false), each genuine.
        let id = setup.request.dcqlQuery.credentials[0].id
        let one = try PhotoIDFixture().deviceResponse(
            pki: setup.pki, deviceKey: P256.Signing.PrivateKey(), transcript: setup.request.sessionTranscript)
        let two = try PhotoIDFixture().deviceResponse(
            pki: setup.pki, deviceKey: P256.Signing.PrivateKey(), transcript: setup.request.sessionTranscript)
        let payload = #"{"vp_token":{"\#(id)":["\#(Base64.encodeURL(one))","\#(Base64.encodeURL(two))"]}}"#
        let jwe = try JWE.encrypt(Array(payload.utf8), to: setup.recipient.publicKey, keyID: setup.request.session.keyID)
        let repeated = await verify(setup, Array(#"{"response":"\#(jwe)"}"#.utf8)).report
        #expect(repeated.check(.webOpenID4VPCredentials)?.reason == .tooManyPresentations)
        #expect(repeated.verdict == .rejected)

        // Unrequested elements.
        var narrow = photoIDRequest
        narrow.elements = narrow.elements.filter { $0.identifier != "portrait" }
        let narrowSetup = try self.setup(request: narrow)
        let extra = await verify(narrowSetup, try Self.answer(narrowSetup)).report
        #expect(extra.check(.webRequestElements)?.reason == "unrequestedElement")
        #expect(extra.verdict == .rejected)
    }

    @Test func alteredOrMalformedResponsesAreRefused() async throws {
        let setup = try setup()
        let answer = try Self.answer(setup)
        let jwe = try #require(try StrictJSON.parse(answer).object?["response"]?.string)
        var parts = jwe.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        parts[3] = String(parts[3].first == "A" ? "B" : "A") + parts[3].dropFirst()
        let altered = await verify(setup, Array(parts.joined(separator: ".").utf8)).report
        #expect(altered.check(.webOpenID4VPResponse)?.reason == .decryptionFailed)
        #expect(altered.verdict == .rejected)

        func reason(payload: String) async throws -> ReasonCode? {
            let jwe = try JWE.encrypt(Array(payload.utf8), to: setup.recipient.publicKey, keyID: setup.request.session.keyID)
            return await verify(setup, Array(jwe.utf8)).report.check(.webOpenID4VPResponse)?.reason
        }
        #expect(try await reason(payload: "[]") == .malformedVPToken)
        #expect(try await reason(payload: #"{"vp_token":{}}"#) == .malformedVPToken)
        #expect(try await reason(payload: #"{"vp_token":{"a":[]}}"#) == .malformedVPToken)
        #expect(try await reason(payload: #"{"vp_token":{"a":["eyJhb...YMetA"]}}"#) == .malformedVPToken)
        #expect(try await reason(payload: #"{"vp_token":{"a":["AA=="]}}"#) == .malformedVPToken)
        #expect(try await reason(payload: #"{"vp_token":"x"}"#) == .malformedVPToken)
        #expect(try await reason(payload: #"{"vp_token":{"a":["AA"]},"vp_token":{}}"#) == .malformedVPToken)
        // A presentation that is not a DeviceResponse.
        let garbage = #"{"vp_token":{"\#(setup.request.dcqlQuery.credentials[0].id)":["oA"]}}"#
        let garbageJWE = try JWE.encrypt(Array(garbage.utf8), to: setup.recipient.publicKey, keyID: setup.request.session.keyID)
        let report = await verify(setup, Array(garbageJWE.utf8)).report
        #expect(report.check(.webOpenID4VPCredentials)?.reason == .malformedPresentation)

        for submission in [
            "", "{}", "null", #"{"response":1}"#, #"{"error":"access_denied"}"#, "not a jwe", #"{"protocol":"org-iso-mdoc","data":{}}"#,
        ] {
            let check = await verify(setup, Array(submission.utf8)).report.check(.webOpenID4VPResponse)
            #expect(check?.status == .failed, "\(submission)")
        }
        #expect(await verify(setup, Array(#"{"error":"access_denied"}"#.utf8)).report.check(.webOpenID4VPResponse)?.reason == .walletError)
    }

    @Test func theRequestIsConsumedOnlyByABoundResponse() async throws {
        let setup = try setup()
        final class Counter: @unchecked Sendable { var count = 0 }
        let counter = Counter()
        let consume: () async -> CheckOutcome = {
            counter.count += 1
            return .passed("Consumed.")
        }
        let provisional = CheckOutcome.passed("Found.")
        let session = setup.request.session
        let good = await setup.verifier.verify(
            response: try Self.answer(setup), session: session, recipientKeys: [setup.recipient], context: .at(time), nonceOutcome: provisional,
            consume: consume
        ).report
        #expect(good.verdict == .accepted && counter.count == 1)
        #expect(good.check(.replayNonce)?.message == "Consumed.")

        let other = SessionTranscript.openID4VPDigitalCredentials(
            origin: "https://attacker.example", nonce: session.nonce, jwkThumbprint: Base64.decodeURL(session.jwkThumbprint))
        let unbound = await setup.verifier.verify(
            response: try Self.answer(setup, transcript: other), session: session, recipientKeys: [setup.recipient], context: .at(time),
            nonceOutcome: provisional, consume: consume
        ).report
        #expect(counter.count == 1)
        #expect(unbound.check(.replayNonce)?.status == .skipped)
        #expect(unbound.check(.replayNonce)?.details["prerequisite"] == "mdoc.device.authentication")

        let reused = await setup.verifier.verify(
            response: try Self.answer(setup), session: session, recipientKeys: [setup.recipient], context: .at(time),
            nonceOutcome: .failed(.nonceReused, "Replay."), consume: consume
        ).report
        #expect(counter.count == 1 && reused.verdict == .rejected)
        #expect(reused.check(.webOpenID4VPResponse)?.reason == .prerequisiteFailed)
    }

    @Test func aDeviceMacIsNotAllowed() async throws {
        let pki = try MdocPKI()
        let recipient = P256.KeyAgreement.PrivateKey()
        let request = WebDocumentRequest(
            docType: MdocFixture.mDL,
            elements: MdocFixture.defaultElements.map { .init(nameSpace: $0.nameSpace, identifier: $0.identifier, intentToRetain: false) })
        let built = try OpenID4VPRequest(requests: [request], origin: origin, recipientPublicKey: recipient.publicKey)
        var fixture = MdocFixture()
        fixture.macReaderKey = P256.KeyAgreement.PrivateKey().publicKey
        let deviceResponse = try fixture.deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: built.sessionTranscript)
        let payload = #"{"vp_token":{"\#(built.dcqlQuery.credentials[0].id)":["\#(Base64.encodeURL(deviceResponse))"]}}"#
        let jwe = try JWE.encrypt(Array(payload.utf8), to: recipient.publicKey, keyID: built.session.keyID)
        let verifier = OpenID4VPVerifier(
            mdocVerifier: MdocVerifier(trustStore: .includingPassports([pki.iaca]), policy: .iso18013Strict),
            revocation: .off(because: "not under test"))
        let report = await verifier.verify(response: Array(jwe.utf8), session: built.session, recipientKeys: [recipient], context: .at(time)).report
        #expect(report.check(.mdocDeviceAuthentication)?.reason == .deviceMacNotAllowed)
        #expect(report.verdict == .rejected)
    }

    @Test func twoDocTypesInOneRequestAreScopedPerPresentation() async throws {
        let pki = try PassportPKI()
        let recipient = P256.KeyAgreement.PrivateKey()
        var licence = photoIDRequest
        licence.docType = MdocFixture.mDL
        let built = try OpenID4VPRequest(requests: [photoIDRequest, licence], origin: origin, recipientPublicKey: recipient.publicKey)
        var licenceFixture = PhotoIDFixture()
        licenceFixture.docType = MdocFixture.mDL
        let device = P256.Signing.PrivateKey()
        let photo = try PhotoIDFixture().deviceResponse(pki: pki, deviceKey: device, transcript: built.sessionTranscript)
        let mdl = try licenceFixture.deviceResponse(pki: pki, deviceKey: device, transcript: built.sessionTranscript)
        let ids = built.dcqlQuery.credentials.map(\.id)
        let payload = #"{"vp_token":{"\#(ids[0])":["\#(Base64.encodeURL(photo))"],"\#(ids[1])":["\#(Base64.encodeURL(mdl))"]}}"#
        let jwe = try JWE.encrypt(Array(payload.utf8), to: recipient.publicKey, encryption: .a256gcm, keyID: built.session.keyID)
        let verifier = OpenID4VPVerifier(
            mdocVerifier: MdocVerifier(trustStore: .includingPassports([pki.iaca]), policy: .iso18013Strict),
            revocation: .off(because: "not under test"))
        let report = await verifier.verify(response: Array(jwe.utf8), session: built.session, recipientKeys: [recipient], context: .at(time)).report
        #expect(report.check(.webOpenID4VPCredentials)?.status == .passed)
        #expect(report.results(.mdocDeviceAuthentication).count == 2)
        #expect(report.check(.mdocDeviceAuthentication, scope: "vp_token.\(ids[1])[0].document[0]")?.status == .passed)
        #expect(report.check(.webRequestElements, scope: "vp_token.\(ids[0])[0]")?.status == .passed)
        #expect(report.check(.mdocDeviceAuthentication, scope: "vp_token.\(ids[0])[0].document[0]")?.status == .passed)

        // The licence signed over another origin's transcript: its device signature fails, in its
        // presentation's scope, naming this request's transcript; the photo ID's passes.
        let elsewhere = SessionTranscript.openID4VPDigitalCredentials(
            origin: "https://attacker.example", nonce: built.session.nonce, jwkThumbprint: Base64.decodeURL(built.session.jwkThumbprint))
        let misbound = try licenceFixture.deviceResponse(pki: pki, deviceKey: device, transcript: elsewhere)
        let mixed = #"{"vp_token":{"\#(ids[0])":["\#(Base64.encodeURL(photo))"],"\#(ids[1])":["\#(Base64.encodeURL(misbound))"]}}"#
        let mixedJWE = try JWE.encrypt(Array(mixed.utf8), to: recipient.publicKey, encryption: .a256gcm, keyID: built.session.keyID)
        let rejected = await verifier.verify(
            response: Array(mixedJWE.utf8), session: built.session, recipientKeys: [recipient], context: .at(time)
        ).report
        let failed = try #require(rejected.check(.mdocDeviceAuthentication, scope: "vp_token.\(ids[1])[0].document[0]"))
        #expect(failed.status == .failed && failed.message.contains("OpenID4VP transcript used here") && failed.message.contains(origin))
        #expect(failed.details["origin"] == origin && failed.details["jwkThumbprint"] == built.session.jwkThumbprint)
        let passed = try #require(rejected.check(.mdocDeviceAuthentication, scope: "vp_token.\(ids[0])[0].document[0]"))
        #expect(passed.status == .passed && !passed.message.contains("OpenID4VP transcript used here"))
    }
}
