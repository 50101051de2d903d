import VerificationCore

/// `photoid.docType` (when the request asked for a passport): every document in the response is a
/// photo ID (`org.iso.23220.photoid.1`) and every document decoded. When it fails, the caller can
/// ask the person to retry or fall back to another verification method.
struct PhotoIDDocTypeCheck: VerificationCheck {
    var id: CheckID { .photoIDDocType }
    var prerequisites: [CheckID] { MdocPrerequisites.responseStructure }

    func evaluate(_ presented: inout PresentedDocuments, context: VerificationContext) async throws -> CheckOutcome {
        let documents = presented.documents
        let others = documents.filter { $0.docType != PhotoIDDocument.docType }.map(\.docType)
        guard presented.documentCount == documents.count else {
            return .failed(
                .unexpectedDocType,
                "A document in the response could not be decoded, so it is not known to be a passport Digital ID; let the person retry or fall back to another verification method."
            )
        }
        guard others.isEmpty, !documents.isEmpty else {
            return .failed(
                .unexpectedDocType,
                "The response holds \(others.isEmpty ? "no document" : others.joined(separator: ", ")), not a passport Digital ID (\(PhotoIDDocument.docType)); let the person retry or fall back to another verification method."
            )
        }
        let count = documents.count
        return .passed("The response holds \(count) passport Digital ID document(s) (\(PhotoIDDocument.docType)).")
    }
}
