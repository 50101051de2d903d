import ApplePayVerifier
import Foundation
import Testing
import VerificationCore
import WalletJSON
import WalletVerifierTestSupport

/// Attacker-supplied certificates in the CMS never feed path building: at most 4 are read, and only
/// the leaf and the intermediate that issued it are used.
@Suite struct ChainBoundTests {
    @Test(arguments: [(3, 10), (3, 12), (2, 16)])
    func aMeshInTheSignatureIsRefusedQuickly(width: Int, depth: Int) async throws {
        let mesh = try CertificateMesh(width: width, depth: depth)
        var builder = Fixture.builder()
        builder.cms = { $0.extraCertificates = mesh.meshDER }
        let token = try builder.build()
        var best = Double.infinity
        for _ in 0..<3 {
            let start = ContinuousClock.now
            let result = try await Fixture.verify(token)
            let elapsed = ContinuousClock.now - start
            best = min(best, Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
            result.expectRejected(.applePaySignatureCMS, .malformedCMS)
            #expect(result.report.check(.applePaySignatureCMS)?.message.contains("at most 4 are read") == true)
        }
        #expect(best < 50, "\(width)×\(depth): \(best) ms")
    }

    @Test func unrelatedCertificatesBesideTheChainAreIgnored() async throws {
        let mesh = try CertificateMesh(width: 2, depth: 1)
        var builder = Fixture.builder()
        builder.cms = { $0.extraCertificates = mesh.meshDER }
        try await Fixture.verify(try builder.build()).expectAccepted()
    }
}

/// What the seed's newer fields carry, typed where the library reads them: the PKPaymentToken's
/// paymentMethod and transactionIdentifier (not signed), merchant tokens and authentication responses
/// in the payment data; everything else passes through as received.
@Suite struct TokenFieldsTests {
    @Test func paymentMethodAndTransactionIdentifierOfAWholeToken() async throws {
        let builder = Fixture.builder()
        let token = try builder.build()
        let result = try await Fixture.verify(json: token.json(asPKPaymentToken: true))
        result.expectAccepted()
        let summary = try #require(result.summary)
        #expect(summary.paymentMethod == ApplePayToken.PaymentMethod(displayName: "Visa 0492", network: "Visa", type: "debit"))
        #expect(summary.transactionIdentifier == token.transactionId.uppercased())
        let json = result.json
        #expect(json.contains(#""paymentMethod":{"displayName":"Visa 0492","network":"Visa","type":"debit"}"#))
        #expect(json.contains(#""transactionIdentifier":""#))
        // The paymentData alone has neither.
        let alone = try await Fixture.verify(json: token.json(asPKPaymentToken: false))
        #expect(alone.summary?.paymentMethod == nil)
    }

    @Test func merchantTokensAndAuthenticationResponses() async throws {
        let metadata = #"{"cardRefreshTimestamp":"2026-01-01","recurring":{"amount":"1999"}}"#
        let responses = #"[{"merchantIdentifier":"merchant.com.example","authenticationData":"AQID","transactionAmount":1999}]"#
        let plaintext =
            #"{"applicationPrimaryAccountNumber":"4111111111111111","applicationExpirationDate":"281231","currencyCode":"840","transactionAmount":1999,"deviceManufacturerIdentifier":"040010030273","paymentDataType":"3DSecure","merchantTokenIdentifier":"DNITHE302308980427388297","merchantTokenMetadata":\#(metadata),"authenticationResponses":\#(responses),"somethingNew":{"kept":true},"paymentData":{"onlinePaymentCryptogram":"AM8lJ8PaVr5bAAeoLxMCAoABFA==","eciIndicator":"7"}}"#
        var builder = Fixture.builder()
        builder.plaintext = Array(plaintext.utf8)
        let result = try await Fixture.verify(try builder.build())
        result.expectAccepted()
        let payment = try #require(result.payment)
        #expect(payment.merchantTokenIdentifier == "DNITHE302308980427388297")
        #expect(payment.merchantTokenMetadataJSON.map { String(decoding: $0, as: UTF8.self) } == metadata)
        #expect(payment.authenticationResponsesJSON.map { String(decoding: $0, as: UTF8.self) } == responses)
        // Typed: the metadata as a JSON object, each authentication response's members.
        #expect(payment.merchantTokenMetadata?.members.map(\.name) == ["cardRefreshTimestamp", "recurring"])
        #expect(payment.merchantTokenMetadata?["recurring"]?.object?["amount"]?.string == "1999")
        #expect(
            payment.authenticationResponses == [
                .init(merchantIdentifier: "merchant.com.example", authenticationData: "AQID", transactionAmount: 1999)
            ])
        #expect(!"\(payment.authenticationResponses[0])".contains("AQID") && !"\(payment)".contains("AQID"))
        #expect("\(payment)".contains("merchant token DNITHE302308980427388297"))
        // The answer passes every member through as received.
        #expect(result.json.contains(#""somethingNew":{"kept":true}"#))
        // The wrong kinds are refused, naming the field.
        var wrong = Fixture.builder()
        wrong.plaintext = Array(plaintext.replacingOccurrences(of: "\"merchantTokenMetadata\":\(metadata)", with: "\"merchantTokenMetadata\":5").utf8)
        let refused = try await Fixture.verify(try wrong.build())
        refused.expectRejected(.applePayPaymentData, .malformedPaymentData)
        #expect(refused.report.check(.applePayPaymentData)?.message.contains("merchantTokenMetadata") == true)
        // An authentication response that is not an object, or whose amount is text, names its place.
        for (replacement, field) in [
            ("[5]", "authenticationResponses[0] is"),
            (#"[{"merchantIdentifier":"m","transactionAmount":"1999"}]"#, "authenticationResponses[0].transactionAmount"),
            (#"[{},{"merchantIdentifier":7}]"#, "authenticationResponses[1].merchantIdentifier"),
        ] {
            var bad = Fixture.builder()
            bad.plaintext = Array(
                plaintext.replacingOccurrences(of: "\"authenticationResponses\":\(responses)", with: "\"authenticationResponses\":\(replacement)")
                    .utf8)
            let rejected = try await Fixture.verify(try bad.build())
            rejected.expectRejected(.applePayPaymentData, .malformedPaymentData)
            #expect(rejected.report.check(.applePayPaymentData)?.message.contains(field) == true, "\(field)")
        }
    }
}
