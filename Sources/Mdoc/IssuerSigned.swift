import Synchronization
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

    /// Namespaces in received order. A document read in place keeps its items as
    /// ``elements``; these are decoded from their bytes the first time they are asked for (the
    /// verifier does not ask).
    public var nameSpaces: [NameSpace] {
        decoded.state.withLock { stored in
            if let stored { return stored }
            let made = elements.decodedNameSpaces()
            stored = made
            return made
        }
    }
    /// The items as one table: what the verifier reads.
    public let elements: IssuerSignedElements
    /// The issuer's COSE_Sign1 over the MobileSecurityObjectBytes.
    public let issuerAuth: COSESign1
    private let decoded: DecodedNameSpaces

    /// ``nameSpaces`` once decoded, shared by every copy (safe from several tasks at once). A class of
    /// its own rather than a generic box: freeing a generic box looked its type's metadata up at run
    /// time, for every document verified.
    private final class DecodedNameSpaces: Sendable {
        let state: Mutex<[NameSpace]?>
        init(_ value: [NameSpace]?) { state = Mutex(value) }
    }

    /// Reads IssuerSigned in place: namespaces and items into ``elements`` without a node tree or an
    /// item structure (an mdoc discloses one item per element), issuerAuth as a node. Nil for anything
    /// unusual or wrong; the caller then decodes generically, which accepts the same inputs and gives
    /// the precise error.
    init?(reading reader: inout CBORValueReader) {
        var names: [String] = []
        var elements: [IssuerSignedElements.Element] = []
        var auth: COSESign1?
        // One reference to the received bytes: every item is a range of it.
        let input = reader.input
        let read = reader.textKeyedMap { key, value in
            switch key.count {
            case 10 where TextKeys.equal(key, "nameSpaces"):
                // Declared counts are the input's word: capacity never beyond what the read accepts.
                names.reserveCapacity(min(value.definiteMapCount() ?? 0, 64))
                return value.textKeyedMap(maxEntries: 64) { nameBytes, list in
                    let index = names.count
                    names.append(CBORKnownTexts.iso18013_5.text(utf8: nameBytes))
                    elements.reserveCapacity(elements.count + min(list.definiteArrayCount() ?? 0, 4096))
                    return list.array(maxItems: 4096) { item in
                        guard let element = Self.readElement(&item, nameSpace: index, input: input) else { return false }
                        elements.append(element)
                        return true
                    }
                }
            case 10 where TextKeys.equal(key, "issuerAuth"):
                guard let node = value.node() else { return false }
                auth = try? COSESign1(cbor: node)
                return auth != nil
            default:
                return true
            }
        }
        guard read, let auth = auth.take() else { return nil }
        self.elements = IssuerSignedElements(nameSpaces: names, elements: elements, bytes: input)
        self.issuerAuth = auth
        self.decoded = DecodedNameSpaces(nil)
    }

    /// One `IssuerSignedItemBytes` read in place into an element: the item's map without nodes, its
    /// value straight into an ``ElementValue``. An item the in-place reading does not take (an unusual
    /// value or form) is decoded by ``IssuerSignedItem/init(embeddedCBOR:limits:)``, with the same
    /// result; nil when that fails too or it is not a tag-24 item.
    static func readElement(_ reader: inout CBORValueReader, nameSpace: Int, input: ArraySlice<UInt8>) -> IssuerSignedElements.Element? {
        guard let ranges = reader.embeddedItemRanges() else { return nil }
        let limits = CBORDecoder.Limits.default
        var digestID: UInt64?
        var identifier: String?
        var value: ElementValue?
        var random = false
        // The item's map read on the response's own parser, as a decoder of its own would read it.
        let read = reader.readEmbedded(ranges.inner, limits: limits) {
            $0.textKeyedMap { key, field in
                switch key.count {
                case 8 where TextKeys.equal(key, "digestID"):
                    digestID = field.unsignedInt()
                    return digestID != nil
                case 6 where TextKeys.equal(key, "random"):
                    random = field.byteStringRange() != nil
                    return random
                case 17 where TextKeys.equal(key, "elementIdentifier"):
                    identifier = field.textString()
                    return identifier != nil
                case 12 where TextKeys.equal(key, "elementValue"):
                    value = ElementValue.read(&field, depth: IssuerSignedItem.elementValueDepth, limits: limits)
                    return value != nil
                default:
                    return true
                }
            }
        }
        if read, random, let digestID, let identifier = identifier.take(), let value = value.take() {
            return .init(nameSpace: nameSpace, digestID: digestID, identifier: identifier, value: value, taggedRange: ranges.tagged)
        }
        guard let item = try? IssuerSignedItem(embeddedCBOR: input[ranges.inner], limits: limits) else { return nil }
        return .init(
            nameSpace: nameSpace, digestID: item.digestID, identifier: item.elementIdentifier,
            value: ElementValue(item.elementValue, depth: IssuerSignedItem.elementValueDepth, limits: limits), taggedRange: ranges.tagged)
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
        elements = IssuerSignedElements(spaces)
        decoded = DecodedNameSpaces(spaces)
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
