import VerificationCore

/// `applepay.signature.markerOIDs`: the leaf carries 1.2.840.113635.100.6.29 and the intermediate
/// that issued it 1.2.840.113635.100.6.2.14 (their values do not matter, only their presence).
struct MarkerOIDsCheck: VerificationCheck {
    let id = CheckID.applePaySignatureMarkerOIDs
    let prerequisites: [CheckID] = [.applePaySignatureCMS]

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let leaf = state.leaf else { return .notEvaluated(because: .applePaySignatureCMS) }
        var problems: [(ReasonCode, String)] = []
        if !leaf.hasLeafMarker {
            problems.append(
                (.missingLeafMarkerOID, "the leaf \"\(leaf.displayName)\" lacks marker OID 1.2.840.113635.100.6.29 (Apple Pay signing certificate)"))
        }
        if let intermediate = state.intermediate {
            if !intermediate.hasIntermediateMarker {
                problems.append(
                    (
                        .missingIntermediateMarkerOID,
                        "the intermediate \"\(intermediate.displayName)\" lacks marker OID 1.2.840.113635.100.6.2.14 (Apple Application Integration CA - G3)"
                    ))
            }
        } else {
            problems.append((.intermediateNotFound, "the SignedData holds no certificate that issued the leaf \"\(leaf.displayName)\""))
        }
        if let first = problems.first {
            return .failed(
                first.0, problems.map(\.1).joined(separator: "; "), details: ["reasons": problems.map(\.0.rawValue).joined(separator: ",")])
        }
        let message = state.intermediate?.texts.markersMessage ?? Self.passMessage(intermediateName: "")
        return .passed(message)
    }

    static func passMessage(intermediateName: String) -> String {
        "Leaf has 1.2.840.113635.100.6.29, intermediate \"\(intermediateName)\" has 1.2.840.113635.100.6.2.14"
    }
}
