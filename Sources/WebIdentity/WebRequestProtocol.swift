import VerificationCore

/// A protocol a web request offers over the W3C Digital Credentials API, by its identifier in
/// `navigator.credentials.get({digital: {requests: [{protocol, data}]}})`.
public enum WebRequestProtocol: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// ISO/IEC 18013-7 Annex C (Safari, Apple Wallet; also Chrome's mdoc wallets).
    case annexC = "org-iso-mdoc"
    /// OpenID4VP 1.0 Appendix A with a signed request object (JWS with x5c; Google Wallet and other Android wallets).
    case openID4VPSigned = "openid4vp-v1-signed"
    /// OpenID4VP 1.0 Appendix A without a signature: the wallet knows the verifier by its origin only.
    case openID4VPUnsigned = "openid4vp-v1-unsigned"

    /// The identifier, as the page and the wallet write it.
    public var description: String { rawValue }

    /// Whether this is one of the OpenID4VP protocols.
    public var isOpenID4VP: Bool { self != .annexC }

    /// Every protocol a deployment is configured for: Annex C always; OpenID4VP signed when a
    /// request-signing key is configured, unsigned otherwise (an unsigned request next to a signed
    /// one would let a wallet skip the verifier's authentication).
    public static func defaults(signing: Bool) -> [WebRequestProtocol] {
        [.annexC, signing ? .openID4VPSigned : .openID4VPUnsigned]
    }

    /// Parses a list of identifiers: at least one, each known and named once; in the order given,
    /// except that Annex C comes first. Throws ``WebRequestError`` naming the first bad entry.
    public static func parseList(_ names: [String]) throws(WebRequestError) -> [WebRequestProtocol] {
        guard !names.isEmpty else { throw WebRequestError("name at least one protocol (org-iso-mdoc, openid4vp-v1-signed, openid4vp-v1-unsigned)") }
        var parsed: [WebRequestProtocol] = []
        for (index, name) in names.enumerated() {
            guard let value = WebRequestProtocol(rawValue: name) else {
                throw WebRequestError(
                    "protocol \(index) is not one of org-iso-mdoc, openid4vp-v1-signed, openid4vp-v1-unsigned (openid4vp-v1-multisigned is not supported)"
                )
            }
            guard !parsed.contains(value) else { throw WebRequestError("\(name) is named twice") }
            parsed.append(value)
        }
        return ordered(parsed)
    }

    /// Annex C first, the others in the order given.
    public static func ordered(_ protocols: [WebRequestProtocol]) -> [WebRequestProtocol] {
        protocols.filter { $0 == .annexC } + protocols.filter { $0 != .annexC }
    }
}
