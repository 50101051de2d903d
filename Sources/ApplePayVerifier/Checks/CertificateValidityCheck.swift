import Foundation
import VerificationCore

/// `applepay.signature.certificateValidity`: the leaf, the intermediate and the trust anchor are
/// each within their validity period at the verification time. (The token's own age is
/// `applepay.signingTime`.)
struct CertificateValidityCheck: VerificationCheck {
    let id = CheckID.applePaySignatureCertificateValidity
    let prerequisites: [CheckID] = [.applePaySignatureCMS]
    let anchor: ApplePayTrustAnchor

    func evaluate(_ state: inout ApplePayState, context: VerificationContext) async throws -> CheckOutcome {
        guard let leaf = state.leaf else { throw MissingPrerequisite("the signer certificate") }
        var certificates: [(role: String, certificate: ParsedCertificate)] = [("leaf", leaf)]
        if let intermediate = state.intermediate { certificates.append(("intermediate", intermediate)) }
        certificates.append(("root", anchor.parsed))

        let time = context.time
        var failures: [(ReasonCode, String)] = []
        for (role, certificate) in certificates {
            let name = "\(role) certificate \"\(certificate.displayName)\" (serial \(certificate.serialHex))"
            if time < certificate.notValidBefore {
                failures.append((.certificateNotYetValid, "the \(name) is not valid before \(certificate.notValidBefore.rfc3339); the verification time is \(time.rfc3339)"))
            } else if time > certificate.notValidAfter {
                failures.append((.certificateExpired, "the \(name) expired at \(certificate.notValidAfter.rfc3339); the verification time is \(time.rfc3339)"))
            }
        }
        if let first = failures.first {
            return .failed(first.0, failures.map(\.1).joined(separator: "; "), details: [
                "verificationTime": time.rfc3339,
                "leafNotAfter": leaf.notValidAfter.rfc3339,
            ])
        }
        let until = certificates.map(\.certificate.notValidAfter).min() ?? leaf.notValidAfter
        return .passed("\(certificates.map(\.role).joined(separator: ", ")) valid at \(time.rfc3339) (the leaf until \(leaf.notValidAfter.rfc3339))", details: [
            "verificationTime": time.rfc3339,
            "validUntil": until.rfc3339,
        ])
    }
}
