import Foundation
import VerificationCore

/// The outcome of verifying one token: the report, and the payment data only when the verdict is
/// accepted.
public struct ApplePayResult: Sendable {
    public let report: VerificationReport
    /// Present only when ``verdict`` is `accepted`.
    public let payment: ApplePayPaymentData?
    /// Non-secret facts about the token (nil when it could not be read).
    public let summary: Summary?

    public var verdict: Verdict { report.verdict }

    public struct Summary: Sendable, Hashable {
        public var version: ApplePayTokenVersion
        public var transactionId: String
        public var publicKeyHash: String
        public var applicationData: String?
        public var signingTime: Date?
        /// The leaf certificate's common name.
        public var signer: String?
    }
}

/// Verifies and decrypts Apple Pay payment tokens (EC_v1 and RSA_v1), every step of Apple's
/// "Payment Token Format Reference", each step a check in the report.
///
/// Build one per configuration and share it: the key ring is parsed once, and validated certificate
/// chains are cached in ``chainCache``. Verification never reads the clock: the time comes in the
/// ``VerificationContext``.
public struct ApplePayTokenVerifier: Sendable {
    public let keyRing: MerchantKeyRing
    public let trustAnchor: ApplePayTrustAnchor
    public let policy: ApplePayPolicy
    public let replayStore: any ReplayStore
    public let chainCache: ApplePayChainCache

    /// - Parameters:
    ///   - trustAnchor: nil for Apple Root CA - G3 (bundled, fingerprint pinned). Anything else is
    ///     for tests and is reported as a `customTrustAnchor` warning.
    /// - Throws: ``MerchantKeyError`` if the bundled root cannot be loaded or fails its pin.
    public init(
        keyRing: MerchantKeyRing,
        replayStore: any ReplayStore,
        policy: ApplePayPolicy = .production,
        trustAnchor: ApplePayTrustAnchor? = nil,
        chainCache: ApplePayChainCache = ApplePayChainCache()
    ) throws {
        self.keyRing = keyRing
        self.replayStore = replayStore
        self.policy = policy
        self.trustAnchor = try trustAnchor ?? ApplePayTrustAnchor.appleRootCAG3()
        self.chainCache = chainCache
    }

    /// Verifies a token (`paymentData` JSON or a whole PKPaymentToken JSON). Never throws: input
    /// that cannot be read is a failed `applepay.token.structure` check.
    public func verify(_ tokenJSON: [UInt8], context: VerificationContext, expectations: ApplePayExpectations = .none) async -> ApplePayResult {
        var runner = CheckRunner(policy: policy.requirements, context: context)
        var state = ApplePayState(input: tokenJSON)

        if !trustAnchor.isAppleRootCAG3 {
            runner.warn("customTrustAnchor", "chains are validated against \(trustAnchor), not Apple Root CA - G3; only for tests")
        }

        await runner.run(TokenStructureCheck(), state: &state)
        await runner.run(SignatureCMSCheck(certificates: chainCache.certificates), state: &state)
        await runner.run(MarkerOIDsCheck(), state: &state)
        await runner.run(CertificateValidityCheck(anchor: trustAnchor), state: &state)
        await runner.run(ChainCheck(anchor: trustAnchor, cache: chainCache, policy: policy), state: &state)
        await runner.run(ContentTypeCheck(), state: &state)
        await runner.run(MessageDigestCheck(), state: &state)
        await runner.run(SignerCheck(), state: &state)
        await runner.run(SigningTimeCheck(policy: policy), state: &state)
        await runner.run(KeySelectionCheck(keyRing: keyRing), state: &state)
        await runner.run(DecryptionCheck(policy: policy), state: &state)
        await runner.run(PaymentDataCheck(), state: &state)
        await runner.run(ExpectedCurrencyCheck(expected: expectations.currencyCode), state: &state)
        await runner.run(ExpectedAmountCheck(expected: expectations.transactionAmount), state: &state)
        await runner.run(ExpectedApplicationDataCheck(expected: expectations.applicationData, policy: policy), state: &state)
        await runner.run(ReplayCheck(store: replayStore, policy: policy, expectations: expectations), state: &state)

        if let token = state.token, let outer = token.outerTransactionIdentifier,
           TokenEncoding.hexDecode(outer) != token.header.transactionIdBytes {
            runner.warn("transactionIdentifierMismatch", "the PKPaymentToken's transactionIdentifier (not signed) differs from the signed header.transactionId")
        }

        let report = runner.report(flow: "applePay")
        let summary = state.token.map { token in
            ApplePayResult.Summary(
                version: token.version,
                transactionId: token.header.transactionId,
                publicKeyHash: token.header.publicKeyHash,
                applicationData: token.header.applicationData,
                signingTime: state.signingTime,
                signer: state.leaf?.displayName
            )
        }
        return ApplePayResult(report: report, payment: report.verdict == .accepted ? state.payment : nil, summary: summary)
    }
}
