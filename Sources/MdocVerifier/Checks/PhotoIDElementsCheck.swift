import VerificationCore

/// `photoid.elements` (scope `document[i]`, for each photo ID document): the known
/// `org.iso.23220.1` elements have the types ISO/IEC 23220-2 and Apple give them.
struct PhotoIDElementsCheck: VerificationCheck {
    var id: CheckID { .photoIDElements }
    var prerequisites: [CheckID] { MdocPrerequisites.documentStructure }

    func evaluate(_ typed: inout PhotoIDDocument, context: VerificationContext) async throws -> CheckOutcome {
        guard typed.problems.isEmpty else {
            let list = typed.problems.map { "\($0.identifier) \($0.problem)" }.joined(separator: "; ")
            return .failed(
                .invalidElement, "Photo ID elements have the wrong type or form: \(list).",
                details: ["elements": typed.problems.map(\.identifier).joined(separator: ",")])
        }
        return .passed("The \(PhotoIDDocument.nameSpace) elements have their ISO/IEC 23220-2 types.")
    }
}
