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

    /// Reads the envelope from its bytes in place (no nodes for the maps, their keys or the fields);
    /// nil for anything unusual or wrong, which the generic decode (``init(cbor:)``) then reads or
    /// rejects with the precise error. It accepts exactly what that decode accepts, with the same fields.
    public static func read(_ bytes: [UInt8]) -> AppleHPKEEnvelope? {
        var algorithm: String?
        var mode: UInt64?
        var pkEm: [UInt8]?
        var pkRHash: [UInt8]?
        var infoHash: [UInt8]?
        var data: [UInt8]?
        let read = CBORDecoder().readTextKeyedMap(bytes[...]) { key, value in
            // A field seen twice is a duplicate key, which the reader already rejects.
            switch key.count {
            case 9 where TextKeys.equal(key, "algorithm"):
                algorithm = value.textString()
                return algorithm != nil
            case 4 where TextKeys.equal(key, "data"):
                return readBytes(&data, from: &value)
            case 6 where TextKeys.equal(key, "params"):
                return value.textKeyedMap { name, field in
                    switch name.count {
                    case 4 where TextKeys.equal(name, "mode"):
                        mode = field.unsignedInt()
                        return mode != nil
                    case 4 where TextKeys.equal(name, "pkEm"): return readBytes(&pkEm, from: &field)
                    case 7 where TextKeys.equal(name, "pkRHash"): return readBytes(&pkRHash, from: &field)
                    case 8 where TextKeys.equal(name, "infoHash"): return readBytes(&infoHash, from: &field)
                    default:
                        return true
                    }
                }
            default:
                return true
            }
        }
        guard read, let algorithm, let mode, let pkEm, let pkRHash, let infoHash, let data = data.take() else { return nil }
        return AppleHPKEEnvelope(algorithm: algorithm, mode: mode, pkEm: pkEm, pkRHash: pkRHash, infoHash: infoHash, data: data)
    }

    /// Reads a byte string into `slot`; false (the read fails) for anything else.
    private static func readBytes(_ slot: inout [UInt8]?, from reader: inout CBORValueReader) -> Bool {
        slot = reader.byteString().map { Array($0) }
        return slot != nil
    }

    private init(algorithm: String, mode: UInt64, pkEm: [UInt8], pkRHash: [UInt8], infoHash: [UInt8], data: [UInt8]) {
        self.algorithm = algorithm
        self.mode = mode
        self.pkEm = pkEm
        self.pkRHash = pkRHash
        self.infoHash = infoHash
        self.data = data
    }

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
