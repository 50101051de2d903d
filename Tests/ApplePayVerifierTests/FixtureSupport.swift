import ApplePayVerifier
import Foundation
import Testing
import VerificationCore
import WalletVerifierTestSupport

/// Shared setup for tests on fixture tokens: merchants made once, a verifier per test (fresh
/// replay store), tokens signed at ``signingTime`` and verified 30 s later.
enum Fixture {
    static let ecMerchant = try! ApplePayFixtureMerchant.ec()
    static let rsaMerchant = try! ApplePayFixtureMerchant.rsa()
    static let signingTime = ApplePayFixturePKI.epoch.addingTimeInterval(3600)
    static let verificationTime = signingTime.addingTimeInterval(30)
    static let sharedCache = ApplePayChainCache()

    static func verifier(
        _ merchants: [ApplePayFixtureMerchant] = [ecMerchant, rsaMerchant],
        pki: ApplePayFixturePKI = .standard,
        anchor: ApplePayTrustAnchor? = nil,
        policy: ApplePayPolicy = .production,
        replayStore: any ReplayStore = InMemoryReplayStore()
    ) throws -> ApplePayTokenVerifier {
        try ApplePayTokenVerifier(
            keyRing: try MerchantKeyRing(merchants.map { try $0.merchantKey() }),
            replayStore: replayStore,
            policy: policy,
            trustAnchor: try anchor ?? pki.trustAnchor()
        )
    }

    static func builder(_ merchant: ApplePayFixtureMerchant = ecMerchant, pki: ApplePayFixturePKI = .standard) -> ApplePayTokenBuilder {
        ApplePayTokenBuilder(pki: pki, merchant: merchant, signingTime: signingTime)
    }

    static func verify(
        _ token: ApplePayFixtureToken,
        with verifier: ApplePayTokenVerifier? = nil,
        at time: Date = verificationTime,
        expectations: ApplePayExpectations = .none
    ) async throws -> ApplePayResult {
        let verifier = try verifier ?? Self.verifier()
        return await verifier.verify(token.json(), context: VerificationContext(time: time), expectations: expectations)
    }

    static func verify(json: [UInt8]) async throws -> ApplePayResult {
        await (try verifier()).verify(json, context: VerificationContext(time: verificationTime))
    }
}

extension ApplePayResult {
    func status(_ id: CheckID) -> CheckStatus? { report.check(id)?.status }
    func reason(_ id: CheckID) -> ReasonCode? { report.check(id)?.reason }

    /// What every rejected result must look like: rejected and no payment data.
    func expectRejected(_ id: CheckID, _ reason: ReasonCode, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(verdict == .rejected, "verdict", sourceLocation: sourceLocation)
        #expect(payment == nil, "payment data on a rejected token", sourceLocation: sourceLocation)
        let check = report.check(id)
        #expect(check?.status == .failed, "\(id) should fail: \(check?.message ?? "missing")", sourceLocation: sourceLocation)
        #expect(check?.reason == reason, "\(id) reason \(check?.reason.rawValue ?? "-"): \(check?.message ?? "")", sourceLocation: sourceLocation)
    }

    func expectAccepted(sourceLocation: SourceLocation = #_sourceLocation) {
        for check in report.checks where check.status != .passed && check.reason != .notApplicable {
            Issue.record("\(check.id): \(check.status) \(check.reason) — \(check.message)", sourceLocation: sourceLocation)
        }
        #expect(verdict == .accepted, sourceLocation: sourceLocation)
        #expect(payment != nil, sourceLocation: sourceLocation)
    }
}

/// `bytes` with one byte, at a random place, replaced by one of `interesting`, removed or repeated:
/// the damage the in-place readers' tests compare both readings on.
func damaged(_ bytes: [UInt8], with interesting: [UInt8], using generator: inout some RandomNumberGenerator) -> [UInt8] {
    var bytes = bytes
    let index = Int.random(in: 0..<bytes.count, using: &generator)
    switch Int.random(in: 0..<3, using: &generator) {
    case 0: bytes[index] = interesting.randomElement(using: &generator)!
    case 1: bytes.remove(at: index)
    default: bytes.insert(bytes[index], at: index)
    }
    return bytes
}
