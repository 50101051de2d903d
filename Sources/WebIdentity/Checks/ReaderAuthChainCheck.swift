import MdocVerifier
import VerificationCore
import WalletEncoding
@_spi(FixedExpiryValidationTime) import X509

/// `reader.auth.chain`: the x5chain chains to a trusted reader root (or the leaf is pinned), every
/// certificate valid at the verification time.
struct ReaderAuthChainCheck: VerificationCheck {
    /// Trusted reader roots; a leaf listed here is trusted directly.
    let roots: [Certificate]

    var id: CheckID { .readerAuthChain }
    var prerequisites: [CheckID] { [.readerAuthSignature] }

    func evaluate(_ state: inout ReaderSignatureState, context: VerificationContext) async throws -> CheckOutcome {
        let time = context.time, chain = state.chain
        guard let leaf = chain.first else { return .notEvaluated(because: .readerAuthSignature) }
        guard !roots.isEmpty else {
            return .failed(.noTrustAnchor, "No trusted reader root is configured; give the reader's root certificate (--trust).")
        }
        for (position, certificate) in chain.enumerated() where time < certificate.notValidBefore || time > certificate.notValidAfter {
            return .failed(
                time < certificate.notValidBefore ? .certificateNotYetValid : .certificateExpired,
                "Certificate \(position) of the x5chain (\(certificate.subject)) is not valid at \(RFC3339.format(time)) (valid from \(RFC3339.format(certificate.notValidBefore)) to \(RFC3339.format(certificate.notValidAfter)))."
            )
        }
        if roots.contains(leaf) {
            return .passed("The reader certificate \(leaf.subject) is itself trusted (pinned).", details: ["pinned": "true"])
        }
        var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            CriticalExtendedKeyUsagePolicy()
        }
        switch await verifier.validate(leaf: leaf, intermediates: CertificateStore(chain.dropFirst())) {
        case .validCertificate(let path):
            return .passed(
                "The reader certificate chains to the trusted root \(path.last!.subject).",
                details: ["root": "\(path.last!.subject)", "chainLength": String(path.count)])
        case .couldNotValidate(let failures):
            let reasons = failures.map { $0.policyFailureReason.description }
            return .failed(
                .untrustedReader,
                "The reader certificate \(leaf.subject) does not chain to a trusted reader root"
                    + (reasons.isEmpty ? "." : " (\(reasons.joined(separator: "; "))).")
                    + " Add the reader's root certificate (--trust) if you trust this reader.")
        }
    }
}
