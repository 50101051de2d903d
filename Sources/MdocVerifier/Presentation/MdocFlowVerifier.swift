import Crypto
import Foundation
import Mdoc
import VerificationCore

/// ISO/IEC 18013-5 input as it comes (`mdoc verify`, `POST /v1/mdoc/verify`: a ProximityReader raw
/// response, an ISO reader): ``MdocPresentationVerifier`` without a request — the mdoc checks, the
/// passport rules and photo ID element checks for a photo ID document (whatever the given policy),
/// and the revocation checks; no document expiry. The CLI, the service and the page all call this,
/// so they give the same report.
public struct MdocFlowVerifier: Sendable {
    /// The composition this flow runs.
    public let composition: MdocPresentationVerifier
    /// Runs the ISO/IEC 18013-5 checks; for a photo ID document its policy gets the passport rules.
    public var mdocVerifier: MdocVerifier { composition.mdocVerifier }
    /// The revocation checks (see ``MdocPresentationVerifier/revocation``).
    public var revocation: RevocationChecker { composition.revocation }

    /// Creates a verifier from the mdoc verifier and the revocation checker (an explicit choice).
    public init(mdocVerifier: MdocVerifier, revocation: RevocationChecker) {
        composition = MdocPresentationVerifier(mdocVerifier: mdocVerifier, revocation: revocation)
    }

    /// `prefix` results and warnings (a VICAL's checks) go first in the report. With
    /// `explainDeviceFailures`, a failed device signature names the form of the transcript the device
    /// signed, when it signed the given one wrapped (``TranscriptDiagnosis``).
    public func verify(
        deviceResponse bytes: [UInt8], transcript: SessionTranscript, readerKey: P256.KeyAgreement.PrivateKey?, context: VerificationContext,
        prefix: [CheckResult] = [], prefixWarnings: [ReportWarning] = [], explainDeviceFailures: Bool = false
    ) async -> MdocVerificationResult {
        let policy = mdocVerifier.policy
        var runner = CheckRunner(policy: policy.requirements, context: context.allowingClockSkew(policy.clockSkew))
        runner.record(prefix: prefix, warnings: prefixWarnings)
        let documents = await composition.verify(
            deviceResponse: bytes, transcript: transcript, readerKey: readerKey, expectations: MdocPresentationExpectations(), runner: &runner,
            flow: "mdoc", transcriptCandidates: explainDeviceFailures ? TranscriptDiagnosis.givenTranscriptCandidates(transcript) : [])
        return MdocVerificationResult(report: runner.report(flow: "mdoc"), documents: documents)
    }
}
