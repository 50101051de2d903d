import Foundation
import VerificationCore

/// The outcome of verifying one token: the report, and the card only when the verdict is accepted.
public struct GooglePayResult: Sendable, CustomStringConvertible {
    /// Every check's outcome, the warnings and the verdict.
    public let report: VerificationReport
    /// The decrypted card; present only when ``verdict`` is `accepted`.
    public let payment: GooglePayPaymentData?
    /// Non-secret facts about the token (nil when it could not be read).
    public let summary: Summary?
    /// The report's verdict (computed once).
    public let verdict: Verdict

    /// Non-secret facts about the token, available whatever the verdict.
    public struct Summary: Sendable, Hashable {
        /// `protocolVersion`: ECv2.
        public var protocolVersion: String
        /// The intermediate signing key's expiration, when `signedKey` could be read.
        public var intermediateKeyExpiration: Date?
        /// The merchant key (its public half, base64) whose tag verified, when one did.
        public var merchantPublicKey: String?
        /// `messageId`, when the message was decrypted and read.
        public var messageId: String?
        /// `messageExpiration`, when the message was decrypted and read.
        public var messageExpiration: Date?
        /// `paymentMethodDetails.authMethod`, when the message was decrypted and read.
        public var authMethod: GooglePayPaymentData.AuthMethod?
    }

    /// The verdict and the ids of the checks that did not pass; never card data.
    public var description: String {
        let notPassed = report.checks.filter { $0.status != .passed && $0.reason != .notApplicable }
            .map { "\($0.id) \($0.status.rawValue) \($0.reason)" }
        let payment = payment.map { ", \($0)" } ?? ""
        return "GooglePayResult(\(verdict.rawValue)\(notPassed.isEmpty ? "" : ": " + notPassed.joined(separator: "; "))\(payment))"
    }
}

/// Verifies and decrypts Google Pay payment tokens (protocolVersion ECv2), every step of Google's
/// "Payment data cryptography for merchants", each step a check in the report.
///
/// Build one per configuration and share it. Verification never reads the clock: the time comes
/// in the ``VerificationContext``.
public struct GooglePayTokenVerifier: Sendable {
    /// Google's root signing keys.
    public let rootKeys: GooglePayRootKeys
    /// The merchant keys that tokens are decrypted with, tried in turn.
    public let keyRing: GooglePayMerchantKeyRing
    /// Whom tokens must be signed for.
    public let recipient: GooglePayRecipient
    /// Requirement levels, replay namespace and size limit.
    public let policy: GooglePayPolicy
    /// Where message identifiers are recorded, so that each token is accepted once.
    public let replayStore: any ReplayStore

    private let structureCheck: TokenStructureCheck
    private let intermediateSignatureCheck: IntermediateKeySignatureCheck
    private let intermediateExpirationCheck = IntermediateKeyExpirationCheck()
    private let messageSignatureCheck: MessageSignatureCheck
    private let decryptionCheck: DecryptionCheck
    private let contentCheck = MessageContentCheck()
    private let expirationCheck = MessageExpirationCheck()
    private let replayCheck: ReplayCheck

    /// A verifier of tokens for `recipient`, signed under `rootKeys` and encrypted for a key of `keyRing`.
    public init(
        rootKeys: GooglePayRootKeys, keyRing: GooglePayMerchantKeyRing, recipient: GooglePayRecipient, replayStore: any ReplayStore,
        policy: GooglePayPolicy = .production
    ) {
        self.rootKeys = rootKeys
        self.keyRing = keyRing
        self.recipient = recipient
        self.policy = policy
        self.replayStore = replayStore
        self.structureCheck = TokenStructureCheck(maximumSize: policy.maximumTokenSize)
        self.intermediateSignatureCheck = IntermediateKeySignatureCheck(rootKeys: rootKeys)
        self.messageSignatureCheck = MessageSignatureCheck(recipientId: recipient.recipientId, policy: policy)
        self.decryptionCheck = DecryptionCheck(keyRing: keyRing, policy: policy)
        self.replayCheck = ReplayCheck(store: replayStore, policy: policy)
    }

    /// Verifies a token (the `PaymentMethodToken` JSON, the `token` string of Google's payment data
    /// as bytes). Never throws: input that cannot be read is a failed `googlepay.token.structure` check.
    public func verify(_ tokenJSON: [UInt8], context: VerificationContext) async -> GooglePayResult {
        var runner = CheckRunner(policy: policy.requirements, context: context)
        var state = GooglePayState(input: tokenJSON)
        await runSignatureChecks(&runner, &state)
        await runner.run(decryptionCheck, state: &state)
        await runner.run(contentCheck, state: &state)
        await runner.run(expirationCheck, state: &state)
        await runner.run(replayCheck, state: &state)

        return result(runner.report(flow: "googlePay"), state: state)
    }

    /// Verifies a token's signatures and its intermediate key's expiration only: the checks
    /// `googlepay.token.structure`, `googlepay.intermediateKey.signature`,
    /// `googlepay.intermediateKey.expiration` and `googlepay.message.signature`. Nothing is decrypted,
    /// so the message's own expiration and replay are not checked and no card is returned; the report's
    /// flow is `googlePaySignatures`, so it is never mistaken for a decrypted payment's.
    public func verifySignatures(_ tokenJSON: [UInt8], context: VerificationContext) async -> GooglePayResult {
        var runner = CheckRunner(policy: policy.requirements, context: context)
        var state = GooglePayState(input: tokenJSON)
        await runSignatureChecks(&runner, &state)
        return result(runner.report(flow: "googlePaySignatures"), state: state)
    }

    /// The checks both entry points start with: structure, the intermediate key's signature and
    /// expiry, the message signature.
    private func runSignatureChecks(_ runner: inout CheckRunner, _ state: inout GooglePayState) async {
        await runner.run(structureCheck, state: &state)
        await runner.run(intermediateSignatureCheck, state: &state)
        await runner.run(intermediateExpirationCheck, state: &state)
        await runner.run(messageSignatureCheck, state: &state)
    }

    private func result(_ report: VerificationReport, state: GooglePayState) -> GooglePayResult {
        let verdict = report.verdict
        let summary = state.token.map { token in
            GooglePayResult.Summary(
                protocolVersion: token.protocolVersion,
                intermediateKeyExpiration: state.intermediateKeyExpiration,
                merchantPublicKey: state.merchantKey?.publicKeyBase64,
                messageId: state.payment?.messageId,
                messageExpiration: state.payment?.messageExpiration,
                authMethod: state.payment?.authMethod)
        }
        return GooglePayResult(report: report, payment: verdict == .accepted ? state.payment : nil, summary: summary, verdict: verdict)
    }
}
