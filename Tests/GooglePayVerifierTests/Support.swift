import Foundation
import GooglePayVerifier
import Testing
import VerificationCore
import WalletVerifierTestSupport

/// The test data in `Vectors/` (see its README), read from the source tree.
enum Vectors {
    static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors")

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: root.appendingPathComponent(name)))
    }

    static func text(_ name: String) throws -> String {
        String(decoding: try bytes(name), as: UTF8.self)
    }
}

/// The time the fixture tokens are made valid at.
let fixtureTime = Date(timeIntervalSince1970: 1_780_000_000)

/// A verifier for the builder's keys, recipient `merchant:12345678901234567890`.
func fixtureVerifier(
    _ keys: GooglePayFixtureKeys, rootExpiration: Date? = fixtureTime.addingTimeInterval(365 * 86_400),
    store: any ReplayStore = InMemoryReplayStore(),
    keyRing: GooglePayMerchantKeyRing? = nil, recipient: GooglePayRecipient = .merchant("12345678901234567890")
) throws -> GooglePayTokenVerifier {
    let roots = try GooglePayRootKeys.parse(keys.rootKeyListJSON(expiration: rootExpiration))
    return GooglePayTokenVerifier(rootKeys: roots, keyRing: keyRing ?? keys.keyRing, recipient: recipient, replayStore: store)
}

extension GooglePayResult {
    func status(_ id: CheckID) -> CheckStatus? { report.check(id)?.status }
    func reason(_ id: CheckID) -> ReasonCode? { report.check(id)?.reason }

    /// Rejected, no card, `id` failed with `reason`, and every Google Pay check reported.
    func expectRejected(_ id: CheckID, _ reason: ReasonCode, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(verdict == .rejected, "verdict", sourceLocation: sourceLocation)
        #expect(payment == nil, "card data on a rejected token", sourceLocation: sourceLocation)
        let check = report.check(id)
        #expect(check?.status == .failed, "\(id) should fail: \(check?.message ?? "missing")", sourceLocation: sourceLocation)
        #expect(check?.reason == reason, "\(id) reason \(check?.reason.rawValue ?? "-"): \(check?.message ?? "")", sourceLocation: sourceLocation)
        #expect(report.checks.map(\.id) == CheckID.googlePayChecks, "every check reported", sourceLocation: sourceLocation)
        #expect(report.failures.count == 1, "only \(id) failed: \(report.failures.map(\.id))", sourceLocation: sourceLocation)
    }

    func expectAccepted(sourceLocation: SourceLocation = #_sourceLocation) {
        for check in report.checks where check.status != .passed {
            Issue.record("\(check.id): \(check.status) \(check.reason) — \(check.message)", sourceLocation: sourceLocation)
        }
        #expect(verdict == .accepted, sourceLocation: sourceLocation)
        #expect(payment != nil, sourceLocation: sourceLocation)
        #expect(report.checks.map(\.id) == CheckID.googlePayChecks, sourceLocation: sourceLocation)
    }

    /// Every text a person or a log may see: the result's description and each check's message and details.
    var visibleText: String {
        ([description, String(describing: payment as Any), String(reflecting: payment as Any)]
            + report.checks.flatMap { [$0.message] + $0.details.map { "\($0.key)=\($0.value)" } }
            + report.warnings.map(\.message)).joined(separator: "\n")
    }
}
