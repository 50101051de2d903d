import WalletEncoding

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The overall answer of a verification, computed from the checks.
public enum Verdict: String, Sendable, Codable, Hashable {
    /// Every required check passed.
    case accepted
    /// At least one required check failed.
    case rejected
    /// No required check failed, but at least one could not be decided.
    case indeterminate

    /// The command-line exit code for this verdict: 0 accepted, 1 rejected, 3 indeterminate (2 is
    /// reserved for usage errors and unreadable input).
    public var exitCode: Int32 {
        switch self {
        case .accepted: return 0
        case .rejected: return 1
        case .indeterminate: return 3
        }
    }
}

/// The result of one verification, shared by the library, the CLI and the HTTP API.
///
/// The verdict is never stored: it is derived from ``checks`` every time (see ``verdict``). The JSON
/// encoding is a public contract:
/// `{"verdict", "flow", "policy", "evaluatedAt", "testOnly", "checks": [...], "warnings": [...]}`.
public struct VerificationReport: Sendable, Codable, Hashable {
    /// `applePay`, `walletIdentity`, `mdoc`, ...
    public var flow: String
    /// The policy preset, e.g. `applepay/production@1`.
    public var policy: String
    /// The verification time the caller supplied.
    public var evaluatedAt: Date
    /// Every check in the order recorded, skipped ones included; ``verdict`` is derived from these.
    public var checks: [CheckResult]
    /// Non-fatal observations.
    public var warnings: [ReportWarning]
    /// Set by policies that accept test data (Apple's developer profile); such a verdict must never
    /// be trusted in production.
    public var testOnly: Bool

    /// Creates a report; the verdict is computed from `checks` when read.
    public init(flow: String, policy: String, evaluatedAt: Date, checks: [CheckResult], warnings: [ReportWarning] = [], testOnly: Bool = false) {
        self.flow = flow
        self.policy = policy
        self.evaluatedAt = evaluatedAt
        self.checks = checks
        self.warnings = warnings
        self.testOnly = testOnly
    }

    /// Computed from the checks:
    /// - `rejected` if any required check failed;
    /// - otherwise `indeterminate` if any required check errored or was skipped because a
    ///   prerequisite did not pass, or if no required check passed at all;
    /// - otherwise `accepted`.
    public var verdict: Verdict {
        var undecided = false
        var anyPassed = false
        // Read in place: `for check in checks` copies each result (retaining its strings and details).
        for index in checks.indices where checks[index].requirement == .required {
            switch checks[index].status {
            case .failed: return .rejected
            case .error: undecided = true
            case .skipped: if checks[index].reason == .prerequisiteFailed { undecided = true }
            case .passed: anyPassed = true
            }
        }
        return undecided || !anyPassed ? .indeterminate : .accepted
    }

    /// Whether a store or other dependency failure made the verdict indeterminate and a retry may help.
    public var isRetryable: Bool {
        verdict == .indeterminate && checks.contains { $0.status == .error && $0.retryable == true }
    }

    /// The first result with this identifier (and scope, when given).
    public func check(_ id: CheckID, scope: String? = nil) -> CheckResult? {
        checks.first { $0.id == id && (scope == nil || $0.scope == scope) }
    }

    /// Every result with this identifier (one per document for per-document checks).
    public func results(_ id: CheckID) -> [CheckResult] {
        checks.filter { $0.id == id }
    }

    /// Required checks that failed, in order.
    public var failures: [CheckResult] {
        checks.filter { $0.status == .failed && $0.requirement == .required }
    }

    enum CodingKeys: String, CodingKey {
        case verdict, flow, policy, evaluatedAt, testOnly, checks, warnings
    }

    /// Encodes the public JSON form, with the derived ``verdict`` and `evaluatedAt` as RFC 3339 text.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(verdict, forKey: .verdict)
        try c.encode(flow, forKey: .flow)
        try c.encode(policy, forKey: .policy)
        try c.encode(RFC3339.format(evaluatedAt), forKey: .evaluatedAt)
        try c.encode(testOnly, forKey: .testOnly)
        try c.encode(checks, forKey: .checks)
        try c.encode(warnings, forKey: .warnings)
    }

    /// Decodes the JSON form; the verdict in it is ignored (recomputed from the checks).
    /// Throws `DecodingError` when `evaluatedAt` is not an RFC 3339 time.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        flow = try c.decode(String.self, forKey: .flow)
        policy = try c.decode(String.self, forKey: .policy)
        let time = try c.decode(String.self, forKey: .evaluatedAt)
        guard let date = RFC3339.parse(time) else {
            throw DecodingError.dataCorruptedError(forKey: .evaluatedAt, in: c, debugDescription: "not an RFC 3339 time")
        }
        evaluatedAt = date
        testOnly = try c.decodeIfPresent(Bool.self, forKey: .testOnly) ?? false
        checks = try c.decode([CheckResult].self, forKey: .checks)
        warnings = try c.decodeIfPresent([ReportWarning].self, forKey: .warnings) ?? []
        // The verdict in the JSON is derived data; it is recomputed, never trusted.
    }
}
