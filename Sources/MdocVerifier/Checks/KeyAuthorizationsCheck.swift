import Mdoc
import VerificationCore

/// `mdoc.device.keyAuthorizations` (ISO/IEC 18013-5 §9.1.2.4, KeyAuthorizations in DeviceKeyInfo):
/// KeyAuthorizations holds "the elements the mdoc authentication key is authorized to sign or MAC",
/// by whole namespace (`nameSpaces`) or by identifier (`dataElements`), and the reader accepts a
/// device-signed element only when it is authorized there. An element the issuer did not authorize
/// is not authorized: when the MSO carries no keyAuthorizations, the device key is authorized for no
/// element, so any device-signed element fails the check (a device key cannot vouch for data the
/// issuer never let it sign). Without device-signed elements there is nothing to authorize.
struct KeyAuthorizationsCheck: VerificationCheck {
    var id: CheckID { .mdocDeviceKeyAuthorizations }
    var prerequisites: [CheckID] { MdocPrerequisites.msoStructure }

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        guard let document = state.document, let mso = state.mso else { return .notEvaluated(because: .mdocMSOStructure) }
        let elements = (document.deviceSigned?.nameSpaces ?? []).flatMap { space in space.elements.map { (space.name, $0.identifier) } }
        guard !elements.isEmpty else {
            return .passed("The document has no device-signed elements.")
        }
        guard let authorizations = mso.keyAuthorizations else {
            let names = elements.map { "\($0.0)/\($0.1)" }.joined(separator: ", ")
            return .failed(
                .unauthorizedDeviceSignedElement,
                "The device signed \(elements.count) elements (\(names)) but the MSO carries no keyAuthorizations, so its key is authorized for none (ISO/IEC 18013-5 §9.1.2.4); only issuer-signed elements can be trusted from this document.",
                details: ["unauthorized": elements.map { "\($0.0)/\($0.1)" }.joined(separator: ",")])
        }
        let unauthorized = elements.filter { !authorizations.allows(nameSpace: $0.0, identifier: $0.1) }.map { "\($0.0)/\($0.1)" }
        guard unauthorized.isEmpty else {
            return .failed(
                .unauthorizedDeviceSignedElement,
                "The device signed elements its key is not authorized for: \(unauthorized.joined(separator: ", ")).",
                details: ["unauthorized": unauthorized.joined(separator: ",")])
        }
        let count = elements.count
        return .passed("All \(count) device-signed elements are within the MSO's keyAuthorizations.")
    }
}
