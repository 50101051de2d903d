import WalletCBOR

/// The two header buckets of a COSE message. The protected bucket keeps the exact bytes it was
/// received as: signatures and MACs are computed over those bytes, never over a re-encoding.
public struct COSEHeaders: Sendable {
    /// The content of the protected-header byte string, as received (may be empty).
    public let protectedBytes: ArraySlice<UInt8>
    /// The decoded protected header (empty when ``protectedBytes`` is empty).
    public let protected: CBORMap
    /// The unprotected header, which signatures and MACs do not cover.
    public let unprotected: CBORMap

    init(protectedNode: CBORNode, unprotectedNode: CBORNode) throws(COSEError) {
        guard let bytes = protectedNode.bytesValue else {
            throw COSEError(code: .malformedStructure, message: "the protected header must be a byte string")
        }
        protectedBytes = bytes
        if bytes.isEmpty {
            protected = .empty
        } else if let common = Self.commonProtected(bytes) {
            protected = common
        } else {
            do {
                protected = try CBORDecoder.decode(bytes).map("protected header")
            } catch {
                throw COSEError(code: .malformedStructure, message: "the protected header is not a CBOR map: \(error)")
            }
        }
        guard let unprotectedMap = unprotectedNode.mapValue else {
            throw COSEError(code: .malformedStructure, message: "the unprotected header must be a map")
        }
        unprotected = unprotectedMap
        if let critical = protected[COSEHeaderLabel.critical] {
            // We understand none of the optional parameters that would need `crit`.
            let labels = critical.arrayValue?.map { $0.integerValue.map(String.init) ?? $0.textValue ?? "?" } ?? ["?"]
            throw COSEError(
                code: .unsupportedCriticalHeader, message: "critical header parameters \(labels.joined(separator: ", ")) are not supported")
        }
    }

    /// The protected headers nearly every mdoc and COSE message carries, `{1: alg}` alone for ES256,
    /// ES384, ES512 and EdDSA, decoded once by the same decoder: received bytes equal to one of these
    /// decode to the same map (only its nodes' offsets differ), so the decode is skipped. The bytes
    /// signed and verified are still ``protectedBytes``, as received.
    private static let common: [(bytes: [UInt8], map: CBORMap)] = [
        [0xa1, 0x01, 0x26], [0xa1, 0x01, 0x38, 0x22], [0xa1, 0x01, 0x38, 0x23], [0xa1, 0x01, 0x27],
    ]
    .compactMap { bytes in (try? CBORDecoder.decode(bytes).map("protected header")).map { (bytes, $0) } }

    private static func commonProtected(_ bytes: ArraySlice<UInt8>) -> CBORMap? {
        guard bytes.count <= 4 else { return nil }
        for entry in common where entry.bytes.elementsEqual(bytes) { return entry.map }
        return nil
    }

    /// A header value, protected bucket first.
    public subscript(label: Int64) -> CBORNode? {
        protected[label] ?? unprotected[label]
    }

    /// The `alg` parameter. RFC 9052 wants it protected; an unprotected one is accepted only if the
    /// protected bucket has none.
    public func algorithm() throws(COSEError) -> COSEAlgorithm {
        guard let node = self[COSEHeaderLabel.algorithm] else {
            throw COSEError(code: .unsupportedAlgorithm, message: "no alg header parameter")
        }
        guard let value = node.integerValue else {
            throw COSEError(code: .unsupportedAlgorithm, message: "alg must be an integer, found \(node.value.kindDescription)")
        }
        return COSEAlgorithm(rawValue: value)
    }

    /// The DER certificates of the x5chain parameter (label 33), leaf first.
    public func x5chain() throws(COSEError) -> [[UInt8]] {
        try x5chainBytes().map { Array($0) }
    }

    /// The DER certificates of the x5chain parameter (label 33), leaf first, as slices of the
    /// received bytes (no copies).
    public func x5chainBytes() throws(COSEError) -> [ArraySlice<UInt8>] {
        guard let node = self[COSEHeaderLabel.x5chain] else {
            throw COSEError(code: .missingCertificateChain, message: "no x5chain (33) header parameter")
        }
        if let single = node.bytesValue { return [single] }
        if let items = node.arrayValue, !items.isEmpty {
            var chain: [ArraySlice<UInt8>] = []
            chain.reserveCapacity(items.count)
            for item in items {
                guard let der = item.bytesValue else {
                    throw COSEError(code: .malformedStructure, message: "x5chain entries must be byte strings")
                }
                chain.append(der)
            }
            return chain
        }
        throw COSEError(code: .malformedStructure, message: "x5chain must be a byte string or a non-empty array of byte strings")
    }
}
