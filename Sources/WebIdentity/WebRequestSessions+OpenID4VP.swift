import Crypto
import Foundation
import MdocVerifier
import VerificationCore

extension WebRequestSessions {
    /// The OpenID4VP session record a report is made with when no request session was read (an
    /// unknown, expired, used or unreadable request): every check after `replay.nonce` is skipped, so
    /// nothing of it is used.
    static let noOpenID4VPSession = OpenID4VPSession(
        protocol: .unsigned, nonce: "", origin: "", jwkThumbprint: "", keyID: "", clientID: nil, credentials: [:])

    /// Verifies an OpenID4VP response (the JWE as received) for the session's OpenID4VP record with
    /// the keys of `recipientKeys` (the one whose thumbprint the record names decrypts).
    func verifyOpenID4VP(
        response: String, session: OpenID4VPSession?, recipientKeys: [P256.KeyAgreement.PrivateKey], context: VerificationContext,
        nonceOutcome: CheckOutcome, offeredAlongside: [TranscriptCandidate], consumeOnOpen: (() async -> CheckOutcome)?
    ) async -> WebVerificationResult {
        await OpenID4VPVerifier(sharing: verifier).verify(
            response: Array(response.utf8), session: session ?? Self.noOpenID4VPSession, recipientKeys: recipientKeys, context: context,
            nonceOutcome: nonceOutcome, offeredAlongside: offeredAlongside, consume: consumeOnOpen)
    }
}
