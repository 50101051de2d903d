import Crypto
import Mdoc
import MdocVerifier
import WalletEncoding

/// The transcripts a wallet may have signed in place of a web request's (``TranscriptDiagnosis``):
/// the request's origin spelled another way (a trailing slash, the other scheme, an explicit or
/// omitted default port), the other web protocol's transcript of a request that offered both, and
/// for OpenID4VP another handover or another configured key's thumbprint.
public enum WebTranscriptCandidates {
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
    ///
    /// `webKeys`: the configured web recipient keys, whose own thumbprints (rather than this request's
    /// key's) a wallet may have put into the handover.
    static func openID4VP(origin: String, nonce: String, jwkThumbprint: [UInt8]?, webKeys: [P256.KeyAgreement.PrivateKey] = [])
        -> [TranscriptCandidate]
    {
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
        for key in webKeys {
            // Cached per key: no elliptic-curve work for a key seen before.
            guard let thumbprint = Base64.decodeURL(RecipientKeyThumbprints.thumbprint(of: key)), thumbprint != jwkThumbprint else { continue }
            candidates.append(
                TranscriptCandidate(
                    label: "otherKeyThumbprint",
                    description: "this request with the thumbprint of a configured web key rather than of the key this request offered",
                    fix:
                        "the wallet put another key's JWK thumbprint into the handover (each request offers its own encryption key in client_metadata.jwks); it must be the thumbprint of the key it encrypted the response to",
                    transcript: .openID4VPDigitalCredentials(origin: origin, nonce: nonce, jwkThumbprint: thumbprint)))
        }
        return candidates
    }

    /// For an OpenID4VP answer to a request that also offered Annex C: the request's Annex C
    /// transcript (its EncryptionInfo, base64url, and origin).
    public static func annexCTranscript(encryptionInfo: String, origin: String) -> TranscriptCandidate {
        TranscriptCandidate(
            label: "otherProtocol:org-iso-mdoc",
            description: "the Annex C (org-iso-mdoc) offer of this same request",
            fix:
                "the wallet answered over OpenID4VP but signed the transcript of the Annex C request offered beside it; the device signature must be over the transcript of the protocol that carries the answer",
            transcript: .dcapi(encryptionInfoBase64URL: encryptionInfo, origin: origin))
    }

    /// For an Annex C answer to a request that also offered OpenID4VP: the request's OpenID4VP 1.0
    /// transcript (its origin, nonce and key thumbprint).
    public static func openID4VPTranscript(_ session: OpenID4VPSession) -> TranscriptCandidate {
        TranscriptCandidate(
            label: "otherProtocol:openid4vp-v1",
            description: "the OpenID4VP 1.0 offer of this same request",
            fix:
                "the wallet answered over Annex C (org-iso-mdoc) but signed the transcript of the OpenID4VP request offered beside it; the device signature must be over the transcript of the protocol that carries the answer",
            transcript: session.sessionTranscript)
    }
}
