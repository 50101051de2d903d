import Foundation
import VerificationCore
import WalletEncoding
import WalletJSON

/// `sdjwt.holder.binding` (RFC 9901 §4.3, §7.3): a credential with `cnf.jwk` (or any credential, when
/// holder binding is required) comes with a Key Binding JWT — `typ` `kb+jwt`, signed by the `cnf.jwk`
/// key, `aud` this verifier's client identifier, `nonce` this request's, `iat` within the request's
/// lifetime, and `sd_hash` the hash (`_sd_alg`) of the presentation as received up to its last `~`.
struct SDJWTHolderBindingCheck: VerificationCheck {
    var id: CheckID { .sdjwtHolderBinding }
    var prerequisites: [CheckID] { [.sdjwtIssuerSignature] }

    func evaluate(_ state: inout SDJWTState, context: VerificationContext) async throws -> CheckOutcome {
        guard let presentation = state.presentation else { return .notEvaluated(because: .sdjwtStructure) }
        let payload = presentation.issuerJWT.payload
        guard let cnf = payload["cnf"]?.object?["jwk"]?.object else {
            if state.expectations.requireHolderBinding {
                return .failed(
                    .keyBindingMissing, "The credential has no cnf.jwk: nothing binds it to the holder, and this request requires holder binding.")
            }
            return .notApplicable("The credential has no cnf.jwk; holder binding is not required here.")
        }
        let key = try SDJWTSignatureKey(jwk: cnf)
        guard let kb = presentation.keyBindingJWT else {
            return .failed(.keyBindingMissing, "The credential is bound to a holder key (cnf.jwk) but no Key Binding JWT follows the disclosures.")
        }
        guard kb.header["typ"]?.string == "kb+jwt" else {
            return .failed(
                .unexpectedType, "The Key Binding JWT's typ is \(kb.header["typ"]?.string.map(SDJWTText.printable) ?? "missing"), not kb+jwt.")
        }
        guard try key.verify(kb) else {
            return .failed(.signatureInvalid, "The Key Binding JWT's signature does not verify with the credential's cnf.jwk key.")
        }
        let claims = kb.payload
        if let audience = state.expectations.audience {
            let aud = claims["aud"]?.string
            guard aud == audience else {
                return .failed(
                    .audienceMismatch,
                    "The Key Binding JWT's aud \(aud.map(SDJWTText.printable) ?? "(none)") is not this verifier's client identifier.")
            }
        }
        if let nonce = state.expectations.nonce {
            guard claims["nonce"]?.string == nonce else {
                return .failed(.nonceMismatch, "The Key Binding JWT's nonce is not this request's: it answers another request.")
            }
        }
        guard let iatText = claims["iat"]?.number, let iat = Double(iatText), iat.isFinite else {
            return .failed(.keyBindingMalformed, "The Key Binding JWT has no iat.")
        }
        let now = context.time.timeIntervalSince1970
        let skew = context.clockSkewSeconds
        guard iat <= now + skew, iat >= now - state.expectations.keyBindingMaxAge - skew else {
            return .failed(
                .keyBindingStale,
                "The Key Binding JWT was made at \(RFC3339.format(Date(timeIntervalSince1970: iat))), outside this request's lifetime of \(Int(state.expectations.keyBindingMaxAge)) s."
            )
        }
        let algorithm = payload["_sd_alg"]?.string.flatMap(SDJWTHashAlgorithm.init(rawValue:)) ?? .sha256
        let expected = algorithm.digest(Array(presentation.hashedPart.utf8))
        guard let sdHash = claims["sd_hash"]?.string else {
            return .failed(.keyBindingMalformed, "The Key Binding JWT has no sd_hash: it does not say which presentation it signs.")
        }
        guard sdHash == expected else {
            return .failed(
                .sdHashMismatch,
                "The Key Binding JWT's sd_hash is not the hash of this presentation: it signs other disclosures or another credential.")
        }
        return .passed("The holder's Key Binding JWT (\(key.algorithm)) verifies with cnf.jwk, for this audience and nonce, over this presentation.")
    }
}
