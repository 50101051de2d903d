import Foundation
import MdocVerifier
import VerificationCore
import WalletEncoding
import WalletJSON

/// `sdjwt.validity`: at the verification time, with the clock skew, `nbf` has passed, `exp` has not,
/// and `iat` is not in the future (each when present; a present one must be a number).
struct SDJWTValidityCheck: VerificationCheck {
    var id: CheckID { .sdjwtValidity }
    var prerequisites: [CheckID] { [.sdjwtIssuerSignature] }

    func evaluate(_ state: inout SDJWTState, context: VerificationContext) async throws -> CheckOutcome {
        guard let payload = state.presentation?.issuerJWT.payload else { return .notEvaluated(because: .sdjwtStructure) }
        let now = context.time.timeIntervalSince1970
        let skew = context.clockSkewSeconds
        func time(_ name: String) throws(SDJWTError) -> Double? {
            guard let value = payload[name] else { return nil }
            guard let text = value.number, let seconds = Double(text), seconds.isFinite else {
                throw SDJWTError(.malformedSDJWT, "\(name) is not a number of seconds.")
            }
            return seconds
        }
        let (iat, nbf, exp) = (try time("iat"), try time("nbf"), try time("exp"))
        @Sendable func date(_ seconds: Double) -> String { RFC3339.format(Date(timeIntervalSince1970: seconds)) }
        if let exp, now - skew >= exp { return .failed(.expired, "The credential expired at \(date(exp)) (exp).") }
        if let nbf, now + skew < nbf { return .failed(.notYetValid, "The credential is not valid before \(date(nbf)) (nbf).") }
        if let iat, now + skew < iat { return .failed(.issuedInFuture, "The credential's iat \(date(iat)) is after the verification time.") }
        return .passed("Valid at the verification time\(exp.map { " (until \(date($0)))" } ?? "").")
    }
}
