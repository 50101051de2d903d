import VerificationCore

/// The parameters of an mdoc verification and the requirement level of each check.
public struct MdocVerificationPolicy: Sendable {
    /// The policy name reported and the requirement level of each check.
    public var requirements: VerificationPolicy
    /// Tolerance applied to the MSO validity window (issuer, device and server clocks disagree).
    /// Default 60 seconds.
    public var clockSkew: Duration
    /// Whether a missing countryName in the DS or IACA fails `mdoc.issuer.country` (ISO strict,
    /// passports) or is reported as a warning (Apple's in-app test issuer has none).
    public var requireCountryName: Bool
    /// Document types accepted; nil accepts any.
    public var acceptedDocTypes: Set<String>?
    /// Whether the Annex B rules Apple's test issuer does not follow (validity lengths, issuerAltName,
    /// CRL distribution point, key identifiers) fail `mdoc.issuer.certificateProfile` (ISO strict,
    /// passports) or are warnings (Apple's in-app policy).
    public var requireFullCertificateProfile = true
    /// The most documents one DeviceResponse may hold; a response with more fails
    /// `mdoc.response.structure` (`tooManyDocuments`) before any signature is verified. A request
    /// narrows it to the number of docTypes it asked for. Default ``defaultMaxDocuments``.
    public var maxDocuments = MdocVerificationPolicy.defaultMaxDocuments

    /// The default ``maxDocuments``: 4. With at most 4 x5chain certificates read per document, one
    /// DeviceResponse costs at most 4 × (issuer signature + device signature + 4 certificate
    /// signatures) = 24 signature verifications, plus each document's revocation list.
    public static let defaultMaxDocuments = 4

    /// A policy with these requirements and options; ``requireFullCertificateProfile`` starts as true.
    public init(
        requirements: VerificationPolicy, clockSkew: Duration = .seconds(60), requireCountryName: Bool = true, acceptedDocTypes: Set<String>? = nil
    ) {
        self.requirements = requirements
        self.clockSkew = clockSkew
        self.requireCountryName = requireCountryName
        self.acceptedDocTypes = acceptedDocTypes
    }

    /// ISO/IEC 18013-5 as written: every check required, countryName required.
    public static let iso18013Strict = MdocVerificationPolicy(requirements: VerificationPolicy(name: "mdoc/iso18013-5-strict@1"))

    /// Apple's Verify with Wallet in-app flow: as strict, except that a missing countryName is a
    /// warning (Apple's own test issuer has none).
    public static let appleInApp: MdocVerificationPolicy = {
        var policy = MdocVerificationPolicy(requirements: VerificationPolicy(name: "wallet-identity/production@1"), requireCountryName: false)
        policy.requireFullCertificateProfile = false
        return policy
    }()
}
