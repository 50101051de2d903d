import VerificationCore

/// `applepay.keySelection`: `header.publicKeyHash` names a configured merchant key of the type the
/// token version needs, chosen before anything is decrypted.
struct KeySelectionCheck: VerificationCheck {
    let id = CheckID.applePayKeySelection
    let prerequisites: [CheckID] = [.applePayTokenStructure]
    let keyRing: MerchantKeyRing

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let token = state.token else { return .notEvaluated(because: .applePayTokenStructure) }
        let hash = token.header.publicKeyHash
        guard let key = keyRing.key(forPublicKeyHash: hash) else {
            return .failed(
                .noMatchingMerchantKey,
                "No configured merchant key matches publicKeyHash \(hash) (\(keyRing.keys.count) configured: \(keyRing.publicKeyHashes.joined(separator: ", ")))",
                details: [
                    "publicKeyHash": hash,
                    "configuredKeys": String(keyRing.keys.count),
                ])
        }
        switch (token.version, key.privateKey) {
        case (.ecV1, .ecP256), (.rsaV1, .rsa):
            break
        default:
            return .failed(
                .keyTypeMismatch,
                "The merchant key for publicKeyHash \(hash) is \(key.privateKey.kindName), but a \(token.version.rawValue) token needs \(token.version == .ecV1 ? "an EC P-256" : "an RSA") key",
                details: ["publicKeyHash": hash])
        }
        state.merchantKey = key
        // The ring found the key by this exact text: a publicKeyHash is ASCII base64 (checked when
        // the token was read), so the key's own text is the same bytes.
        return .passed(key.selectedMessage, details: key.selectedDetails)
    }

    static func passMessage(publicKeyHash: String, kind: String, subject: String) -> String {
        "Merchant key \(publicKeyHash) (\(kind), \(subject))"
    }
}
