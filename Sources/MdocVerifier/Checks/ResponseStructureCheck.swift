import Mdoc
import VerificationCore

/// `mdoc.response.structure` (ISO/IEC 18013-5 §8.3.2.1.2.2): the DeviceResponse version is 1.0 or
/// later, its status is 0 (OK), and it holds at least one document. Bytes that do not decode fail
/// it too, in ``MdocPresentationVerifier``'s decoding — the one other place it is written.
struct ResponseStructureCheck: VerificationCheck {
    var id: CheckID { .mdocResponseStructure }

    func evaluate(_ response: inout DeviceResponse, context: VerificationContext) async throws -> CheckOutcome {
        guard let version = MdocVersion(response.version) else {
            return .failed(.invalidVersion, "The DeviceResponse version \"\(response.version)\" is not of the form major.minor.")
        }
        guard version >= .v1_0 else { return .failed(.unsupportedVersion, "The DeviceResponse version \(version) is below 1.0.") }
        guard response.status == 0 else {
            return .failed(.responseStatus, "The DeviceResponse status is \(response.status), not 0 (OK): the holder's device reported an error.")
        }
        guard !response.documentResults.isEmpty else {
            let errors = response.documentErrors.map { "\($0.key) (error \($0.value))" }.joined(separator: ", ")
            return .failed(.noDocuments, "The DeviceResponse holds no documents" + (errors.isEmpty ? "." : "; document errors: \(errors)."))
        }
        let documents = response.documentResults.count
        return .passed("DeviceResponse version \(version), status 0, \(documents) document(s).")
    }
}
