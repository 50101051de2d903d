import Foundation
import Synchronization
import Testing

@testable import VerificationCore

/// Counts how often a deferred message was written.
private final class WriteCounter: Sendable {
    let count = Mutex(0)

    func message(_ text: String) -> String {
        count.withLock { $0 += 1 }
        return text
    }

    var writes: Int { count.withLock { $0 } }
}

/// A passing check's message is written when the report's text is read, not when the check passes;
/// a reader sees the same text and the same equality as with a message given as text.
@Suite struct DeferredMessageTests {
    private let time = Date(timeIntervalSince1970: 1_648_771_200)

    @Test func aPassingMessageIsWrittenOnlyWhenRead() {
        let counter = WriteCounter()
        var runner = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: VerificationContext(time: time))
        let count = 15
        runner.run("a.one") { .passed(counter.message("All \(count) elements match."), details: ["elements": "15"]) }
        runner.run("a.two") { .notApplicable(counter.message("No device MAC to check.")) }
        let report = runner.report(flow: "test")
        #expect(report.verdict == .accepted)
        #expect(counter.writes == 0)

        #expect(report.check("a.one")?.message == "All 15 elements match.")
        #expect(counter.writes == 1)
        #expect(report.json().contains("\"message\":\"All 15 elements match.\""))
        #expect(report.json().contains("\"message\":\"No device MAC to check.\""))
        #expect(counter.writes > 1)
    }

    @Test func deferredAndWrittenMessagesCompareByTheirText() {
        let deferred = CheckOutcome.passed("Signed at \(time)")
        let written = CheckOutcome(status: .passed, reason: .ok, message: "Signed at \(time)")
        #expect(deferred == written)
        #expect(Set([deferred, written]).count == 1)
        #expect(CheckOutcome.passed("other") != written)

        var runner = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: VerificationContext(time: time))
        runner.run("a.one") { deferred }
        let recorded = runner.report(flow: "test").checks[0]
        #expect(recorded == CheckResult(id: "a.one", status: .passed, reason: .ok, message: "Signed at \(time)"))
        var changed = recorded
        changed.message = "replaced"
        #expect(changed.message == "replaced")
        #expect(recorded.message == "Signed at \(time)")
    }

    /// `passed(writing:)`: the message and the details come from one writer, run when the report is
    /// read (once per result when the JSON is written); they read, compare, change and decode as
    /// given ones do.
    @Test func messageAndDetailsWrittenTogether() throws {
        let counter = WriteCounter()
        var runner = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: VerificationContext(time: time))
        let count = 15
        runner.run("a.one") { .passed { (counter.message("All \(count) elements match."), ["elements": String(count)]) } }
        runner.run("a.two", requires: ["a.one"]) { .passed("next") }
        let report = runner.report(flow: "test")
        #expect(counter.writes == 0)
        #expect(report.verdict == .accepted)
        #expect(report.check("a.two")?.status == .passed)
        #expect(counter.writes == 0)

        let json = report.json()
        #expect(counter.writes == 1)
        #expect(json.contains(#"{"details":{"elements":"15"},"id":"a.one","message":"All 15 elements match.""#))

        let given = CheckResult(id: "a.one", status: .passed, reason: .ok, message: "All 15 elements match.", details: ["elements": "15"])
        let recorded = try #require(report.check("a.one"))
        #expect(recorded == given)
        #expect(Set([recorded, given]).count == 1)
        #expect(recorded.details == ["elements": "15"])
        let eager = CheckOutcome.passed("All 15 elements match.", details: ["elements": "15"])
        #expect(CheckOutcome.passed { ("All 15 elements match.", ["elements": "15"]) } == eager)
        #expect(CheckOutcome.passed { ("All 15 elements match.", ["elements": "14"]) } != eager)

        // Changing one keeps the other.
        var newMessage = recorded
        newMessage.message = "replaced"
        #expect(newMessage.details == ["elements": "15"])
        var newDetails = recorded
        newDetails.details["origin"] = "https://example.com"
        #expect(newDetails.message == "All 15 elements match.")
        #expect(newDetails.details == ["elements": "15", "origin": "https://example.com"])
        var outcome = CheckOutcome.passed { ("first", ["k": "v"]) }
        outcome.message = "second"
        #expect(outcome.details == ["k": "v"])

        let decoded = try JSONDecoder().decode(VerificationReport.self, from: Data(json.utf8))
        #expect(decoded.checks == report.checks)
        let encoded = try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? NSDictionary
        #expect(encoded == (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary))
    }

    @Test func aRevisedResultTakesTheWrittenDetails() {
        var runner = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: VerificationContext(time: time))
        runner.run("a.one") { .passed("provisional", details: ["old": "1"]) }
        runner.revise("a.one", .passed { ("final", ["new": "2"]) })
        let result = runner.report(flow: "test").checks[0]
        #expect(result.message == "final")
        #expect(result.details == ["new": "2"])
    }

    @Test func aDecodedReportKeepsTheText() throws {
        var runner = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: VerificationContext(time: time))
        let name = "family_name"
        runner.run("a.one") { .passed("\(name) was requested") }
        let report = runner.report(flow: "test")
        let decoded = try JSONDecoder().decode(VerificationReport.self, from: Data(report.json().utf8))
        #expect(decoded.checks[0].message == "family_name was requested")
        #expect(decoded.checks == report.checks)
    }
}
