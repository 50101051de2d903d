import VerificationCore

/// `applepay.decryption`: EC_v1 — ECDH with the ephemeral key, the NIST SP 800-56A concatenation
/// KDF (PartyV = SHA-256 of the merchant id), AES-256-GCM; RSA_v1 — RSA-OAEP-SHA256 unwraps an
/// AES-128 key, AES-128-GCM. Runs only after the signature checks passed, so nothing unauthenticated
/// is ever decrypted.
struct DecryptionCheck: VerificationCheck {
    let id = CheckID.applePayDecryption
    let prerequisites: [CheckID]

    init(policy: ApplePayPolicy) {
        self.prerequisites =
            [.applePayTokenStructure, .applePayKeySelection]
            + policy.requiredOnly([
                .applePaySignatureCMS, .applePaySignatureMarkerOIDs, .applePaySignatureCertificateValidity,
                .applePaySignatureChain, .applePaySignatureContentType, .applePaySignatureMessageDigest,
                .applePaySignatureSigner, .applePaySigningTime,
            ])
    }

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let token = state.token, let key = state.merchantKey else { return .notEvaluated(because: .applePayKeySelection) }
        let plaintext: [UInt8]
        switch (token.version, key.privateKey) {
        case (.ecV1, .ecP256(let privateKey)):
            guard let ephemeral = token.header.ephemeralPublicKey, let partyV = key.merchantIdentifierHash else {
                return .notEvaluated(because: .applePayKeySelection)
            }
            plaintext = try ApplePayDecryption.decryptEC(
                data: token.data, ephemeralPublicKey: ephemeral, privateKey: privateKey, merchantIdentifierHash: partyV)
        case (.rsaV1, .rsa(let privateKey)):
            guard let wrapped = token.header.wrappedKey else { return .notEvaluated(because: .applePayTokenStructure) }
            plaintext = try ApplePayDecryption.decryptRSA(data: token.data, wrappedKey: wrapped, privateKey: privateKey.key)
        default:
            return .failed(.keyTypeMismatch, "The merchant key type does not fit a \(token.version.rawValue) token")
        }
        state.plaintext = plaintext
        // The scheme follows from the key's type (checked above), so the end of the message is the key's.
        return .passed("Decrypted " + String(plaintext.count) + key.decryptedMessageEnd)
    }

    static func passMessageEnd(privateKey: MerchantKey.PrivateKey, publicKeyHash: String) -> String {
        let scheme: String
        switch privateKey {
        case .ecP256: scheme = "ECDH P-256 + KDF + AES-256-GCM"
        case .rsa: scheme = "RSA-OAEP-SHA256 + AES-128-GCM"
        }
        return " bytes with \(scheme) (merchant key \(publicKeyHash))"
    }
}
