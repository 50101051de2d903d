import VerificationCore

/// `identity.document.expiry`: the physical document's own `expiry_date` is not before the
/// verification day (see ``DocumentExpiry``). Run by ``MdocPresentationVerifier`` for every
/// document of the flows that check it; advisory unless the request requires an unexpired document.
struct DocumentExpiryCheck: VerificationCheck {
    /// The request requires an unexpired document: an undisclosed expiry_date fails too.
    let requireUnexpired: Bool

    var id: CheckID { .identityDocumentExpiry }
    var prerequisites: [CheckID] { MdocPrerequisites.responseStructure }

    func evaluate(_ document: inout VerifiedDocument, context: VerificationContext) async throws -> CheckOutcome {
        DocumentExpiry.outcome(document: document, requireUnexpired: requireUnexpired, at: context.time)
    }
}
