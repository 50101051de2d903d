import Foundation
import Testing

@testable import ApplePayVerifier

/// The seconds in signing-time messages: whole numbers as integers, below a minute three decimals
/// exactly as `%.3f` writes them, a minute or more rounded to whole seconds.
@Suite struct SigningTimeFormatTests {
    @Test func matchesPrintfBelowOneMinute() {
        var values: [Double] = [
            0.5, -0.5, 0.25, 1.125, 59.9994, -59.9994, 0.0004, -0.0004, 0.0015, 12.3456, -3.21, 0.999, 0.9999, -0.9999, 0.001, 59.5,
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 { values.append(Double.random(in: -59.999...59.999, using: &generator)) }
        for value in values where value != value.rounded() && abs(value) < 59.9995 {
            #expect(SigningTimeCheck.format(value) == String(format: "%.3f", value), "\(value)")
        }
    }

    @Test func wholeAndLargeValues() {
        #expect(SigningTimeCheck.format(0) == "0")
        #expect(SigningTimeCheck.format(-42) == "-42")
        #expect(SigningTimeCheck.format(90.4) == "90")
        #expect(SigningTimeCheck.format(-90.6) == "-91")
        #expect(SigningTimeCheck.format(380_844_402) == "380844402")
    }
}
