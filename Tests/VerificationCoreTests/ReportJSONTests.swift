import Foundation
import Testing
import VerificationCore
import WalletEncoding

/// The hand-written report JSON says exactly what the `Encodable` form says, and the hand-written
/// time format is Foundation's.
@Suite struct WrittenReportJSONTests {
    static let awkward = "quote \" backslash \\ slash / newline \n tab \t cr \r nul \u{0} bell \u{7} del \u{7F} é 😀 \u{2028}"

    static func reports() -> [VerificationReport] {
        let time = Date(timeIntervalSince1970: 1_763_700_000.25)
        let checks = [
            CheckResult(id: "a.first", status: .passed, reason: .ok, message: "fine"),
            CheckResult(
                id: "b.second", status: .failed, reason: "badThing", message: awkward, requirement: .advisory, scope: "document[0]",
                details: ["zeta": "1", "alpha": awkward, "Mid": "x", "10": "ten", "9": "nine"]),
            CheckResult(id: "c.third", status: .error, reason: .unavailable, message: "store", retryable: true),
            CheckResult(id: "d.fourth", status: .skipped, reason: .disabledByPolicy, message: "off", requirement: .disabled),
        ]
        return [
            VerificationReport(
                flow: "applePay", policy: "applepay/production@1", evaluatedAt: time, checks: checks,
                warnings: [ReportWarning(code: "w1", message: awkward, scope: "document[1]"), ReportWarning(code: "w2", message: "plain")],
                testOnly: true),
            VerificationReport(flow: "mdoc", policy: "p", evaluatedAt: Date(timeIntervalSince1970: 0), checks: []),
            VerificationReport(flow: awkward, policy: "p", evaluatedAt: Date(timeIntervalSince1970: 1_648_771_200), checks: [checks[0]]),
        ]
    }

    @Test(arguments: reports())
    func sameAsTheEncodableForm(report: VerificationReport) throws {
        let written = try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? NSDictionary
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? NSDictionary
        #expect(written != nil)
        #expect(written == encoded)
        // And it reads back as the same report.
        #expect(try JSONDecoder().decode(VerificationReport.self, from: Data(report.json().utf8)) == report)
    }

    @Test func keysAreSortedAndExtrasFollow() throws {
        let report = Self.reports()[0]
        let text = report.json(extra: [(key: "payment", rawJSON: #"{"b":1,"a":[true]}"#), (key: "x\"y", rawJSON: "null")])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect((object["payment"] as? [String: Any])?["b"] as? Int == 1)
        #expect(object["x\"y"] is NSNull)
        #expect(object["verdict"] as? String == "indeterminate")
        let order = ["\"checks\"", "\"evaluatedAt\"", "\"flow\"", "\"policy\"", "\"testOnly\"", "\"verdict\"", "\"warnings\"", "\"payment\""]
        let positions = order.map { text.range(of: $0)?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil })
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        #expect(text.hasPrefix(#"{"checks":[{"id":"a.first","message":"fine","reason":"ok","requirement":"required","status":"passed"}"#))
    }

    @Test func controlCharactersAreEscaped() {
        let text = Self.reports()[0].json()
        #expect(text.contains(#"nul \u0000 bell \u0007"#))
        #expect(text.contains(#"newline \n tab \t cr \r"#))
        #expect(!text.utf8.contains { $0 < 0x20 })
    }

    @Test func timesAreFoundationsRFC3339() {
        var random = SystemRandomNumberGenerator()
        var samples: [Double] = [
            0, -1, -0.5, 86_399.999, 951_782_400, 4_107_542_400, -62_135_596_800, -12_212_553_600, -12_212_553_601, 253_402_300_799, 253_402_300_800,
            1_648_771_200.001,
        ]
        for _ in 0..<5000 { samples.append(Double(Int64.random(in: -70_000_000_000...260_000_000_000, using: &random))) }
        for _ in 0..<2000 {
            samples.append(Double(Int64.random(in: 0...4_000_000_000, using: &random)) + Double(Int.random(in: 1...999, using: &random)) / 1000)
        }
        for seconds in samples {
            let date = Date(timeIntervalSince1970: seconds)
            let fractional = seconds != seconds.rounded(.down)
            let expected = date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: fractional))
            #expect(RFC3339.format(date) == expected, "\(seconds)")
            if RFC3339.format(date) != expected { break }
        }
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_648_771_200)) == "2022-04-01T00:00:00Z")
        #expect(RFC3339.format(Date(timeIntervalSince1970: 1_648_771_200.5)) == "2022-04-01T00:00:00.500Z")
    }

    @Test func civilDatesRoundTrip() {
        #expect(RFC3339.daysFromCivil(year: 1970, month: 1, day: 1) == 0)
        #expect(RFC3339.daysFromCivil(year: 2000, month: 3, day: 1) == 11_017)
        #expect(RFC3339.daysFromCivil(year: 1969, month: 12, day: 31) == -1)
        for days in stride(from: -800_000, through: 3_000_000, by: 997) {
            let date = RFC3339.civilFromDays(days)
            #expect(RFC3339.daysFromCivil(year: date.year, month: date.month, day: date.day) == days)
            #expect((1...12).contains(date.month) && (1...31).contains(date.day))
        }
    }
}
