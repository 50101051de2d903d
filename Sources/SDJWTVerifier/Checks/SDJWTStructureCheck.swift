import VerificationCore
import WalletJSON

/// `sdjwt.structure`: the presentation reads as `<issuer JWT>~<disclosures>~[<KB-JWT>]` — strict
/// base64url and strict JSON, within the size, disclosure and depth limits — before any signature.
struct SDJWTStructureCheck: VerificationCheck {
    var id: CheckID { .sdjwtStructure }

    func evaluate(_ state: inout SDJWTState, context: VerificationContext) async throws -> CheckOutcome {
        let presentation = try SDJWTPresentation(state.text)
        state.presentation = presentation
        let (count, bound) = (presentation.disclosures.count, presentation.keyBindingJWT != nil)
        return .passed(
            "The presentation reads: an issuer-signed JWT, \(count) disclosure(s)\(bound ? " and a Key Binding JWT" : ", no Key Binding JWT").")
    }
}
