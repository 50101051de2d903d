/// An error a check's evaluation may throw to describe why its input could not be used. The runner
/// records it as a failed check (or, when ``isOperational``, as an `error` that makes the verdict
/// indeterminate) with ``reasonCode`` as the reason.
public protocol CheckFailureDescribing: Error {
    /// The reason recorded for the check.
    var reasonCode: ReasonCode { get }
    /// A message for people; never secrets or personal data.
    var checkMessage: String { get }
    /// True for operational failures (a store that cannot be reached), false for bad input.
    var isOperational: Bool { get }
}

extension CheckFailureDescribing {
    /// False unless the conforming type says otherwise: a described failure is bad input by default.
    public var isOperational: Bool { false }
}

/// Input a check could not use: the reason it records and a message that says what was wrong. The
/// plain ``CheckFailureDescribing`` error, for modules that need no error type of their own.
public struct CheckFailure: Error, CheckFailureDescribing {
    /// The reason recorded for the check.
    public var reasonCode: ReasonCode
    /// What was wrong, for people; never secrets or personal data.
    public var checkMessage: String

    /// A failure with this reason and message.
    public init(_ reason: ReasonCode, _ message: String) {
        self.reasonCode = reason
        self.checkMessage = message
    }
}

/// An operational failure (store unreachable, time-out). Recorded as a check with status `error`.
public struct OperationalError: Error, CheckFailureDescribing, CustomStringConvertible {
    /// The reason recorded for the check (``ReasonCode/unavailable`` unless given).
    public var reasonCode: ReasonCode
    /// A message for people; never secrets or personal data.
    public var checkMessage: String
    /// Whether trying again later may succeed; recorded as the result's `retryable`.
    public var retryable: Bool
    /// Always true: the check is recorded with status `error`.
    public var isOperational: Bool { true }

    /// Creates an operational failure, retryable unless said otherwise.
    public init(_ reason: ReasonCode = .unavailable, _ message: String, retryable: Bool = true) {
        self.reasonCode = reason
        self.checkMessage = message
        self.retryable = retryable
    }

    /// The reason code and the message, for logs.
    public var description: String { "OperationalError.\(reasonCode): \(checkMessage)" }
}

/// One check as a type: a stable identifier, the checks it depends on, and an evaluation over a
/// flow-specific state. Checks may store what they learned in the state for later checks (the leaf
/// certificate, the decrypted plaintext, ...).
public protocol VerificationCheck<State>: Sendable {
    /// The flow-specific state the checks read and add to.
    associatedtype State
    /// The stable identifier the result is recorded under.
    var id: CheckID { get }
    /// Checks that must have passed for this one to be evaluated; otherwise it is recorded as
    /// skipped with reason `prerequisiteFailed`.
    var prerequisites: [CheckID] { get }
    /// Evaluates the check; ``CheckRunner`` records what it throws as a failed or `error` result.
    func evaluate(_ state: inout State, context: VerificationContext) async throws -> CheckOutcome
}

extension VerificationCheck {
    /// None by default.
    public var prerequisites: [CheckID] { [] }
}

/// Runs checks in declared order and collects their results into a report.
///
/// - A check whose prerequisites did not all pass is recorded as `skipped` (reason
///   `prerequisiteFailed`, with the first such prerequisite in `details["prerequisite"]`); it is never
///   dropped.
/// - A check the policy disables is recorded as `skipped` (reason `disabledByPolicy`).
/// - A failing check never stops independent checks.
/// - A thrown ``CheckFailureDescribing`` becomes a failed (or, if operational, `error`) result; any
///   other thrown error becomes a failed result with reason `malformedInput`.
public struct CheckRunner: Sendable {
    /// Decides which checks run and how much each counts towards the verdict.
    public let policy: VerificationPolicy
    /// The verification time and clock skew every check is evaluated with.
    public let context: VerificationContext
    /// Every result recorded so far, in order.
    public private(set) var results: [CheckResult] = []
    /// Every warning recorded so far, in order.
    public private(set) var warnings: [ReportWarning] = []

    /// A runner with nothing recorded yet.
    public init(policy: VerificationPolicy, context: VerificationContext) {
        self.policy = policy
        self.context = context
        // A flow records 10–25 checks for one document (an mdoc 13, the in-app and web flows 21–22 with
        // their envelope, expiry and revocation checks): one allocation instead of a regrowth.
        results.reserveCapacity(24)
    }

    /// The status recorded for a check (the last one with that identifier, in the given scope).
    public func status(of id: CheckID, scope: String? = nil) -> CheckStatus? {
        index(of: id, scope: scope).map { results[$0].status }
    }

    /// The position of the last result recorded for a check, in the given scope (any scope when
    /// `scope` is nil). An index, not the result: copying a result retains each of its strings.
    private func index(of id: CheckID, scope: String?) -> Int? {
        // Ids of another length are passed over by their stored UTF-8 count: comparing two long
        // dotted ids byte by byte, for every prerequisite of every check, costs more than some checks.
        let length = id.rawValue.utf8.count
        return results.withUnsafeBufferPointer { recorded in
            var index = recorded.count - 1
            while index >= 0 {
                if recorded[index].id.rawValue.utf8.count == length, recorded[index].id == id, scope == nil || recorded[index].scope == scope {
                    return index
                }
                index -= 1
            }
            return nil
        }
    }

    /// Whether the recorded status of the check is `passed` (see ``status(of:scope:)``).
    public func passed(_ id: CheckID, scope: String? = nil) -> Bool {
        status(of: id, scope: scope) == .passed
    }

    /// Records the skip reason if the check cannot run; returns the check's requirement if it may run.
    @usableFromInline
    mutating func mayRun(_ id: CheckID, prerequisites: [CheckID], scope: String?) -> Requirement? {
        let requirement = policy.requirement(for: id)
        if requirement == .disabled {
            results.append(
                CheckResult(
                    id: id, status: .skipped, reason: .disabledByPolicy,
                    message: "Disabled by the policy \(policy.name).", requirement: requirement, scope: scope))
            return nil
        }
        for prerequisite in prerequisites {
            // A prerequisite is looked up in the same scope first, then without scope; its status
            // and reason come from the same result.
            if let recorded = index(of: prerequisite, scope: scope) ?? index(of: prerequisite, scope: nil) {
                let status = results[recorded].status
                if status == .passed { continue }
                // A prerequisite skipped as not applicable does not block.
                if status == .skipped, results[recorded].reason == .notApplicable { continue }
            }
            results.append(
                CheckResult(
                    id: id, status: .skipped, reason: .prerequisiteFailed,
                    message: "Not evaluated because \(prerequisite) did not pass.",
                    requirement: requirement, scope: scope, details: ["prerequisite": prerequisite.rawValue]))
            return nil
        }
        return requirement
    }

    @usableFromInline
    mutating func record(_ id: CheckID, requirement: Requirement, scope: String?, _ outcome: CheckOutcome) {
        // Appended empty and filled in place: a result built first and then appended is copied into
        // the array and the original released (each of its strings and its details, for every check).
        results.append(Self.blank)
        let last = results.count - 1
        results[last].id = id
        results[last].status = outcome.status
        results[last].reason = outcome.reason
        results[last].text = outcome.text
        results[last].requirement = requirement
        results[last].scope = scope
        results[last].retryable = outcome.status == .error ? (outcome.retryable ?? false) : nil
        for warning in outcome.warnings {
            warnings.append(ReportWarning(code: warning.code, message: warning.message, scope: warning.scope ?? scope))
        }
    }

    /// What ``record(_:requirement:scope:_:)`` appends before filling it in: literals only, so
    /// copying it retains nothing.
    private static let blank = CheckResult(id: CheckID(rawValue: ""), status: .passed, reason: ReasonCode(rawValue: ""), message: "")

    /// Records `id` as skipped because `prerequisite` did not pass — the one way a flow reports a
    /// check it cannot reach (the envelope did not open, the request did not decode), exactly as
    /// ``run(_:requires:scope:_:)`` records a check whose prerequisite failed. A check the policy
    /// disables is recorded as disabled.
    public mutating func skip(_ id: CheckID, requires prerequisite: CheckID, scope: String? = nil) {
        let requirement = policy.requirement(for: id)
        guard requirement != .disabled else {
            _ = mayRun(id, prerequisites: [], scope: scope)
            return
        }
        results.append(
            CheckResult(
                id: id, status: .skipped, reason: .prerequisiteFailed, message: "Not evaluated because \(prerequisite) did not pass.",
                requirement: requirement, scope: scope, details: ["prerequisite": prerequisite.rawValue]))
    }

    @usableFromInline
    static func outcome(for error: any Error) -> CheckOutcome {
        if let described = error as? any CheckFailureDescribing {
            if described.isOperational {
                let retryable = (error as? OperationalError)?.retryable ?? true
                return .error(described.reasonCode, described.checkMessage, retryable: retryable)
            }
            return .failed(described.reasonCode, described.checkMessage)
        }
        return .failed(.malformedInput, String(describing: error))
    }

    /// Runs a check type.
    @inlinable @discardableResult
    public mutating func run<Check: VerificationCheck>(_ check: Check, state: inout Check.State, scope: String? = nil) async -> CheckStatus {
        guard let requirement = mayRun(check.id, prerequisites: check.prerequisites, scope: scope) else { return .skipped }
        let outcome: CheckOutcome
        do {
            outcome = try await check.evaluate(&state, context: context)
        } catch {
            outcome = Self.outcome(for: error)
        }
        record(check.id, requirement: requirement, scope: scope, outcome)
        return outcome.status
    }

    /// Runs a check given as a closure (synchronous).
    @discardableResult
    public mutating func run(_ id: CheckID, requires prerequisites: [CheckID] = [], scope: String? = nil, _ body: () throws -> CheckOutcome)
        -> CheckStatus
    {
        guard let requirement = mayRun(id, prerequisites: prerequisites, scope: scope) else { return .skipped }
        let outcome: CheckOutcome
        do {
            outcome = try body()
        } catch {
            outcome = Self.outcome(for: error)
        }
        record(id, requirement: requirement, scope: scope, outcome)
        return outcome.status
    }

    /// Runs a check given as an async closure.
    @discardableResult
    public mutating func runAsync(
        _ id: CheckID, requires prerequisites: [CheckID] = [], scope: String? = nil, _ body: () async throws -> CheckOutcome
    ) async -> CheckStatus {
        guard let requirement = mayRun(id, prerequisites: prerequisites, scope: scope) else { return .skipped }
        let outcome: CheckOutcome
        do {
            outcome = try await body()
        } catch {
            outcome = Self.outcome(for: error)
        }
        record(id, requirement: requirement, scope: scope, outcome)
        return outcome.status
    }

    /// Records a result directly (for checks decided elsewhere).
    public mutating func record(_ result: CheckResult) {
        results.append(result)
    }

    /// Replaces the outcome of the last result recorded for `id` (in `scope`), keeping its place and
    /// requirement: for a check whose outcome is known only after later checks ran (a request nonce is
    /// consumed only once the response opens). A check the policy disabled, or one not recorded, is left as it is.
    public mutating func revise(_ id: CheckID, scope: String? = nil, _ outcome: CheckOutcome) {
        guard let index = results.lastIndex(where: { $0.id == id && (scope == nil || $0.scope == scope) }) else { return }
        let recorded = results[index]
        guard recorded.requirement != .disabled, recorded.reason != .disabledByPolicy else { return }
        var revised = recorded
        revised.status = outcome.status
        revised.reason = outcome.reason
        revised.text = outcome.text
        revised.retryable = outcome.status == .error ? (outcome.retryable ?? false) : nil
        results[index] = revised
    }

    /// Changes, in place, the results recorded from position `start` on (a flow adding what only it
    /// knows to the messages of checks a shared composition recorded).
    public mutating func amendResults(from start: Int, _ change: (inout CheckResult) -> Void) {
        for index in max(start, 0)..<results.count { change(&results[index]) }
    }

    /// Removes the warnings recorded from position `start` on (a flow withholding what a composition
    /// observed of input it cannot show).
    public mutating func removeWarnings(from start: Int) {
        guard start < warnings.count else { return }
        warnings.removeSubrange(max(start, 0)...)
    }

    /// Adds a non-fatal observation to the report.
    public mutating func warn(_ code: ReasonCode, _ message: String, scope: String? = nil) {
        warnings.append(ReportWarning(code: code, message: message, scope: scope))
    }

    /// Records results and warnings that go first in the report (a VICAL's checks, for example), as
    /// they were.
    public mutating func record(prefix: [CheckResult], warnings prefixWarnings: [ReportWarning]) {
        results.append(contentsOf: prefix)
        warnings.append(contentsOf: prefixWarnings)
    }

    /// The report of everything recorded so far, with the policy's name and test-only flag and the context's time.
    public func report(flow: String) -> VerificationReport {
        VerificationReport(flow: flow, policy: policy.name, evaluatedAt: context.time, checks: results, warnings: warnings, testOnly: policy.testOnly)
    }
}
