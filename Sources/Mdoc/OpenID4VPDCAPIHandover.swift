import Crypto
import WalletCBOR

extension SessionTranscript {
    /// OpenID4VP 1.0 over the Digital Credentials API (Appendix B.2.6.2):
    /// `[null, null, ["OpenID4VPDCAPIHandover", SHA-256(CBOR([origin, nonce, jwkThumbprint]))]]`.
    /// `origin` is the page's origin without an `origin:` prefix; `jwkThumbprint` is the RFC 7638
    /// SHA-256 thumbprint of the verifier's encryption key (response mode `dc_api.jwt`), or nil for
    /// an unencrypted response (`dc_api`), which puts `null` in its place.
    public static func openID4VPDigitalCredentials(origin: String, nonce: String, jwkThumbprint: [UInt8]?) -> SessionTranscript {
        // Written directly, then read back as the transcript's node: the bytes the builders give
        // (``builtOpenID4VPDigitalCredentials(origin:nonce:jwkThumbprint:)``) without a node and a
        // copy of the encoding for every part. Every verification builds its session's transcript.
        var info: [UInt8] = []
        info.reserveCapacity(
            1 + CBORWriter.stringLength(origin.utf8.count) + CBORWriter.stringLength(nonce.utf8.count) + CBORWriter.stringLength(32))
        CBORWriter.appendHead(major: 4, argument: 3, to: &info)
        CBORWriter.appendText(origin, to: &info)
        CBORWriter.appendText(nonce, to: &info)
        if let jwkThumbprint { CBORWriter.appendBytes(jwkThumbprint, to: &info) } else { info.append(0xf6) }
        var body: [UInt8] = [0x83, 0xf6, 0xf6, 0x82]
        body.reserveCapacity(4 + CBORWriter.stringLength(handoverName.utf8.count) + CBORWriter.stringLength(32))
        CBORWriter.appendText(handoverName, to: &body)
        SHA256.hash(data: info).withUnsafeBytes { CBORWriter.appendBytes($0, to: &body) }
        return written(body) { builtOpenID4VPDigitalCredentials(origin: origin, nonce: nonce, jwkThumbprint: jwkThumbprint) }
    }

    /// The OpenID4VP handover's name, the first item of its handover array.
    static let handoverName = "OpenID4VPDCAPIHandover"

    /// ``openID4VPDigitalCredentials(origin:nonce:jwkThumbprint:)`` built from nodes: the reference the
    /// written bytes are tested against.
    static func builtOpenID4VPDigitalCredentials(origin: String, nonce: String, jwkThumbprint: [UInt8]?) -> SessionTranscript {
        let info = openID4VPDCAPIHandoverInfo(origin: origin, nonce: nonce, jwkThumbprint: jwkThumbprint)
        return SessionTranscript(node: .array([.null, .null, .array([.text(handoverName), sha256(info)])]))
    }

    /// `OpenID4VPDCAPIHandoverInfo = [origin, nonce, jwkThumbprint / null]`, whose encoding is hashed into the handover.
    public static func openID4VPDCAPIHandoverInfo(origin: String, nonce: String, jwkThumbprint: [UInt8]?) -> CBORNode {
        .array([.text(origin), .text(nonce), jwkThumbprint.map { .bytes($0) } ?? .null])
    }
}
