import Foundation
import Testing
import VerificationCore

/// The card block shared by the wallets: fixed member order, absent members left out, and nothing
/// of the card in `description`, `debugDescription` or `dump`.
@Suite struct PaymentCardTests {
    let card = PaymentCard(
        wallet: .googlePay, number: "4895370012003478", expiryMonth: 12, expiryYear: 2025, authMethod: "CRYPTOGRAM_3DS",
        cryptogram: "AgAAAAAABk4DWZ4C28yUQAAAAAA=", eci: "07")

    @Test func jsonHasTheMembersInTheirOrder() {
        #expect(
            String(decoding: card.jsonBytes, as: UTF8.self)
                == #"{"wallet":"googlepay","number":"4895370012003478","expiryMonth":12,"expiryYear":2025,"authMethod":"CRYPTOGRAM_3DS","cryptogram":"AgAAAAAABk4DWZ4C28yUQAAAAAA=","eci":"07"}"#
        )
        let panOnly = PaymentCard(wallet: .googlePay, number: "4111111111111111", expiryMonth: nil, expiryYear: nil, cryptogram: nil, eci: nil)
        #expect(String(decoding: panOnly.jsonBytes, as: UTF8.self) == #"{"wallet":"googlepay","number":"4111111111111111"}"#)
        // Strings are escaped as JSON strings, whatever a wallet sent.
        let odd = PaymentCard(wallet: .applePay, number: "1\"2", expiryMonth: 1, expiryYear: 2030, paymentDataType: "EMV", cryptogram: nil, eci: nil)
        let object = try? JSONSerialization.jsonObject(with: Data(odd.jsonBytes)) as? [String: Any]
        #expect(object?["number"] as? String == "1\"2")
        #expect(object?["paymentDataType"] as? String == "EMV")
    }

    @Test func descriptionsShowNoCardData() {
        var dumped = ""
        dump(card, to: &dumped)
        for text in [card.description, String(reflecting: card), "\(card)", dumped] {
            #expect(!text.contains("4895370012003478"))
            #expect(!text.contains("AgAAAAAABk4DWZ4C28yUQAAAAAA="))
            #expect(!text.contains("2025"))
            #expect(text.contains("3478"))
            #expect(text.contains("cryptogram present"))
        }
    }
}
