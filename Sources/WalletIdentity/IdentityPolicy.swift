import MdocVerifier
import VerificationCore

/// Policies of the in-app flow.
public struct IdentityPolicy: Sendable {
    /// The mdoc verification policy: which checks are required and the accepted docTypes, clock skew and profile rules.
    public var mdoc: MdocVerificationPolicy

    /// Production: every check required (a missing countryName is a warning, since Apple's own test
    /// issuer has none; the ISO strict mdoc policy can be used instead).
    public static let production = IdentityPolicy(mdoc: .appleInApp)

    /// Apple's developer profile and test devices: the issuer is a test issuer, so the issuer checks
    /// are reported but not required (and so is revocation, which depends on them); the device
    /// signature still is. Every report made under this
    /// policy is marked test-only and must never be trusted in production.
    public static let developer: IdentityPolicy = {
        var requirements = VerificationPolicy(name: "wallet-identity/developer@1", testOnly: true)
        for id in [
            CheckID.mdocIssuerSignature, .mdocIssuerChain, .mdocIssuerCertificateProfile, .mdocIssuerCountry, .mdocRevocationList,
            .mdocRevocationStatus,
        ] {
            requirements = requirements.with(id, .advisory)
        }
        var mdoc = MdocVerificationPolicy.appleInApp
        mdoc.requirements = requirements
        return IdentityPolicy(mdoc: mdoc)
    }()
}
