import WalletCBOR
import WalletCOSE

/// ISO 18013-5 DeviceSigned: `{"nameSpaces": DeviceNameSpacesBytes, "deviceAuth": DeviceAuth}` with
/// `DeviceNameSpacesBytes = #6.24(bstr .cbor {* NameSpace => {+ DataElementIdentifier => any}})`.
public struct DeviceSigned: Sendable {
    /// The tag-24 item as received; it goes into DeviceAuthentication unchanged.
    public let nameSpacesBytes: CBORNode
    /// Device-signed elements: namespace → identifier → value.
    public let nameSpaces: [(name: String, elements: [(identifier: String, value: CBORNode)])]
    /// The device's signature or MAC over DeviceAuthentication.
    public let deviceAuth: DeviceAuth

    /// The depth of a device-signed element value in a DeviceResponse (DeviceResponse, documents,
    /// Document, deviceSigned, tag 24, its byte string, the namespaces map, a namespace's map, the
    /// value): see ``IssuerSignedItem/elementValueDepth``.
    public static let elementValueDepth = 9

    /// Decodes DeviceSigned from a node.
    /// Throws ``MdocDecodingError`` when a field is missing, nameSpaces is not a tag-24 map of maps, a value nests too deep,
    /// or deviceAuth is malformed.
    public init(cbor node: CBORNode) throws(MdocDecodingError) {
        let map = try decoding("DeviceSigned") { () throws(CBORError) in try node.map("DeviceSigned") }
        let bytesNode = try decoding("DeviceSigned") { () throws(CBORError) in try map.required("nameSpaces", in: "DeviceSigned") }
        let embedded = try decoding("DeviceSigned.nameSpaces") { () throws(CBORError) in try EmbeddedCBOR<CBORNode>(cbor: bytesNode) }
        nameSpacesBytes = bytesNode
        nameSpaces = try Self.nameSpaces(embedded.value)
        let authNode = try decoding("DeviceSigned") { () throws(CBORError) in try map.required("deviceAuth", in: "DeviceSigned") }
        deviceAuth = try DeviceAuth(cbor: authNode)
    }

    /// Reads DeviceSigned in place: its map and deviceAuth's without nodes, the namespaces and the
    /// COSE structure as nodes. Nil for anything unusual or wrong; the caller then decodes
    /// generically (``init(cbor:)``), which accepts the same inputs and gives the precise error.
    init?(reading reader: inout CBORValueReader) {
        var embedded: EmbeddedCBOR<CBORNode>?
        var auth: DeviceAuth?
        let read = reader.textKeyedMap { key, value in
            switch key.count {
            case 10 where TextKeys.equal(key, "nameSpaces"):
                embedded = EmbeddedCBOR<CBORNode>(reading: &value, limits: .default)
                return embedded != nil
            case 10 where TextKeys.equal(key, "deviceAuth"):
                let read = value.textKeyedMap(maxEntries: 4) { name, cose in
                    let signature = name.count == 15 && TextKeys.equal(name, "deviceSignature")
                    guard signature || (name.count == 9 && TextKeys.equal(name, "deviceMac")) else { return true }
                    // Both present is an error, which the generic decode reports.
                    guard auth == nil, let node = cose.node() else { return false }
                    // Built straight into `auth`: a structure bound on the way would be copied.
                    auth = signature ? (try? COSESign1(cbor: node)).map(DeviceAuth.signature) : (try? COSEMac0(cbor: node)).map(DeviceAuth.mac)
                    return auth != nil
                }
                return read && auth != nil
            default:
                return true
            }
        }
        guard read, let embedded, let auth = auth.take(), let spaces = try? Self.nameSpaces(embedded.value) else { return nil }
        nameSpacesBytes = embedded.node
        nameSpaces = spaces
        deviceAuth = auth
    }

    /// The device-signed elements of DeviceNameSpaces (`{* NameSpace => {+ DataElementIdentifier => any}}`).
    private static func nameSpaces(_ node: CBORNode) throws(MdocDecodingError) -> [(name: String, elements: [(identifier: String, value: CBORNode)])]
    {
        var spaces: [(name: String, elements: [(identifier: String, value: CBORNode)])] = []
        let entries = try decoding("DeviceNameSpaces") { () throws(CBORError) in try node.map("DeviceNameSpaces") }
        for entry in entries {
            let name = try decoding("DeviceNameSpaces") { () throws(CBORError) in try entry.key.text("namespace name") }
            let elements = try decoding("DeviceNameSpaces[\(name)]") { () throws(CBORError) in try entry.value.map("device-signed items") }
            var list: [(identifier: String, value: CBORNode)] = []
            for element in elements {
                let identifier = try decoding("DeviceNameSpaces[\(name)]") { () throws(CBORError) in try element.key.text("element identifier") }
                try decoding("DeviceNameSpaces[\(name)][\(identifier)]") { () throws(CBORError) in
                    try element.value.checkEmbeddedNesting(depth: Self.elementValueDepth)
                }
                list.append((identifier, element.value))
            }
            spaces.append((name, list))
        }
        return spaces
    }
}

/// `DeviceAuth = {"deviceSignature": COSE_Sign1} / {"deviceMac": COSE_Mac0}`.
public enum DeviceAuth: Sendable {
    /// `deviceSignature`: a COSE_Sign1 made with the device key.
    case signature(COSESign1)
    /// `deviceMac`: a COSE_Mac0; verifying it needs the reader's ephemeral private key.
    case mac(COSEMac0)

    /// Decodes DeviceAuth from a node.
    /// Throws ``MdocDecodingError`` when the map has neither or both entries, or the COSE structure is malformed.
    public init(cbor node: CBORNode) throws(MdocDecodingError) {
        let map = try decoding("DeviceAuth") { () throws(CBORError) in try node.map("DeviceAuth") }
        let signature = map["deviceSignature"]
        let mac = map["deviceMac"]
        switch (signature, mac) {
        case (let s?, nil):
            do { self = .signature(try COSESign1(cbor: s)) } catch { throw MdocDecodingError(error, in: "deviceSignature") }
        case (nil, let m?):
            do { self = .mac(try COSEMac0(cbor: m)) } catch { throw MdocDecodingError(error, in: "deviceMac") }
        case (nil, nil):
            throw MdocDecodingError(.missingField, "DeviceAuth has neither deviceSignature nor deviceMac")
        case (_?, _?):
            throw MdocDecodingError(.malformedStructure, "DeviceAuth has both deviceSignature and deviceMac")
        }
    }
}
