import Crypto
import Foundation
import VerificationCore
import WalletEncoding
import WalletJSON

/// `googlepay.intermediateKey.signature`: one of `intermediateSigningKey.signatures` verifies, with a
/// root signing key for ECv2 that is unexpired at the verification time, over
/// `"Google" ‖ "ECv2" ‖ signedKey` (each length-prefixed; `signedKey` as received).
struct IntermediateKeySignatureCheck: VerificationCheck {
    let id = CheckID.googlePayIntermediateKeySignature
    let prerequisites: [CheckID] = [.googlePayTokenStructure]
    let rootKeys: GooglePayRootKeys

    func evaluate(_ state: inout GooglePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let token = state.token else { return .notEvaluated(because: .googlePayTokenStructure) }
        let usable = rootKeys.usableForECv2(at: context.time)
        guard !usable.isEmpty else {
            return .failed(
                .noUsableRootKey,
                "None of the \(rootKeys.keys.count) root signing keys is an ECv2 key unexpired at \(context.time.rfc3339): "
                    + "load Google's current key list (the test list for TEST tokens, the production list otherwise)")
        }
        let signed = GooglePayCrypto.signedKeyBytes(protocolVersion: token.protocolVersion, signedKey: token.signedKey)
        for (signatureIndex, signature) in token.signedKeySignatures.enumerated() {
            for (keyIndex, key) in usable.enumerated() where GooglePayCrypto.verify(signature, over: signed, with: key.publicKey) {
                let expires = key.expiration.map { $0.rfc3339 } ?? "-"
                return .passed(
                    "intermediateSigningKey.signatures[\(signatureIndex)] verifies with ECv2 root key \(keyIndex + 1) of \(usable.count) (expires \(expires))",
                    details: ["rootKeyExpiration": expires])
            }
        }
        return .failed(
            .signatureInvalid,
            "None of the \(token.signedKeySignatures.count) signature(s) over signedKey verifies with the \(usable.count) unexpired ECv2 root key(s): "
                + "the intermediate key was not signed by these root keys (a TEST token checked with the production list, or the reverse) or was altered"
        )
    }
}

/// `googlepay.intermediateKey.expiration`: `signedKey` is JSON with a P-256 `keyValue` and a
/// `keyExpiration` after the verification time.
struct IntermediateKeyExpirationCheck: VerificationCheck {
    let id = CheckID.googlePayIntermediateKeyExpiration
    let prerequisites: [CheckID] = [.googlePayTokenStructure]

    func evaluate(_ state: inout GooglePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let token = state.token else { return .notEvaluated(because: .googlePayTokenStructure) }
        let object: StrictJSON.Object
        do {
            guard let parsed = try StrictJSON.parse(Array(token.signedKey.utf8)).object else {
                return .failed(.malformedSignedKey, "intermediateSigningKey.signedKey is not a JSON object")
            }
            object = parsed
        } catch {
            return .failed(.malformedSignedKey, "intermediateSigningKey.signedKey is not valid JSON (\(error.message) at byte \(error.offset))")
        }
        guard let keyValue = object["keyValue"]?.string, let der = Base64.decodeStrict(keyValue),
            let key = try? P256.Signing.PublicKey(derRepresentation: der)
        else {
            return .failed(.malformedSignedKey, "signedKey.keyValue is not base64 of a P-256 SubjectPublicKeyInfo")
        }
        guard let text = object["keyExpiration"]?.string, let expiration = GooglePayTime.date(milliseconds: text) else {
            return .failed(.malformedSignedKey, "signedKey.keyExpiration is not a string of milliseconds since the epoch")
        }
        // Kept even when expired: a policy that makes this check advisory still verifies the message with it.
        state.intermediateKey = key
        state.intermediateKeyExpiration = expiration
        guard expiration > context.time else {
            return .failed(
                .intermediateKeyExpired,
                "The intermediate signing key expired at \(expiration.rfc3339), not after the verification time \(context.time.rfc3339): "
                    + "the token is too old, or the verification time is wrong",
                details: ["keyExpiration": text])
        }
        return .passed("The intermediate signing key expires at \(expiration.rfc3339), after the verification time", details: ["keyExpiration": text])
    }
}
