import Mdoc
import VerificationCore

/// `mdoc.device.keyAuthorizations` (ISO 18013-5 §9.1.2.4): when the MSO carries keyAuthorizations,
/// every device-signed element is within them.
struct KeyAuthorizationsCheck: VerificationCheck {
    var id: CheckID { .mdocDeviceKeyAuthorizations }
    var prerequisites: [CheckID] { MdocPrerequisites.msoStructure }

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        guard let document = state.document, let mso = state.mso else { return .failed(.malformedInput, "No MSO.") }
        let elements = (document.deviceSigned?.nameSpaces ?? []).flatMap { space in space.elements.map { (space.name, $0.identifier) } }
        guard !elements.isEmpty else {
            return .passed("The document has no device-signed elements.")
        }
        guard let authorizations = mso.keyAuthorizations else {
            return .passed("\(elements.count) device-signed elements; the MSO sets no keyAuthorizations, so they are not restricted.")
        }
        let unauthorized = elements.filter { !authorizations.allows(nameSpace: $0.0, identifier: $0.1) }.map { "\($0.0)/\($0.1)" }
        guard unauthorized.isEmpty else {
            return .failed("unauthorizedDeviceSignedElement", "The device signed elements its key is not authorized for: \(unauthorized.joined(separator: ", ")).",
                           details: ["unauthorized": unauthorized.joined(separator: ",")])
        }
        return .passed("All \(elements.count) device-signed elements are within the MSO's keyAuthorizations.")
    }
}
