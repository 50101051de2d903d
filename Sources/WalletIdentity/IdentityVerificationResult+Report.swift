import VerificationCore

extension IdentityVerificationResult {
    /// The same documents and claims with a report the caller extended (revocation and trust-list
    /// checks added after the in-app verification).
    public func replacingReport(_ report: VerificationReport) -> IdentityVerificationResult {
        IdentityVerificationResult(report: report, documents: documentsRegardlessOfVerdict, claims: claimsRegardlessOfVerdict)
    }
}
