import Prometheus
import VerificationCore

/// Prometheus metrics: verifications by flow and verdict, failed checks by id, latency.
public final class ServerMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    private let latency: DurationHistogram

    public init() {
        latency = registry.makeDurationHistogram(
            name: "wallet_verifier_verification_duration_seconds",
            buckets: [.milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
                      .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5)],
            help: "Time to verify one submission")
    }

    public func record(flow: String, report: VerificationReport, duration: Duration) {
        registry.makeCounter(name: "wallet_verifier_verifications_total", labels: [("flow", flow), ("verdict", report.verdict.rawValue)],
                             help: "Verifications by flow and verdict").increment()
        for check in report.checks where check.status == .failed || check.status == .error {
            registry.makeCounter(name: "wallet_verifier_check_failures_total", labels: [("check", check.id.rawValue), ("reason", check.reason.rawValue)],
                                 help: "Checks that failed or could not be decided, by check id and reason").increment()
        }
        latency.record(duration)
    }

    public func requestRejected(reason: String) {
        registry.makeCounter(name: "wallet_verifier_unreadable_requests_total", labels: [("reason", reason)],
                             help: "Requests answered with 4xx because they could not be read").increment()
    }

    public func text() -> String { registry.emitToString() }
}
