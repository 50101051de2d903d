import Prometheus
import VerificationCore

/// Prometheus metrics: verifications by flow and verdict, failed checks by id, latency.
public final class ServerMetrics: Sendable {
    public let registry = PrometheusCollectorRegistry()
    private let latency: DurationHistogram

    public init() {
        latency = registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(namespace: "wallet_verifier", metricName: "verification_duration", unitName: "seconds",
                                             helpText: "Time to verify one submission"),
            buckets: [.milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
                      .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5)])
    }

    public func record(flow: String, report: VerificationReport, duration: Duration) {
        registry.makeCounter(descriptor: Self.verifications, labels: [("flow", flow), ("verdict", report.verdict.rawValue)]).increment()
        for check in report.checks where check.status == .failed || check.status == .error {
            registry.makeCounter(descriptor: Self.checkFailures, labels: [("check", check.id.rawValue), ("reason", check.reason.rawValue)]).increment()
        }
        latency.record(duration)
    }

    public func requestRejected(reason: String) {
        registry.makeCounter(descriptor: Self.unreadableRequests, labels: [("reason", reason)]).increment()
    }

    public func text() -> String { registry.emitToString() }

    private static var verifications: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "wallet_verifier", metricName: "verifications", unitName: "total", helpText: "Verifications by flow and verdict")
    }

    private static var checkFailures: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "wallet_verifier", metricName: "check_failures", unitName: "total",
                             helpText: "Checks that failed or could not be decided, by check id and reason")
    }

    private static var unreadableRequests: MetricNameDescriptor {
        MetricNameDescriptor(namespace: "wallet_verifier", metricName: "unreadable_requests", unitName: "total",
                             helpText: "Requests answered with 4xx because they could not be read")
    }
}
