/// A named set of requirement levels for checks. Flows add their own parameters (time windows,
/// allowed algorithms) in their policy types and carry one of these for the requirement levels.
public struct VerificationPolicy: Sendable, Hashable {
    /// Preset name and version, e.g. `applepay/production@1`; echoed in every report.
    public var name: String
    /// Requirement of checks not listed in ``overrides``.
    public var defaultRequirement: Requirement
    /// Per-check requirements that take the place of ``defaultRequirement``.
    public var overrides: [CheckID: Requirement]
    /// Reports made under this policy are marked test-only (see ``VerificationReport/testOnly``).
    public var testOnly: Bool

    /// Creates a policy; every check is required unless a default or an override says otherwise.
    public init(name: String, defaultRequirement: Requirement = .required, overrides: [CheckID: Requirement] = [:], testOnly: Bool = false) {
        self.name = name
        self.defaultRequirement = defaultRequirement
        self.overrides = overrides
        self.testOnly = testOnly
    }

    /// The requirement for a check: its override if it has one, else ``defaultRequirement``.
    public func requirement(for id: CheckID) -> Requirement {
        overrides.isEmpty ? defaultRequirement : overrides[id] ?? defaultRequirement
    }

    /// A copy of this policy with one check's requirement overridden.
    public func with(_ id: CheckID, _ requirement: Requirement) -> VerificationPolicy {
        var copy = self
        copy.overrides[id] = requirement
        return copy
    }
}
