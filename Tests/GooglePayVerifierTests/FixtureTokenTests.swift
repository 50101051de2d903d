import Crypto
import Foundation
import GooglePayVerifier
import Testing
import VerificationCore
import WalletVerifierTestSupport

/// Tokens made with the test-support builder and keys of our own: the good paths, then one test
/// per failure, each failing with its own check and reason while the other checks still report.
@Suite struct FixtureTokenTests {
    let keys = GooglePayFixtureKeys()

    func builder() -> GooglePayTokenBuilder { GooglePayTokenBuilder(keys: keys, validAt: fixtureTime) }

    func verify(_ builder: GooglePayTokenBuilder, verifier: GooglePayTokenVerifier? = nil, at time: Date = fixtureTime) async throws
        -> GooglePayResult
    {
        let verifier = try verifier ?? fixtureVerifier(keys)
        return await verifier.verify(try builder.build().json, context: .at(time))
    }

    // MARK: Good tokens

    @Test func panOnlyTokenIsAccepted() async throws {
        let builder = builder()
        let token = try builder.build()
        let result = try await fixtureVerifier(keys).verify(token.json, context: .at(fixtureTime))
        result.expectAccepted()
        let payment = try #require(result.payment)
        #expect(payment.rawJSON == token.plaintext)
        #expect(payment.authMethod == .panOnly)
        #expect(payment.pan == "4111111111111111")
        #expect(payment.cryptogram == nil)
        #expect(payment.messageId == "fixture-message-0001")
        #expect(result.summary?.merchantPublicKey == GooglePayMerchantKey(privateKey: keys.merchant).publicKeyBase64)
        #expect(result.description.hasPrefix("GooglePayResult(accepted, GooglePayPaymentData(PAN ••••••••••••1111"))
        #expect(!result.visibleText.contains("4111111111111111"))
        #expect(!result.visibleText.contains("2030"))
    }

    @Test func cryptogramTokenIsAccepted() async throws {
        var builder = builder()
        builder.authMethod = "CRYPTOGRAM_3DS"
        builder.pan = "5204240250197840"
        let result = try await verify(builder)
        result.expectAccepted()
        let payment = try #require(result.payment)
        #expect(payment.authMethod == .cryptogram3DS)
        #expect(payment.cryptogram == builder.cryptogram)
        #expect(payment.eciIndicator == "05")
        for secret in ["5204240250197840", "AgAAAAAABk4DWZ4C28yUQAAAAAA"] {
            #expect(!result.visibleText.contains(secret), "\(secret) shown")
        }
        var dumped = ""
        dump(payment, to: &dumped)
        #expect(!dumped.contains("5204240250197840") && !dumped.contains("AgAAAAAABk4"))
    }

    @Test func cryptogramTokenWithoutECIIsAccepted() async throws {
        var builder = builder()
        builder.authMethod = "CRYPTOGRAM_3DS"
        builder.eciIndicator = nil
        let result = try await verify(builder)
        result.expectAccepted()
        #expect(result.payment?.eciIndicator == nil)
    }

    @Test func gatewayRecipientIsAccepted() async throws {
        var builder = builder()
        builder.recipientId = "gateway:examplegateway"
        let result = try await verify(builder, verifier: fixtureVerifier(keys, recipient: .gateway("examplegateway")))
        result.expectAccepted()
    }

    @Test func everyMerchantKeyOfTheRingIsTried() async throws {
        let other = GooglePayMerchantKey(privateKey: P256.KeyAgreement.PrivateKey())
        let ring = GooglePayMerchantKeyRing([other, GooglePayMerchantKey(privateKey: keys.merchant)])
        let result = try await verify(builder(), verifier: fixtureVerifier(keys, keyRing: ring))
        result.expectAccepted()
        #expect(result.summary?.merchantPublicKey == GooglePayMerchantKey(privateKey: keys.merchant).publicKeyBase64)
    }

    @Test func legacyDPANFieldIsRead() async throws {
        var builder = builder()
        builder.plaintextOverride = Array(
            #"{"messageExpiration":"\#(GooglePayTokenBuilder.milliseconds(fixtureTime.addingTimeInterval(60)))","messageId":"m-dpan","paymentMethod":"CARD","paymentMethodDetails":{"expirationYear":2031,"expirationMonth":1,"dpan":"4111111111111111","authMethod":"CRYPTOGRAM_3DS","cryptogram":"AAAA"}}"#
                .utf8)
        let result = try await verify(builder)
        result.expectAccepted()
        #expect(result.payment?.pan == "4111111111111111")
    }

    // MARK: Signing keys

    @Test func anotherRootKeyIsRefused() async throws {
        let stranger = GooglePayFixtureKeys(root: P256.Signing.PrivateKey(), intermediate: keys.intermediate, merchant: keys.merchant)
        let result = try await verify(builder(), verifier: fixtureVerifier(stranger))
        result.expectRejected(.googlePayIntermediateKeySignature, .signatureInvalid)
        #expect(result.status(.googlePayIntermediateKeyExpiration) == .passed)
        #expect(result.reason(.googlePayMessageSignature) == .prerequisiteFailed)
        #expect(result.reason(.googlePayDecryption) == .prerequisiteFailed)
    }

    @Test func intermediateSignedByAnotherKeyIsRefused() async throws {
        var builder = builder()
        builder.intermediateSigner = P256.Signing.PrivateKey()
        let result = try await verify(builder)
        result.expectRejected(.googlePayIntermediateKeySignature, .signatureInvalid)
    }

    @Test func alteredIntermediateSignatureIsRefused() async throws {
        var builder = builder()
        builder.tamper = [.intermediateSignature]
        let result = try await verify(builder)
        result.expectRejected(.googlePayIntermediateKeySignature, .signatureInvalid)
    }

    @Test func intermediateSignedForECv1IsRefused() async throws {
        var builder = builder()
        builder.signedProtocolVersion = "ECv1"
        let result = try await verify(builder)
        // Both signatures were made over ECv1: the root key's fails first, the message's is skipped.
        result.expectRejected(.googlePayIntermediateKeySignature, .signatureInvalid)
    }

    @Test func expiredRootKeyIsNotUsed() async throws {
        let result = try await verify(builder(), verifier: fixtureVerifier(keys, rootExpiration: fixtureTime))
        result.expectRejected(.googlePayIntermediateKeySignature, .noUsableRootKey)
    }

    @Test func rootKeyWithoutExpirationIsNotUsedForECv2() async throws {
        let result = try await verify(builder(), verifier: fixtureVerifier(keys, rootExpiration: nil))
        result.expectRejected(.googlePayIntermediateKeySignature, .noUsableRootKey)
    }

    @Test func rootKeyOfAnotherProtocolVersionIsNotUsed() async throws {
        for version in ["ECv1", "ECv2SigningOnly"] {
            let roots = try GooglePayRootKeys.parse(
                keys.rootKeyListJSON(expiration: fixtureTime.addingTimeInterval(86_400), protocolVersion: version))
            #expect(roots.keys.count == 1)
            let verifier = GooglePayTokenVerifier(
                rootKeys: roots, keyRing: keys.keyRing, recipient: .merchant("12345678901234567890"), replayStore: InMemoryReplayStore())
            let result = try await verify(builder(), verifier: verifier)
            result.expectRejected(.googlePayIntermediateKeySignature, .noUsableRootKey)
        }
    }

    @Test func expiredIntermediateKeyIsRefused() async throws {
        var builder = builder()
        builder.intermediateExpiration = fixtureTime
        let result = try await verify(builder)
        result.expectRejected(.googlePayIntermediateKeyExpiration, .intermediateKeyExpired)
        #expect(result.status(.googlePayIntermediateKeySignature) == .passed)
        #expect(result.summary?.intermediateKeyExpiration == fixtureTime)
    }

    @Test func advisoryIntermediateExpirationStillVerifiesTheMessage() async throws {
        var builder = builder()
        builder.intermediateExpiration = fixtureTime
        let policy = GooglePayPolicy(
            requirements: VerificationPolicy(name: "googlepay/test@1", overrides: [.googlePayIntermediateKeyExpiration: .advisory], testOnly: true))
        let roots = try GooglePayRootKeys.parse(keys.rootKeyListJSON(expiration: fixtureTime.addingTimeInterval(86_400)))
        let verifier = GooglePayTokenVerifier(
            rootKeys: roots, keyRing: keys.keyRing, recipient: .merchant("12345678901234567890"), replayStore: InMemoryReplayStore(), policy: policy)
        let result = await verifier.verify(try builder.build().json, context: .at(fixtureTime))
        #expect(result.verdict == .accepted)
        #expect(result.reason(.googlePayIntermediateKeyExpiration) == .intermediateKeyExpired)
        #expect(result.report.check(.googlePayIntermediateKeyExpiration)?.requirement == .advisory)
        for id in CheckID.googlePayChecks where id != .googlePayIntermediateKeyExpiration {
            #expect(result.status(id) == .passed, "\(id)")
        }
    }

    // MARK: Message signature and encryption

    @Test func anotherRecipientIsRefused() async throws {
        var builder = builder()
        builder.recipientId = "merchant:someoneelse"
        let result = try await verify(builder)
        result.expectRejected(.googlePayMessageSignature, .signatureInvalid)
        #expect(result.reason(.googlePayDecryption) == .prerequisiteFailed)
    }

    @Test func alteredSignedMessageIsRefused() async throws {
        var builder = builder()
        builder.tamper = [.signedMessage]
        let result = try await verify(builder)
        result.expectRejected(.googlePayMessageSignature, .signatureInvalid)
    }

    @Test func alteredMessageSignatureIsRefused() async throws {
        var builder = builder()
        builder.tamper = [.messageSignature]
        let result = try await verify(builder)
        result.expectRejected(.googlePayMessageSignature, .signatureInvalid)
    }

    @Test func badTagIsRefusedBeforeDecrypting() async throws {
        var builder = builder()
        builder.tamper = [.tag]
        let result = try await verify(builder)
        result.expectRejected(.googlePayDecryption, .tagMismatch)
        #expect(result.status(.googlePayMessageSignature) == .passed)
        #expect(result.summary?.merchantPublicKey == nil)
        #expect(result.reason(.googlePayMessageContent) == .prerequisiteFailed)
    }

    @Test func tokenForAnotherMerchantKeyIsRefused() async throws {
        var builder = builder()
        builder.encryptFor = P256.KeyAgreement.PrivateKey().publicKey
        let result = try await verify(builder)
        result.expectRejected(.googlePayDecryption, .tagMismatch)
    }

    @Test func emptyKeyRingCannotDecrypt() async throws {
        let result = try await verify(builder(), verifier: fixtureVerifier(keys, keyRing: .empty))
        result.expectRejected(.googlePayDecryption, .noMerchantKey)
    }

    // MARK: The message

    @Test func expiredMessageIsRefused() async throws {
        var builder = builder()
        builder.messageExpiration = fixtureTime
        let result = try await verify(builder)
        result.expectRejected(.googlePayMessageExpiration, .messageExpired)
        #expect(result.status(.googlePayMessageContent) == .passed)
    }

    @Test func clockSkewIsAllowedOnTheMessageExpiration() async throws {
        var builder = builder()
        builder.messageExpiration = fixtureTime.addingTimeInterval(-30)
        let token = try builder.build()
        let verifier = try fixtureVerifier(keys)
        let result = await verifier.verify(token.json, context: VerificationContext(time: fixtureTime, clockSkew: .seconds(60)))
        result.expectAccepted()
    }

    @Test func replayedMessageIdIsRefused() async throws {
        let verifier = try fixtureVerifier(keys)
        await verifier.verify(try builder().build().json, context: .at(fixtureTime)).expectAccepted()
        // Another token (new ephemeral key, new signatures) with the same messageId.
        let result = await verifier.verify(try builder().build().json, context: .at(fixtureTime.addingTimeInterval(1)))
        result.expectRejected(.googlePayReplayMessageId, .messageIdReplayed)
        #expect(result.report.check(.googlePayReplayMessageId)?.details["messageId"] == "fixture-message-0001")
    }

    @Test func rejectedTokenDoesNotUseUpItsMessageId() async throws {
        let verifier = try fixtureVerifier(keys)
        var expired = builder()
        expired.messageExpiration = fixtureTime.addingTimeInterval(-120)
        await verifier.verify(try expired.build().json, context: .at(fixtureTime)).expectRejected(.googlePayMessageExpiration, .messageExpired)
        await verifier.verify(try builder().build().json, context: .at(fixtureTime)).expectAccepted()
    }

    @Test func messageFieldsAreChecked() async throws {
        let expiration = GooglePayTokenBuilder.milliseconds(fixtureTime.addingTimeInterval(60))
        func message(method: String = "CARD", details: String) -> [UInt8] {
            Array(#"{"messageExpiration":"\#(expiration)","messageId":"m1","paymentMethod":"\#(method)","paymentMethodDetails":\#(details)}"#.utf8)
        }
        let card = #""expirationYear":2030,"expirationMonth":12,"pan":"4111111111111111""#
        let cases: [([UInt8], ReasonCode)] = [
            (Array("not json".utf8), .malformedMessage),
            (Array("[]".utf8), .malformedMessage),
            (Array(#"{"messageId":"m1"}"#.utf8), .malformedMessage),
            (Array(#"{"messageExpiration":"soon","messageId":"m1","paymentMethod":"CARD","paymentMethodDetails":{}}"#.utf8), .malformedMessage),
            (message(method: "PAYPAL", details: "{\(card),\"authMethod\":\"PAN_ONLY\"}"), .unsupportedPaymentMethod),
            (message(details: "{\(card),\"authMethod\":\"OTHER\"}"), .unsupportedAuthMethod),
            (message(details: #"{"expirationYear":2030,"expirationMonth":12,"pan":"4111-1111","authMethod":"PAN_ONLY"}"#), .cardFieldInvalid),
            (message(details: #"{"expirationYear":2030,"expirationMonth":13,"pan":"4111111111111111","authMethod":"PAN_ONLY"}"#), .cardFieldInvalid),
            (
                message(details: #"{"expirationYear":"2030","expirationMonth":12,"pan":"4111111111111111","authMethod":"PAN_ONLY"}"#),
                .malformedMessage
            ),
            (message(details: "{\(card),\"authMethod\":\"CRYPTOGRAM_3DS\"}"), .malformedMessage),
            (message(details: "{\(card),\"authMethod\":\"CRYPTOGRAM_3DS\",\"cryptogram\":\"AAAA\",\"eciIndicator\":5}"), .cardFieldInvalid),
            (message(details: #"{"expirationYear":2030,"expirationMonth":12,"authMethod":"PAN_ONLY"}"#), .malformedMessage),
        ]
        for (plaintext, reason) in cases {
            var builder = builder()
            builder.plaintextOverride = plaintext
            let result = try await verify(builder)
            result.expectRejected(.googlePayMessageContent, reason)
            #expect(!result.visibleText.contains("4111111111111111"))
        }
    }

    // MARK: The token

    @Test func ecV1TokenIsRefused() async throws {
        var builder = builder()
        builder.protocolVersion = "ECv1"
        let result = try await verify(builder)
        result.expectRejected(.googlePayTokenStructure, .unsupportedVersion)
        #expect(result.report.check(.googlePayTokenStructure)?.message.contains("only ECv2") == true)
        #expect(result.report.checks.dropFirst().allSatisfy { $0.status == .skipped && $0.reason == .prerequisiteFailed })
    }

    @Test func malformedTokensAreRefused() async throws {
        let good = try builder().build()
        let text = String(decoding: good.json, as: UTF8.self)
        let cases: [(String, ReasonCode)] = [
            ("", .malformedToken),
            ("{", .malformedToken),
            ("[]", .malformedToken),
            ("\"ECv2\"", .malformedToken),
            (text + " x", .malformedToken),
            (text.replacingOccurrences(of: #""protocolVersion":"ECv2""#, with: #""protocolVersion":2"#), .malformedToken),
            (text.replacingOccurrences(of: #""protocolVersion":"ECv2","#, with: ""), .missingTokenField),
            (
                text.replacingOccurrences(of: #""signatures":["#, with: #""signatures":"#).replacingOccurrences(of: "\"]}", with: "\"}"),
                .malformedToken
            ),
            (text.replacingOccurrences(of: #""signature":""#, with: #""signature":"*"#), .invalidTokenEncoding),
            (text.replacingOccurrences(of: #""signatures":[""#, with: #""signatures":["!"#), .invalidTokenEncoding),
            (text.replacingOccurrences(of: #"{"signature""#, with: #"{"signature":"x","signature""#), .malformedToken),
        ]
        for (json, reason) in cases {
            let result = try await fixtureVerifier(keys).verify(Array(json.utf8), context: .at(fixtureTime))
            result.expectRejected(.googlePayTokenStructure, reason)
        }
        let noSignedMessage = text.replacingOccurrences(of: #","signedMessage":"#, with: #","other":"#)
        try await fixtureVerifier(keys).verify(Array(noSignedMessage.utf8), context: .at(fixtureTime))
            .expectRejected(.googlePayTokenStructure, .missingTokenField)
        let emptySignatures = text.replacingOccurrences(
            of: #""signatures":[""#, with: #""signatures":[],"unused":[""#)
        try await fixtureVerifier(keys).verify(Array(emptySignatures.utf8), context: .at(fixtureTime))
            .expectRejected(.googlePayTokenStructure, .missingTokenField)
    }

    @Test func malformedSignedKeyIsRefused() async throws {
        var builder = builder()
        builder.intermediateExpiration = fixtureTime.addingTimeInterval(60)
        let token = try builder.build()
        let text = String(decoding: token.json, as: UTF8.self)
        // Another keyExpiration than the one signed: the expiration check reads it, the signature fails.
        let unsigned = text.replacingOccurrences(of: GooglePayTokenBuilder.milliseconds(builder.intermediateExpiration), with: "later")
        let result = try await fixtureVerifier(keys).verify(Array(unsigned.utf8), context: .at(fixtureTime))
        #expect(result.reason(.googlePayIntermediateKeySignature) == .signatureInvalid)
        #expect(result.reason(.googlePayIntermediateKeyExpiration) == .malformedSignedKey)
        #expect(result.verdict == .rejected)
    }

    @Test func malformedSignedMessageIsRefused() async throws {
        for signedMessage in [
            #"not json"#, #"{"encryptedMessage":"AAAA","tag":"AAAA"}"#, #"{"encryptedMessage":"AAAA","ephemeralPublicKey":"AAAA","tag":"AAAA"}"#,
        ] {
            // Signed correctly, so only the decryption check can object.
            let token = try builder().build()
            let resigned = try resign(token, signedMessage: signedMessage)
            let result = try await fixtureVerifier(keys).verify(resigned, context: .at(fixtureTime))
            let expected: ReasonCode = signedMessage.contains("ephemeralPublicKey") ? .ephemeralKeyInvalid : .malformedSignedMessage
            result.expectRejected(.googlePayDecryption, expected)
        }
    }

    /// `token` with its signedMessage replaced by `signedMessage`, signed again with the intermediate key.
    func resign(_ token: GooglePayTokenBuilder.Token, signedMessage: String) throws -> [UInt8] {
        var parts: [UInt8] = []
        for part in ["Google", "merchant:12345678901234567890", "ECv2", signedMessage] {
            withUnsafeBytes(of: UInt32(part.utf8.count).littleEndian) { parts.append(contentsOf: $0) }
            parts.append(contentsOf: part.utf8)
        }
        let signature = try keys.intermediate.signature(for: parts).derRepresentation.base64EncodedString()
        var object = try #require(try JSONSerialization.jsonObject(with: Data(token.json)) as? [String: Any])
        object["signature"] = signature
        object["signedMessage"] = signedMessage
        return [UInt8](try JSONSerialization.data(withJSONObject: object))
    }

    @Test func oversizedTokensAreRefused() async throws {
        let good = String(decoding: try builder().build().json, as: UTF8.self)
        let padding = String(repeating: "A", count: 70_000)
        let cases: [String] = [
            good.replacingOccurrences(of: #"{"signature""#, with: #"{"padding":"\#(padding)","signature""#),
            good.replacingOccurrences(of: #""signatures":[""#, with: #""signatures":[\#(String(repeating: "\"AAAA\",", count: 9))""#),
            good.replacingOccurrences(of: #""signature":""#, with: #""signature":"\#(String(repeating: "AAAA", count: 200))"#),
            good.replacingOccurrences(of: #""signedKey":"{"#, with: #""signedKey":"{\"pad\":\"\#(String(repeating: "A", count: 5000))\","#),
        ]
        for json in cases {
            let result = try await fixtureVerifier(keys).verify(Array(json.utf8), context: .at(fixtureTime))
            result.expectRejected(.googlePayTokenStructure, .tokenFieldTooLarge)
        }
    }

    @Test func hostileBytesNeverCrash() async throws {
        let verifier = try fixtureVerifier(keys)
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        for input in [Array(deep.utf8), [0xFF, 0xFE, 0x00], Array("{\"protocolVersion\":\"ECv2\"}".utf8)] {
            let result = await verifier.verify(input, context: .at(fixtureTime))
            #expect(result.verdict == .rejected)
            #expect(result.status(.googlePayTokenStructure) == .failed)
        }
    }

    // MARK: The root key list

    @Test func unreadableKeyListsThrow() throws {
        let lists = [
            "", "{", "[]", #"{"keys":{}}"#, #"{"keys":[1]}"#, #"{"keys":[{"protocolVersion":"ECv2"}]}"#,
            #"{"keys":[{"keyValue":"AAAA","protocolVersion":"ECv2"}]}"#,
            #"{"keys":[{"keyValue":"\#(keys.root.publicKey.derRepresentation.base64EncodedString())"}]}"#,
            #"{"keys":[{"keyValue":"\#(keys.root.publicKey.derRepresentation.base64EncodedString())","protocolVersion":"ECv2","keyExpiration":12}]}"#,
        ]
        for list in lists {
            #expect(throws: GooglePayRootKeysError.self, "\(list)") { try GooglePayRootKeys.parse(Array(list.utf8)) }
        }
        #expect(try GooglePayRootKeys.parse(Array(#"{"keys":[]}"#.utf8)).keys.isEmpty)
    }
}
