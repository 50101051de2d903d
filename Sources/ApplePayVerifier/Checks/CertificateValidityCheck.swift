import Foundation
import VerificationCore

/// `applepay.signature.certificateValidity`: the leaf, the intermediate and the trust anchor are
/// each within their validity period at the verification time. (The token's own age is
/// `applepay.signingTime`.)
struct CertificateValidityCheck: VerificationCheck {
    static func passMessage(withIntermediate: Bool, leafNotAfter: String) -> String {
        "\(withIntermediate ? "leaf, intermediate and root" : "leaf and root") valid at the verification time (the leaf until \(leafNotAfter))"
    }

    let id = CheckID.applePaySignatureCertificateValidity
    let prerequisites: [CheckID] = [.applePaySignatureCMS]
    let anchor: ApplePayTrustAnchor

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let leaf = state.leaf else { return .notEvaluated(because: .applePaySignatureCMS) }
        let intermediate = state.intermediate
        let time = context.time
        func valid(_ certificate: ParsedCertificate) -> Bool {
            certificate.notValidBefore <= time && time <= certificate.notValidAfter
        }
        if valid(leaf), intermediate.map(valid) ?? true, valid(anchor.parsed) {
            // The common case, kept cheap: certificate dates are formatted once, when parsed.
            // Each certificate's texts are written once, when it is parsed.
            var until = min(leaf.notValidAfter, anchor.parsed.notValidAfter)
            var first = anchor.parsed.notValidAfter < leaf.notValidAfter ? anchor.parsed : leaf
            if let intermediate, intermediate.notValidAfter < until {
                until = intermediate.notValidAfter
                first = intermediate
            }
            return .passed(
                intermediate == nil ? leaf.texts.validityMessageWithoutIntermediate : leaf.texts.validityMessage,
                details: first.texts.validUntilDetails)
        }

        var certificates: [(role: String, certificate: ParsedCertificate)] = [("leaf", leaf)]
        if let intermediate { certificates.append(("intermediate", intermediate)) }
        certificates.append(("root", anchor.parsed))
        var failures: [(ReasonCode, String)] = []
        for (role, certificate) in certificates {
            let name = "\(role) certificate \"\(certificate.displayName)\" (serial \(certificate.serialHex))"
            if time < certificate.notValidBefore {
                failures.append(
                    (
                        .certificateNotYetValid,
                        "the \(name) is not valid before \(certificate.notValidBeforeText); the verification time is \(time.rfc3339)"
                    ))
            } else if time > certificate.notValidAfter {
                failures.append(
                    (.certificateExpired, "the \(name) expired at \(certificate.notValidAfterText); the verification time is \(time.rfc3339)"))
            }
        }
        let first = failures.first ?? (.certificateExpired, "a certificate is outside its validity period")
        return .failed(
            first.0, failures.map(\.1).joined(separator: "; "),
            details: [
                "verificationTime": time.rfc3339,
                "leafNotAfter": leaf.notValidAfterText,
            ])
    }
}
