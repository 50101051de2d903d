import WalletCBOR

extension SessionTranscript {
    /// OpenID4VP 1.0 over the Digital Credentials API (Appendix B.2.6.2):
    /// `[null, null, ["OpenID4VPDCAPIHandover", SHA-256(CBOR([origin, nonce, jwkThumbprint]))]]`.
    /// `origin` is the page's origin without an `origin:` prefix; `jwkThumbprint` is the RFC 7638
    /// SHA-256 thumbprint of the verifier's encryption key (response mode `dc_api.jwt`), or nil for
    /// an unencrypted response (`dc_api`), which puts `null` in its place.
    public static func openID4VPDigitalCredentials(origin: String, nonce: String, jwkThumbprint: [UInt8]?) -> SessionTranscript {
        let info = openID4VPDCAPIHandoverInfo(origin: origin, nonce: nonce, jwkThumbprint: jwkThumbprint)
        return SessionTranscript(node: .array([.null, .null, .array([.text("OpenID4VPDCAPIHandover"), sha256(info)])]))
    }

    /// `OpenID4VPDCAPIHandoverInfo = [origin, nonce, jwkThumbprint / null]`, whose encoding is hashed into the handover.
    public static func openID4VPDCAPIHandoverInfo(origin: String, nonce: String, jwkThumbprint: [UInt8]?) -> CBORNode {
        .array([.text(origin), .text(nonce), jwkThumbprint.map { .bytes($0) } ?? .null])
    }
}
