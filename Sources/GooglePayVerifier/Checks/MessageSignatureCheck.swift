import VerificationCore

/// `googlepay.message.signature`: `signature` verifies with the intermediate key over
/// `"Google" ‖ recipientId ‖ "ECv2" ‖ signedMessage` (each length-prefixed; `signedMessage` as received).
struct MessageSignatureCheck: VerificationCheck {
    let id = CheckID.googlePayMessageSignature
    let prerequisites: [CheckID]
    let recipientId: String

    init(recipientId: String, policy: GooglePayPolicy) {
        self.recipientId = recipientId
        self.prerequisites =
            [.googlePayTokenStructure] + policy.requiredOnly([.googlePayIntermediateKeySignature, .googlePayIntermediateKeyExpiration])
    }

    func evaluate(_ state: inout GooglePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let token = state.token else { return .notEvaluated(because: .googlePayTokenStructure) }
        guard let key = state.intermediateKey else { return .notEvaluated(because: .googlePayIntermediateKeyExpiration) }
        let signed = GooglePayCrypto.signedMessageBytes(
            recipientId: recipientId, protocolVersion: token.protocolVersion, signedMessage: token.signedMessage)
        guard GooglePayCrypto.verify(token.signature, over: signed, with: key) else {
            return .failed(
                .signatureInvalid,
                "The signature does not verify with the intermediate key over signedMessage for recipient \(recipientId): "
                    + "the token was made for another recipient id (merchant or gateway id), or signedMessage was altered",
                details: ["recipientId": recipientId])
        }
        let recipient = recipientId
        return .passed("The signature verifies with the intermediate key for recipient \(recipient)", details: ["recipientId": recipient])
    }
}
