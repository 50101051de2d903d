import Foundation
import Testing
import VerificationCore

@testable import VerifierServer

/// The metrics keep their counters between recordings: each recording adds one, per label values.
@Suite struct ServerMetricsTests {
    static func report(verdictFailing failing: [(String, String)]) -> VerificationReport {
        var checks = [CheckResult(id: CheckID("applepay.token.structure"), status: .passed, reason: .ok, message: "ok")]
        for (id, reason) in failing {
            checks.append(CheckResult(id: CheckID(id), status: .failed, reason: ReasonCode(reason), message: "failed"))
        }
        return VerificationReport(flow: "applepay", policy: "default", evaluatedAt: Date(timeIntervalSince1970: 0), checks: checks)
    }

    @Test func countersAccumulatePerLabelValues() {
        let metrics = ServerMetrics()
        for _ in 0..<3 { metrics.record(flow: "applepay", report: Self.report(verdictFailing: []), duration: .milliseconds(1)) }
        metrics.record(flow: "applepay", report: Self.report(verdictFailing: [("applepay.replay", "transactionReused")]), duration: .milliseconds(1))
        metrics.record(
            flow: "identity",
            report: Self.report(verdictFailing: [("applepay.replay", "transactionReused"), ("mdoc.issuer.signature", "badSignature")]),
            duration: .milliseconds(1))
        metrics.requestRejected(reason: "too-large")
        metrics.requestRejected(reason: "too-large")
        metrics.requestRejected(reason: "not-json")

        let text = metrics.text()
        #expect(text.contains(#"wallet_verifier_verifications_total{flow="applepay",verdict="accepted"} 3"#))
        #expect(text.contains(#"wallet_verifier_verifications_total{flow="applepay",verdict="rejected"} 1"#))
        #expect(text.contains(#"wallet_verifier_verifications_total{flow="identity",verdict="rejected"} 1"#))
        #expect(text.contains(#"wallet_verifier_check_failures_total{check="applepay.replay",reason="transactionReused"} 2"#))
        #expect(text.contains(#"wallet_verifier_check_failures_total{check="mdoc.issuer.signature",reason="badSignature"} 1"#))
        #expect(text.contains(#"wallet_verifier_unreadable_requests_total{reason="too-large"} 2"#))
        #expect(text.contains(#"wallet_verifier_unreadable_requests_total{reason="not-json"} 1"#))
        // The duration by flow, as going-live promises.
        #expect(text.contains(#"wallet_verifier_verification_duration_seconds_count{flow="applepay"} 4"#), "\(text)")
        #expect(text.contains(#"wallet_verifier_verification_duration_seconds_count{flow="identity"} 1"#))
        #expect(text.contains(#"wallet_verifier_verification_duration_seconds_bucket{flow="identity",le="#))
    }

    /// A reload that drops a certificate drops its expiry gauge; one that keeps it keeps its value.
    @Test func certificateExpiryGaugesFollowTheConfiguration() {
        let metrics = ServerMetrics()
        let notAfter = Date(timeIntervalSince1970: 1_900_000_000)
        let applePay = ServiceCertificate(kind: .applePay, subject: "CN=a", notBefore: .distantPast, notAfter: notAfter, id: "hashA=")
        let reader = ServiceCertificate(
            kind: .readerAuthentication, subject: "CN=r", notBefore: .distantPast, notAfter: notAfter.addingTimeInterval(86_400), id: "ab12")
        metrics.certificateExpiries([applePay, reader])
        var text = metrics.text()
        #expect(text.contains(#"wallet_verifier_certificate_expiry_timestamp_seconds{kind="applePay",id="hashA="} 1900000000"#), "\(text)")
        #expect(text.contains(#"wallet_verifier_certificate_expiry_timestamp_seconds{kind="readerAuthentication",id="ab12"} 1900086400"#))
        metrics.certificateExpiries([reader])
        text = metrics.text()
        #expect(!text.contains(#"kind="applePay""#), "a certificate no longer configured is no longer published: \(text)")
        #expect(text.contains(#"wallet_verifier_certificate_expiry_timestamp_seconds{kind="readerAuthentication",id="ab12"} 1900086400"#))
    }
}
