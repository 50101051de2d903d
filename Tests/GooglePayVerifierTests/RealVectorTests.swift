import Crypto
import Foundation
import GooglePayVerifier
import Testing
import VerificationCore

/// A real ECv2 token signed with Google's test root key (from spreedly/r2d2's fixtures) and an
/// ECv1 token from Tink's tests; see Vectors/README.md for where each comes from and the times used.
@Suite struct RealVectorTests {
    /// When r2d2's test verifies the token: 2020-07-17T15:34:27Z.
    static let validTime = Date(timeIntervalSince1970: 1_595_000_067)
    static let recipient = GooglePayRecipient.merchant("12345678901234567890")

    static func verifier(
        roots: String = "r2d2-google-root-keys-test.json", recipient: GooglePayRecipient = recipient, keyRing: GooglePayMerchantKeyRing? = nil,
        store: any ReplayStore = InMemoryReplayStore()
    ) throws -> GooglePayTokenVerifier {
        let rootKeys = try GooglePayRootKeys.parse(Vectors.bytes(roots))
        let ring = try keyRing ?? GooglePayMerchantKeyRing([GooglePayMerchantKey(pemRepresentation: Vectors.text("r2d2-merchant-private-key.pem"))])
        return GooglePayTokenVerifier(rootKeys: rootKeys, keyRing: ring, recipient: recipient, replayStore: store)
    }

    static func token() throws -> [UInt8] { try Vectors.bytes("r2d2-ecv2-tokenized-card.json") }

    @Test func realTokenDecryptsToTheExpectedPlaintext() async throws {
        let result = try await Self.verifier().verify(Self.token(), context: .at(Self.validTime))
        result.expectAccepted()
        let payment = try #require(result.payment)
        let expected = try Vectors.bytes("r2d2-ecv2-tokenized-card.plaintext.json")
        #expect(payment.rawJSON == expected)
        #expect(payment.pan == "4895370012003478")
        #expect(payment.expirationMonth == 12)
        #expect(payment.expirationYear == 2025)
        #expect(payment.authMethod == .cryptogram3DS)
        #expect(payment.eciIndicator == "07")
        // The message writes "=" as \u003d: read as JSON, not as text.
        #expect(payment.cryptogram == "AgAAAAAABk4DWZ4C28yUQAAAAAA=")
        #expect(payment.paymentMethod == "CARD")
        #expect(payment.messageId.hasPrefix("AH2EjtffDAl2Jrk2579gUyuaF3ensj4NlaHbyEvOQWtj9IrQ"))
        #expect(payment.messageExpiration == Date(timeIntervalSince1970: 1_595_616_845.229))
        #expect(result.summary?.intermediateKeyExpiration == Date(timeIntervalSince1970: 1_595_702_501.149))
        #expect(result.summary?.authMethod == .cryptogram3DS)
        #expect(result.report.check(.googlePayDecryption)?.message.contains("AES-256-CTR") == true)
        #expect(
            payment.description
                == "GooglePayPaymentData(PAN ••••••••••••3478, auth CRYPTOGRAM_3DS, expiry hidden, eci 07, cryptogram present (hidden))")
        for secret in ["4895370012003478", "489537001200", "AgAAAAAABk4DWZ4C28yUQAAAAAA", "2025"] {
            #expect(!result.visibleText.contains(secret), "\(secret) shown")
        }
    }

    @Test func realTokenIsExpiredAfterItsMessageExpiration() async throws {
        let result = try await Self.verifier().verify(Self.token(), context: .at(Date(timeIntervalSince1970: 1_595_616_846)))
        result.expectRejected(.googlePayMessageExpiration, .messageExpired)
        #expect(result.status(.googlePayDecryption) == .passed)
        #expect(result.status(.googlePayReplayMessageId) == .skipped)
    }

    @Test func realIntermediateKeyExpires() async throws {
        let result = try await Self.verifier().verify(Self.token(), context: .at(Date(timeIntervalSince1970: 1_595_702_502)))
        result.expectRejected(.googlePayIntermediateKeyExpiration, .intermediateKeyExpired)
        #expect(result.status(.googlePayIntermediateKeySignature) == .passed)
        #expect(result.status(.googlePayMessageSignature) == .skipped)
        #expect(result.reason(.googlePayDecryption) == .prerequisiteFailed)
    }

    @Test func realTokenFailsWithTheProductionRootKeys() async throws {
        let result = try await Self.verifier(roots: "r2d2-google-root-keys-production.json").verify(Self.token(), context: .at(Self.validTime))
        result.expectRejected(.googlePayIntermediateKeySignature, .signatureInvalid)
        #expect(result.status(.googlePayIntermediateKeyExpiration) == .passed)
    }

    @Test func realTokenFailsForAnotherRecipient() async throws {
        for recipient in [GooglePayRecipient.merchant("12345678901234567891"), .gateway("12345678901234567890")] {
            let result = try await Self.verifier(recipient: recipient).verify(Self.token(), context: .at(Self.validTime))
            result.expectRejected(.googlePayMessageSignature, .signatureInvalid)
            #expect(result.report.check(.googlePayMessageSignature)?.details["recipientId"] == recipient.recipientId)
        }
    }

    /// The real token with another signature in `signature`: the intermediate key's own signature (a
    /// well-formed ECDSA signature by Google, over other bytes), and the real one with one bit changed.
    @Test func realTokenFailsWithAnotherSignature() async throws {
        let text = String(decoding: try Self.token(), as: UTF8.self)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let signature = try #require(object["signature"] as? String)
        let keySignature = try #require((object["intermediateSigningKey"] as? [String: Any])?["signatures"] as? [String]).first!
        var flipped = [UInt8](try #require(Data(base64Encoded: signature)))
        flipped[flipped.count / 2] ^= 0x01
        for replacement in [keySignature, Data(flipped).base64EncodedString()] {
            let altered = text.replacingOccurrences(of: "\"" + signature + "\"", with: "\"" + replacement + "\"")
            #expect(altered != text)
            let result = try await Self.verifier().verify(Array(altered.utf8), context: .at(Self.validTime))
            result.expectRejected(.googlePayMessageSignature, .signatureInvalid)
        }
    }

    @Test func realTokenFailsWithAnotherMerchantKey() async throws {
        let ring = GooglePayMerchantKeyRing([GooglePayMerchantKey(privateKey: P256.KeyAgreement.PrivateKey())])
        let result = try await Self.verifier(keyRing: ring).verify(Self.token(), context: .at(Self.validTime))
        result.expectRejected(.googlePayDecryption, .tagMismatch)
    }

    @Test func realTokenIsAcceptedOnce() async throws {
        let verifier = try Self.verifier()
        await verifier.verify(try Self.token(), context: .at(Self.validTime)).expectAccepted()
        let again = await verifier.verify(try Self.token(), context: .at(Self.validTime.addingTimeInterval(60)))
        again.expectRejected(.googlePayReplayMessageId, .messageIdReplayed)
    }

    @Test func googleTestKeyListKeepsEveryKeyAndUsesTheECv2One() throws {
        let keys = try GooglePayRootKeys.parse(Vectors.bytes("r2d2-google-root-keys-test.json"))
        #expect(keys.keys.map(\.protocolVersion) == ["ECv1", "ECv2", "ECv2SigningOnly"])
        #expect(keys.usableForECv2(at: Self.validTime).count == 1)
        // keyExpiration 2154841200000: not usable from that instant on.
        #expect(keys.usableForECv2(at: Date(timeIntervalSince1970: 2_154_841_200)).isEmpty)
        #expect(keys.usableForECv2(at: Date(timeIntervalSince1970: 2_154_841_199.999)).count == 1)
    }

    @Test func tinkECv1TokenIsRefusedNamingECv2() async throws {
        let result = try await Self.verifier().verify(Vectors.bytes("tink-ecv1-token.json"), context: .at(Self.validTime))
        result.expectRejected(.googlePayTokenStructure, .unsupportedVersion)
        let message = result.report.check(.googlePayTokenStructure)?.message ?? ""
        #expect(message.contains("ECv1") && message.contains("ECv2"), "\(message)")
        #expect(result.summary == nil)
    }
}
