import Mdoc
import VerificationCore

/// `mdoc.mso.version`: the MSO version is at least 1.0 and not above the DeviceResponse's version.
struct MSOVersionCheck: VerificationCheck {
    var id: CheckID { .mdocMSOVersion }
    var prerequisites: [CheckID] { MdocPrerequisites.msoStructure }

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        guard let mso = state.mso else { return .notEvaluated(because: .mdocMSOStructure) }
        guard let version = MdocVersion(mso.version) else {
            return .failed(.invalidVersion, "The MSO version \"\(mso.version)\" is not of the form major.minor.")
        }
        guard version >= .v1_0 else {
            return .failed(.unsupportedVersion, "The MSO version \(version) is below 1.0.")
        }
        if let responseVersion = state.responseVersion, version > responseVersion {
            return .failed(.versionAboveResponse, "The MSO version \(version) is above the DeviceResponse version \(responseVersion).")
        }
        return .passed("The MSO version \(version) is supported.")
    }
}
