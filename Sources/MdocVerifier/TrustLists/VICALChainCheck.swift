import Foundation
import SwiftASN1
import VerificationCore
import WalletCOSE
import WalletEncoding
@_spi(FixedExpiryValidationTime) import X509

/// `vical.chain`: the signer keeps the VICAL-signer profile and its x5chain chains to a configured VICAL
/// anchor, every certificate valid at the verification time.
struct VICALChainCheck: VerificationCheck {
    private static let requires: [CheckID] = [.vicalStructure]
    var id: CheckID { .vicalChain }
    var prerequisites: [CheckID] { Self.requires }

    func evaluate(_ state: inout VICALState, context: VerificationContext) async throws -> CheckOutcome {
        let time = context.time
        let certificates = state.certificates, anchors = state.anchors
        if let problem = state.chainProblem { return .failed(problem.reason, problem.message) }
        guard let leaf = certificates.first else { return .failed(.missingCertificateChain, "The VICAL has no x5chain.") }
        guard !anchors.isEmpty else { return .failed(.noTrustAnchor, "No VICAL anchor is configured (--vical-trust).") }
        for (position, certificate) in certificates.enumerated() {
            if time < certificate.notValidBefore {
                return .failed(
                    .certificateNotYetValid,
                    "Certificate \(position) of the VICAL's x5chain (\(certificate.subject)) is not valid before \(RFC3339.format(certificate.notValidBefore))."
                )
            }
            if time > certificate.notValidAfter {
                return .failed(
                    .certificateExpired,
                    "Certificate \(position) of the VICAL's x5chain (\(certificate.subject)) expired at \(RFC3339.format(certificate.notValidAfter)); the verification time is \(RFC3339.format(time)).",
                    details: ["subject": certificate.subject.description, "notAfter": RFC3339.format(certificate.notValidAfter)])
            }
        }
        // The VICAL-signer profile (ISO/IEC 18013-5 Annex C): a document signer or any other mdoc
        // certificate cannot sign a trust list.
        let violations = VICALSignerProfile.violations(leaf)
        guard violations.isEmpty else {
            return .failed(
                .signerProfileViolation, "The VICAL signer \(leaf.subject) is not a VICAL signer: \(violations.joined(separator: "; ")).",
                details: ["signer": leaf.subject.description])
        }
        if anchors.contains(leaf) {
            return .passed("The VICAL signer \(leaf.subject) is itself a configured anchor.", details: ["signer": leaf.subject.description])
        }
        var verifier = Verifier(rootCertificates: CertificateStore(anchors)) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            CriticalExtendedKeyUsagePolicy()
        }
        switch await verifier.validate(leaf: leaf, intermediates: CertificateStore(Array(certificates.dropFirst()))) {
        case .validCertificate(let chain):
            return .passed(
                "The VICAL signer chains to the configured anchor \(chain.last?.subject.description ?? "?"); every certificate is valid at the verification time.",
                details: ["signer": leaf.subject.description, "anchor": chain.last?.subject.description ?? ""])
        case .couldNotValidate(let failures):
            let reasons = failures.map { $0.policyFailureReason.description }.joined(separator: "; ")
            return .failed(
                .untrustedSigner,
                "The VICAL signer \(leaf.subject) does not chain to a configured VICAL anchor\(reasons.isEmpty ? "" : " (" + reasons + ")").")
        }
    }
}
