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
