import Mdoc
import MdocVerifier

/// The transcripts a wallet may have signed in place of a web request's (``TranscriptDiagnosis``):
/// the request's origin spelled another way (a trailing slash, the other scheme, an explicit or
/// omitted default port).
enum WebTranscriptCandidates {
    /// The origin spelled otherwise, each with its label and description.
    static func originVariants(_ origin: String) -> [(label: String, description: String, origin: String)] {
        var variants: [(String, String, String)] = []
        if origin.hasSuffix("/") {
            variants.append(("originTrailingSlash", "the origin without its trailing slash", String(origin.dropLast())))
        } else {
            variants.append(("originTrailingSlash", "the origin with a trailing slash", origin + "/"))
        }
        let bare = origin.hasSuffix("/") ? String(origin.dropLast()) : origin
        for (scheme, other, port) in [("https://", "http://", ":443"), ("http://", "https://", ":80")] where bare.hasPrefix(scheme) {
            let host = bare.dropFirst(scheme.count)
            variants.append(("originScheme", "the origin with the scheme \(other.dropLast(3))", other + host))
            if host.hasSuffix(port) {
                variants.append(("originDefaultPort", "the origin without its default port", scheme + host.dropLast(port.count)))
            } else if !host.contains(":") {
                variants.append(("originDefaultPort", "the origin with its default port written out", bare + port))
            }
        }
        return variants
    }

    /// What to fix when the device signed for another spelling of the origin.
    static let originFix =
        "the origin the page passed to the wallet (the browser's origin, scheme://host[:port] with no path and no trailing slash) differs from the origin configured for this verifier; configure the origin exactly as the browser reports it"

    /// Annex C: the request's encryption info with another spelling of the origin.
    static func annexC(encryptionInfo: String, origin: String) -> [TranscriptCandidate] {
        originVariants(origin).map { variant in
            TranscriptCandidate(
                label: variant.label, description: variant.description, fix: originFix,
                transcript: .dcapi(encryptionInfoBase64URL: encryptionInfo, origin: variant.origin))
        }
    }

    /// OpenID4VP: the session's nonce and key thumbprint with another spelling of the origin, and the
    /// draft-24 handover for the same origin and nonce.
    static func openID4VP(origin: String, nonce: String, jwkThumbprint: [UInt8]?) -> [TranscriptCandidate] {
        var candidates = originVariants(origin).map { variant in
            TranscriptCandidate(
                label: variant.label, description: variant.description, fix: originFix,
                transcript: .openID4VPDigitalCredentials(origin: variant.origin, nonce: nonce, jwkThumbprint: jwkThumbprint))
        }
        candidates.append(
            TranscriptCandidate(
                label: "otherProtocol:openid4vp-draft24",
                description: "the OpenID4VP draft 24 handover (origin, client id, nonce) for this request",
                fix:
                    "the wallet implements an OpenID4VP draft, not OpenID4VP 1.0; answer with the OpenID4VP 1.0 handover (origin, nonce, key thumbprint)",
                transcript: .openID4VPDigitalCredentialsDraft24(origin: origin, nonce: nonce)))
        candidates.append(
            TranscriptCandidate(
                label: "noKeyThumbprint",
                description: "this request without the encryption key thumbprint",
                fix:
                    "the wallet left the encryption key's JWK thumbprint out of the handover; it must include the thumbprint of the key it encrypted the response to",
                transcript: .openID4VPDigitalCredentials(origin: origin, nonce: nonce, jwkThumbprint: nil)))
        return candidates
    }
}
