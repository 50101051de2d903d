import Foundation
import Testing
import WalletVerifierTestSupport

@testable import ApplePayVerifier

/// The in-place reading of the usual decrypted payment data (`ApplePayPaymentData.readUsual`)
/// against the general reading: whatever the in-place reading accepts, the general one accepts too,
/// with equal data; everything else is left to the general reading.
@Suite struct ApplePayPaymentDataInPlaceTests {
    static func general(_ bytes: [UInt8]) -> ApplePayPaymentData? { try? ApplePayPaymentData(strictJSON: bytes) }

    static func expectConsistent(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        guard let usual = ApplePayPaymentData.readUsual(bytes) else { return }
        guard let general = general(bytes) else {
            Issue.record("read in place, refused by the general reading", sourceLocation: sourceLocation)
            return
        }
        #expect(usual == general, sourceLocation: sourceLocation)
        #expect(usual.transactionAmountWholeText == general.transactionAmountWholeText, sourceLocation: sourceLocation)
    }

    static let sample = ApplePayTokenBuilder.samplePaymentJSON
    static let emv =
        #"{"applicationPrimaryAccountNumber":"5204240250197840","applicationExpirationDate":"300131","currencyCode":"978","transactionAmount":0,"deviceManufacturerIdentifier":"050110030273","paymentDataType":"EMV","merchantTokenIdentifier":"DNITHE302308980427388297","paymentData":{"emvData":"ngIAAA==","encryptedPINData":"00ff"}}"#
    /// 3-D Secure data whose cryptogram holds "/", written "\/" as serializers write it.
    static let escaped =
        #"{"applicationPrimaryAccountNumber":"4109370251004320","applicationExpirationDate":"200731","currencyCode":"840","transactionAmount":100,"deviceManufacturerIdentifier":"040010030273","paymentDataType":"3DSecure","paymentData":{"onlinePaymentCryptogram":"Af9x\/QwAA\/DjmU65oyc1MAABAAA=","eciIndicator":"5"}}"#

    @Test func theUsualPaymentDataReadsInPlaceAsItReadsGenerally() throws {
        for text in [Self.sample, Self.emv, Self.escaped] {
            let bytes = Array(text.utf8)
            let usual = ApplePayPaymentData.readUsual(bytes)
            #expect(usual != nil, "not read in place: \(text.prefix(60))")
            #expect(usual == Self.general(bytes))
            #expect(try ApplePayPaymentData(json: bytes) == usual)
        }
        let escaped = try #require(ApplePayPaymentData.readUsual(Array(Self.escaped.utf8)))
        #expect(escaped.details.onlinePaymentCryptogram == "Af9x/QwAA/DjmU65oyc1MAABAAA=")
        #expect(escaped.transactionAmount == 100)
        #expect(escaped.transactionAmountWholeText == "100")
    }

    @Test func unusualFormsAreLeftToTheGeneralReading() {
        func replacing(_ old: String, _ new: String, in text: String = Self.sample) -> [UInt8] {
            precondition(text.contains(old))
            return Array(text.replacingOccurrences(of: old, with: new).utf8)
        }
        let unusual: [(String, [UInt8])] = [
            ("a fraction", replacing("1999", "19.99")),
            ("an exponent", replacing("1999", "1999e0")),
            ("a leading zero", replacing("1999", "01999")),
            ("19 digits", replacing("1999", "1234567890123456789")),
            ("a negative amount", replacing("1999", "-1")),
            ("an amount as a string", replacing("1999", "\"1999\"")),
            ("a null", replacing("\"Jane Fixture\"", "null")),
            ("non-ASCII", replacing("Jane Fixture", "Zo\u{EB} Fixture")),
            ("another escape", replacing("Jane Fixture", "Jane\\u0020Fixture")),
            ("a duplicate", replacing("\"currencyCode\":\"840\"", "\"currencyCode\":\"840\",\"currencyCode\":\"978\"")),
            ("another member", replacing("\"currencyCode\":\"840\"", "\"currencyCode\":\"840\",\"authenticationResponses\":[]")),
            ("no amount", replacing("\"transactionAmount\":1999,", "")),
            (
                "no paymentData",
                replacing(",\"paymentData\":{\"onlinePaymentCryptogram\":\"AM8lJ8PaVr5bAAeoLxMCAoABFA==\",\"eciIndicator\":\"7\"}", "")
            ),
            ("an empty paymentData", replacing("{\"onlinePaymentCryptogram\":\"AM8lJ8PaVr5bAAeoLxMCAoABFA==\",\"eciIndicator\":\"7\"}", "{}")),
            ("trailing content", Array((Self.sample + " 1").utf8)),
        ]
        for (what, bytes) in unusual {
            #expect(ApplePayPaymentData.readUsual(bytes) == nil, "read in place with \(what)")
            Self.expectConsistent(bytes)
        }
        // Whitespace and another order are still the usual form.
        let spaced = Array(("\n" + Self.sample.replacingOccurrences(of: ",", with: " ,\t").replacingOccurrences(of: ":", with: " : ") + " ").utf8)
        #expect(ApplePayPaymentData.readUsual(spaced) != nil)
        Self.expectConsistent(spaced)
    }

    /// Random damage: a byte changed, removed or repeated anywhere. The in-place reading may give up,
    /// but never reads data the general reading refuses or reads differently.
    @Test func damagedPaymentDataIsNeverReadDifferently() {
        var generator = SystemRandomNumberGenerator()
        let interesting: [UInt8] = Array("\"\\/{}[],: \n0129.e-+Aa".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xFF]
        var readInPlace = 0
        for text in [Self.sample, Self.emv, Self.escaped] {
            let original = Array(text.utf8)
            for _ in 0..<1500 {
                let bytes = damaged(original, with: interesting, using: &generator)
                if ApplePayPaymentData.readUsual(bytes) != nil { readInPlace += 1 }
                Self.expectConsistent(bytes)
            }
        }
        #expect(readInPlace > 0)
    }
}
