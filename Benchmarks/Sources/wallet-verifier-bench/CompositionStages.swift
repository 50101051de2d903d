import Mdoc
import MdocVerifier
import VerificationCore

extension StageTable {
    /// The stages every flow with an mdoc ends in: the shared composition on the decoded response
    /// (`label`, a part), the mdoc checks inside it and the two ECDSA verifications inside those. A
    /// deviceMac is not allowed, as in the in-app and web flows. False, with a line saying so, when
    /// the composition alone does not accept the response.
    mutating func compositionStages(
        _ label: String, composition: MdocPresentationVerifier, expectations: MdocPresentationExpectations, response: DeviceResponse,
        transcript: SessionTranscript, context: VerificationContext, flow: String, signatures: SignatureFloor
    ) async -> Bool {
        let verifier = composition.mdocVerifier
        let policy = verifier.policy
        let compose: () async -> VerificationReport = {
            var runner = CheckRunner(policy: verifier.requirements(for: expectations), context: context.allowingClockSkew(policy.clockSkew))
            _ = await composition.verify(
                response, transcript: transcript, readerKey: nil, expectations: expectations, deviceMacAllowed: false, runner: &runner,
                flow: flow)
            return runner.report(flow: flow)
        }
        guard await compose().verdict == .accepted else {
            print("  the composition alone did not accept the response")
            return false
        }
        await stage(label, part: true) { _ = await compose() }
        await stage("  of which MdocVerifier.verify (decoded response)") {
            _ = await verifier.verify(response, transcript: transcript, context: context, flow: flow)
        }
        await stage("  of which 2 × ECDSA P-256 verify") { signatures.verify() }
        return true
    }
}
