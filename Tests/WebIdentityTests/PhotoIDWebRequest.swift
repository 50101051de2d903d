import WalletVerifierTestSupport
import WebIdentity

extension WebDocumentRequest {
    /// The photo ID fixture's elements as a web request (document_number to be retained), for the
    /// Annex C and OpenID4VP session tests.
    static var photoIDFixture: WebDocumentRequest {
        WebDocumentRequest(
            docType: PhotoIDFixture.docType,
            elements: PhotoIDFixture.defaultElements.map {
                .init(nameSpace: $0.nameSpace, identifier: $0.identifier, intentToRetain: $0.identifier == "document_number")
            })
    }
}
