import Crypto
import Foundation
import Mdoc
import MdocVerifier
import VerificationCore
import WalletCBOR
import WalletEncoding

/// The result of an in-app identity verification: the report and — only when the verdict is
/// accepted — the documents and (when a request descriptor was given) the verified claims, which are
/// personal data. ``documentsRegardlessOfVerdict`` serves diagnostics of other verdicts.
public struct IdentityVerificationResult: Sendable {
    /// The verification report: the verdict and every check's outcome.
    public let report: VerificationReport
    private let decoded: [VerifiedDocument]
    private let allClaims: IdentityClaims?

    init(report: VerificationReport, documents: [VerifiedDocument], claims: IdentityClaims?, request: IdentityRequestDescriptor? = nil) {
        self.report = report
        self.decoded = documents
        self.allClaims = claims
        self.request = request
    }

    /// The request descriptor the response was verified against (from the request session, or as
    /// given): what a receipt names of the request. Not personal data.
    public let request: IdentityRequestDescriptor?

    /// The documents of an accepted response; empty for any other verdict.
    public var documents: [VerifiedDocument] { report.verdict == .accepted ? decoded : [] }
    /// The claims of an accepted response; nil for any other verdict.
    public var claims: IdentityClaims? { report.verdict == .accepted ? allClaims : nil }
    /// Every document that was decoded, whatever the verdict: for diagnostics, never for acting on.
    public var documentsRegardlessOfVerdict: [VerifiedDocument] { decoded }
    /// The claims computed whatever the verdict: for diagnostics, never for acting on.
    public var claimsRegardlessOfVerdict: IdentityClaims? { allClaims }
}

/// Verify with Wallet in-app (Apple's "Verifying Wallet identity requests"): opens the APPLE-HPKE-v1
/// envelope and verifies the mdoc inside with the same session transcript.
public struct AppleIdentityVerifier: Sendable {
    /// The identity encryption keys a response may be encrypted to, selected by the envelope's `pkRHash`.
    public let keyRing: IdentityKeyRing
    /// The merchant identifier the app used in its `PKIdentityRequest`; part of the session transcript.
    public let merchantID: String
    /// The app's team identifier; part of the session transcript.
    public let teamID: String
    /// The checks required and the mdoc rules applied.
    public let policy: IdentityPolicy
    /// The mdoc verifier (trust store, policy and caches) that checks the decrypted DeviceResponse.
    public let mdocVerifier: MdocVerifier
    /// The MSO revocation checks (seed 002: "validate the MSO, its validity period, and the
    /// revocation list"): a checker with its list sources, or ``RevocationChecker/off(because:trustStore:)``,
    /// whose reason every report then shows.
    public let revocation: RevocationChecker

    static let ciphersuite = HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_128)

    /// Creates a verifier for one merchant and team, trusting the issuers (IACAs) of `trustStore`.
    /// Revocation is an explicit choice: a ``RevocationChecker`` with list sources, or
    /// ``RevocationChecker/off(because:trustStore:)`` with the reason reports will show.
    public init(
        keyRing: IdentityKeyRing, merchantID: String, teamID: String, trustStore: IACATrustStore, policy: IdentityPolicy = .production,
        revocation: RevocationChecker
    ) {
        self.keyRing = keyRing
        self.merchantID = merchantID
        self.teamID = teamID
        self.policy = policy
        self.mdocVerifier = MdocVerifier(trustStore: trustStore, policy: policy.mdoc)
        self.revocation = revocation
    }

    private init(
        keyRing: IdentityKeyRing, merchantID: String, teamID: String, policy: IdentityPolicy, mdocVerifier: MdocVerifier,
        revocation: RevocationChecker
    ) {
        self.keyRing = keyRing
        self.merchantID = merchantID
        self.teamID = teamID
        self.policy = policy
        self.mdocVerifier = mdocVerifier
        self.revocation = revocation
    }

    /// The same verifier (keys, trust, policy, caches, revocation) for another merchant and team.
    public func with(merchantID: String, teamID: String) -> AppleIdentityVerifier {
        var other = AppleIdentityVerifier(
            keyRing: keyRing, merchantID: merchantID, teamID: teamID, policy: policy, mdocVerifier: mdocVerifier, revocation: revocation)
        other.explainDeviceFailures = explainDeviceFailures
        other.otherMerchants = otherMerchants
        return other
    }

    /// Whether a device signature that fails is verified over the transcripts of the ``otherMerchants``
    /// (each merchant with its team, and this merchant with their teams and they with this team), to name
    /// the one the wallet signed in the failure (``TranscriptDiagnosis``). Off by default.
    public var explainDeviceFailures = false
    /// The other configured merchant and team identifiers, for ``explainDeviceFailures``.
    public var otherMerchants: [(merchantID: String, teamID: String)] = []

    /// The in-app transcripts of the other merchants and teams, for this nonce and recipient key hash.
    func transcriptCandidates(nonce: [UInt8], recipientKeyHash: [UInt8]) -> [TranscriptCandidate] {
        guard explainDeviceFailures else { return [] }
        let fix =
            "the app's PKIdentityRequest names another merchant or team than the one this request was verified for; verify it with the merchant and team identifiers the app used"
        var pairs: [(label: String, description: String, merchantID: String, teamID: String)] = []
        for other in otherMerchants {
            pairs.append(("otherMerchant", "another configured merchant (\(other.merchantID), team \(other.teamID))", other.merchantID, other.teamID))
            pairs.append(("otherTeam", "merchant \(merchantID) with another configured team (\(other.teamID))", merchantID, other.teamID))
            pairs.append(("otherMerchant", "another configured merchant (\(other.merchantID)) with team \(teamID)", other.merchantID, teamID))
        }
        return pairs.map { pair in
            TranscriptCandidate(
                label: pair.label, description: pair.description, fix: fix,
                transcript: .appleInApp(nonce: nonce, merchantID: pair.merchantID, teamID: pair.teamID, recipientKeyHash: recipientKeyHash))
        }
    }

    /// Verifies `PKIdentityDocument.encryptedData` for the nonce the app used. `request` adds the
    /// response-against-request checks and the claims. `nonceOutcome` is the result of consuming the
    /// nonce (request sessions record it as `replay.nonce`).
    /// `requireUnexpired` (or the request's own `requireUnexpired`) makes `identity.document.expiry`
    /// required instead of advisory. `prefix` results and warnings (a VICAL's checks) go first in the report.
    public func verify(
        encryptedData: [UInt8], nonce: [UInt8], request: IdentityRequestDescriptor? = nil, context: VerificationContext,
        nonceOutcome: CheckOutcome? = nil, requireUnexpired: Bool = false, prefix: [CheckResult] = [], prefixWarnings: [ReportWarning] = []
    ) async -> IdentityVerificationResult {
        await verify(
            encryptedData: encryptedData, nonce: nonce, request: request, context: context, nonceOutcome: nonceOutcome,
            requireUnexpired: requireUnexpired, consumeOnOpen: nil, prefix: prefix, prefixWarnings: prefixWarnings)
    }

    /// The outcome recorded for `replay.nonce` when the response did not open for the request's
    /// transcript: the nonce was left unused, so the genuine response can still be accepted.
    static let notConsumed = CheckOutcome.requestNotConsumed(
        transcript: "this request's session transcript", decryption: .identityEnvelopeDecryption)

    /// As the public `verify`; with `consumeOnOpen`, `nonceOutcome` is provisional (the request was
    /// found, unused) and the nonce is consumed by `consumeOnOpen` only once HPKE opened the response
    /// with this request's transcript; its outcome replaces the provisional `replay.nonce`, in place.
    /// Nothing after the decryption is evaluated unless the consumption passed.
    func verify(
        encryptedData: [UInt8], nonce: [UInt8], request: IdentityRequestDescriptor?, context: VerificationContext,
        nonceOutcome: CheckOutcome?, requireUnexpired: Bool, consumeOnOpen: (() async -> CheckOutcome)?, prefix: [CheckResult] = [],
        prefixWarnings: [ReportWarning] = []
    ) async -> IdentityVerificationResult {
        let expectations = Self.expectations(request: request, requireUnexpired: requireUnexpired)
        var runner = CheckRunner(
            policy: mdocVerifier.requirements(for: expectations), context: context.allowingClockSkew(policy.mdoc.clockSkew))
        runner.record(prefix: prefix, warnings: prefixWarnings)
        if let nonceOutcome {
            await runner.recordReplayNonce(nonceOutcome)
        }
        let noncePrerequisite: [CheckID] = nonceOutcome == nil ? [] : [.replayNonce]

        // The envelope checks, one type each in Checks/ (named after their ids).
        var state = IdentityEnvelopeState(encryptedData: encryptedData, nonce: nonce, merchantID: merchantID, teamID: teamID, keyRing: keyRing)
        await runner.run(EnvelopeStructureCheck(), state: &state)
        await runner.run(EnvelopeRecipientKeyCheck(), state: &state)
        await runner.run(EnvelopeTranscriptCheck(prerequisites: [.identityEnvelopeStructure] + noncePrerequisite), state: &state)
        await runner.run(EnvelopeDecryptionCheck(), state: &state)
        if let consumeOnOpen, nonceOutcome != nil {
            // The nonce is used up only by a response that opened for this request.
            let consumed = runner.passed(.identityEnvelopeDecryption) ? await consumeOnOpen() : Self.notConsumed
            runner.revise(.replayNonce, consumed)
        }
        await runner.run(PlaintextStructureCheck(prerequisites: [.identityEnvelopeDecryption] + noncePrerequisite), state: &state)

        // The mdoc checks, the photo ID rules, the document's expiry, the request and revocation:
        // the composition every flow shares.
        let composition = MdocPresentationVerifier(mdocVerifier: mdocVerifier, revocation: revocation)
        var documents: [VerifiedDocument] = []
        if let response = state.response, let transcript = state.transcript {
            // PassKit only uses ECDSA: a deviceMac is a failure here, not a missing reader key.
            documents = await composition.verify(
                response, transcript: transcript, readerKey: nil, expectations: expectations, deviceMacAllowed: false, runner: &runner,
                flow: "walletIdentity",
                transcriptCandidates: state.envelope.map { transcriptCandidates(nonce: nonce, recipientKeyHash: $0.pkRHash) } ?? [])
        } else {
            await composition.skip(after: .identityPlaintextStructure, expectations: expectations, runner: &runner)
        }

        var claims: IdentityClaims?
        if let request, let document = documents.first { claims = IdentityClaims(document: document, request: request, at: context.time) }
        return IdentityVerificationResult(report: runner.report(flow: "walletIdentity"), documents: documents, claims: claims, request: request)
    }

    /// What the in-app flow expects of the document: the request's docTypes, a passport when it asks
    /// for one, its expiry (required when the request or the caller requires an unexpired
    /// document, a warning otherwise), and `identity.request.elements` and `identity.request.age`.
    static func expectations(request: IdentityRequestDescriptor?, requireUnexpired: Bool) -> MdocPresentationExpectations {
        let requireUnexpired = requireUnexpired || request?.requireUnexpired == true
        var expectations = MdocPresentationExpectations(
            requestedDocTypes: request?.document.docTypes, requirePhotoID: request?.document == .photoID,
            documentExpiry: requireUnexpired ? .required : .advisory)
        if let request {
            expectations.requestChecks.append(IdentityRequestElementsCheck(request: request))
            if let minimum = request.elements.first(where: { $0.atLeast != nil })?.atLeast {
                expectations.requestChecks.append(IdentityRequestAgeCheck(request: request, minimum: minimum))
            }
        }
        return expectations
    }

    /// The DeviceResponse of the plaintext `{"identity": DeviceResponse}`: the usual plaintext is read in
    /// place; anything else (and every error, a `CBORError` or `MdocDecodingError`) the generic way.
    static func deviceResponse(plaintext: [UInt8]) throws -> DeviceResponse {
        var inPlace: DeviceResponse?
        if CBORDecoder(knownTexts: .iso18013_5).readTextKeyedMap(
            plaintext[...],
            { key, value in
                guard key.count == 8, key.elementsEqual("identity".utf8) else { return true }
                guard let read = DeviceResponse(reading: &value) else { return false }
                inPlace = read
                return true
            }), let inPlace = inPlace.take()
        {
            return inPlace
        }
        let topics = try CBORDecoder.decode(plaintext).map("plaintext")
        return try DeviceResponse(cbor: topics.required("identity", in: "plaintext"))
    }
}
