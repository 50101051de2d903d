import MdocVerifier
import VerificationCore

/// `identity.request.elements` (with a request descriptor): the document is of a requested type and
/// every element it returns, issuer- or device-signed, was requested.
struct IdentityRequestElementsCheck: VerificationCheck {
    let request: IdentityRequestDescriptor

    var id: CheckID { .identityRequestElements }
    var prerequisites: [CheckID] { [.mdocResponseStructure] }

    func evaluate(_ presented: inout PresentedDocuments, context: VerificationContext) async throws -> CheckOutcome {
        // Apple's flow returns exactly one document (identity.plaintext.structure).
        guard let document = presented.documents.first else { return .failed(.noDocument, "No document to compare with the request.") }
        return RequestMatching.elementsOutcome(document: document, request: request)
    }
}
