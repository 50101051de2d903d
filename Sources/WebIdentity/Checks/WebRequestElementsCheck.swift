import MdocVerifier
import VerificationCore

/// `web.request.elements` (with a request): every document is of the requested docType and every
/// element it returns, issuer- or device-signed, was requested.
struct WebRequestElementsCheck: VerificationCheck {
    let request: WebDocumentRequest

    var id: CheckID { .webRequestElements }
    var prerequisites: [CheckID] { [.mdocResponseStructure] }

    func evaluate(_ presented: inout PresentedDocuments, context: VerificationContext) async throws -> CheckOutcome {
        let documents = presented.documents
        guard !documents.isEmpty else { return .failed(.noDocument, "No document to compare with the request.") }
        var unrequested: [String] = []
        for document in documents {
            guard document.docType == request.docType else {
                return .failed(.unexpectedDocType, "The response holds a \(document.docType); the request asked for \(request.docType).")
            }
            var cursor = 0
            for spaces in [document.issuerSigned, document.deviceSigned] {
                for space in spaces {
                    for element in space.elements where !request.allows(nameSpace: space.name, identifier: element.identifier, from: &cursor) {
                        unrequested.append("\(space.name)/\(element.identifier)")
                    }
                }
            }
        }
        guard unrequested.isEmpty else {
            return .failed(
                .unrequestedElement, "The response holds elements that were not requested: \(unrequested.joined(separator: ", ")).",
                details: ["unrequested": unrequested.joined(separator: ",")])
        }
        let docType = request.docType
        return .passed("The response holds the requested \(docType) and only requested elements.")
    }
}
