/// The outcome of one check.
public enum CheckStatus: String, Sendable, Codable, Hashable, CaseIterable {
    case passed
    case failed
    /// Not evaluated: a prerequisite did not pass, the check does not apply, or the policy disables it.
    case skipped
    /// Could not be decided (an operational problem). Makes the verdict indeterminate.
    case error
}

/// How much a check counts towards the verdict, as the policy says.
public enum Requirement: String, Sendable, Codable, Hashable {
    /// Must pass for the verdict to be accepted.
    case required
    /// Reported, but a failure does not reject.
    case advisory
    /// Not evaluated.
    case disabled
}

/// One line of a ``VerificationReport``.
public struct CheckResult: Sendable, Codable, Hashable {
    /// Which check this result is for.
    public var id: CheckID
    /// How the check ended.
    public var status: CheckStatus
    /// The stable, machine-readable reason for the status.
    public var reason: ReasonCode
    /// For people: what was checked and, when it did not pass, why and what to fix. Never secrets or
    /// personal data.
    public var message: String {
        get { text.message }
        set { text.message = newValue }
    }
    /// The message and the details as recorded (see ``CheckText``).
    var text: CheckText
    /// How much the check counted towards the verdict under the policy.
    public var requirement: Requirement
    /// Which part of the input the check covered, e.g. `document[0]`.
    public var scope: String?
    /// Small non-secret facts (certificate subjects, observed skew, element identifiers).
    public var details: [String: String] {
        get { text.details }
        set { text.details = newValue }
    }
    /// For `error`: whether trying again later may succeed.
    public var retryable: Bool?

    /// Creates a result; the check counts as required unless said otherwise.
    public init(
        id: CheckID,
        status: CheckStatus,
        reason: ReasonCode,
        message: String,
        requirement: Requirement = .required,
        scope: String? = nil,
        details: [String: String] = [:],
        retryable: Bool? = nil
    ) {
        self.init(
            id: id, status: status, reason: reason, messageText: ReportText(message), requirement: requirement, scope: scope, details: details,
            retryable: retryable)
    }

    /// A result whose message is written when it is read, when `messageText` is deferred (and its
    /// details with it, when `details` is nil).
    init(
        id: CheckID, status: CheckStatus, reason: ReasonCode, messageText: ReportText, requirement: Requirement, scope: String?,
        details: [String: String]?, retryable: Bool?
    ) {
        self.id = id
        self.status = status
        self.reason = reason
        self.text = CheckText(messageText: messageText, details: details)
        self.requirement = requirement
        self.scope = scope
        self.retryable = retryable
    }

    /// Equal when every field reads the same (a message and details written when read compare by
    /// what they read).
    public static func == (lhs: CheckResult, rhs: CheckResult) -> Bool {
        lhs.id == rhs.id && lhs.status == rhs.status && lhs.reason == rhs.reason && lhs.requirement == rhs.requirement
            && lhs.scope == rhs.scope && lhs.retryable == rhs.retryable && lhs.text == rhs.text
    }

    /// Hashes what ``==`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(status)
        hasher.combine(reason)
        hasher.combine(requirement)
        hasher.combine(scope)
        hasher.combine(retryable)
        hasher.combine(text)
    }

    enum CodingKeys: String, CodingKey {
        case id, status, reason, message, requirement, scope, details, retryable
    }

    /// Encodes the report's JSON form: `scope` and `retryable` only when set, `details` only when not empty.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(status, forKey: .status)
        try c.encode(reason, forKey: .reason)
        try c.encode(message, forKey: .message)
        try c.encode(requirement, forKey: .requirement)
        try c.encodeIfPresent(scope, forKey: .scope)
        if !details.isEmpty { try c.encode(details, forKey: .details) }
        try c.encodeIfPresent(retryable, forKey: .retryable)
    }

    /// Decodes the JSON form; a missing `requirement` means required and missing `details` means none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(CheckID.self, forKey: .id)
        status = try c.decode(CheckStatus.self, forKey: .status)
        reason = try c.decode(ReasonCode.self, forKey: .reason)
        let message = try c.decode(String.self, forKey: .message)
        requirement = try c.decodeIfPresent(Requirement.self, forKey: .requirement) ?? .required
        scope = try c.decodeIfPresent(String.self, forKey: .scope)
        text = CheckText(messageText: ReportText(message), details: try c.decodeIfPresent([String: String].self, forKey: .details) ?? [:])
        retryable = try c.decodeIfPresent(Bool.self, forKey: .retryable)
    }
}

/// What a check's evaluation returns; the runner turns it into a ``CheckResult``.
public struct CheckOutcome: Sendable, Hashable {
    /// How the check ended.
    public var status: CheckStatus
    /// The stable, machine-readable reason for the status.
    public var reason: ReasonCode
    /// For people: what was checked and, when it did not pass, why; never secrets or personal data.
    public var message: String {
        get { text.message }
        set { text.message = newValue }
    }
    /// The message as given: text, or (``passed(_:details:)``, ``notApplicable(_:details:)``,
    /// ``passed(writing:)``) a formatter the report runs when the message is read; and the details.
    var text: CheckText
    /// Small non-secret facts to report with the result.
    public var details: [String: String] {
        get { text.details }
        set { text.details = newValue }
    }
    /// For `error`: whether trying again later may succeed (the runner records nil as false).
    public var retryable: Bool?
    /// Non-fatal observations the check made (a profile rule reported as a warning, an absent
    /// countryName); the runner adds them to the report after the result, in the check's scope
    /// unless they name their own.
    public var warnings: [ReportWarning]

    /// Creates an outcome; the static constructors below cover the usual cases.
    public init(
        status: CheckStatus, reason: ReasonCode, message: String, details: [String: String] = [:], retryable: Bool? = nil,
        warnings: [ReportWarning] = []
    ) {
        self.init(status: status, reason: reason, messageText: ReportText(message), details: details, retryable: retryable, warnings: warnings)
    }

    init(
        status: CheckStatus, reason: ReasonCode, messageText: ReportText, details: [String: String]?, retryable: Bool? = nil,
        warnings: [ReportWarning] = []
    ) {
        self.status = status
        self.reason = reason
        self.text = CheckText(messageText: messageText, details: details)
        self.retryable = retryable
        self.warnings = warnings
    }

    /// Equal when every field reads the same.
    public static func == (lhs: CheckOutcome, rhs: CheckOutcome) -> Bool {
        lhs.status == rhs.status && lhs.reason == rhs.reason && lhs.retryable == rhs.retryable && lhs.warnings == rhs.warnings
            && lhs.text == rhs.text
    }

    /// Hashes what ``==`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(reason)
        hasher.combine(retryable)
        hasher.combine(warnings)
        hasher.combine(text)
    }

    /// This outcome with a warning added (see ``warnings``).
    public func warning(_ code: ReasonCode, _ message: String) -> CheckOutcome {
        var copy = self
        copy.warnings.append(ReportWarning(code: code, message: message))
        return copy
    }

    /// A check that found what it needs from `prerequisite` missing (possible only where a policy
    /// makes that prerequisite advisory or disables it): skipped with reason
    /// ``ReasonCode/prerequisiteFailed``, as the runner records a check whose prerequisite did not pass.
    public static func notEvaluated(because prerequisite: CheckID) -> CheckOutcome {
        CheckOutcome(
            status: .skipped, reason: .prerequisiteFailed, message: "Not evaluated because \(prerequisite) did not pass.",
            details: ["prerequisite": prerequisite.rawValue])
    }

    /// `replay.nonce` for a response that did not open with `transcript` (the request's session
    /// transcript, and what it binds): the request was left unused, so the genuine response can still
    /// be accepted. Skipped, with the envelope's `decryption` check as the prerequisite.
    public static func requestNotConsumed(transcript: String, decryption: CheckID) -> CheckOutcome {
        CheckOutcome(
            status: .skipped, reason: .prerequisiteFailed,
            message: "Not consumed: the response did not open for \(transcript), so the request stays open for the response that does.",
            details: ["prerequisite": decryption.rawValue])
    }

    /// A pass, with reason ``ReasonCode/ok``. The message is written when it is read (a report shown
    /// or serialized), not when the check passes: a verification whose caller only needs the
    /// verdict does not format a dozen sentences. It must depend only on what it captures.
    public static func passed(_ message: @autoclosure @escaping @Sendable () -> String, details: [String: String] = [:]) -> CheckOutcome {
        CheckOutcome(status: .passed, reason: .ok, messageText: ReportText(deferred: message), details: details)
    }

    /// A pass whose message and details are both written when the report is read, by one writer:
    /// for a check whose details cost something to write (dates, counts), so that a verification
    /// whose caller only needs the verdict writes neither. Like ``passed(_:details:)``, the writer
    /// must depend only on what it captures (each read runs it again).
    public static func passed(writing: @escaping @Sendable () -> (message: String, details: [String: String])) -> CheckOutcome {
        CheckOutcome(status: .passed, reason: .ok, messageText: ReportText(writingWithDetails: writing), details: nil)
    }

    /// A failure, with the reason it failed.
    public static func failed(_ reason: ReasonCode, _ message: String, details: [String: String] = [:]) -> CheckOutcome {
        CheckOutcome(status: .failed, reason: reason, message: message, details: details)
    }

    /// An undecided outcome (an operational problem); a required check with it makes the verdict indeterminate.
    public static func error(_ reason: ReasonCode, _ message: String, retryable: Bool, details: [String: String] = [:]) -> CheckOutcome {
        CheckOutcome(status: .error, reason: reason, message: message, details: details, retryable: retryable)
    }

    /// A skip with reason ``ReasonCode/notApplicable``; it does not block checks that name this one as a prerequisite.
    /// Like ``passed(_:details:)``, the message is written when it is read.
    public static func notApplicable(_ message: @autoclosure @escaping @Sendable () -> String, details: [String: String] = [:]) -> CheckOutcome {
        CheckOutcome(status: .skipped, reason: .notApplicable, messageText: ReportText(deferred: message), details: details)
    }
}

/// A check's message and details, as a result or an outcome holds them: the message as given or its
/// writer (``ReportText``), and the details as given or written by the same writer. A dictionary and
/// a flag, not an optional dictionary: with the optional, the compiler built every outcome twice and
/// copied one.
struct CheckText: Sendable, Hashable {
    var messageText: ReportText
    /// The details as given (empty when the message's writer gives them).
    var givenDetails: [String: String]
    /// Whether the message's writer gives the details (``CheckOutcome/passed(writing:)``).
    var detailsWritten: Bool

    /// The message and these details, or (`details` nil) the details its writer gives.
    init(messageText: ReportText, details: [String: String]?) {
        self.messageText = messageText
        self.givenDetails = details ?? [:]
        self.detailsWritten = details == nil
    }

    var message: String {
        get { messageText.text }
        set {
            // Details written with the message stay: they are kept as they read.
            if detailsWritten {
                givenDetails = messageText.details ?? [:]
                detailsWritten = false
            }
            messageText = ReportText(newValue)
        }
    }

    var details: [String: String] {
        get { detailsWritten ? messageText.details ?? [:] : givenDetails }
        set {
            givenDetails = newValue
            detailsWritten = false
        }
    }

    /// The message and the details, with a writer that gives both run once.
    var messageAndDetails: (message: String, details: [String: String]) {
        if detailsWritten, let both = messageText.textAndDetails { return both }
        return (message, details)
    }

    /// Equal when the message and the details read the same, however each was given.
    static func == (lhs: CheckText, rhs: CheckText) -> Bool {
        let (left, right) = (lhs.messageAndDetails, rhs.messageAndDetails)
        return left.message == right.message && left.details == right.details
    }

    /// Hashes what ``==`` compares.
    func hash(into hasher: inout Hasher) {
        let both = messageAndDetails
        hasher.combine(both.message)
        hasher.combine(both.details)
    }
}

/// A check's message: the text, or a formatter that writes it when it is read. Reports are data that
/// a caller may never show; formatting a passing check's sentence (numbers, dates, names) costs
/// more than some checks, so ``CheckOutcome/passed(_:details:)`` keeps the formatter and the
/// report runs it when the message is read (each read runs it again, with the same result: it
/// reads only the values it captured). Equality and hashing are those of the text.
struct ReportText: Sendable, Hashable {
    private enum Storage {
        case text(String)
        case deferred(@Sendable () -> String)
        case deferredWithDetails(@Sendable () -> (message: String, details: [String: String]))
    }

    private let storage: Storage

    init(_ text: String) { storage = .text(text) }

    init(deferred: @escaping @Sendable () -> String) { storage = .deferred(deferred) }

    /// A message written together with its result's details (one closure for both).
    init(writingWithDetails write: @escaping @Sendable () -> (message: String, details: [String: String])) {
        storage = .deferredWithDetails(write)
    }

    /// The text (written now, for a deferred message).
    var text: String {
        switch storage {
        case .text(let text): return text
        case .deferred(let write): return write()
        case .deferredWithDetails(let write): return write().message
        }
    }

    /// The details written with the message; nil unless they are written by its writer.
    var details: [String: String]? { textAndDetails?.details }

    /// The message and the details its writer gives with it, from one run; nil for any other message.
    var textAndDetails: (message: String, details: [String: String])? {
        guard case .deferredWithDetails(let write) = storage else { return nil }
        return write()
    }

    static func == (lhs: ReportText, rhs: ReportText) -> Bool { lhs.text == rhs.text }

    func hash(into hasher: inout Hasher) { hasher.combine(text) }
}

/// A non-fatal observation (revocation not checked, a non-deterministic encoding accepted, ...).
public struct ReportWarning: Sendable, Codable, Hashable {
    /// A stable, machine-readable code for the kind of observation.
    public var code: ReasonCode
    /// What was observed, for people.
    public var message: String
    /// Which part of the input it concerns, e.g. `document[0]`; nil for the whole input.
    public var scope: String?

    /// Creates a warning.
    public init(code: ReasonCode, message: String, scope: String? = nil) {
        self.code = code
        self.message = message
        self.scope = scope
    }
}
