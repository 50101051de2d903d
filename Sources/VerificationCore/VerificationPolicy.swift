/// A named set of requirement levels for checks. Flows add their own parameters (time windows,
/// allowed algorithms) in their policy types and carry one of these for the requirement levels.
public struct VerificationPolicy: Sendable, Hashable {
    /// Preset name and version, e.g. `applepay/production@1`; echoed in every report.
    public var name: String
    /// Requirement of checks not listed in ``overrides``.
    public var defaultRequirement: Requirement
    /// Per-check requirements that take the place of ``defaultRequirement``.
    public var overrides: [CheckID: Requirement] {
        didSet { few = Self.few(overrides) }
    }
    /// Reports made under this policy are marked test-only (see ``VerificationReport/testOnly``).
    public var testOnly: Bool
    /// The overrides as a short list, when there are few (a policy overrides one or two checks):
    /// ``requirement(for:)`` runs for every check of every verification, and comparing a handful of
    /// identifiers costs less than hashing one. Nil for many overrides (the dictionary is used).
    private var few: [(id: CheckID, requirement: Requirement)]?

    /// Creates a policy; every check is required unless a default or an override says otherwise.
    public init(name: String, defaultRequirement: Requirement = .required, overrides: [CheckID: Requirement] = [:], testOnly: Bool = false) {
        self.name = name
        self.defaultRequirement = defaultRequirement
        self.overrides = overrides
        self.testOnly = testOnly
        self.few = Self.few(overrides)
    }

    private static func few(_ overrides: [CheckID: Requirement]) -> [(id: CheckID, requirement: Requirement)]? {
        overrides.count <= 8 ? overrides.map { (id: $0.key, requirement: $0.value) } : nil
    }

    /// The requirement for a check: its override if it has one, else ``defaultRequirement``.
    public func requirement(for id: CheckID) -> Requirement {
        if overrides.isEmpty { return defaultRequirement }
        guard let few else { return overrides[id] ?? defaultRequirement }
        // Identifiers of another length are passed over by their stored UTF-8 count.
        let length = id.rawValue.utf8.count
        for entry in few where entry.id.rawValue.utf8.count == length && entry.id == id { return entry.requirement }
        return defaultRequirement
    }

    /// Policies are equal when their name, default, overrides and test-only flag are.
    public static func == (lhs: VerificationPolicy, rhs: VerificationPolicy) -> Bool {
        lhs.name == rhs.name && lhs.defaultRequirement == rhs.defaultRequirement && lhs.overrides == rhs.overrides && lhs.testOnly == rhs.testOnly
    }

    /// Hashes what ``==`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(defaultRequirement)
        hasher.combine(overrides)
        hasher.combine(testOnly)
    }

    /// A copy of this policy with one check's requirement overridden.
    public func with(_ id: CheckID, _ requirement: Requirement) -> VerificationPolicy {
        var copy = self
        copy.overrides[id] = requirement
        return copy
    }
}
