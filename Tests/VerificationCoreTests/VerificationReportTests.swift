import Foundation
import Testing
import WalletEncoding

@testable import VerificationCore

private let t0 = Date(timeIntervalSince1970: 1_648_771_200)  // 2022-04-01T00:00:00Z

private func context() -> VerificationContext { VerificationContext(time: t0) }

@Suite struct VerdictTests {
    @Test func acceptedWhenEveryRequiredCheckPassed() {
        var runner = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: context())
        runner.run("a.one") { .passed("fine") }
        runner.run("a.two", requires: ["a.one"]) { .passed("fine") }
        #expect(runner.report(flow: "test").verdict == .accepted)
    }

    @Test func rejectedWhenARequiredCheckFailed() {
        var runner = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: context())
        runner.run("a.one") { .failed("bad", "broken") }
        runner.run("a.two") { .passed("fine") }
        let report = runner.report(flow: "test")
        #expect(report.verdict == .rejected)
        #expect(report.failures.map(\.id) == ["a.one"])
    }

    @Test func advisoryFailureDoesNotReject() {
        let policy = VerificationPolicy(name: "test@1").with("a.one", .advisory)
        var runner = CheckRunner(policy: policy, context: context())
        runner.run("a.one") { .failed("bad", "broken") }
        runner.run("a.two") { .passed("fine") }
        #expect(runner.report(flow: "test").verdict == .accepted)
    }

    @Test func dependantsOfAFailedCheckAreSkippedNotDroppedAndIndependentChecksStillRun() {
        var runner = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: context())
        runner.run("a.parse") { .failed("bad", "broken") }
        runner.run("a.signature", requires: ["a.parse"]) {
            Issue.record("must not run")
            return .passed("")
        }
        runner.run("a.independent") { .passed("fine") }
        let report = runner.report(flow: "test")
        #expect(report.checks.map(\.id) == ["a.parse", "a.signature", "a.independent"])
        #expect(report.check("a.signature")?.status == .skipped)
        #expect(report.check("a.signature")?.reason == .prerequisiteFailed)
        #expect(report.check("a.signature")?.details["prerequisite"] == "a.parse")
        #expect(report.check("a.independent")?.status == .passed)
        #expect(report.verdict == .rejected)
    }

    /// `skip(_:requires:)` records exactly what a run with a failed prerequisite records, and a
    /// disabled check as disabled.
    @Test func skipRecordsAsAFailedPrerequisiteDoes() {
        var ran = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: context())
        ran.run("a.parse") { .failed("bad", "broken") }
        ran.run("a.values", requires: ["a.parse"], scope: "doc0") { .passed("") }
        var skipped = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: context())
        skipped.run("a.parse") { .failed("bad", "broken") }
        skipped.skip("a.values", requires: "a.parse", scope: "doc0")
        #expect(skipped.results == ran.results)
        #expect(CheckOutcome.notEvaluated(because: "a.parse").details == ["prerequisite": "a.parse"])

        var disabled = CheckRunner(policy: VerificationPolicy(name: "test@1").with("a.values", .disabled), context: context())
        disabled.skip("a.values", requires: "a.parse")
        #expect(disabled.results.first?.reason == .disabledByPolicy)
    }

    /// An outcome's warnings go into the report after its result, in the check's scope unless they name their own.
    @Test func anOutcomeCarriesItsWarnings() {
        var runner = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: context())
        runner.run("a.profile", scope: "doc0") { CheckOutcome.passed("Fine, mostly.").warning("ruleBent", "A rule was bent.") }
        runner.run("a.off", scope: "doc0") { CheckOutcome.passed("Fine.").warning("other", "Elsewhere.") }
        #expect(
            runner.warnings == [
                ReportWarning(code: "ruleBent", message: "A rule was bent.", scope: "doc0"),
                ReportWarning(code: "other", message: "Elsewhere.", scope: "doc0"),
            ])
        var disabled = CheckRunner(policy: VerificationPolicy(name: "test@1").with("a.profile", .disabled), context: context())
        disabled.run("a.profile") { CheckOutcome.passed("Fine.").warning("ruleBent", "A rule was bent.") }
        #expect(disabled.warnings.isEmpty)
    }

    @Test func aNotApplicableSkipInAnotherScopeDoesNotUnblockThisScope() {
        var runner = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: context())
        runner.run("a.parse", scope: "doc0") { .failed("bad", "broken") }
        runner.run("a.digest", requires: ["a.parse"], scope: "doc0") { .passed("") }
        runner.run("a.digest", scope: "doc1") { .notApplicable("Nothing to digest.") }
        runner.run("a.values", requires: ["a.digest"], scope: "doc0") {
            Issue.record("must not run: doc0's a.digest was skipped for a failed prerequisite")
            return .passed("")
        }
        runner.run("a.values", requires: ["a.digest"], scope: "doc1") { .passed("fine") }
        let report = runner.report(flow: "test")
        let doc0Values = report.checks.first { $0.id == "a.values" && $0.scope == "doc0" }
        let doc1Values = report.checks.first { $0.id == "a.values" && $0.scope == "doc1" }
        #expect(doc0Values?.reason == .prerequisiteFailed)
        #expect(doc1Values?.status == .passed)
    }

    @Test func operationalErrorMakesTheVerdictIndeterminateAndRetryable() async {
        var runner = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: context())
        runner.run("a.one") { .passed("fine") }
        await runner.runAsync("replay.nonce") { throw OperationalError("storeUnavailable", "the store did not answer") }
        let report = runner.report(flow: "test")
        #expect(report.check("replay.nonce")?.status == .error)
        #expect(report.verdict == .indeterminate)
        #expect(report.isRetryable)
    }

    @Test func failedCheckBeatsErroredCheck() async {
        var runner = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: context())
        runner.run("a.one") { .failed("bad", "broken") }
        runner.run("a.two") { throw OperationalError("x", "down") }
        #expect(runner.report(flow: "test").verdict == .rejected)
    }

    @Test func emptyReportIsNeverAccepted() {
        let report = VerificationReport(flow: "test", policy: "p", evaluatedAt: t0, checks: [])
        #expect(report.verdict == .indeterminate)
    }

    @Test func disabledChecksAreRecordedAsSkipped() {
        let policy = VerificationPolicy(name: "test@1").with("a.off", .disabled)
        var runner = CheckRunner(policy: policy, context: context())
        runner.run("a.off") {
            Issue.record("must not run")
            return .failed("x", "y")
        }
        runner.run("a.on") { .passed("fine") }
        let report = runner.report(flow: "test")
        #expect(report.check("a.off")?.reason == .disabledByPolicy)
        #expect(report.verdict == .accepted)
    }

    @Test func thrownDecodingErrorBecomesAFailedCheck() {
        struct Broken: Error, CheckFailureDescribing {
            var reasonCode: ReasonCode { "truncated" }
            var checkMessage: String { "input ends early" }
        }
        var runner = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: context())
        runner.run("a.parse") { throw Broken() }
        #expect(runner.report(flow: "test").check("a.parse")?.reason == "truncated")
        #expect(runner.report(flow: "test").check("a.parse")?.status == .failed)
    }

    @Test func checkTypesRunWithState() async {
        struct Counter: VerificationCheck {
            var id: CheckID { "a.count" }
            func evaluate(_ state: inout Int, context: VerificationContext) async throws -> CheckOutcome {
                state += 1
                return state > 0 ? .passed("counted") : .failed("x", "y")
            }
        }
        var runner = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: context())
        var state = 0
        await runner.run(Counter(), state: &state)
        #expect(state == 1)
        #expect(runner.passed("a.count"))
    }
}

@Suite struct ReportJSONTests {
    @Test func jsonShapeIsTheContract() throws {
        var runner = CheckRunner(policy: VerificationPolicy(name: "test@1"), context: context())
        runner.run("a.one") { .passed("fine", details: ["k": "v"]) }
        runner.run("a.two") { .failed("bad", "broken") }
        runner.warn("note", "something to know")
        let data = try JSONEncoder().encode(runner.report(flow: "test"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["verdict"] as? String == "rejected")
        #expect(object["evaluatedAt"] as? String == "2022-04-01T00:00:00Z")
        let checks = try #require(object["checks"] as? [[String: Any]])
        #expect(checks.count == 2)
        #expect(checks[0]["id"] as? String == "a.one")
        #expect(checks[0]["status"] as? String == "passed")
        #expect(checks[0]["reason"] as? String == "ok")
        #expect(checks[0]["message"] as? String == "fine")
        #expect((checks[0]["details"] as? [String: String])?["k"] == "v")
        #expect(checks[1]["reason"] as? String == "bad")
        let warnings = try #require(object["warnings"] as? [[String: Any]])
        #expect(warnings.first?["code"] as? String == "note")
    }

    @Test func decodingRecomputesTheVerdict() throws {
        let json =
            #"{"verdict":"accepted","flow":"x","policy":"p","evaluatedAt":"2022-04-01T00:00:00Z","checks":[{"id":"a","status":"failed","reason":"bad","message":"m"}],"warnings":[]}"#
        let report = try JSONDecoder().decode(VerificationReport.self, from: Data(json.utf8))
        #expect(report.verdict == .rejected)
        #expect(report.evaluatedAt == t0)
    }

    @Test func rfc3339ParsesOffsetsAndFractions() {
        #expect(RFC3339.parse("2022-04-01T00:00:00Z") == t0)
        #expect(RFC3339.parse("2022-04-01T02:00:00+02:00") == t0)
        #expect(RFC3339.parse("2022-04-01T00:00:00.500Z") == t0.addingTimeInterval(0.5))
        #expect(RFC3339.parse("yesterday") == nil)
        #expect(RFC3339.format(t0) == "2022-04-01T00:00:00Z")
    }
}

@Suite struct InMemoryReplayStoreTests {
    @Test func recordsFirstUseOnce() async throws {
        let store = InMemoryReplayStore()
        let expiry = t0.addingTimeInterval(600)
        #expect(try await store.recordFirstUse(namespace: "tx", key: "abc", expiresAt: expiry, now: t0) == .firstUse)
        #expect(try await store.recordFirstUse(namespace: "tx", key: "abc", expiresAt: expiry, now: t0) == .alreadyUsed)
        #expect(try await store.recordFirstUse(namespace: "other", key: "abc", expiresAt: expiry, now: t0) == .firstUse)
    }

    @Test func concurrentSubmissionsSucceedExactlyOnce() async throws {
        let store = InMemoryReplayStore()
        let outcomes = await withTaskGroup(of: ReplayOutcome?.self) { group in
            for _ in 0..<50 {
                group.addTask { try? await store.recordFirstUse(namespace: "tx", key: "same", expiresAt: t0.addingTimeInterval(60), now: t0) }
            }
            var all: [ReplayOutcome?] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.filter { $0 == .firstUse }.count == 1)
        #expect(outcomes.filter { $0 == .alreadyUsed }.count == 49)
    }

    @Test func noncesAreConsumedOnceAndExpire() async throws {
        let store = InMemoryReplayStore()
        try await store.issueNonce("n1", payload: [1, 2], expiresAt: t0.addingTimeInterval(60))
        try await store.issueNonce("n2", payload: [], expiresAt: t0.addingTimeInterval(60))
        #expect(try await store.consumeNonce("n1", now: t0) == .consumed(payload: [1, 2]))
        #expect(try await store.consumeNonce("n1", now: t0) == .alreadyConsumed)
        #expect(try await store.consumeNonce("n2", now: t0.addingTimeInterval(61)) == .expired)
        #expect(try await store.consumeNonce("nope", now: t0) == .unknown)
        #expect(try await store.purgeExpired(now: t0.addingTimeInterval(120)) == 2)
    }
}
