import Foundation
import SwiftASN1
import VerificationCore
import WalletCOSE
import WalletEncoding
import X509

/// `vical.validity`: the VICAL's date is not after the verification time and its nextUpdate has not
/// passed (within the clock skew). An outdated VICAL is a warning instead when the loader allows it.
struct VICALValidityCheck: VerificationCheck {
    private static let requires: [CheckID] = [.vicalStructure]
    var id: CheckID { .vicalValidity }
    var prerequisites: [CheckID] { Self.requires }

    func evaluate(_ state: inout VICALState, context: VerificationContext) async throws -> CheckOutcome {
        guard let vical = state.vical else { return .notEvaluated(because: .vicalStructure) }
        let time = context.time
        let skew = Double(state.clockSkew.components.seconds)
        if vical.date.timeIntervalSince(time) > skew {
            return .failed(
                .vicalNotYetValid, "The VICAL is dated \(RFC3339.format(vical.date)), after the verification time \(RFC3339.format(time)).")
        }
        if let next = vical.nextUpdate, time.timeIntervalSince(next) > skew {
            let message =
                "The VICAL's nextUpdate \(RFC3339.format(next)) has passed at the verification time \(RFC3339.format(time)): a newer VICAL should be used."
            if state.allowOutdated {
                state.outdated = message
                return CheckOutcome(status: .skipped, reason: .vicalOutdated, message: message + " The policy reports this as a warning.")
            }
            return .failed(.vicalOutdated, message, details: ["nextUpdate": RFC3339.format(next)])
        }
        return .passed(
            "The VICAL dated \(RFC3339.format(vical.date)) is current" + (vical.nextUpdate.map { " until \(RFC3339.format($0))" } ?? "") + ".")
    }
}
