import WalletCBOR
import WalletCOSE

/// ISO 18013-5 IssuerSigned: `{? "nameSpaces": IssuerNameSpaces, "issuerAuth": COSE_Sign1}` where
/// `IssuerNameSpaces = {+ NameSpace => [+ IssuerSignedItemBytes]}`.
public struct IssuerSigned: Sendable {
    /// One namespace's issuer-signed items, in received order.
    public struct NameSpace: Sendable {
        /// The namespace identifier, such as `org.iso.18013.5.1`.
        public let name: String
        /// Each item keeps its tag-24 bytes as received: the value digest is computed over them.
        public let items: [EmbeddedCBOR<IssuerSignedItem>]
    }

    /// Namespaces in received order.
    public let nameSpaces: [NameSpace]
    /// The issuer's COSE_Sign1 over the MobileSecurityObjectBytes.
    public let issuerAuth: COSESign1

    /// Reads IssuerSigned in place: namespaces and items without a node tree (an mdoc discloses one
    /// item per element), issuerAuth as a node. Nil for anything unusual or wrong; the caller then
    /// decodes generically, which accepts the same inputs and gives the precise error.
    init?(reading reader: inout CBORValueReader) {
        var spaces: [NameSpace] = []
        var auth: COSESign1?
        let read = reader.textKeyedMap { key, value in
            switch key.count {
            case 10 where TextKeys.equal(key, "nameSpaces"):
                // Declared counts are the input's word: capacity never beyond what the read accepts.
                spaces.reserveCapacity(min(value.definiteMapCount() ?? 0, 64))
                return value.textKeyedMap(maxEntries: 64) { nameBytes, list in
                    let name = CBORKnownTexts.iso18013_5.text(utf8: nameBytes)
                    var items: [EmbeddedCBOR<IssuerSignedItem>] = []
                    items.reserveCapacity(min(list.definiteArrayCount() ?? 0, 4096))
                    let read = list.array(maxItems: 4096) { item in
                        guard let embedded = EmbeddedCBOR<IssuerSignedItem>(reading: &item, limits: .default) else { return false }
                        items.append(embedded)
                        return true
                    }
                    spaces.append(NameSpace(name: name, items: items))
                    return read
                }
            case 10 where TextKeys.equal(key, "issuerAuth"):
                guard let node = value.node(), let sign1 = try? COSESign1(cbor: node) else { return false }
                auth = sign1
                return true
            default:
                return true
            }
        }
        guard read, let auth = auth.take() else { return nil }
        nameSpaces = spaces
        issuerAuth = auth
    }

    /// Decodes IssuerSigned from a node.
    /// Throws ``MdocDecodingError`` when it is not a map, a namespace or item is malformed, or issuerAuth is missing or not a COSE_Sign1.
    public init(cbor node: CBORNode) throws(MdocDecodingError) {
        let map = try decoding("IssuerSigned") { () throws(CBORError) in try node.map("IssuerSigned") }
        var spaces: [NameSpace] = []
        if let nameSpacesNode = map["nameSpaces"] {
            let entries = try decoding("IssuerSigned.nameSpaces") { () throws(CBORError) in try nameSpacesNode.map("nameSpaces") }
            for entry in entries {
                let name = try decoding("IssuerSigned.nameSpaces") { () throws(CBORError) in try entry.key.text("namespace name") }
                let items = try decoding("IssuerSigned.nameSpaces[\(name)]") { () throws(CBORError) in
                    try entry.value.array("items of \(name)").map { (item) throws(CBORError) in try EmbeddedCBOR<IssuerSignedItem>(cbor: item) }
                }
                spaces.append(NameSpace(name: name, items: items))
            }
        }
        nameSpaces = spaces
        guard let authNode = map["issuerAuth"] else {
            // Seed 002 (ProximityReader): Apple's developer integrator profile returns mock data with a
            // real device signature and no issuer signature. Whatever its origin, nothing vouches for it.
            throw MdocDecodingError(
                MdocDecodingError.Code(CBORError.Code.missingField),
                "IssuerSigned: missing \"issuerAuth\": the response carries no issuer signature, so no issuer vouches for its elements. This is test data (mock data such as ProximityReader returns under a developer integrator profile), never a real document"
            )
        }
        do {
            issuerAuth = try COSESign1(cbor: authNode)
        } catch {
            throw MdocDecodingError(error, in: "issuerAuth")
        }
    }
}
