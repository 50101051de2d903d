import Crypto
import WalletCBOR

/// COSE_Sign1 (RFC 9052 §4.2): `[protected: bstr, unprotected: map, payload: bstr / nil,
/// signature: bstr]`, optionally tagged 18.
///
/// The Sig_structure is built from the protected-header bytes exactly as received and the payload
/// bytes exactly as received (or as supplied, when detached). ECDSA signatures are the raw
/// concatenation r‖s (64, 96 or 132 bytes); a DER-encoded signature is rejected as malformed.
public struct COSESign1: Sendable {
    /// The whole structure as received.
    public let node: CBORNode
    /// The protected and unprotected headers.
    public let headers: COSEHeaders
    /// The attached payload as received, or nil when detached.
    public let payload: ArraySlice<UInt8>?
    /// The signature as received (raw r‖s for ECDSA).
    public let signature: ArraySlice<UInt8>

    /// Reads a COSE_Sign1 from a decoded item, tagged 18 or untagged.
    /// Throws ``COSEError`` when the shape is wrong or the headers are unusable (an undecodable protected header, any `crit`).
    public init(cbor node: CBORNode) throws(COSEError) {
        var content = node
        if case .tagged(let tag, let inner) = node.value {
            guard tag == 18 else {
                throw COSEError(code: .malformedStructure, message: "COSE_Sign1 may only carry tag 18, found tag \(tag)")
            }
            content = inner
        }
        guard let items = content.arrayValue else {
            throw COSEError(code: .malformedStructure, message: "COSE_Sign1 must be an array of four items, found \(content.value.kindDescription)")
        }
        guard items.count == 4 else {
            throw COSEError(code: .malformedStructure, message: "COSE_Sign1 must be an array of four items, found \(items.count)")
        }
        headers = try COSEHeaders(protectedNode: items[0], unprotectedNode: items[1])
        switch items[2].value {
        case .byteString(let bytes): payload = bytes
        case .null: payload = nil
        default: throw COSEError(code: .malformedStructure, message: "the COSE_Sign1 payload must be a byte string or null")
        }
        guard let signatureBytes = items[3].bytesValue else {
            throw COSEError(code: .malformedStructure, message: "the COSE_Sign1 signature must be a byte string")
        }
        signature = signatureBytes
        self.node = node
    }

    /// Decodes the bytes with the default CBOR limits and reads a COSE_Sign1 from the item.
    /// Throws ``COSEError`` with code `malformedCBOR` when the bytes are not one well-formed CBOR item.
    public init(cborBytes bytes: [UInt8]) throws(COSEError) {
        let node: CBORNode
        do { node = try CBORDecoder.decode(bytes) } catch {
            throw COSEError(code: .malformedCBOR, message: "\(error)")
        }
        try self.init(cbor: node)
    }

    /// The `alg` header parameter; throws ``COSEError`` when it is missing or not an integer.
    public var algorithm: COSEAlgorithm {
        get throws(COSEError) { try headers.algorithm() }
    }

    /// `["Signature1", protected, external_aad, payload]`, deterministically encoded around the
    /// received protected-header and payload bytes.
    public func signatureStructure(detachedPayload: [UInt8]? = nil, externalAAD: [UInt8] = []) throws(COSEError) -> [UInt8] {
        let content = try resolvedPayload(detachedPayload)
        return Self.signatureStructure(protectedBytes: headers.protectedBytes, payload: content, externalAAD: externalAAD)
    }

    static func signatureStructure<P: Collection<UInt8>, Q: Collection<UInt8>>(protectedBytes: P, payload: Q, externalAAD: [UInt8]) -> [UInt8] {
        // Written directly: the same bytes as CBORNode.array([.text("Signature1"), .bytes(protected),
        // .bytes(externalAAD), .bytes(payload)]), with one buffer and one copy of the payload.
        var out: [UInt8] = []
        out.reserveCapacity(
            1 + CBORWriter.stringLength(10) + CBORWriter.stringLength(protectedBytes.count)
                + CBORWriter.stringLength(externalAAD.count) + CBORWriter.stringLength(payload.count))
        CBORWriter.appendHead(major: 4, argument: 4, to: &out)
        CBORWriter.appendText("Signature1", to: &out)
        CBORWriter.appendBytes(protectedBytes, to: &out)
        CBORWriter.appendBytes(externalAAD, to: &out)
        CBORWriter.appendBytes(payload, to: &out)
        return out
    }

    private func resolvedPayload(_ detached: [UInt8]?) throws(COSEError) -> ArraySlice<UInt8> {
        switch (payload, detached) {
        case (let attached?, nil): return attached
        case (nil, let supplied?): return supplied[...]
        case (nil, nil):
            throw COSEError(code: .payloadMismatch, message: "the payload is detached and none was supplied")
        case (_?, _?):
            throw COSEError(code: .payloadMismatch, message: "the payload is attached; a detached payload was supplied as well")
        }
    }

    /// Verifies the signature with `key`.
    ///
    /// - Returns: whether the signature is valid.
    /// - Throws: ``COSEError`` when the structure cannot be verified at all: unknown algorithm, a key
    ///   that does not match the algorithm, a signature of the wrong length (DER instead of r‖s).
    public func isValidSignature(key: COSEPublicKey, detachedPayload: [UInt8]? = nil, externalAAD: [UInt8] = []) throws(COSEError) -> Bool {
        let algorithm = try headers.algorithm()
        let content = try resolvedPayload(detachedPayload)
        return try Self.verify(
            signature: signature, protected: headers.protectedBytes, payload: content, externalAAD: externalAAD, algorithm: algorithm, key: key)
    }

    /// Verifies `signature` over the Sig_structure of these pieces. ECDSA signs a digest, so its
    /// Sig_structure is hashed piece by piece (the same bytes, without copying a payload of a few
    /// kilobytes into a new buffer); EdDSA signs the structure itself.
    static func verify(
        signature: ArraySlice<UInt8>, protected: ArraySlice<UInt8>, payload: ArraySlice<UInt8>, externalAAD: [UInt8], algorithm: COSEAlgorithm,
        key: COSEPublicKey
    ) throws(COSEError) -> Bool {
        func lengthError(_ expected: Int) -> COSEError {
            let hint = (signature.first == 0x30 && signature.count != expected) ? " (it looks DER-encoded; COSE uses raw r‖s)" : ""
            return COSEError(
                code: .invalidSignatureFormat, message: "\(algorithm) signatures are \(expected) bytes r‖s, got \(signature.count)\(hint)")
        }
        switch (algorithm, key) {
        case (.es256, .p256(let k)):
            guard signature.count == 64, let sig = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { throw lengthError(64) }
            return k.isValidSignature(sig, for: digest(SHA256.self, protected: protected, payload: payload, externalAAD: externalAAD))
        case (.es384, .p384(let k)):
            guard signature.count == 96, let sig = try? P384.Signing.ECDSASignature(rawRepresentation: signature) else { throw lengthError(96) }
            return k.isValidSignature(sig, for: digest(SHA384.self, protected: protected, payload: payload, externalAAD: externalAAD))
        case (.es512, .p521(let k)):
            guard signature.count == 132, let sig = try? P521.Signing.ECDSASignature(rawRepresentation: signature) else { throw lengthError(132) }
            return k.isValidSignature(sig, for: digest(SHA512.self, protected: protected, payload: payload, externalAAD: externalAAD))
        case (.edDSA, .ed25519(let k)):
            guard signature.count == 64 else { throw lengthError(64) }
            return k.isValidSignature(signature, for: signatureStructure(protectedBytes: protected, payload: payload, externalAAD: externalAAD))
        case (.es256, _), (.es384, _), (.es512, _), (.edDSA, _):
            throw COSEError(code: .keyAlgorithmMismatch, message: "\(algorithm) cannot be verified with a \(key.curveName) key")
        default:
            throw COSEError(code: .unsupportedAlgorithm, message: "\(algorithm) is not supported for signatures (ES256, ES384, ES512 and EdDSA are)")
        }
    }

    /// The hash of `["Signature1", protected, external_aad, payload]`, fed in pieces: the same bytes as
    /// ``signatureStructure(protectedBytes:payload:externalAAD:)`` writes.
    static func digest<H: HashFunction>(
        _: H.Type, protected: ArraySlice<UInt8>, payload: ArraySlice<UInt8>, externalAAD: [UInt8]
    ) -> H.Digest {
        var hasher = H()
        // The byte-string heads, one at a time, in a buffer of their size.
        var head: [UInt8] = []
        head.reserveCapacity(9)
        func update(byteString content: UnsafeRawBufferPointer) {
            head.removeAll(keepingCapacity: true)
            CBORWriter.appendHead(major: 2, argument: UInt64(content.count), to: &head)
            head.withUnsafeBytes { hasher.update(bufferPointer: $0) }
            hasher.update(bufferPointer: content)
        }
        signature1Prefix.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        protected.withUnsafeBytes { update(byteString: $0) }
        externalAAD.withUnsafeBytes { update(byteString: $0) }
        payload.withUnsafeBytes { update(byteString: $0) }
        return hasher.finalize()
    }

    /// The array head of a Sig_structure and its context text "Signature1".
    static let signature1Prefix: [UInt8] = [0x84, 0x6a] + Array("Signature1".utf8)

    /// Creates and signs a COSE_Sign1. The protected header is encoded once, deterministically, and
    /// the signature covers those bytes.
    public static func sign(
        payload: [UInt8],
        key: COSESigningKey,
        protected extraProtected: [(CBORNode, CBORNode)] = [],
        unprotected: [(CBORNode, CBORNode)] = [],
        detached: Bool = false,
        externalAAD: [UInt8] = [],
        tagged: Bool = false
    ) throws -> COSESign1 {
        let protectedMap = try CBORNode.map([(.int(COSEHeaderLabel.algorithm), .int(key.algorithm.rawValue))] + extraProtected)
        let protectedBytes = Array(protectedMap.encodedBytes)
        let toBeSigned = signatureStructure(protectedBytes: protectedBytes, payload: payload, externalAAD: externalAAD)
        let signature = try key.signature(for: toBeSigned)
        let array = CBORNode.array([
            .bytes(protectedBytes),
            try CBORNode.map(unprotected),
            detached ? .null : .bytes(payload),
            .bytes(signature),
        ])
        let node = tagged ? CBORNode.tagged(18, array) : array
        return try COSESign1(cbor: CBORDecoder.decode(Array(node.encodedBytes)))
    }
}
