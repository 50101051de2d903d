import Foundation
import Testing

@testable import MdocVerifier

/// The UTC day of an instant is counted from its seconds; it must be the day its RFC 3339 text names.
@Suite struct RFC3339CivilTests {
    @Test func theCountedDayIsTheDayOfTheText() {
        var instants: [Double] = [
            0, -1, 1, 86_399, 86_400, -86_400, -86_401, 951_782_400, 951_868_799.999, 1_709_164_800, 4_107_542_399,
            -12_212_553_600, -12_212_553_601, 253_402_300_799, 253_402_300_800, -0.5, 86_399.75, .nan,
        ]
        var state: UInt64 = 0x5EED
        for _ in 0..<20_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            instants.append(Double(Int64(bitPattern: state) % 300_000_000_000) + Double(state >> 54) / 1024)
        }
        for seconds in instants {
            let date = Date(timeIntervalSince1970: seconds)
            let counted = RFC3339Civil.date(date)
            let read = RFC3339Civil.dateFromText(date)
            #expect(counted == read, "\(seconds)")
        }
    }
}
