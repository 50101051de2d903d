import Crypto
import Foundation
import Mdoc
import MdocVerifier
import VerificationCore
import WalletCBOR

/// The result of verifying a Digital Credentials API response: the report and — only when the
/// verdict is accepted — the documents (personal data).
public struct WebVerificationResult: Sendable {
    /// The verification report: the verdict and every check's outcome.
    public let report: VerificationReport
    private let decoded: [VerifiedDocument]

    init(report: VerificationReport, documents: [VerifiedDocument]) {
        self.report = report
        self.decoded = documents
    }

    /// The requests the answer was verified against (from the request session: one per docType
    /// asked for), with the origin: what a receipt names of the request. Empty when no session was read.
    public internal(set) var requests: [WebDocumentRequest] = []
    /// The request session's origin, when a session was read.
    public internal(set) var origin: String?

    /// The documents of an accepted response; empty for any other verdict.
    public var documents: [VerifiedDocument] { report.verdict == .accepted ? decoded : [] }
    /// Every document that was decoded, whatever the verdict: for diagnostics, never for acting on.
    public var documentsRegardlessOfVerdict: [VerifiedDocument] { decoded }
}

/// Verify with Wallet on the Web: ISO/IEC 18013-7 Annex C (`org-iso-mdoc` over the W3C Digital
/// Credentials API). Opens the EncryptedResponse with HPKE — base mode, DHKEM(P-256, HKDF-SHA256),
/// HKDF-SHA256, AES-128-GCM, info = SessionTranscript `[null, null, ["dcapi", SHA-256(CBOR([base64url(EncryptionInfo), origin]))]]`,
/// empty aad — and verifies the DeviceResponse with the same transcript. Photo ID documents get the
/// photo ID checks; a revocation checker adds the MSO revocation checks.
public struct WebIdentityVerifier: Sendable {
    /// The mdoc verifier (trust store, policy and caches) that checks the decrypted DeviceResponse.
    public let mdocVerifier: MdocVerifier
    /// The MSO revocation checks: a checker with its list sources, or
    /// ``RevocationChecker/off(because:trustStore:)``, whose reason every report then shows.
    public let revocation: RevocationChecker
    /// Whether a device signature that fails is verified over the transcripts of a few likely mistakes
    /// (the origin spelled otherwise), to name the one the wallet signed in the failure
    /// (``TranscriptDiagnosis``). Off by default; the CLI turns it on, the service with
    /// `serve --explain-device-failures`.
    public var explainDeviceFailures = false

    /// Production: ISO/IEC 18013-5 as written (`web verify` and the service's `/v1/web/verify`).
    public static let productionPolicy = MdocVerificationPolicy.iso18013Strict

    /// Test issuers (a demo wallet, a capture): the issuer checks and revocation are reported but not
    /// required; the device signature and the envelope still are. Every report made under this
    /// policy is marked test-only and must never be trusted in production.
    public static let developerPolicy: MdocVerificationPolicy = {
        var requirements = VerificationPolicy(name: "web-identity/developer@1", testOnly: true)
        for id in [
            CheckID.mdocIssuerSignature, .mdocIssuerChain, .mdocIssuerCertificateProfile, .mdocIssuerCountry, .mdocRevocationList,
            .mdocRevocationStatus,
        ] {
            requirements = requirements.with(id, .advisory)
        }
        var policy = MdocVerificationPolicy.iso18013Strict
        policy.requirements = requirements
        return policy
    }()

    /// Creates a verifier trusting the issuers (IACAs) of `trustStore` under `policy`, by default ``productionPolicy``.
    public init(trustStore: IACATrustStore, policy: MdocVerificationPolicy = .iso18013Strict, revocation: RevocationChecker) {
        self.mdocVerifier = MdocVerifier(trustStore: trustStore, policy: policy)
        self.revocation = revocation
    }

    /// Creates a verifier around an existing mdoc verifier, sharing its trust store, policy and caches.
    public init(mdocVerifier: MdocVerifier, revocation: RevocationChecker) {
        self.mdocVerifier = mdocVerifier
        self.revocation = revocation
    }

    /// Verifies an EncryptedResponse (CBOR bytes) for a request whose EncryptionInfo (base64url, as
    /// sent to the browser) and origin are known. `prefix` results (trust-list checks) go first;
    /// `nonceOutcome` is the request session's `replay.nonce`. `offeredAlongside`: the transcripts of
    /// the other protocols the same request offered (``WebTranscriptCandidates/openID4VPTranscript(_:)``),
    /// tried with ``explainDeviceFailures`` when the device signature fails.
    public func verify(
        response: [UInt8], encryptionInfo: String, origin: String, recipientKey: P256.KeyAgreement.PrivateKey,
        request: WebDocumentRequest? = nil, context: VerificationContext, nonceOutcome: CheckOutcome? = nil,
        prefix: [CheckResult] = [], prefixWarnings: [ReportWarning] = [], offeredAlongside: [TranscriptCandidate] = []
    ) async -> WebVerificationResult {
        await verify(
            response: response, encryptionInfo: encryptionInfo, origin: origin, recipientKey: recipientKey, request: request, context: context,
            nonceOutcome: nonceOutcome, prefix: prefix, prefixWarnings: prefixWarnings, offeredAlongside: offeredAlongside, consumeOnOpen: nil)
    }

    /// The outcome recorded for `replay.nonce` when the response did not open for the request's
    /// transcript (another origin, another request, altered or garbage): the request was left unused.
    static let notConsumed = CheckOutcome.requestNotConsumed(
        transcript: "this request's session transcript (origin and encryption info)", decryption: .webEnvelopeDecryption)

    /// As the public `verify`; with `consumeOnOpen`, `nonceOutcome` is provisional (the request was
    /// found, unused) and the request is consumed by `consumeOnOpen` only once the answer has shown it
    /// could be accepted: HPKE opened it with the request's transcript, and every issuer chain, issuer
    /// signature and device signature over that transcript verified (``ResponseBinding``); that
    /// outcome replaces the provisional `replay.nonce`, in place. (The recipient key is in the request,
    /// so anyone can seal an answer that opens.)
    ///
    /// Whatever the nonce, an answer whose device signatures did not verify over this request's
    /// transcript is not reported beyond its structure (``ResponseBinding/withholdPlaintext(_:from:warningsFrom:bound:)``),
    /// and no document is returned for it.
    func verify(
        response: [UInt8], encryptionInfo: String, origin: String, recipientKey: P256.KeyAgreement.PrivateKey,
        request: WebDocumentRequest?, context: VerificationContext, nonceOutcome: CheckOutcome?,
        prefix: [CheckResult], prefixWarnings: [ReportWarning], offeredAlongside: [TranscriptCandidate] = [],
        consumeOnOpen: (() async -> CheckOutcome)?
    ) async -> WebVerificationResult {
        let policy = mdocVerifier.policy
        // What the request expects of the documents: the runner's requirements and the composition's.
        let expectations = Self.expectations(request: request)
        var runner = CheckRunner(policy: mdocVerifier.requirements(for: expectations), context: context.allowingClockSkew(policy.clockSkew))
        runner.record(prefix: prefix, warnings: prefixWarnings)
        if let nonceOutcome { await runner.recordReplayNonce(nonceOutcome) }
        let noncePrerequisite: [CheckID] = nonceOutcome == nil ? [] : [.replayNonce]

        // The envelope checks, one type each in Checks/ (named after their ids).
        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: encryptionInfo, origin: origin)
        var state = WebEnvelopeState(
            response: response, encryptionInfo: encryptionInfo, origin: origin, recipientKey: recipientKey, transcript: transcript)
        await runner.run(WebEnvelopeStructureCheck(), state: &state)
        await runner.run(WebEnvelopeEncryptionInfoCheck(prerequisites: noncePrerequisite), state: &state)
        await runner.run(WebEnvelopeDecryptionCheck(), state: &state)
        await runner.run(WebPlaintextStructureCheck(prerequisites: [.webEnvelopeDecryption] + noncePrerequisite), state: &state)

        // The mdoc checks, the photo ID rules, every document's expiry (a warning: the web request has
        // no requireUnexpired), the request and revocation: the composition every flow shares.
        let composition = MdocPresentationVerifier(mdocVerifier: mdocVerifier, revocation: revocation)
        var documents: [VerifiedDocument] = []
        let (start, warningsStart) = (runner.results.count, runner.warnings.count)
        if let deviceResponse = state.deviceResponse {
            // The DC API gives the reader no key agreement with the device: a deviceMac is a failure.
            documents = await composition.verify(
                deviceResponse, transcript: transcript, readerKey: nil, expectations: expectations, deviceMacAllowed: false, runner: &runner,
                flow: "webIdentity",
                transcriptCandidates: explainDeviceFailures
                    ? WebTranscriptCandidates.annexC(encryptionInfo: encryptionInfo, origin: origin) + offeredAlongside : [])
        } else {
            await composition.skip(after: .webPlaintextStructure, expectations: expectations, runner: &runner)
        }
        // Whether every device signature verified over this request's transcript: read once, for both uses.
        let bound = ResponseBinding.deviceBound(runner, from: start)
        if let consumeOnOpen, nonceOutcome != nil {
            let consumed: CheckOutcome
            if !runner.passed(.webEnvelopeDecryption) {
                consumed = Self.notConsumed
            } else if ResponseBinding.mayUseRequest(runner, from: start, bound: bound) {
                consumed = await consumeOnOpen()
            } else {
                consumed = ResponseBinding.notConsumed(transcript: "this request's session transcript (origin and encryption info)")
            }
            runner.revise(.replayNonce, consumed)
        }
        if state.deviceResponse != nil, !ResponseBinding.withholdPlaintext(&runner, from: start, warningsFrom: warningsStart, bound: bound) {
            documents = []
        }
        return WebVerificationResult(report: runner.report(flow: "webIdentity"), documents: documents)
    }

    /// What an Annex C request expects: its docType (a passport when it asks for one), every
    /// document's expiry as a warning, and `web.request.elements`.
    static func expectations(request: WebDocumentRequest?) -> MdocPresentationExpectations {
        MdocPresentationExpectations(
            requestedDocTypes: request.map { [$0.docType] }, requirePhotoID: request?.docType == PhotoIDDocument.docType,
            documentExpiry: .advisory, requestChecks: request.map { [WebRequestElementsCheck(request: $0)] } ?? [])
    }
}
