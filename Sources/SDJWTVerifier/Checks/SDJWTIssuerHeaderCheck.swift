import VerificationCore
import WalletJSON

/// `sdjwt.issuer.header`: `typ` is `dc+sd-jwt` (or `vc+sd-jwt`, with a `legacyType` warning) and `alg`
/// is ES256, ES384 or ES512 — never `none`, a MAC or another algorithm.
struct SDJWTIssuerHeaderCheck: VerificationCheck {
    var id: CheckID { .sdjwtIssuerHeader }
    var prerequisites: [CheckID] { [.sdjwtStructure] }

    func evaluate(_ state: inout SDJWTState, context: VerificationContext) async throws -> CheckOutcome {
        guard let header = state.presentation?.issuerJWT.header else { return .notEvaluated(because: .sdjwtStructure) }
        let typ = header["typ"]?.string
        guard typ == "dc+sd-jwt" || typ == "vc+sd-jwt" else {
            return .failed(
                .unexpectedType, "The issuer-signed JWT's typ is \(typ.map(SDJWTText.printable) ?? "missing"); an SD-JWT VC has dc+sd-jwt.")
        }
        let alg = header["alg"]?.string
        guard let alg, ["ES256", "ES384", "ES512"].contains(alg) else {
            return .failed(
                .algorithmNotAllowed,
                "The issuer-signed JWT's alg is \(alg.map(SDJWTText.printable) ?? "missing"); only ES256, ES384 and ES512 are accepted (never none or a MAC)."
            )
        }
        return .passed("The header says typ \(typ ?? "") and alg \(alg).", details: ["typ": typ ?? "", "alg": alg])
    }
}
