import Foundation
import SwiftASN1
import Testing

@testable import ApplePayVerifier

/// The signing time read in place (`CMSTime.date(utcTimeElement:)`) against swift-asn1's reading
/// (`BER.parse` and `CMSTime.date(from:)`): where the in-place reader gives a date it is the same
/// date, it gives one for every usual UTCTime, and it never gives one where swift-asn1 refuses.
@Suite struct SigningTimeFastPathTests {
    static func generic(_ element: [UInt8]) -> Date? {
        guard let node = try? BER.parse(element) else { return nil }
        return try? CMSTime.date(from: node)
    }

    static func element(_ text: String) -> [UInt8] {
        [0x17, UInt8(text.utf8.count)] + Array(text.utf8)
    }

    static func expectAgreement(_ element: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        guard let fast = CMSTime.date(utcTimeElement: element[...]) else { return }
        #expect(generic(element) == fast, "\(element)", sourceLocation: sourceLocation)
    }

    @Test func usualTimesAreReadInPlaceAlike() {
        var texts = ["260101000000Z", "491231235959Z", "500101000000Z", "991231235959Z", "000229120000Z", "240229000000Z", "140915123456Z"]
        for month in 1...12 {
            for day in [1, 28, 29, 30, 31] {
                for year in [0, 23, 24, 49, 50, 99] {
                    texts.append(String(format: "%02d%02d%02d235959Z", year, month, day))
                }
            }
        }
        for text in texts {
            let element = Self.element(text)
            Self.expectAgreement(element)
            let generic = Self.generic(element)
            // Every valid date of this form is read in place.
            #expect((CMSTime.date(utcTimeElement: element[...]) != nil) == (generic != nil), "\(text)")
        }
        // In a slice of a larger buffer, as the signed attributes hold it.
        let inside = [0x31, 0x0F] + Self.element("260101000000Z") + [0x00]
        #expect(CMSTime.date(utcTimeElement: inside[2..<17]) == Self.generic(Self.element("260101000000Z")))
    }

    @Test func unusualElementsGoTheGenericWay() {
        let unusual = [
            "260101000000", "2601010000Z", "26010100000Z", "260101000060Z", "260101000061Z", "260132000000Z", "261301000000Z",
            "260100000000Z", "260001000000Z", "260101240000Z", "260101006000Z", "230229000000Z", "26010100000aZ", "260101000000+0000",
            "20260101000000Z", "2601010000000Z",
        ]
        for text in unusual {
            Self.expectAgreement(Self.element(text))
        }
        // GeneralizedTime, long-form lengths, constructed forms: never in place.
        #expect(CMSTime.date(utcTimeElement: ([0x18, 0x0F] + Array("20260101000000Z".utf8))[...]) == nil)
        #expect(CMSTime.date(utcTimeElement: ([0x17, 0x81, 0x0D] + Array("260101000000Z".utf8))[...]) == nil)
        #expect(CMSTime.date(utcTimeElement: ([0x37, 0x0D] + Array("260101000000Z".utf8))[...]) == nil)
    }

    @Test func mutatedElementsAgree() {
        var random = SystemRandomNumberGenerator()
        let base = Self.element("260101120000Z")
        for position in base.indices {
            for value in 0...255 {
                var element = base
                element[position] = UInt8(value)
                Self.expectAgreement(element)
            }
        }
        for _ in 0..<5000 {
            var element = base
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                element[Int.random(in: 2..<element.count, using: &random)] = UInt8.random(in: 0x2F...0x3A, using: &random)
            }
            Self.expectAgreement(element)
        }
    }
}
