import WalletCBOR

/// Apple's Verify with Wallet envelope (`PKIdentityDocument.encryptedData`):
/// `{"algorithm": "APPLE-HPKE-v1", "params": {"mode": 0, "pkEm": bstr, "pkRHash": bstr, "infoHash": bstr}, "data": bstr}`.
public struct AppleHPKEEnvelope: Sendable {
    /// The only `algorithm` value the verifier accepts.
    public static let algorithmName = "APPLE-HPKE-v1"

    /// The envelope's `algorithm` field; the verifier accepts only ``algorithmName``.
    public let algorithm: String
    /// The HPKE mode (`params.mode`); only 0, base mode, is accepted.
    public let mode: UInt64
    /// The sender's ephemeral public key (HPKE `enc`), an uncompressed P-256 point.
    public let pkEm: [UInt8]
    /// SHA-256 of the recipient public key (0x04‖X‖Y).
    public let pkRHash: [UInt8]
    /// SHA-256 of the HPKE info (the session transcript).
    public let infoHash: [UInt8]
    /// The HPKE ciphertext of the `{"identity": DeviceResponse}` plaintext.
    public let data: [UInt8]

    /// Reads the envelope's CBOR map; throws ``CBORError`` when a field is missing or has the wrong type.
    public init(cbor node: CBORNode) throws(CBORError) {
        let map = try node.map("envelope")
        algorithm = try map.required("algorithm", in: "envelope").text("algorithm")
        let params = try map.required("params", in: "envelope").map("params")
        mode = try params.required("mode", in: "params").uint("mode")
        pkEm = Array(try params.required("pkEm", in: "params").bytes("pkEm"))
        pkRHash = Array(try params.required("pkRHash", in: "params").bytes("pkRHash"))
        infoHash = Array(try params.required("infoHash", in: "params").bytes("infoHash"))
        data = Array(try map.required("data", in: "envelope").bytes("data"))
    }
}
