import Foundation
import GooglePayVerifier
import Testing
import VerificationCore
import WalletJSON
import WalletVerifierTestSupport

/// The result's JSON form, and replays recognised as retries of the same submission.
@Suite struct ResultJSONTests {
    let keys = GooglePayFixtureKeys()

    @Test func acceptedJSONCarriesThePaymentAsDecrypted() async throws {
        let token = try GooglePayTokenBuilder(keys: keys, validAt: fixtureTime).build()
        let result = try await fixtureVerifier(keys).verify(token.json, context: .at(fixtureTime))
        result.expectAccepted()
        let object = try #require(try StrictJSON.parse(result.jsonBytes).object)
        #expect(object["flow"]?.string == "googlePay")
        #expect(object["token"]?.object?["messageId"]?.string == "fixture-message-0001")
        #expect(object["token"]?.object?["authMethod"]?.string == "PAN_ONLY")
        let range = try #require(object.range(of: "payment"))
        #expect(Array(result.jsonBytes[range]) == token.plaintext)
        #expect(result.json == String(decoding: result.jsonBytes, as: UTF8.self))
    }

    @Test func rejectedJSONHasNoPayment() async throws {
        var builder = GooglePayTokenBuilder(keys: keys, validAt: fixtureTime)
        builder.messageExpiration = fixtureTime
        let result = try await fixtureVerifier(keys).verify(try builder.build().json, context: .at(fixtureTime))
        result.expectRejected(.googlePayMessageExpiration, .messageExpired)
        let object = try #require(try StrictJSON.parse(result.jsonBytes).object)
        #expect(object["payment"] == nil)
        #expect(object["token"]?.object?["protocolVersion"]?.string == "ECv2")
        #expect(!result.json.contains("4111111111111111"))
    }

    @Test func sameSubmissionRetriedIsNotAReplay() async throws {
        let token = try GooglePayTokenBuilder(keys: keys, validAt: fixtureTime).build()
        let verifier = try fixtureVerifier(keys)
        let tag = IdempotencyTag(key: Array("retry-1".utf8), body: token.json, retryUntil: fixtureTime.addingTimeInterval(600))
        let context = VerificationContext(time: fixtureTime, idempotency: tag)
        await verifier.verify(token.json, context: context).expectAccepted()
        let retry = await verifier.verify(token.json, context: VerificationContext(time: fixtureTime.addingTimeInterval(5), idempotency: tag))
        #expect(retry.verdict == .accepted)
        #expect(retry.reason(.googlePayReplayMessageId) == .idempotentRetry)
        // Without the tag, the same token is a replay.
        await verifier.verify(token.json, context: .at(fixtureTime.addingTimeInterval(6)))
            .expectRejected(.googlePayReplayMessageId, .messageIdReplayed)
    }
}
