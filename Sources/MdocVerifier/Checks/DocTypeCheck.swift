import Mdoc
import VerificationCore

/// `mdoc.docType`: the MSO's docType equals the document's, and the policy accepts it.
struct DocTypeCheck: VerificationCheck {
    var id: CheckID { .mdocDocType }
    var prerequisites: [CheckID] { MdocPrerequisites.msoStructure }

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        guard let document = state.document, let mso = state.mso else { return .notEvaluated(because: .mdocMSOStructure) }
        guard mso.docType == document.docType else {
            return .failed(.docTypeMismatch, "The MSO was issued for \(mso.docType) but the document says \(document.docType).")
        }
        if let accepted = state.policy.acceptedDocTypes, !accepted.contains(document.docType) {
            return .failed(
                .docTypeNotAccepted,
                "The document type \(document.docType) is not accepted here (expected \(accepted.sorted().joined(separator: " or "))).")
        }
        let docType = document.docType
        return .passed("The MSO docType matches the document (\(docType)).")
    }
}
