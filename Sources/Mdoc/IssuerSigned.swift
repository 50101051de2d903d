import WalletCBOR
import WalletCOSE

/// ISO 18013-5 IssuerSigned: `{? "nameSpaces": IssuerNameSpaces, "issuerAuth": COSE_Sign1}` where
/// `IssuerNameSpaces = {+ NameSpace => [+ IssuerSignedItemBytes]}`.
public struct IssuerSigned: Sendable {
    public struct NameSpace: Sendable {
        public let name: String
        /// Each item keeps its tag-24 bytes as received: the value digest is computed over them.
        public let items: [EmbeddedCBOR<IssuerSignedItem>]
    }

    /// Namespaces in received order.
    public let nameSpaces: [NameSpace]
    /// The issuer's COSE_Sign1 over the MobileSecurityObjectBytes.
    public let issuerAuth: COSESign1

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
        let authNode = try decoding("IssuerSigned") { () throws(CBORError) in try map.required("issuerAuth", in: "IssuerSigned") }
        do {
            issuerAuth = try COSESign1(cbor: authNode)
        } catch {
            throw MdocDecodingError(error, in: "issuerAuth")
        }
    }
}
