import Foundation
import MdocVerifier
import VerificationCore

/// No state: the checks of the runner stage only pass.
struct TrivialState {}

/// A check that passes with a message and one detail (none when `bare`: the runner's own cost), under one
/// of the mdoc checks' ids.
struct TrivialCheck: VerificationCheck {
    static let ids: [CheckID] = [
        .mdocDocumentStructure, .mdocIssuerSignature, .mdocIssuerChain, .mdocIssuerCertificateProfile, .mdocIssuerCountry,
        .mdocMSOStructure, .mdocMSOVersion, .mdocValueDigests, .mdocIssuingCountryElement, .mdocDocType, .mdocValidity,
        .mdocDeviceAuthentication, .mdocDeviceKeyAuthorizations,
    ]
    let id: CheckID
    var bare = false
    var prerequisites: [CheckID] { id == Self.ids[0] ? [] : [Self.ids[0]] }

    /// Runs the 13 checks through a runner and builds the report.
    static func runAll(bare: Bool = false) async {
        var runner = CheckRunner(policy: MdocVerificationPolicy.iso18013Strict.requirements, context: VerificationContext(time: Date()))
        var state = TrivialState()
        for id in ids { await runner.run(TrivialCheck(id: id, bare: bare), state: &state, scope: "document[0]") }
        _ = runner.report(flow: "mdoc").verdict
    }

    func evaluate(_ state: inout TrivialState, context: VerificationContext) async throws -> CheckOutcome {
        bare ? .passed("The check passed.") : .passed("The check passed.", details: ["detail": "value"])
    }
}
