import ApplePayVerifier
import Crypto
import Foundation
import GooglePayVerifier
import Mdoc
import MdocVerifier
import SwiftASN1
import Testing
import VerificationCore
import VerificationReceipts
import WalletCBOR
import WalletEncoding
import WalletIdentity
import WalletJOSE
import WalletJSON
import WalletVerifierTestSupport
import WebIdentity
import X509

/// Every flow's accepted answer, built from fixtures whose personal values are known, gets a receipt
/// that verifies, states the report's checks exactly, and holds none of those values in any encoding
/// — nor the nonce, the PAN, the cryptogram or the transaction identifier.
@Suite struct ReceiptPrivacyTests {
    static let key = P256.Signing.PrivateKey()
    static let signer = try! ReceiptSigningKey(privateKey: key)

    /// The mDL fixture's personal values, as text and as the CBOR the document carried.
    static let mdocValues: [[UInt8]] = [
        Array("Mustermann".utf8), Array("Erika".utf8), Array("1984-01-26".utf8), Array("D1234567".utf8),
        [0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4],
    ]

    /// Every form a value could take in a receipt: itself, base64, base64url, hex (both cases) and as a CBOR text or byte string.
    static func forms(_ value: [UInt8]) -> [[UInt8]] {
        let base64 = Base64.encode(value).trimmingCharacters(in: CharacterSet(charactersIn: "="))
        let base64URL = Base64.encodeURL(value)
        var forms: [[UInt8]] = [value, Array(base64.utf8), Array(base64URL.utf8), Array(Hex.encode(value).utf8)]
        forms.append(Array(Hex.encode(value, uppercase: true).utf8))
        if let text = String(bytes: value, encoding: .utf8) { forms.append(CBORNode.text(text).encodedBytes.map { $0 }) }
        forms.append(CBORNode.bytes(value).encodedBytes.map { $0 })
        return forms
    }

    /// Asserts the receipt verifies, has the report's checks, and holds none of `secrets`.
    func inspect(_ content: ReceiptContent, secrets: [[UInt8]], sourceLocation: SourceLocation = #_sourceLocation) async throws -> StrictJSON.Object {
        let issued = try await VerificationReceipt.issue(content, signer: Self.signer, issuer: "https://verifier.example", now: Date())
        let jwks = ReceiptKeySet.json([Self.signer.publicJWK])
        let verified = try ReceiptVerifier.verify(issued.jws, jwks: Array(jwks.utf8))
        #expect(verified.payload == issued.payload, sourceLocation: sourceLocation)
        let claims = verified.claims
        #expect(claims["verdict"]?.string == content.report.verdict.rawValue, sourceLocation: sourceLocation)
        #expect(claims["flow"]?.string == content.flow, sourceLocation: sourceLocation)
        let checks = try #require(claims["checks"]?.array, sourceLocation: sourceLocation)
        #expect(checks.count == content.report.checks.count, sourceLocation: sourceLocation)
        for (stated, check) in zip(checks, content.report.checks) {
            let object = try #require(stated.object, sourceLocation: sourceLocation)
            #expect(object["id"]?.string == check.id.rawValue, sourceLocation: sourceLocation)
            #expect(object["status"]?.string == check.status.rawValue, sourceLocation: sourceLocation)
            #expect(object["reason"]?.string == check.reason.rawValue, sourceLocation: sourceLocation)
            #expect(object["scope"]?.string == check.scope, sourceLocation: sourceLocation)
            #expect(object["message"] == nil, sourceLocation: sourceLocation)
        }
        let haystacks = [issued.payload, Array(issued.jws.utf8)]
        // The scan finds what is there: the flow's name, in the payload and (base64url) in the JWS.
        #expect(Self.contains(issued.payload, Array("\"flow\":\"\(content.flow)\"".utf8)), sourceLocation: sourceLocation)
        #expect(Self.contains(Array(issued.jws.utf8), Array(issued.jws.split(separator: ".")[1].prefix(8).utf8)), sourceLocation: sourceLocation)
        for secret in secrets {
            for form in Self.forms(secret) where form.count >= 4 {
                for haystack in haystacks {
                    #expect(
                        !Self.contains(haystack, form), "the receipt holds \(String(decoding: form, as: UTF8.self))", sourceLocation: sourceLocation)
                }
            }
        }
        return claims
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { start in haystack[start..<(start + needle.count)].elementsEqual(needle) }
    }

    static let time = Date(timeIntervalSince1970: 1_700_000_000 + 3600)

    static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    @Test func anInAppIdentityReceipt() async throws {
        let recipient = P256.KeyAgreement.PrivateKey()
        let pki = try MdocPKI()
        let (merchant, team) = ("merchant.com.example", "TEAM123456")
        let verifier = AppleIdentityVerifier(
            keyRing: IdentityKeyRing([recipient]), merchantID: merchant, teamID: team, trustStore: IACATrustStore(certificates: [pki.iaca]),
            revocation: .off(because: "not under test"))
        let sessions = IdentityRequestSessions(store: InMemoryReplayStore(), verifier: verifier)
        let descriptor = IdentityRequestDescriptor(
            document: .driversLicense,
            elements: [
                .init(.givenName, intentToStore: .willNotStore), .init(.familyName, intentToStore: .willNotStore),
                .init(.age, atLeast: 21, intentToStore: .willNotStore), .init(.portrait, intentToStore: .mayStoreDays(30)),
                .init(.documentNumber, intentToStore: .willNotStore), .init(.dateOfBirth, intentToStore: .willNotStore),
            ])
        let created = try await sessions.create(descriptor: descriptor, now: Self.time)
        let transcript = IdentityEnvelopeFixture.transcript(nonce: created.nonce, merchantID: merchant, teamID: team, recipient: recipient.publicKey)
        let deviceResponse = try MdocFixture().deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let envelope = try IdentityEnvelopeFixture().envelope(
            deviceResponse: deviceResponse, recipient: recipient.publicKey, nonce: created.nonce, merchantID: merchant, teamID: team)
        let result = await sessions.verify(requestID: created.requestID, encryptedData: envelope, context: .at(Self.time))
        #expect(result.report.verdict == .accepted, "\(result.report.failures.map(\.message))")

        let claims = try await inspect(
            .identity(result, submission: envelope, requestID: created.requestID), secrets: Self.mdocValues + [created.nonce])
        #expect(claims["request"]?.object?["id"]?.string == created.requestID)
        #expect(claims["submission"]?.object?["sha256"]?.string == Base64.encodeURL(SHA256.hash(data: envelope)))
        let document = try #require(claims["documents"]?.array?.first?.object)
        #expect(document["docType"]?.string == MdocFixture.mDL)
        #expect(document["issuer"]?.object?["sha256"]?.string == Base64.encodeURL(SHA256.hash(data: try Self.der(pki.iaca))))
        #expect(document["documentSigner"]?.object?["sha256"] != nil)
        #expect(document["mso"]?.object?["validUntil"] != nil && document["mso"]?.object?["signed"] != nil)
        let requested = document["requested"]?.array?.compactMap { $0.object?["name"]?.string }
        #expect(requested == ["givenName", "familyName", "age(atLeast: 21)", "portrait", "documentNumber", "dateOfBirth"])
        #expect(document["requested"]?.array?[3].object?["intentToRetain"] == .bool(true))
        #expect(document["disclosed"]?.array?.contains(.string("org.iso.18013.5.1/given_name")) == true)
        #expect(document["ageOver"]?.array?.first?.object?["years"]?.number == "21")
        #expect(document["ageOver"]?.array?.first?.object?["value"] == .bool(true))
    }

    @Test func aWebReceipt() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let verifier = WebIdentityVerifier(
            trustStore: IACATrustStore(certificates: [fixture.webPKI.iaca]), revocation: .off(because: "not under test"))
        let sessions = WebRequestSessions(store: InMemoryReplayStore(), verifier: verifier)
        let request = WebDocumentRequest(
            docType: MdocFixture.mDL,
            elements: [
                .init(nameSpace: MdocFixture.isoNameSpace, identifier: "family_name"),
                .init(nameSpace: MdocFixture.isoNameSpace, identifier: "age_over_21", intentToRetain: true),
            ])
        let created = try await sessions.create(
            request: request, origin: fixture.webOrigin, recipientPublicKey: fixture.webKey.publicKey, now: ServiceFixture.time)
        var mdoc = MdocFixture()
        mdoc.elements = [
            .init(MdocFixture.isoNameSpace, "family_name", .text("Mustermann")), .init(MdocFixture.isoNameSpace, "age_over_21", .bool(true)),
        ]
        let answer = try fixture.webResponse(encryptionInfo: created.presentation.encryptionInfo.base64URL, origin: fixture.webOrigin, fixture: mdoc)
        let result = await sessions.verify(
            requestID: created.requestID, credential: .annexC(answer.cbor), recipientKeys: [fixture.webKey], context: .at(ServiceFixture.time))
        #expect(result.report.verdict == .accepted, "\(result.report.failures.map(\.message))")
        let claims = try await inspect(
            .web(result, submission: Array(answer.base64URL.utf8), requestID: created.requestID, protocol: "org-iso-mdoc"),
            secrets: [Array("Mustermann".utf8), created.presentation.encryptionInfo.nonce])
        #expect(claims["protocol"]?.string == "org-iso-mdoc")
        #expect(claims["request"]?.object?["origin"]?.string == fixture.webOrigin)
        let document = try #require(claims["documents"]?.array?.first?.object)
        #expect(
            document["requested"]?.array?.compactMap { $0.object?["name"]?.string } == [
                "org.iso.18013.5.1/family_name", "org.iso.18013.5.1/age_over_21",
            ])
        #expect(document["ageOver"]?.array?.first?.object?["value"] == .bool(true))
    }

    @Test func anMdocReceiptAndARejectedOne() async throws {
        let pki = try MdocPKI()
        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: "AAAA", origin: "https://verifier.example")
        let response = try MdocFixture().deviceResponse(pki: pki, deviceKey: P256.Signing.PrivateKey(), transcript: transcript)
        let verifier = MdocFlowVerifier(
            mdocVerifier: MdocVerifier(trustStore: IACATrustStore(certificates: [pki.iaca])), revocation: .off(because: "not under test"))
        let accepted = await verifier.verify(deviceResponse: response, transcript: transcript, readerKey: nil, context: .at(Self.time))
        #expect(accepted.report.verdict == .accepted, "\(accepted.report.failures.map(\.message))")
        let claims = try await inspect(.mdoc(accepted, submission: response), secrets: Self.mdocValues)
        #expect(claims["documents"]?.array?.first?.object?["ageOver"]?.array?.first?.object?["value"] == .bool(true))
        #expect(claims["request"] == nil)

        // Another transcript: rejected, and the receipt says so, still without a value.
        let other = SessionTranscript.dcapi(encryptionInfoBase64URL: "BBBB", origin: "https://verifier.example")
        let rejected = await verifier.verify(deviceResponse: response, transcript: other, readerKey: nil, context: .at(Self.time))
        #expect(rejected.report.verdict == .rejected)
        let stated = try await inspect(.mdoc(rejected, submission: response), secrets: Self.mdocValues)
        #expect(stated["verdict"]?.string == "rejected")
    }

    @Test func anApplePayReceipt() async throws {
        let merchant = try ApplePayFixtureMerchant.ec()
        let signingTime = ApplePayFixturePKI.epoch.addingTimeInterval(3600)
        let keyRing = try MerchantKeyRing([try merchant.merchantKey()])
        let verifier = try ApplePayTokenVerifier(
            keyRing: keyRing, replayStore: InMemoryReplayStore(), policy: .production, trustAnchor: try ApplePayFixturePKI.standard.trustAnchor())
        let token = try ApplePayTokenBuilder(merchant: merchant, signingTime: signingTime).build()
        let json = token.json()
        let result = await verifier.verify(json, context: VerificationContext(time: signingTime.addingTimeInterval(30)))
        #expect(result.verdict == .accepted, "\(result.report.failures.map(\.message))")
        let transactionID = try #require(result.summary?.transactionId)
        let claims = try await inspect(
            .applePay(result, submission: json, keyRing: keyRing),
            secrets: [
                Array("4111111111111111".utf8), Array("281231".utf8), Array("AM8lJ8PaVr5bAAeoLxMCAoABFA".utf8), Array("Jane Fixture".utf8),
                Array("040010030273".utf8), Array(transactionID.utf8), Hex.decode(transactionID) ?? [],
            ])
        let payment = try #require(claims["payment"]?.object)
        #expect(payment["currency"]?.string == "840" && payment["amount"]?.string == "1999" && payment["paymentDataType"]?.string == "3DSecure")
        #expect(payment["merchantId"]?.string == merchant.merchantIdentifier)
        #expect(payment["transactionIdSha256"]?.string == Base64.encodeURL(SHA256.hash(data: Array(transactionID.utf8))))
        #expect(claims["protocol"]?.string == "EC_v1")
    }

    /// Google Pay: the receipt names the recipient and the merchant key (a hash of its public half),
    /// states the messageId only as a hash, and holds no account number, expiry, cryptogram, ECI,
    /// messageId or any part of the token's encrypted or signed content.
    @Test func aGooglePayReceipt() async throws {
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        var builder = GooglePayTokenBuilder(validAt: time)
        builder.authMethod = "CRYPTOGRAM_3DS"
        builder.pan = "4895370012003478"
        builder.messageId = "AH2EjtffDAl2Jrk2579gUyuaF3ensj4Nla-receipt"
        builder.cryptogram = "AgAAAAAABk4DWZ4C28yUQAAAAAA="
        builder.eciIndicator = "07"
        let token = try builder.build()
        let keys = builder.keys
        let verifier = GooglePayTokenVerifier(
            rootKeys: try GooglePayRootKeys.parse(keys.rootKeyListJSON(expiration: time.addingTimeInterval(86_400))), keyRing: keys.keyRing,
            recipient: .merchant("12345678901234567890"), replayStore: InMemoryReplayStore())
        let result = await verifier.verify(token.json, context: VerificationContext(time: time))
        #expect(result.verdict == .accepted, "\(result.report.failures.map(\.message))")
        let claims = try await inspect(
            .googlePay(result, submission: token.json, recipient: .merchant("12345678901234567890")),
            secrets: [
                Array("4895370012003478".utf8), Array("AgAAAAAABk4DWZ4C28yUQAAAAAA".utf8),
                Array("AH2EjtffDAl2Jrk2579gUyuaF3ensj4Nla-receipt".utf8), token.plaintext, Array(token.signedMessage.utf8),
                Array(token.signedKey.utf8), Array("\"eci".utf8), Array("expirationYear".utf8),
            ])
        let payment = try #require(claims["payment"]?.object)
        #expect(payment["merchantId"]?.string == "merchant:12345678901234567890")
        #expect(payment["paymentDataType"]?.string == "CRYPTOGRAM_3DS")
        let expectedHash = Data(SHA256.hash(data: Array(keys.merchant.publicKey.derRepresentation))).base64EncodedString()
        #expect(payment["publicKeyHash"]?.string == expectedHash)
        #expect(
            payment["transactionIdSha256"]?.string == Base64.encodeURL(SHA256.hash(data: Array("AH2EjtffDAl2Jrk2579gUyuaF3ensj4Nla-receipt".utf8))))
        #expect(payment["currency"] == nil && payment["amount"] == nil)
        #expect(claims["protocol"]?.string == "ECv2" && claims["flow"]?.string == "googlepay")
    }
}
