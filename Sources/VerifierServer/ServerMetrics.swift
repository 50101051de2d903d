import Foundation
import MdocVerifier
import Prometheus
import Synchronization
import TrustDocuments
import VerificationCore

/// Prometheus metrics: verifications by flow and verdict, failed checks by id, latency.
///
/// Each counter is looked up in the registry once (the registry builds and validates its name and
/// labels on every lookup) and then kept here, under its metric and label values: recording a
/// verification is a dictionary lookup and an increment.
public final class ServerMetrics: Sendable {
    /// The registry every metric of the service is registered in; ``text()`` renders it.
    public let registry = PrometheusCollectorRegistry()
    /// The verification-duration histogram of each flow (`wallet_verifier_verification_duration_seconds{flow}`).
    private let latencies = Mutex<[String: DurationHistogram]>([:])
    private static let latencyBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(5),
    ]

    private enum Metric: Hashable, Sendable {
        case verifications, checkFailures, unreadableRequests, idempotentRetries, idempotencyConflicts, revocationFetches, revocationCacheHits,
            receiptFailures, applePaySessions, receiptsKept

        /// The metric's name, unit and help text.
        var descriptor: MetricNameDescriptor {
            switch self {
            case .verifications: ServerMetrics.descriptor("verifications", unit: "total", help: "Verifications by flow and verdict")
            case .checkFailures:
                ServerMetrics.descriptor(
                    "check_failures", unit: "total", help: "Checks that failed or could not be decided, by check id and reason")
            case .unreadableRequests:
                ServerMetrics.descriptor(
                    "unreadable_requests", unit: "total", help: "Requests answered with 4xx because they could not be read")
            case .idempotentRetries:
                ServerMetrics.descriptor(
                    "idempotent_retries", unit: "total", help: "Submissions retried with their Idempotency-Key, by route")
            case .idempotencyConflicts:
                ServerMetrics.descriptor(
                    "idempotency_conflicts", unit: "total",
                    help: "Idempotency-Keys refused, by route and kind (other-request: 422, in-progress: 409)")
            case .revocationFetches:
                ServerMetrics.descriptor(
                    "revocation_list_fetches", unit: "total", help: "Revocation list fetches by outcome (fetched, or the failure's reason code)")
            case .revocationCacheHits:
                ServerMetrics.descriptor(
                    "revocation_list_cache_hits", unit: "total",
                    help: "Revocation lists answered from the cache (fresh, or a usable copy after a failed refetch)")
            case .receiptFailures:
                ServerMetrics.descriptor(
                    "receipt_failures", unit: "total",
                    help: "Receipts not signed, kept or recorded (the verification answer stands), by stage: sign, keep, record-key")
            case .receiptsKept:
                ServerMetrics.descriptor(
                    "receipts_kept", unit: "total",
                    help:
                        "Receipts issued with --receipts keep, by outcome: kept, not kept because the submission did not get past its structure checks (structure), or past the client's daily share (client-share)"
                )
            case .applePaySessions:
                ServerMetrics.descriptor(
                    "applepay_sessions", unit: "total",
                    help:
                        "Apple Pay merchant validations by outcome: created, url-refused, busy, refused, timeout, tls-failed, connection-failed, too-large, unreadable"
                )
            }
        }

        /// The names of its labels, in the order of ``CounterKey``'s values.
        var labelNames: [String] {
            switch self {
            case .verifications: ["flow", "verdict"]
            case .checkFailures: ["check", "reason"]
            case .unreadableRequests: ["reason"]
            case .idempotentRetries: ["route"]
            case .idempotencyConflicts: ["route", "kind"]
            case .revocationFetches: ["outcome"]
            case .revocationCacheHits: ["copy"]
            case .receiptFailures: ["stage"]
            case .receiptsKept: ["outcome"]
            case .applePaySessions: ["outcome"]
            }
        }
    }

    private struct CounterKey: Hashable, Sendable {
        let metric: Metric
        let first: String
        let second: String
    }

    private let counters = Mutex<[CounterKey: Counter]>([:])
    private let listAges = Mutex<[String: Gauge]>([:])
    private let certificateExpiries = Mutex<[ServiceCertificate: Gauge]>([:])

    /// Creates the metrics with an empty registry; each flow's verification-duration histogram (1 ms
    /// to 5 s buckets) is made when that flow first records one.
    public init() {}

    /// The duration histogram of `flow`, made the first time.
    private func latency(_ flow: String) -> DurationHistogram {
        latencies.withLock { histograms in
            if let histogram = histograms[flow] { return histogram }
            let histogram = registry.makeDurationHistogram(
                descriptor: Self.descriptor("verification_duration", unit: "seconds", help: "Time to verify one submission"),
                labels: [("flow", flow)], buckets: Self.latencyBuckets)
            histograms[flow] = histogram
            return histogram
        }
    }

    /// Counts one verification by flow and verdict, each failed or undecided check by id and reason, and records its duration.
    public func record(flow: String, report: VerificationReport, duration: Duration) {
        counter(.verifications, flow, report.verdict.rawValue).increment()
        // Read in place: iterating by value copies every result of every request.
        let checks = report.checks
        for index in checks.indices where checks[index].status == .failed || checks[index].status == .error {
            counter(.checkFailures, checks[index].id.rawValue, checks[index].reason.rawValue).increment()
        }
        latency(flow).record(duration)
    }

    /// Counts a request refused before verification, such as unreadable, too large, rate-limited, busy or unauthorized, by reason.
    public func requestRejected(reason: String) {
        counter(.unreadableRequests, reason, "").increment()
    }

    /// A submission retried with its Idempotency-Key (answered again, not as a replay).
    public func idempotentRetry(route: String) {
        counter(.idempotentRetries, route, "").increment()
    }

    /// An Idempotency-Key refused: used with another request (422) or still in progress (409).
    public func idempotencyConflict(route: String, kind: String) {
        counter(.idempotencyConflicts, route, kind).increment()
    }

    /// A receipt that could not be signed, kept or whose key could not be recorded, by `stage`.
    public func receiptFailure(stage: String) {
        counter(.receiptFailures, stage, "").increment()
    }

    /// A receipt issued under `--receipts keep`, by outcome: `kept`, `structure` or `client-share`.
    public func receiptKept(outcome: String) {
        counter(.receiptsKept, outcome, "").increment()
    }

    /// An Apple Pay merchant validation (`POST /v1/applepay/session`) by outcome: `created`, or why
    /// no session came back (`url-refused`, `refused`, `timeout`, `tls-failed`, ...).
    public func applePaySession(outcome: String) {
        counter(.applePaySessions, outcome, "").increment()
    }

    /// The registry's counter for a metric and its label values, looked up there the first time only.
    private func counter(_ metric: Metric, _ first: String, _ second: String) -> Counter {
        let key = CounterKey(metric: metric, first: first, second: second)
        if let counter = counters.withLock({ $0[key] }) { return counter }
        let labels = zip(metric.labelNames, [first, second]).map { ($0, $1) }
        let counter = registry.makeCounter(descriptor: metric.descriptor, labels: labels)
        counters.withLock { $0[key] = counter }
        return counter
    }

    /// Every metric in the Prometheus text exposition format, as served at `/metrics`.
    public func text() -> String { registry.emitToString() }

    /// A revocation-list lookup or fetch (``SharedRevocationListCache/Event``).
    public func revocation(_ event: SharedRevocationListCache.Event) {
        switch event {
        case .hit: counter(.revocationCacheHits, "fresh", "").increment()
        case .usedStale: counter(.revocationCacheHits, "refetchFailed", "").increment()
        case .fetched: counter(.revocationFetches, "fetched", "").increment()
        case .fetchFailed(let reason): counter(.revocationFetches, reason, "").increment()
        }
    }

    /// The age of each cached revocation list, seconds since it was fetched.
    public func revocationListAges(_ ages: [(uri: String, seconds: Double)]) {
        for (uri, seconds) in ages {
            let gauge = listAges.withLock { gauges in
                if let gauge = gauges[uri] { return gauge }
                let gauge = registry.makeGauge(descriptor: Self.revocationListAge, labels: [("uri", uri)])
                gauges[uri] = gauge
                return gauge
            }
            gauge.set(seconds)
        }
    }

    /// Publishes when each of the service's own certificates expires (Unix seconds of its notAfter),
    /// `wallet_verifier_certificate_expiry_timestamp_seconds{kind, id}`; certificates no longer
    /// configured (after a reload) are dropped.
    public func certificateExpiries(_ certificates: [ServiceCertificate]) {
        certificateExpiries.withLock { gauges in
            for (certificate, gauge) in gauges where !certificates.contains(certificate) {
                registry.unregisterGauge(gauge)
                gauges[certificate] = nil
            }
            for certificate in certificates where gauges[certificate] == nil {
                let gauge = registry.makeGauge(
                    descriptor: Self.certificateExpiry, labels: [("kind", certificate.kind.rawValue), ("id", certificate.id)])
                gauge.set(certificate.notAfter.timeIntervalSince1970)
                gauges[certificate] = gauge
            }
        }
    }

    private let trustGauges = Mutex<[String: Gauge]>([:])

    /// Publishes each trust source's state, labelled `source` (``TrustSourceStatus/label``):
    /// `wallet_verifier_trust_roots` (roots or keys it contributes now),
    /// `wallet_verifier_trust_source_last_success_timestamp_seconds` and
    /// `wallet_verifier_trust_source_next_update_timestamp_seconds` (Unix seconds; absent when
    /// unknown). Sources no longer configured are dropped.
    public func trustSources(_ sources: [TrustSourceStatus]) {
        var wanted: [String: (MetricNameDescriptor, String, Double)] = [:]
        for source in sources {
            wanted["roots " + source.label] = (Self.trustRoots, source.label, Double(source.roots))
            if let date = source.lastSuccess {
                wanted["last " + source.label] = (Self.trustLastSuccess, source.label, date.timeIntervalSince1970)
            }
            if let date = source.nextUpdate {
                wanted["next " + source.label] = (Self.trustNextUpdate, source.label, date.timeIntervalSince1970)
            }
        }
        trustGauges.withLock { gauges in
            for (key, gauge) in gauges where wanted[key] == nil {
                registry.unregisterGauge(gauge)
                gauges[key] = nil
            }
            for (key, (descriptor, label, value)) in wanted {
                let gauge = gauges[key] ?? registry.makeGauge(descriptor: descriptor, labels: [("source", label)])
                gauges[key] = gauge
                gauge.set(value)
            }
        }
    }

    private static var trustRoots: MetricNameDescriptor {
        MetricNameDescriptor(
            namespace: "wallet_verifier", metricName: "trust_roots", unitName: "", helpText: "Roots (or keys) each trust source contributes now")
    }

    private static var trustLastSuccess: MetricNameDescriptor {
        descriptor(
            "trust_source_last_success_timestamp", unit: "seconds",
            help: "When each trust source was last loaded or fetched successfully (Unix seconds)")
    }

    private static var trustNextUpdate: MetricNameDescriptor {
        descriptor(
            "trust_source_next_update_timestamp", unit: "seconds",
            help: "When each trust source's publisher says to fetch it again: nextUpdate, max-age (Unix seconds)")
    }

    private static var certificateExpiry: MetricNameDescriptor {
        descriptor(
            "certificate_expiry_timestamp", unit: "seconds", help: "When each of the service's own certificates expires (notAfter, Unix seconds)")
    }

    private static var revocationListAge: MetricNameDescriptor {
        descriptor("revocation_list_age", unit: "seconds", help: "Seconds since each cached revocation list was fetched")
    }

    /// The name, unit and help text of one of the service's metrics, `wallet_verifier_<name>_<unit>`.
    fileprivate static func descriptor(_ name: String, unit: String, help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "wallet_verifier", metricName: name, unitName: unit, helpText: help)
    }
}
