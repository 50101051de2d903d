import VerificationCore

/// `googlepay.token.structure`: the input is an ECv2 token with every member it needs, each of
/// the right type, size and encoding.
struct TokenStructureCheck: VerificationCheck {
    let id = CheckID.googlePayTokenStructure
    let maximumSize: Int

    func evaluate(_ state: inout GooglePayState, context: VerificationContext) async throws -> CheckOutcome {
        let token = try GooglePayToken(json: state.input, maximumSize: maximumSize)
        state.token = token
        let (signatures, messageSize) = (token.signedKeySignatures.count, token.signedMessage.utf8.count)
        return .passed(
            "ECv2 token with signature, intermediateSigningKey (\(signatures) signature(s)) and signedMessage (\(messageSize) bytes)",
            details: ["protocolVersion": token.protocolVersion])
    }
}
