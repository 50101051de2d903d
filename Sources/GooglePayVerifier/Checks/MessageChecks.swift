import Foundation
import VerificationCore

/// `googlepay.message.content`: the decrypted message is a JSON object with `messageExpiration`,
/// `messageId`, `paymentMethod` CARD and `paymentMethodDetails` (`pan`, `expirationMonth`,
/// `expirationYear`, `authMethod` PAN_ONLY or CRYPTOGRAM_3DS, and for CRYPTOGRAM_3DS a `cryptogram`).
struct MessageContentCheck: VerificationCheck {
    let id = CheckID.googlePayMessageContent
    let prerequisites: [CheckID] = [.googlePayDecryption]

    func evaluate(_ state: inout GooglePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let plaintext = state.plaintext else { return .notEvaluated(because: .googlePayDecryption) }
        let payment = try GooglePayPaymentData(json: plaintext)
        state.payment = payment
        let (auth, messageId) = (payment.authMethod.rawValue, payment.messageId)
        return .passed("A CARD message, authMethod \(auth)", details: ["authMethod": auth, "messageId": messageId])
    }
}

/// `googlepay.message.expiration`: `messageExpiration` lies after the verification time (less the
/// context's clock skew).
struct MessageExpirationCheck: VerificationCheck {
    let id = CheckID.googlePayMessageExpiration
    let prerequisites: [CheckID] = [.googlePayMessageContent]

    func evaluate(_ state: inout GooglePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let payment = state.payment else { return .notEvaluated(because: .googlePayMessageContent) }
        let expiration = payment.messageExpiration
        let milliseconds = GooglePayTime.milliseconds(expiration)
        guard expiration.addingTimeInterval(context.clockSkewSeconds) > context.time else {
            return .failed(
                .messageExpired,
                "The message expired at \(expiration.rfc3339), not after the verification time \(context.time.rfc3339): ask for a new payment",
                details: ["messageExpiration": milliseconds])
        }
        return .passed("The message expires at \(expiration.rfc3339), after the verification time", details: ["messageExpiration": milliseconds])
    }
}

/// `googlepay.replay.messageId`: the `messageId` is recorded in the ``ReplayStore`` until the
/// message expires, and accepted once. Runs last and only when every other required check passed,
/// so a token rejected for another reason does not use up its identifier.
struct ReplayCheck: VerificationCheck {
    let id = CheckID.googlePayReplayMessageId
    let prerequisites: [CheckID]
    let store: any ReplayStore
    let namespace: String

    init(store: any ReplayStore, policy: GooglePayPolicy) {
        self.store = store
        self.namespace = policy.replayNamespace
        self.prerequisites =
            [.googlePayTokenStructure, .googlePayMessageContent]
            + policy.requiredOnly([
                .googlePayIntermediateKeySignature, .googlePayIntermediateKeyExpiration, .googlePayMessageSignature,
                .googlePayDecryption, .googlePayMessageExpiration,
            ])
    }

    func evaluate(_ state: inout GooglePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let payment = state.payment else { return .notEvaluated(because: .googlePayMessageContent) }
        let messageId = payment.messageId
        // Remembered while any verifier could still accept the message: until it expires, with the skew allowed.
        let expiresAt = max(payment.messageExpiration, context.time).addingTimeInterval(max(context.clockSkewSeconds, 0) + 1)
        let outcome: ReplayOutcome
        do {
            outcome = try await store.recordFirstUse(
                namespace: namespace, key: messageId, expiresAt: expiresAt, now: context.time, idempotency: context.idempotency)
        } catch let error as any CheckFailureDescribing {
            throw error
        } catch {
            throw OperationalError(.unavailable, "The replay store failed: \(type(of: error))", retryable: true)
        }
        switch outcome {
        case .firstUse:
            return .passed("messageId seen for the first time; remembered until \(expiresAt.rfc3339)", details: ["messageId": messageId])
        case .idempotentRetry(let firstUse):
            return .idempotentRetry(
                "messageId was recorded by this same submission (its Idempotency-Key and body) at \(firstUse.rfc3339): a retry, not a replay",
                firstSeen: firstUse, details: ["messageId": messageId])
        case .alreadyUsed:
            return .failed(.messageIdReplayed, "messageId was already accepted: this token is a replay", details: ["messageId": messageId])
        }
    }
}
