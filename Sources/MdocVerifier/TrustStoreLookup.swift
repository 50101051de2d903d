import Foundation
@_spi(FixedExpiryValidationTime) import X509

extension IACATrustStore {
    /// The anchor that vouches for the document signer `leaf` at `time`: the root (or the pinned
    /// signer itself) a path validates to, among the roots that may vouch for `docType` (any root
    /// when `docType` is nil). Nil when none does. For "why not trusted?" tools; verification runs
    /// `mdoc.issuer.chain`.
    public func anchor(vouchingFor leaf: Certificate, docType: String?, at time: Date) async -> Anchor? {
        let candidates = docType.map { docType in anchors.filter { $0.docTypes?.contains(docType) ?? !Self.requiresScopedRoot(docType) } } ?? anchors
        guard !candidates.isEmpty else { return nil }
        if let pinned = candidates.first(where: { $0.certificate == leaf }) { return pinned }
        var verifier = Verifier(rootCertificates: CertificateStore(candidates.map(\.certificate))) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            CriticalExtendedKeyUsagePolicy()
        }
        guard case .validCertificate(let chain) = await verifier.validate(leaf: leaf, intermediates: CertificateStore()), let root = chain.last
        else { return nil }
        return candidates.first { $0.certificate == root }
    }
}
