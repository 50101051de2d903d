import VerificationCore
import WalletJSON

/// `sdjwt.request.claims` (when the request names its claims): every claim the holder disclosed lies
/// on a claim path the request asked for — a parent disclosed to reach a claim asked for counts — as
/// `web.request.elements` holds an mdoc to the elements asked for.
struct SDJWTRequestedClaimsCheck: VerificationCheck {
    let requested: [SDJWTClaimPath]

    var id: CheckID { .sdjwtRequestClaims }
    var prerequisites: [CheckID] { [.sdjwtDisclosures] }

    func evaluate(_ state: inout SDJWTState, context: VerificationContext) async throws -> CheckOutcome {
        let unrequested = state.disclosedPaths.filter { path in !requested.contains { $0.covers(path) } }.map { $0.joined(separator: ".") }
        guard unrequested.isEmpty else {
            return .failed(
                .unrequestedClaim, "The presentation discloses claims that were not requested: \(unrequested.joined(separator: ", ")).",
                details: ["unrequested": unrequested.joined(separator: ",")])
        }
        return .passed("Every disclosed claim was requested (\(requested.map(\.description).joined(separator: ", "))).")
    }
}
