import VerificationCore
import WalletJSON

/// `sdjwt.vct`: the credential names its type (`vct`, a string), and it is one the request asked for.
struct SDJWTVCTCheck: VerificationCheck {
    var id: CheckID { .sdjwtVCT }
    var prerequisites: [CheckID] { [.sdjwtIssuerSignature] }

    func evaluate(_ state: inout SDJWTState, context: VerificationContext) async throws -> CheckOutcome {
        guard let vct = state.vct else { return .failed(.vctMissing, "The credential has no vct (its type), which SD-JWT VC requires.") }
        if let wanted = state.expectations.vcts, !wanted.contains(vct) {
            return .failed(
                .vctNotRequested,
                "The credential's type \(SDJWTText.printable(vct)) is not one the request asked for (\(wanted.sorted().joined(separator: ", "))).",
                details: ["vct": vct])
        }
        return .passed("The credential's type is \(vct).", details: ["vct": vct])
    }
}
