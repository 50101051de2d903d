import VerificationCore
import WalletEncoding

/// `identity.envelope.recipientKey`: the envelope's pkRHash selects one of the configured identity
/// encryption keys (key rotation keeps older keys in the ring).
struct EnvelopeRecipientKeyCheck: VerificationCheck {
    private static let requires: [CheckID] = [.identityEnvelopeStructure]
    var id: CheckID { .identityEnvelopeRecipientKey }
    var prerequisites: [CheckID] { Self.requires }

    func evaluate(_ state: inout IdentityEnvelopeState, context: VerificationContext) async throws -> CheckOutcome {
        guard let envelope = state.envelope else { return .notEvaluated(because: .identityEnvelopeStructure) }
        let keyRing = state.keyRing
        guard let match = keyRing.key(forHash: envelope.pkRHash) else {
            return .failed(
                .noMatchingKey,
                "No configured identity encryption key matches pkRHash \(Hex.encode(envelope.pkRHash)); the response was encrypted to another key (configured: \(keyRing.keys.map { Hex.encode($0.publicKeyHash.prefix(8)) + "…" }.joined(separator: ", "))).",
                details: ["pkRHash": Hex.encode(envelope.pkRHash)])
        }
        state.key = match
        let label = match.label
        // Message and details written when the report is read: a verification that only needs the
        // verdict builds neither.
        return .passed { ("pkRHash selects the configured key \(label).", ["key": label]) }
    }
}
