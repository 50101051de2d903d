import Foundation
import SwiftASN1
import VerificationCore
import WalletCOSE
import WalletEncoding
import X509

/// `vical.structure`: a COSE_Sign1 whose payload is a VICAL (version, provider, date, certificate infos).
struct VICALStructureCheck: VerificationCheck {
    var id: CheckID { .vicalStructure }
    var prerequisites: [CheckID] { [] }

    func evaluate(_ state: inout VICALState, context: VerificationContext) async throws -> CheckOutcome {
        do {
            let decoded = try VICAL(bytes: state.bytes)
            state.vical = decoded
            return .passed(
                "VICAL version \(decoded.version) from \(decoded.provider) with \(decoded.entries.count) certificates.",
                details: ["provider": decoded.provider, "issueID": decoded.issueID.map(String.init) ?? "", "date": RFC3339.format(decoded.date)])
        } catch {
            return .failed(ReasonCode(error.code.rawValue), error.message)
        }
    }
}
