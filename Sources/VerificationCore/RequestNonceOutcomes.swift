#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a request session's `replay.nonce` says, in the words of its flow ("the request nonce" in
/// app, "the request" on the web), and the one atomic consumption both flows make once a response
/// opened for the request.
public struct RequestNonceOutcomes: Sendable {
    /// What is consumed, capitalized at the start of a sentence ("The request nonce").
    let subject: String
    /// The store's name in the error message ("nonce store").
    let store: String
    /// The request was consumed already: a replay.
    public let reused: CheckOutcome
    /// The request expired before the response arrived.
    public let expired: CheckOutcome
    /// No such request was issued (or it was purged).
    public let unknown: CheckOutcome

    /// The outcomes of one flow: `subject` names what is consumed at the start of a sentence,
    /// `store` the store in the error message, `reused` the replay's message.
    public init(subject: String, store: String, reused: String) {
        self.subject = subject
        self.store = store
        self.reused = .failed(.nonceReused, reused)
        self.expired = .failed(.nonceExpired, "The request expired before the response arrived; create a new request.")
        self.unknown = .failed(.unknownRequest, "No such request was issued (or it was purged).")
    }

    /// The outcome for a stored request this flow cannot read. The store is shared by every flow, so
    /// when `otherFlow` names the flow that stored it, the client sent another flow's identifier: a
    /// `failed` `unknownRequest` that says where it belongs. Otherwise the store's data is damaged
    /// (`error`, `storeCorrupt`, not retryable).
    public func unreadable(storedBy otherFlow: (name: String, endpoint: String)?) -> CheckOutcome {
        guard let otherFlow else { return .error(.storeCorrupt, "The stored request could not be read.", retryable: false) }
        return .failed(
            .unknownRequest,
            "No such request was issued by this flow: the identifier names \(otherFlow.name); send its response to \(otherFlow.endpoint).")
    }

    /// Consumes the request for a response that opened: `replay.nonce`'s outcome.
    public func consume(
        _ requestID: String, store replayStore: any ReplayStore, now: Date, idempotency: IdempotencyTag?, attempt: NonceAttempt
    ) async -> CheckOutcome {
        let consumption: NonceConsumption
        do {
            consumption = try await replayStore.consumeNonce(requestID, now: now, idempotency: idempotency, attempt: attempt)
        } catch {
            return .error(.storeUnavailable, "The \(store) could not be reached; try again.", retryable: true)
        }
        switch consumption {
        case .consumed:
            return .passed("\(subject) was issued here, had not expired, and is now used by this response, which opened for it.")
        case .consumedAgain(_, let firstConsumed):
            return .idempotentRetry(
                "\(subject) was consumed by this same submission (its Idempotency-Key and body): a retry, not a replay.", firstSeen: firstConsumed)
        case .alreadyConsumed: return reused
        case .expired: return expired
        case .unknown: return unknown
        }
    }

    /// After an indeterminate verdict, gives back the consumption `attempt` made (the same submission
    /// can be verified again until the request expires) and returns `report` with `replay.nonce`
    /// saying so; nil when nothing was given back (another verdict, no consumption, or the store
    /// refused or could not be reached).
    public func releasingAfterIndeterminate(
        _ report: VerificationReport, requestID: String, store replayStore: any ReplayStore, attempt: NonceAttempt, now: Date
    ) async -> VerificationReport? {
        guard report.verdict == .indeterminate, (try? await replayStore.releaseNonce(requestID, attempt: attempt, now: now)) == true else {
            return nil
        }
        var released = report
        if let index = released.checks.firstIndex(where: { $0.id == .replayNonce }) {
            released.checks[index].message =
                "\(subject) was issued here and had not expired; as the verdict could not be decided, it was given back: the same response can be submitted again until the request expires."
            released.checks[index].details["released"] = "true"
        }
        return released
    }
}
