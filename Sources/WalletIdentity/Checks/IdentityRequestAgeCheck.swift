import MdocVerifier
import VerificationCore

/// `identity.request.age` (when the request asks age(atLeast: N)): the response answers it with yes,
/// by age_over_NN or, as PassKit falls back, by age_in_years or birth_date at the verification time.
struct IdentityRequestAgeCheck: VerificationCheck {
    let request: IdentityRequestDescriptor
    /// N of age(atLeast: N).
    let minimum: Int

    var id: CheckID { .identityRequestAge }
    var prerequisites: [CheckID] { [.mdocResponseStructure] }

    func evaluate(_ presented: inout PresentedDocuments, context: VerificationContext) async throws -> CheckOutcome {
        guard let document = presented.documents.first else { return .failed(.noDocument, "No document.") }
        return RequestMatching.ageOutcome(document: document, request: request, minimum: minimum, at: context.time)
    }
}
