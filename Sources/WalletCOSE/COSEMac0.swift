import Crypto
import WalletCBOR

/// COSE_Mac0 (RFC 9052 §6.2): `[protected, unprotected, payload / nil, tag]`, optionally tagged 17.
/// Only HMAC 256/256 (alg 5), the algorithm ISO 18013-5 uses for deviceMac, is supported.
public struct COSEMac0: Sendable {
    /// The whole structure as received.
    public let node: CBORNode
    /// The protected and unprotected headers.
    public let headers: COSEHeaders
    /// The attached payload as received, or nil when detached.
    public let payload: ArraySlice<UInt8>?
    /// The MAC tag as received.
    public let tag: ArraySlice<UInt8>

    /// Reads a COSE_Mac0 from a decoded item, tagged 17 or untagged.
    /// Throws ``COSEError`` when the shape is wrong or the headers are unusable (an undecodable protected header, any `crit`).
    public init(cbor node: CBORNode) throws(COSEError) {
        var content = node
        if case .tagged(let t, let inner) = node.value {
            guard t == 17 else {
                throw COSEError(code: .malformedStructure, message: "COSE_Mac0 may only carry tag 17, found tag \(t)")
            }
            content = inner
        }
        guard let items = content.arrayValue, items.count == 4 else {
            throw COSEError(code: .malformedStructure, message: "COSE_Mac0 must be an array of four items")
        }
        headers = try COSEHeaders(protectedNode: items[0], unprotectedNode: items[1])
        switch items[2].value {
        case .byteString(let bytes): payload = bytes
        case .null: payload = nil
        default: throw COSEError(code: .malformedStructure, message: "the COSE_Mac0 payload must be a byte string or null")
        }
        guard let tagBytes = items[3].bytesValue else {
            throw COSEError(code: .malformedStructure, message: "the COSE_Mac0 tag must be a byte string")
        }
        tag = tagBytes
        self.node = node
    }

    /// `["MAC0", protected, external_aad, payload]` around the received bytes.
    public func macStructure(detachedPayload: [UInt8]? = nil, externalAAD: [UInt8] = []) throws(COSEError) -> [UInt8] {
        let content: ArraySlice<UInt8>
        switch (payload, detachedPayload) {
        case (let attached?, nil): content = attached
        case (nil, let supplied?): content = supplied[...]
        case (nil, nil): throw COSEError(code: .payloadMismatch, message: "the payload is detached and none was supplied")
        case (_?, _?): throw COSEError(code: .payloadMismatch, message: "the payload is attached; a detached payload was supplied as well")
        }
        return Self.macStructure(protectedBytes: headers.protectedBytes, payload: content, externalAAD: externalAAD)
    }

    static func macStructure<P: Collection<UInt8>, Q: Collection<UInt8>>(protectedBytes: P, payload: Q, externalAAD: [UInt8]) -> [UInt8] {
        Array(CBORNode.array([.text("MAC0"), .bytes(protectedBytes), .bytes(externalAAD), .bytes(payload)]).encodedBytes)
    }

    /// Verifies the tag with `key` (compared in constant time).
    public func isValidTag(key: SymmetricKey, detachedPayload: [UInt8]? = nil, externalAAD: [UInt8] = []) throws(COSEError) -> Bool {
        let algorithm = try headers.algorithm()
        guard algorithm == .hmac256 else {
            throw COSEError(code: .unsupportedAlgorithm, message: "\(algorithm) is not supported for MACs (HMAC 256/256 is)")
        }
        guard tag.count == 32 else {
            throw COSEError(code: .invalidSignatureFormat, message: "HMAC 256/256 tags are 32 bytes, got \(tag.count)")
        }
        let data = try macStructure(detachedPayload: detachedPayload, externalAAD: externalAAD)
        return HMAC<SHA256>.isValidAuthenticationCode(tag, authenticating: data, using: key)
    }

    /// Creates a COSE_Mac0 with HMAC 256/256.
    public static func mac(payload: [UInt8], key: SymmetricKey, detached: Bool = false, externalAAD: [UInt8] = []) throws -> COSEMac0 {
        let protectedBytes = Array(try CBORNode.map([(.int(COSEHeaderLabel.algorithm), .int(COSEAlgorithm.hmac256.rawValue))]).encodedBytes)
        let data = macStructure(protectedBytes: protectedBytes, payload: payload, externalAAD: externalAAD)
        let tag = Array(HMAC<SHA256>.authenticationCode(for: data, using: key))
        let array = CBORNode.array([.bytes(protectedBytes), try CBORNode.map([]), detached ? .null : .bytes(payload), .bytes(tag)])
        return try COSEMac0(cbor: CBORDecoder.decode(Array(array.encodedBytes)))
    }
}
