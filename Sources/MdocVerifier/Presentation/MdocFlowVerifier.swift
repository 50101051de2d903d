import Crypto
import Foundation
import Mdoc
import VerificationCore

/// ISO/IEC 18013-5 input as it comes (`mdoc verify`, `POST /v1/mdoc/verify`: a ProximityReader raw
/// response, an ISO reader): the mdoc checks, the passport rules for a photo ID document (whatever the
/// given policy), the photo ID element checks, and the revocation checks. The CLI and the service
/// both call this, so they give the same report.
public struct MdocFlowVerifier: Sendable {
    /// Runs the ISO/IEC 18013-5 checks; for a photo ID document its policy gets the passport rules.
    public let mdocVerifier: MdocVerifier
    /// The revocation checks: a checker with its list sources, or
    /// ``RevocationChecker/off(because:trustStore:)``, whose reason every report then shows.
    public let revocation: RevocationChecker

    /// Creates a verifier from the mdoc verifier and the revocation checker (an explicit choice).
    public init(mdocVerifier: MdocVerifier, revocation: RevocationChecker) {
        self.mdocVerifier = mdocVerifier
        self.revocation = revocation
    }

    /// `prefix` results and warnings (a VICAL's checks) go first in the report.
    public func verify(
        deviceResponse bytes: [UInt8], transcript: SessionTranscript, readerKey: P256.KeyAgreement.PrivateKey?, context: VerificationContext,
        prefix: [CheckResult] = [], prefixWarnings: [ReportWarning] = []
    ) async -> MdocVerificationResult {
        let policy = mdocVerifier.policy
        var runner = CheckRunner(policy: policy.requirements, context: context.allowingClockSkew(policy.clockSkew))
        for result in prefix { runner.record(result) }
        for warning in prefixWarnings { runner.warn(warning.code, warning.message, scope: warning.scope) }
        // No request: any docType the policy accepts, the photo ID rules for a photo ID, no expiry check.
        let documents = await MdocPresentationVerifier(mdocVerifier: mdocVerifier, revocation: revocation).verify(
            deviceResponse: bytes, transcript: transcript, readerKey: readerKey, expectations: MdocPresentationExpectations(), runner: &runner,
            flow: "mdoc")
        return MdocVerificationResult(report: runner.report(flow: "mdoc"), documents: documents)
    }
}
