import Testing
import WalletCBOR

/// `CBORFullDate.description` writes `YYYY-MM-DD` with zero padding for every valid date.
@Suite struct FullDateDescriptionTests {
    @Test func everyDayOfSomeYearsIsPadded() throws {
        for year in [0, 7, 99, 999, 1583, 2024, 2100, 9999] {
            for month in 1...12 {
                for day in 1...31 {
                    guard let date = CBORFullDate(year: year, month: month, day: day) else { continue }
                    let expected = [(year, 4), (month, 2), (day, 2)].map { value, width in
                        let digits = String(value)
                        return String(repeating: "0", count: width - digits.count) + digits
                    }.joined(separator: "-")
                    #expect(date.description == expected)
                }
            }
        }
        #expect(try CBORFullDate(cbor: .tagged(1004, .text("0001-02-03"))).description == "0001-02-03")
    }
}
