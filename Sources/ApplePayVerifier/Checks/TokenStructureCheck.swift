import VerificationCore

/// `applepay.token.structure`: the input is a payment token with a known version and every field
/// it needs, each decodable.
struct TokenStructureCheck: VerificationCheck {
    let id = CheckID.applePayTokenStructure

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        let token: ApplePayToken
        do {
            token = try ApplePayToken(json: state.input, parsed: state.parsedInput)
        } catch {
            var details: [String: String] = [:]
            if let field = error.field { details["field"] = field }
            return .failed(error.reasonCode, error.checkMessage, details: details)
        }
        state.token = token
        let message =
            token.version == .ecV1
            ? "EC_v1 token with every header field (ephemeralPublicKey, publicKeyHash, transactionId)"
            : "RSA_v1 token with every header field (wrappedKey, publicKeyHash, transactionId)"
        let (version, transactionId) = (token.version.rawValue, token.header.transactionId)
        return .passed { (message, ["version": version, "transactionId": transactionId]) }
    }
}
