import Mdoc
import VerificationCore
import WalletCBOR
import WalletCOSE

/// `mdoc.mso.structure`: the issuerAuth payload is `#6.24(bstr .cbor MobileSecurityObject)` and the
/// MSO decodes (version, digest algorithm, value digests, device key, docType, validity).
struct MSOStructureCheck: VerificationCheck {
    var id: CheckID { .mdocMSOStructure }
    var prerequisites: [CheckID] { MdocPrerequisites.documentStructure }

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        guard let document = state.document else { return .notEvaluated(because: .mdocDocumentStructure) }
        guard let payload = document.issuerSigned.issuerAuth.payload else {
            return .failed(.msoMissing, "issuerAuth has a detached payload; the MSO must be attached.")
        }
        let outer: CBORNode
        do {
            outer = try CBORDecoder.decode(payload)
        } catch {
            return .failed(ReasonCode(error.code.rawValue), "The issuerAuth payload is not CBOR: \(error.message).")
        }
        guard case .tagged(24, _) = outer.value else {
            return .failed(
                "msoNotTag24Wrapped",
                "The issuerAuth payload must be MobileSecurityObjectBytes, #6.24(bstr .cbor MobileSecurityObject); found \(outer.value.kindDescription)."
            )
        }
        do {
            let mso = try EmbeddedCBOR<MobileSecurityObject>(cbor: outer).value
            state.mso = mso
            let (version, algorithm, docType) = (mso.version, mso.digestAlgorithm, mso.docType)
            return .passed("The MSO decodes (version \(version), \(algorithm), docType \(docType)).")
        } catch {
            return .failed(
                ReasonCode(error.code.rawValue), "The MSO could not be decoded: \(error.message.isEmpty ? error.code.rawValue : error.message).")
        }
    }
}
