import Foundation
import VerificationCore
import WalletEncoding
import WalletJSON

/// The outcome of verifying one token: the report, and the payment data only when the verdict is
/// accepted.
public struct ApplePayResult: Sendable {
    /// Every check's outcome, the warnings and the verdict.
    public let report: VerificationReport
    /// Present only when ``verdict`` is `accepted`.
    public let payment: ApplePayPaymentData?
    /// Non-secret facts about the token (nil when it could not be read).
    public let summary: Summary?
    /// The report's verdict (computed once).
    public let verdict: Verdict

    /// Non-secret facts about the token, available whatever the verdict.
    public struct Summary: Sendable, Hashable {
        /// Which scheme the token uses: EC_v1 or RSA_v1.
        public var version: ApplePayTokenVersion
        /// `header.transactionId` as received (hex).
        public var transactionId: String
        /// `header.publicKeyHash` as received: the merchant key the token was encrypted for.
        public var publicKeyHash: String
        /// `header.applicationData` as received (hex), when present.
        public var applicationData: String?
        /// The CMS signing time; nil when `applepay.signingTime` did not run or could not read it.
        public var signingTime: Date?
        /// The leaf certificate's common name.
        public var signer: String?
        /// The PKPaymentToken's `transactionIdentifier` and `paymentMethod`, when the whole token was
        /// given (not signed).
        public var transactionIdentifier: String?
        /// The PKPaymentToken's `paymentMethod`, when given (not signed: for display only).
        public var paymentMethod: ApplePayToken.PaymentMethod?
    }
}

/// Verifies and decrypts Apple Pay payment tokens (EC_v1 and RSA_v1), every step of Apple's
/// "Payment Token Format Reference", each step a check in the report.
///
/// Build one per configuration and share it: the key ring is parsed once, and validated certificate
/// chains are cached in ``chainCache``. Verification never reads the clock: the time comes in the
/// ``VerificationContext``.
public struct ApplePayTokenVerifier: Sendable {
    /// The merchant keys that tokens are decrypted with.
    public let keyRing: MerchantKeyRing
    /// The root that signing chains must end in: Apple Root CA - G3 unless a test gave another.
    public let trustAnchor: ApplePayTrustAnchor
    /// Requirement levels, signing-time window and replay namespace.
    public let policy: ApplePayPolicy
    /// Where transaction identifiers are recorded, so that each token is accepted once.
    public let replayStore: any ReplayStore
    /// Validated certificate chains, reused by later verifications.
    public let chainCache: ApplePayChainCache

    // The checks that do not depend on the call, built once.
    private let structureCheck = TokenStructureCheck()
    private let cmsCheck: SignatureCMSCheck
    private let markerCheck = MarkerOIDsCheck()
    private let validityCheck: CertificateValidityCheck
    private let chainCheck: ChainCheck
    private let contentTypeCheck = ContentTypeCheck()
    private let digestCheck = MessageDigestCheck()
    private let signerCheck = SignerCheck()
    private let signingTimeCheck: SigningTimeCheck
    private let keySelectionCheck: KeySelectionCheck
    private let decryptionCheck: DecryptionCheck
    private let paymentDataCheck = PaymentDataCheck()
    private let replayCheckWithoutExpectations: ReplayCheck
    /// The `customTrustAnchor` warning's text, written once; nil for Apple Root CA - G3.
    private let customAnchorWarning: String?

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
        let anchor = try trustAnchor ?? ApplePayTrustAnchor.appleRootCAG3()
        self.trustAnchor = anchor
        self.customAnchorWarning =
            anchor.isAppleRootCAG3 ? nil : "chains are validated against \(anchor), not Apple Root CA - G3; only for tests"
        self.chainCache = chainCache
        self.cmsCheck = SignatureCMSCheck(certificates: chainCache.certificates)
        self.validityCheck = CertificateValidityCheck(anchor: anchor)
        self.chainCheck = ChainCheck(anchor: anchor, cache: chainCache, policy: policy)
        self.signingTimeCheck = SigningTimeCheck(policy: policy)
        self.keySelectionCheck = KeySelectionCheck(keyRing: keyRing)
        self.decryptionCheck = DecryptionCheck(policy: policy)
        self.replayCheckWithoutExpectations = ReplayCheck(
            store: replayStore, policy: policy,
            prerequisites: ReplayCheck.prerequisites(policy: policy, expectations: .none)
        )
    }

    /// Verifies a token (`paymentData` JSON or a whole PKPaymentToken JSON). Never throws: input
    /// that cannot be read is a failed `applepay.token.structure` check.
    public func verify(_ tokenJSON: [UInt8], context: VerificationContext, expectations: ApplePayExpectations = .none) async -> ApplePayResult {
        await verify(tokenJSON, parsed: nil, context: context, expectations: expectations)
    }

    /// As ``verify(_:context:expectations:)``, with the strict JSON parse of `tokenJSON` when the
    /// caller has it already (it must be ``StrictJSON/parse(_:)`` of exactly these bytes).
    public func verify(
        _ tokenJSON: [UInt8], parsed: StrictJSON.Object?, context: VerificationContext,
        expectations: ApplePayExpectations = .none
    ) async -> ApplePayResult {
        var runner = CheckRunner(policy: policy.requirements, context: context)
        var state = ApplePayState(input: tokenJSON, parsedInput: parsed)

        if let customAnchorWarning {
            runner.warn(.customTrustAnchor, customAnchorWarning)
        }

        await runner.run(structureCheck, state: &state)
        await runner.run(cmsCheck, state: &state)
        await runner.run(markerCheck, state: &state)
        await runner.run(validityCheck, state: &state)
        await runner.run(chainCheck, state: &state)
        await runner.run(contentTypeCheck, state: &state)
        await runner.run(digestCheck, state: &state)
        await runner.run(signerCheck, state: &state)
        await runner.run(signingTimeCheck, state: &state)
        await runner.run(keySelectionCheck, state: &state)
        await runner.run(decryptionCheck, state: &state)
        await runner.run(paymentDataCheck, state: &state)
        await runner.run(ExpectedCurrencyCheck(expected: expectations.currencyCode), state: &state)
        await runner.run(ExpectedAmountCheck(expected: expectations.transactionAmount), state: &state)
        await runner.run(ExpectedApplicationDataCheck(expectations: expectations, policy: policy), state: &state)
        let noExpectations = expectations == .none
        let replayCheck =
            noExpectations
            ? replayCheckWithoutExpectations
            : ReplayCheck(store: replayStore, policy: policy, prerequisites: ReplayCheck.prerequisites(policy: policy, expectations: expectations))
        await runner.run(replayCheck, state: &state)

        // Seed 004, step 6: a payment flow checks the currency, the amount and the applicationData.
        // Verifying without them is allowed (a debugging tool, an integrator's choice), never silent.
        let tokenHasApplicationData = state.token?.header.applicationData != nil
        if noExpectations, !tokenHasApplicationData {
            // The usual case, without building the list of names: currencyCode and transactionAmount.
            runner.warn(.expectationsMissing, Self.missingCurrencyAndAmount)
        } else {
            let missing = expectations.missing(tokenHasApplicationData: tokenHasApplicationData)
            if !missing.isEmpty {
                runner.warn(.expectationsMissing, Self.expectationsMissingMessage(missing))
            }
        }
        if let token = state.token, let outer = token.outerTransactionIdentifier,
            Hex.decodeStrict(outer) != token.header.transactionIdBytes
        {
            runner.warn(
                .transactionIdentifierMismatch, "the PKPaymentToken's transactionIdentifier (not signed) differs from the signed header.transactionId"
            )
        }

        let report = runner.report(flow: "applePay")
        let verdict = report.verdict
        let summary = state.token.map { token in
            ApplePayResult.Summary(
                version: token.version,
                transactionId: token.header.transactionId,
                publicKeyHash: token.header.publicKeyHash,
                applicationData: token.header.applicationData,
                signingTime: state.signingTime,
                signer: state.leaf?.displayName,
                transactionIdentifier: token.outerTransactionIdentifier,
                paymentMethod: token.paymentMethod
            )
        }
        return ApplePayResult(report: report, payment: verdict == .accepted ? state.payment : nil, summary: summary, verdict: verdict)
    }

    /// The `expectationsMissing` warning's text for the names of the missing expectations.
    static func expectationsMissingMessage(_ missing: [String]) -> String {
        // The usual case (no expectation given, a token without applicationData), written once.
        if missing == ["currencyCode", "transactionAmount"] { return missingCurrencyAndAmount }
        return composeExpectationsMissingMessage(missing)
    }

    private static let missingCurrencyAndAmount = composeExpectationsMissingMessage(["currencyCode", "transactionAmount"])

    private static func composeExpectationsMissingMessage(_ missing: [String]) -> String {
        "No expected \(missing.joined(separator: ", ")) was given: the token was not checked against the payment it is for "
            + "(Apple's step 6: check that the currencyCode is as expected, that the transactionAmount is correct and that "
            + "the applicationData matches the hash of the payment request's data)"
    }
}
