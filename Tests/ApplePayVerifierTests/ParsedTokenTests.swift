import ApplePayVerifier
import Foundation
import Testing
import VerificationCore
import WalletJSON
import WalletVerifierTestSupport

/// A token handed over with its strict JSON parse (as the HTTP service does) is verified exactly as
/// the same bytes alone: the same checks, statuses, reasons, messages and payment.
@Suite struct ParsedTokenTests {
    static func reports(_ bytes: [UInt8], at time: Date) async throws -> (alone: ApplePayResult, parsed: ApplePayResult) {
        let object = try #require(try StrictJSON.parse(bytes).object)
        let alone = try RealTokenTests.verifier([RealTokenTests.seatgeekKey()])
        let withParse = try RealTokenTests.verifier([RealTokenTests.seatgeekKey()])
        let context = VerificationContext(time: time)
        return (await alone.verify(bytes, context: context), await withParse.verify(bytes, parsed: object, context: context))
    }

    static func expectSame(_ pair: (alone: ApplePayResult, parsed: ApplePayResult), _ label: String) {
        #expect(pair.alone.report.json() == pair.parsed.report.json(), "\(label)")
        #expect(pair.alone.payment?.rawJSON == pair.parsed.payment?.rawJSON, "\(label)")
    }

    @Test func realTokenAndItsVariantsGiveTheSameReport() async throws {
        let token = try TestVectors.data("applepay/seatgeek-2014-ec/token.json")
        let time = RealTokenTests.seatgeekSigningTime.addingTimeInterval(60)
        let accepted = try await Self.reports(token, at: time)
        #expect(accepted.parsed.verdict == .accepted)
        Self.expectSame(accepted, "paymentData")

        // The whole PKPaymentToken, and paymentData as a JSON string.
        let paymentData = String(decoding: token, as: UTF8.self)
        let whole = Array(
            #"{"paymentData":\#(paymentData),"transactionIdentifier":"2686F5297F123EC7FD9D31074D43D201953CA75F098890375F13AED2737D92F2","paymentMethod":{"network":"Visa"}}"#
                .utf8)
        Self.expectSame(try await Self.reports(whole, at: time), "PKPaymentToken")
        let quoted = try JSONSerialization.data(withJSONObject: ["paymentData": paymentData])
        Self.expectSame(try await Self.reports(Array(quoted), at: time), "paymentData as a string")

        // Rejected ones: a later time, a missing field, a wrong version.
        Self.expectSame(try await Self.reports(token, at: time.addingTimeInterval(86_400)), "expired")
        var object = try #require(try JSONSerialization.jsonObject(with: Data(token)) as? [String: Any])
        object["signature"] = nil
        Self.expectSame(try await Self.reports(Array(try JSONSerialization.data(withJSONObject: object)), at: time), "no signature")
        object["version"] = "EC_v9"
        Self.expectSame(try await Self.reports(Array(try JSONSerialization.data(withJSONObject: object)), at: time), "unknown version")
    }
}
