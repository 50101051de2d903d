import Synchronization
import WalletCBOR
import WalletCOSE
import WalletEncoding

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// ISO 18013-5 §9.1.2.4 MobileSecurityObject, the payload the issuer signs (as
/// `MobileSecurityObjectBytes = #6.24(bstr .cbor MobileSecurityObject)`).
///
/// A class (immutable), like ``Document``: several checks read it, and sharing a reference is
/// cheaper than copying its dictionaries, strings and nodes.
public final class MobileSecurityObject: Sendable, CBORDecodable {
    /// The MSO's `validityInfo`: when the issuer signed it and when it is valid.
    public struct ValidityInfo: Sendable {
        /// When the issuer signed the MSO.
        public let signed: Date
        /// Start of the validity window.
        public let validFrom: Date
        /// End of the validity window.
        public let validUntil: Date
        /// When the issuer expects to re-sign the MSO; nil when absent.
        public let expectedUpdate: Date?
    }

    /// The MSO's `keyAuthorizations`: which elements the device key may sign.
    public struct KeyAuthorizations: Sendable {
        /// Namespaces the device key may sign as a whole.
        public let nameSpaces: [String]
        /// Individual elements the device key may sign: namespace → identifiers.
        public let dataElements: [String: [String]]

        /// Whether the device key may sign this element: its whole namespace, or the element itself, is authorized.
        public func allows(nameSpace: String, identifier: String) -> Bool {
            nameSpaces.contains(nameSpace) || (dataElements[nameSpace]?.contains(identifier) ?? false)
        }
    }

    /// The MSO version as received; `mdoc.mso.version` requires at least 1.0 and not above the response's.
    public let version: String
    /// "SHA-256", "SHA-384" or "SHA-512" as received.
    public let digestAlgorithm: String
    /// namespace → digestID → digest. Built from ``digests`` the first time it is asked for (the
    /// verifier reads ``digests``).
    public var valueDigests: [String: [UInt64: ArraySlice<UInt8>]] {
        dictionary.withLock { stored in
            if let stored { return stored }
            let made = digests.dictionary()
            stored = made
            return made
        }
    }
    /// The value digests as one table: what the verifier reads.
    public let digests: MSOValueDigests
    /// ``valueDigests`` once built (the MSO is a class: the lock is its own field, not a box).
    private let dictionary: Mutex<[String: [UInt64: ArraySlice<UInt8>]]?>
    /// The COSE_Key as received.
    public let deviceKeyNode: CBORNode
    /// The device key, or why it cannot be used.
    public let deviceKey: Result<COSEPublicKey, COSEError>
    /// What the device key may sign; nil when the MSO has none, which authorizes no device-signed element.
    public let keyAuthorizations: KeyAuthorizations?
    /// The docType the issuer signed; `mdoc.docType` requires it to equal the document's.
    public let docType: String
    /// When the MSO was signed and when it is valid.
    public let validityInfo: ValidityInfo
    /// The `status` entry (revocation information: identifier_list / status_list), kept as received.
    public let status: CBORNode?

    private init(
        version: String, digestAlgorithm: String, digests: MSOValueDigests, dictionary: [String: [UInt64: ArraySlice<UInt8>]]?, keyInfo: KeyInfo,
        docType: String, validityInfo: ValidityInfo, status: CBORNode?
    ) {
        self.version = version
        self.digestAlgorithm = digestAlgorithm
        self.digests = digests
        self.dictionary = Mutex(dictionary)
        self.deviceKeyNode = keyInfo.deviceKeyNode
        self.deviceKey = keyInfo.deviceKey
        self.keyAuthorizations = keyInfo.keyAuthorizations
        self.docType = docType
        self.validityInfo = validityInfo
        self.status = status
    }

    /// Decodes the MSO from its map node.
    /// Throws `CBORError` when a required field is missing or malformed; an unusable device key is kept in ``deviceKey``, not thrown.
    public convenience init(cbor node: CBORNode) throws(CBORError) {
        let map = try node.map("MobileSecurityObject")
        let version = try map.required("version", in: "MSO").text("MSO version")
        let digestAlgorithm = try map.required("digestAlgorithm", in: "MSO").text("digestAlgorithm")
        var digests: [String: [UInt64: ArraySlice<UInt8>]] = [:]
        var list: [(name: String, digests: [(id: UInt64, digest: ArraySlice<UInt8>)])] = []
        for space in try map.required("valueDigests", in: "MSO").map("valueDigests") {
            let name = try space.key.text("valueDigests namespace")
            let entries = try space.value.map("digests of \(name)")
            var ids: [UInt64: ArraySlice<UInt8>] = [:]
            ids.reserveCapacity(entries.count)
            var listed: [(id: UInt64, digest: ArraySlice<UInt8>)] = []
            for entry in entries {
                let (id, digest) = (try entry.key.uint("digestID"), try entry.value.bytes("digest"))
                ids[id] = digest
                listed.append((id, digest))
            }
            digests[name] = ids
            list.append((name, listed))
        }
        let keyInfo = try KeyInfo(map.required("deviceKeyInfo", in: "MSO"))
        let docType = try map.required("docType", in: "MSO").text("MSO docType")
        let validity = try Self.validityInfo(map.required("validityInfo", in: "MSO"))
        self.init(
            version: version, digestAlgorithm: digestAlgorithm, digests: MSOValueDigests(list), dictionary: digests, keyInfo: keyInfo,
            docType: docType, validityInfo: validity, status: map["status"])
    }

    /// Reads the MSO from its encoded bytes, the value digests in place (no nodes for them: there is
    /// one per element the issuer signed). Anything unusual, and every error, goes through the
    /// generic decoder and ``init(cbor:)``, so the result and the errors are the same as theirs.
    public convenience init(embeddedCBOR bytes: ArraySlice<UInt8>, limits: CBORDecoder.Limits) throws(CBORError) {
        let decoder = CBORDecoder(limits: limits, knownTexts: .iso18013_5)
        var version: String?, digestAlgorithm: String?, docType: String?
        var keyInfoNode: CBORNode?, validity: ValidityInfo?, status: CBORNode?
        // The digests go straight into the table's arrays: no array per namespace.
        var digestNames: [String] = []
        var digestSpans: [Range<Int>] = []
        var digestEntries: [(id: UInt64, range: Range<Int>)] = []
        var sawDigests = false
        let read = decoder.readTextKeyedMap(bytes) { key, value in
            switch key.count {
            case 7 where TextKeys.equal(key, "version"):
                guard let read = value.textString() else { return false }
                version = read
                return true
            case 15 where TextKeys.equal(key, "digestAlgorithm"):
                guard let read = value.textString() else { return false }
                digestAlgorithm = read
                return true
            case 12 where TextKeys.equal(key, "valueDigests"):
                sawDigests = true
                return value.textKeyedMap(maxEntries: 64) { name, space in
                    let start = digestEntries.count
                    // Sized once per namespace (the reader below accepts at most 256 entries).
                    digestEntries.reserveCapacity(start + min(space.definiteMapCount() ?? 0, 256))
                    let complete = space.unsignedIntKeyedMap { id, digest in
                        // A range of the MSO's bytes per digest: no slice, no reference.
                        guard let range = digest.byteStringRange() else { return false }
                        digestEntries.append((id, range))
                        return true
                    }
                    digestNames.append(CBORKnownTexts.iso18013_5.text(utf8: name))
                    digestSpans.append(start..<digestEntries.count)
                    return complete
                }
            case 13 where TextKeys.equal(key, "deviceKeyInfo"):
                guard let read = value.node() else { return false }
                keyInfoNode = read
                return true
            case 7 where TextKeys.equal(key, "docType"):
                guard let read = value.textString() else { return false }
                docType = read
                return true
            case 12 where TextKeys.equal(key, "validityInfo"):
                guard let read = Self.readValidityInfo(&value) else { return false }
                validity = read
                return true
            case 6 where TextKeys.equal(key, "status"):
                guard let read = value.node() else { return false }
                status = read
                return true
            default:
                return true
            }
        }
        // Moved out of the optionals (`take()`), not copied.
        if read, sawDigests, let version = version.take(), let digestAlgorithm = digestAlgorithm.take(), let docType = docType.take(),
            let keyInfoNode = keyInfoNode.take(), let validity, let keyInfo = try? KeyInfo(keyInfoNode)
        {
            self.init(
                version: version, digestAlgorithm: digestAlgorithm,
                digests: MSOValueDigests(nameSpaces: digestNames, spans: digestSpans, entries: digestEntries, bytes: bytes), dictionary: nil,
                keyInfo: keyInfo, docType: docType, validityInfo: validity, status: status.take())
        } else {
            try self.init(cbor: decoder.decode(bytes))
        }
    }

    /// `deviceKeyInfo`: the device key (as received and decoded) and its authorizations.
    private struct KeyInfo {
        let deviceKeyNode: CBORNode
        let deviceKey: Result<COSEPublicKey, COSEError>
        let keyAuthorizations: KeyAuthorizations?

        init(_ node: CBORNode) throws(CBORError) {
            let keyInfo = try node.map("deviceKeyInfo")
            deviceKeyNode = try keyInfo.required("deviceKey", in: "deviceKeyInfo")
            do {
                deviceKey = .success(try COSEPublicKey(coseKey: deviceKeyNode))
            } catch {
                deviceKey = .failure(error)
            }
            if let authorizations = keyInfo["keyAuthorizations"] {
                let authMap = try authorizations.map("keyAuthorizations")
                let spaces =
                    try authMap["nameSpaces"].map { (n) throws(CBORError) in
                        try n.array("keyAuthorizations.nameSpaces").map { (s) throws(CBORError) in try s.text("namespace") }
                    } ?? []
                var elements: [String: [String]] = [:]
                if let dataElements = authMap["dataElements"] {
                    for entry in try dataElements.map("keyAuthorizations.dataElements") {
                        elements[try entry.key.text("namespace")] = try entry.value.array("data elements").map { (s) throws(CBORError) in
                            try s.text("identifier")
                        }
                    }
                }
                keyAuthorizations = KeyAuthorizations(nameSpaces: spaces, dataElements: elements)
            } else {
                keyAuthorizations = nil
            }
        }
    }

    /// Reads `validityInfo` in place: a map with text keys whose dates are tag 0 (RFC 3339 text) or
    /// tag 1 with an unsigned integer. Nil for anything else (a tag-1 float or negative number, a
    /// missing date, a malformed one): ``validityInfo(_:)`` then decides, with the precise error.
    private static func readValidityInfo(_ reader: inout CBORValueReader) -> ValidityInfo? {
        var signed: Date?, validFrom: Date?, validUntil: Date?, expectedUpdate: Date?
        func date(_ value: inout CBORValueReader) -> Date? {
            var date: Date?
            guard
                value.tagged({ tag, content in
                    switch tag {
                    case 0:
                        // Read from the bytes: a date's text is longer than a string holds without allocating.
                        guard let parsed = content.withTextString(RFC3339.parseDateTime(utf8:)), let seconds = parsed else { return false }
                        date = Date(timeIntervalSince1970: seconds)
                    case 1:
                        guard let seconds = content.unsignedInt(), seconds <= UInt64(Int64.max) else { return false }
                        date = Date(timeIntervalSince1970: Double(Int64(seconds)))
                    default:
                        return false
                    }
                    return true
                })
            else { return nil }
            return date
        }
        let read = reader.textKeyedMap { key, value in
            switch key.count {
            case 6 where TextKeys.equal(key, "signed"):
                signed = date(&value)
                return signed != nil
            case 9 where TextKeys.equal(key, "validFrom"):
                validFrom = date(&value)
                return validFrom != nil
            case 10 where TextKeys.equal(key, "validUntil"):
                validUntil = date(&value)
                return validUntil != nil
            case 14 where TextKeys.equal(key, "expectedUpdate"):
                expectedUpdate = date(&value)
                return expectedUpdate != nil
            default:
                return true
            }
        }
        guard read, let signed, let validFrom, let validUntil else { return nil }
        return ValidityInfo(signed: signed, validFrom: validFrom, validUntil: validUntil, expectedUpdate: expectedUpdate)
    }

    private static func validityInfo(_ node: CBORNode) throws(CBORError) -> ValidityInfo {
        let validity = try node.map("validityInfo")
        func date(_ key: String) throws(CBORError) -> Date {
            try CBORDateTime(cbor: try validity.required(key, in: "validityInfo")).date
        }
        return ValidityInfo(
            signed: try date("signed"),
            validFrom: try date("validFrom"),
            validUntil: try date("validUntil"),
            expectedUpdate: try validity["expectedUpdate"].map { (n) throws(CBORError) in try CBORDateTime(cbor: n).date }
        )
    }
}
