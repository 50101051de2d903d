import Foundation
import Testing
import WalletVerifierTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Retries that lose nothing, against real `serve` processes killed with SIGKILL in the middle of a
/// burst: every submission carries an Idempotency-Key; after the kill (and a restart, or on the
/// other instance sharing PostgreSQL) every submission is retried with its key and must be accepted
/// — answered, not a replay — while a copy without the key is rejected as a replay.
@Suite(.serialized) struct CrashRetryTests {
    /// One submission: where it goes, its exact body, its key.
    struct Submission: Sendable {
        let path: String
        let body: Data
        let key: String
        let replayCheck: String
    }

    struct Figures: CustomStringConvertible {
        var submissions = 0, answeredBeforeKill = 0, lostAtKill = 0, retriesAccepted = 0, retriesAnsweredAsRetry = 0, copiesRejected = 0,
            busyAnswers = 0
        var description: String {
            "submissions \(submissions), answered before the kill \(answeredBeforeKill), lost at the kill \(lostAtKill), "
                + "retries accepted \(retriesAccepted) (of which idempotent retries \(retriesAnsweredAsRetry)), 409s waited out \(busyAnswers), "
                + "copies without the key rejected \(copiesRejected)"
        }
    }

    static func submissions(_ fixture: ServiceFixture, on instance: ServiceInstance, count: Int) async throws -> [Submission] {
        var submissions: [Submission] = []
        for index in 0..<count {
            if index % 2 == 0 {
                let token = try JSONSerialization.jsonObject(with: Data(try fixture.applePayToken(signedAt: Date())))
                submissions.append(
                    Submission(
                        path: "/v1/applepay/decrypt",
                        body: try JSONSerialization.data(withJSONObject: ["token": token, "expect": ["currency": "840", "amount": 1999]]),
                        key: UUID().uuidString, replayCheck: "replay.transactionId"))
            } else {
                let request = try await DeploymentTests.createRequest(on: instance)
                let envelope = try fixture.identityResponse(nonce: request.nonce, fixture: DeploymentTests.currentFixture())
                submissions.append(
                    Submission(
                        path: "/v1/identity/verify",
                        body: try JSONSerialization.data(withJSONObject: [
                            "requestId": request.id, "encryptedData": Data(envelope).base64EncodedString(),
                        ]),
                        key: UUID().uuidString, replayCheck: "replay.nonce"))
            }
        }
        return submissions
    }

    static func check(_ body: [String: Any], _ id: String) -> [String: Any]? {
        (body["checks"] as? [[String: Any]])?.first { $0["id"] as? String == id }
    }

    /// Sends every submission at once to `instance` and kills it after `delay`: answers that arrived
    /// before, and how many were lost.
    static func burstAndKill(_ submissions: [Submission], to instance: ServiceInstance, after delay: Duration) async -> (answered: Int, lost: Int) {
        await withTaskGroup(of: Bool.self) { group in
            for submission in submissions {
                group.addTask {
                    guard let answer = try? await instance.post(submission.path, body: submission.body, headers: ["Idempotency-Key": submission.key])
                    else { return false }
                    #expect(answer.status != 200 || answer.body["verdict"] as? String == "accepted", "\(answer.body)")
                    return answer.status == 200
                }
            }
            try? await Task.sleep(for: delay)
            instance.kill()
            var answered = 0, lost = 0
            for await ok in group { if ok { answered += 1 } else { lost += 1 } }
            return (answered, lost)
        }
    }

    /// One round: fresh submissions to `instance`, sent all at once, the instance killed after a random
    /// 5–60 ms; what happened is added to `figures`.
    static func burstRound(_ fixture: ServiceFixture, on instance: ServiceInstance, figures: inout Figures) async throws -> [Submission] {
        let submissions = try await submissions(fixture, on: instance, count: 24)
        let result = await burstAndKill(submissions, to: instance, after: .milliseconds(Int.random(in: 5...60)))
        figures.submissions += submissions.count
        figures.answeredBeforeKill += result.answered
        figures.lostAtKill += result.lost
        return submissions
    }

    /// Retries every submission with its key (waiting out 409s), then sends a copy without it.
    static func retryAll(_ submissions: [Submission], to instance: ServiceInstance, figures: inout Figures) async throws {
        for submission in submissions {
            var answer = try await instance.postForHeaders(submission.path, body: submission.body, headers: ["Idempotency-Key": submission.key])
            var waits = 0
            while answer.status == 409, waits < 30 {
                figures.busyAnswers += 1
                waits += 1
                let seconds = Int(answer.headers["Retry-After"] as? String ?? "1") ?? 1
                try await Task.sleep(for: .seconds(min(max(seconds, 1), 15)))
                answer = try await instance.postForHeaders(submission.path, body: submission.body, headers: ["Idempotency-Key": submission.key])
            }
            #expect(answer.status == 200, "\(submission.path): \(answer.status) \(answer.body)")
            #expect(answer.body["verdict"] as? String == "accepted", "\(submission.path): \(answer.body)")
            if answer.body["verdict"] as? String == "accepted" { figures.retriesAccepted += 1 }
            if check(answer.body, submission.replayCheck)?["reason"] as? String == "idempotentRetry" { figures.retriesAnsweredAsRetry += 1 }
            let copy = try await instance.post(submission.path, body: submission.body)
            #expect(copy.body["verdict"] as? String == "rejected", "\(submission.path) without its key: \(copy.body)")
            if copy.body["verdict"] as? String == "rejected" { figures.copiesRejected += 1 }
        }
    }

    @Test func sigkillMidBurstOnSQLiteThenRetriesWithKeys() async throws {
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let arguments = ["--store", "sqlite", "--data-dir", fixture.directory.appendingPathComponent("data").path] + fixture.serveArguments
        var figures = Figures()
        for _ in 0..<3 {
            let submissions = try await Self.burstRound(fixture, on: try await ServiceInstance(arguments: arguments), figures: &figures)
            let restarted = try await ServiceInstance(arguments: arguments)
            defer { restarted.stop() }
            try await Self.retryAll(submissions, to: restarted, figures: &figures)
        }
        print("crash figures, SQLite, 3 kills: \(figures)")
        #expect(figures.retriesAccepted == figures.submissions)
        #expect(figures.copiesRejected == figures.submissions)
    }

    @Test func sigkillMidBurstOnPostgreSQLThenRetriesOnTheOtherInstance() async throws {
        guard let url = DeploymentTests.postgresURL else {
            if DeploymentTests.inCI { Issue.record("WALLET_VERIFIER_POSTGRES_URL is not set; scripts/test starts a throwaway PostgreSQL") }
            return
        }
        let fixture = try ServiceFixture()
        defer { fixture.remove() }
        let arguments = ["--store", "postgres", "--postgres-url", url] + fixture.serveArguments
        let other = try await ServiceInstance(arguments: arguments)
        defer { other.stop() }
        var figures = Figures()
        for _ in 0..<2 {
            let submissions = try await Self.burstRound(fixture, on: try await ServiceInstance(arguments: arguments), figures: &figures)
            try await Self.retryAll(submissions, to: other, figures: &figures)
        }
        print("crash figures, PostgreSQL, 2 kills, retries on the other instance: \(figures)")
        #expect(figures.retriesAccepted == figures.submissions)
        #expect(figures.copiesRejected == figures.submissions)
    }
}
