import VerificationCore

/// `web.envelope.structure`: the response is `["dcapi", {"enc": bstr, "cipherText": bstr}]`; its
/// `details.protocol` names the protocol that answered (`org-iso-mdoc`), as `web.openid4vp.response` does.
struct WebEnvelopeStructureCheck: VerificationCheck {
    var id: CheckID { .webEnvelopeStructure }

    func evaluate(_ state: inout WebEnvelopeState, context: VerificationContext) async throws -> CheckOutcome {
        let envelope: DCAPIEncryptedResponse
        do {
            envelope = try DCAPIEncryptedResponse(cborBytes: state.response)
        } catch {
            return .failed(.malformedStructure, "The response is not an Annex C EncryptedResponse: \(error).", details: ["protocol": "org-iso-mdoc"])
        }
        state.envelope = envelope
        let size = envelope.cipherText.count
        return .passed { ("[\"dcapi\", {enc, cipherText}] with a \(size)-byte cipher text.", ["protocol": "org-iso-mdoc"]) }
    }
}
