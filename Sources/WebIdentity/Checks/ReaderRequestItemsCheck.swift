import VerificationCore

/// `reader.request.items` (scope `docRequest[i]`): the DocRequest's ItemsRequest (inside its tag-24
/// item) decodes to a docType and nameSpaces.
struct ReaderRequestItemsCheck: VerificationCheck {
    /// The DocRequest's position in the request.
    let index: Int

    var id: CheckID { .readerRequestItems }
    var prerequisites: [CheckID] { [.readerRequestStructure] }

    func evaluate(_ docRequest: inout ReceivedDeviceRequest.DocRequest, context: VerificationContext) async throws -> CheckOutcome {
        if let problem = docRequest.itemsRequestProblem {
            return .failed(
                .malformedInput, "The ItemsRequest of DocRequest \(index) does not decode (\(problem)): a wallet cannot tell what is asked.")
        }
        let docType = docRequest.docType
        return .passed("The ItemsRequest asks for \(docType ?? "?").", details: ["docType": docType ?? ""])
    }
}
