import WalletCBOR

/// ISO 18013-5 §8.3.2.1.2.2 IssuerSignedItem:
/// `{"digestID": uint, "random": bstr, "elementIdentifier": tstr, "elementValue": any}`.
/// Carried as `IssuerSignedItemBytes = #6.24(bstr .cbor IssuerSignedItem)`.
public struct IssuerSignedItem: Sendable, CBORDecodable {
    public let digestID: UInt64
    public let random: ArraySlice<UInt8>
    public let elementIdentifier: String
    /// The value as received.
    public let elementValue: CBORNode

    public init(cbor node: CBORNode) throws(CBORError) {
        let map = try node.map("IssuerSignedItem")
        digestID = try map.required("digestID", in: "IssuerSignedItem").uint("digestID")
        random = try map.required("random", in: "IssuerSignedItem").bytes("random")
        elementIdentifier = try map.required("elementIdentifier", in: "IssuerSignedItem").text("elementIdentifier")
        elementValue = try map.required("elementValue", in: "IssuerSignedItem")
    }
}
