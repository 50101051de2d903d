import Foundation
import VerificationCore
import WalletEncoding

/// `replay.transactionId`: the transaction identifier is recorded in the ``ReplayStore`` and
/// accepted once. Runs last and only when every other required check passed, so a token rejected
/// for another reason (a configuration error, a wrong amount) does not use up its identifier.
/// Entries expire at signing time (or the verification time, when later) + the longest window and
/// the largest skew any configuration may use (``ApplePayPolicy/replayRetention``), whatever the
/// current window: after that no configuration's `applepay.signingTime` accepts the token, while a
/// reload or another instance with a wider window still finds the identifier.
struct ReplayCheck: VerificationCheck {
    let id = CheckID.replayTransactionId
    let prerequisites: [CheckID]
    let store: any ReplayStore
    let policy: ApplePayPolicy

    /// Every check before this one that the policy requires (expectation checks only when set).
    static func prerequisites(policy: ApplePayPolicy, expectations: ApplePayExpectations) -> [CheckID] {
        var before: [CheckID] = [
            .applePaySignatureCMS, .applePaySignatureMarkerOIDs, .applePaySignatureCertificateValidity,
            .applePaySignatureChain, .applePaySignatureContentType, .applePaySignatureMessageDigest,
            .applePaySignatureSigner, .applePaySigningTime, .applePayKeySelection, .applePayDecryption,
            .applePayPaymentData,
        ]
        if expectations.currencyCode != nil { before.append(.applePayExpectCurrency) }
        if expectations.transactionAmount != nil { before.append(.applePayExpectAmount) }
        if expectations.expectsApplicationData { before.append(.applePayExpectApplicationData) }
        return [.applePayTokenStructure] + policy.requiredOnly(before)
    }

    init(store: any ReplayStore, policy: ApplePayPolicy, prerequisites: [CheckID]) {
        self.store = store
        self.policy = policy
        self.prerequisites = prerequisites
    }

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let token = state.token else { return .notEvaluated(because: .applePayTokenStructure) }
        // Lower-case hex: the same identifier in either case is the same transaction.
        let key = Hex.encode(token.header.transactionIdBytes)
        // Not this configuration's window: the widest any configuration sharing the store may use.
        let retention = policy.replayRetention.seconds + max(0, context.clockSkewSeconds - ApplePayPolicy.largestClockSkew.seconds)
        var signingTime = state.signingTime
        if signingTime == nil, let signer = state.signer, case .success(let date) = SigningTimeCheck.signingTime(signer) {
            signingTime = date
        }
        let base = max(signingTime ?? context.time, context.time)
        let expiresAt = base.addingTimeInterval(retention)
        let outcome: ReplayOutcome
        do {
            outcome = try await store.recordFirstUse(
                namespace: policy.replayNamespace, key: key, expiresAt: expiresAt, now: context.time,
                idempotency: context.idempotency)
        } catch let error as any CheckFailureDescribing {
            throw error
        } catch {
            throw OperationalError(.unavailable, "The replay store failed: \(type(of: error))", retryable: true)
        }
        switch outcome {
        case .firstUse:
            let transactionId = token.header.transactionId
            return .passed {
                ("transactionId \(transactionId) seen for the first time; remembered until \(expiresAt.rfc3339)", ["transactionId": key])
            }
        case .idempotentRetry(let firstUse):
            return .idempotentRetry(
                "transactionId \(token.header.transactionId) was recorded by this same submission (its Idempotency-Key and body) at \(firstUse.rfc3339): a retry, not a replay",
                firstSeen: firstUse, details: ["transactionId": key])
        case .alreadyUsed:
            return .failed(
                .replayed, "transactionId \(token.header.transactionId) was already accepted: this token is a replay", details: ["transactionId": key]
            )
        }
    }
}
