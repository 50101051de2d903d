import VerificationCore

/// `applepay.signature.contentType`: the content-type signed attribute is id-data and equals the
/// encapsulated content type.
struct ContentTypeCheck: VerificationCheck {
    let id = CheckID.applePaySignatureContentType
    let prerequisites: [CheckID] = [.applePaySignatureCMS]

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let signedData = state.signedData, let signer = state.signer else { return .notEvaluated(because: .applePaySignatureCMS) }
        let element: ArraySlice<UInt8>
        switch SignedAttributes.single(CMSOID.contentType, name: "content-type", in: signer) {
        case .problem(let outcome): return outcome
        case .value(let value): element = value
        }
        guard let contentType = try? RawOID(element: element) else {
            return .failed(.malformedAttribute, "The content-type attribute is not an object identifier")
        }
        guard contentType == signedData.encapsulatedContentType else {
            return .failed(
                .contentTypeMismatch,
                "The content-type attribute (\(contentType)) differs from the encapsulated content type (\(signedData.encapsulatedContentType))")
        }
        guard contentType == CMSOID.data else {
            return .failed(.contentTypeMismatch, "The content type is \(contentType); Apple Pay signs id-data (1.2.840.113549.1.7.1)")
        }
        return .passed("Content type id-data in the signed attributes and the encapsulated content info")
    }
}
