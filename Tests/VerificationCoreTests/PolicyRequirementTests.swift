import Testing
import VerificationCore

/// A policy's requirement for a check is its override, else the default, however many overrides
/// there are and however they were set.
@Suite struct PolicyRequirementTests {
    static let ids: [CheckID] = (0..<20).map { CheckID(rawValue: "flow.check\($0)") } + ["a", "ab", "flow.check1x", ""]

    /// What the policy must answer: the override in `expected`, else `fallback`.
    static func agree(_ policy: VerificationPolicy, _ expected: [CheckID: Requirement], fallback: Requirement) {
        for id in ids {
            #expect(policy.requirement(for: id) == expected[id] ?? fallback, "\(id) with \(expected.count) overrides")
        }
    }

    @Test(arguments: [0, 1, 2, 8, 9, 20])
    func overridesWin(count: Int) {
        var expected: [CheckID: Requirement] = [:]
        for (index, id) in Self.ids.prefix(count).enumerated() { expected[id] = index % 2 == 0 ? .advisory : .disabled }
        let policy = VerificationPolicy(name: "p@1", defaultRequirement: .required, overrides: expected)
        Self.agree(policy, expected, fallback: .required)
        Self.agree(VerificationPolicy(name: "p@1", defaultRequirement: .advisory, overrides: expected), expected, fallback: .advisory)
    }

    @Test func changedOverridesAreSeen() {
        var policy = VerificationPolicy(name: "p@1").with("flow.check1", .advisory)
        Self.agree(policy, ["flow.check1": .advisory], fallback: .required)
        policy.overrides["flow.check2"] = .disabled
        Self.agree(policy, ["flow.check1": .advisory, "flow.check2": .disabled], fallback: .required)
        policy.overrides = [:]
        Self.agree(policy, [:], fallback: .required)
        // Growing past the short list, and back.
        var many: [CheckID: Requirement] = [:]
        for id in Self.ids.prefix(12) { many[id] = .advisory }
        policy.overrides = many
        Self.agree(policy, many, fallback: .required)
        policy.overrides = ["a": .disabled]
        Self.agree(policy, ["a": .disabled], fallback: .required)
    }

    @Test func equalityIgnoresTheOrderOverridesWereSetIn() {
        var first = VerificationPolicy(name: "p@1")
        first.overrides["flow.check1"] = .advisory
        first.overrides["flow.check2"] = .disabled
        var second = VerificationPolicy(name: "p@1")
        second.overrides["flow.check2"] = .disabled
        second.overrides["flow.check1"] = .advisory
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(first != second.with("flow.check3", .advisory))
        #expect(first != VerificationPolicy(name: "p@2", overrides: first.overrides))
        #expect(first != VerificationPolicy(name: "p@1", overrides: first.overrides, testOnly: true))
    }
}
