import Crypto
import Mdoc
import VerificationCore
import WalletCBOR

/// `identity.envelope.transcript`: SHA-256 of the session transcript built from the nonce, merchant
/// and team identifiers and pkRHash (AppleIdentityPresentment_1.0) equals the envelope's infoHash.
/// Request sessions make it depend on `replay.nonce` as well.
struct EnvelopeTranscriptCheck: VerificationCheck {
    let prerequisites: [CheckID]
    var id: CheckID { .identityEnvelopeTranscript }

    func evaluate(_ state: inout IdentityEnvelopeState, context: VerificationContext) async throws -> CheckOutcome {
        guard let envelope = state.envelope else { return .notEvaluated(because: .identityEnvelopeStructure) }
        let merchantID = state.merchantID, teamID = state.teamID
        let built = SessionTranscript.appleInApp(nonce: state.nonce, merchantID: merchantID, teamID: teamID, recipientKeyHash: envelope.pkRHash)
        guard SHA256.hash(data: built.encodedBytes).elementsEqual(envelope.infoHash) else {
            return .failed(
                .infoHashMismatch,
                "SHA-256 of the session transcript does not equal the envelope's infoHash: the nonce, merchant identifier (\(merchantID)) or team identifier (\(teamID)) differ from those the app used in its PKIdentityRequest."
            )
        }
        state.transcript = built
        return .passed(
            "The session transcript (AppleIdentityPresentment_1.0 with this nonce, merchant \(merchantID), team \(teamID)) matches infoHash.")
    }
}
