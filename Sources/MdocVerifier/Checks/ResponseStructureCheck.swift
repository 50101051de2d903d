import Mdoc
import VerificationCore

/// `mdoc.response.structure` (ISO/IEC 18013-5 §8.3.2.1.2.2): the DeviceResponse version is 1.0 or
/// later, its status is 0 (OK), and it holds at least one document — and no more than
/// `maxDocuments`, each of an accepted docType, so that what one response costs is bounded before
/// any signature is verified. Bytes that do not decode fail it too, in ``MdocPresentationVerifier``'s
/// decoding — the one other place it is written.
struct ResponseStructureCheck: VerificationCheck {
    var id: CheckID { .mdocResponseStructure }
    /// The most documents verified (the policy's, narrowed to the request's docTypes).
    var maxDocuments: Int
    /// The docTypes accepted; nil accepts any.
    var acceptedDocTypes: Set<String>?
    /// The reasons after which no document is verified: the response is refused whole.
    static let refusedWhole: Set<ReasonCode> = [.tooManyDocuments, .docTypeNotAccepted]

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
        guard documents <= maxDocuments else {
            return .failed(
                .tooManyDocuments,
                "The DeviceResponse holds \(documents) documents; at most \(maxDocuments) are verified (one per docType asked for, and never more than the policy's limit), so none was: send only the documents asked for.",
                details: ["documents": String(documents), "maxDocuments": String(maxDocuments)])
        }
        if let accepted = acceptedDocTypes, response.containsDocument(where: { !accepted.contains($0.docType) }) {
            // The docType itself is not named: the response has not been authenticated yet.
            return .failed(
                .docTypeNotAccepted,
                "The DeviceResponse holds a document of another docType than the ones asked for or accepted (\(accepted.sorted().joined(separator: ", "))), so none was verified: the person presented another kind of document; let them retry with the one asked for, or fall back to another method."
            )
        }
        return .passed("DeviceResponse version \(version), status 0, \(documents) document(s).")
    }
}
