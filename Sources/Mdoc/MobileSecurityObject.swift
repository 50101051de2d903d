#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import WalletCBOR
import WalletCOSE

/// ISO 18013-5 §9.1.2.4 MobileSecurityObject, the payload the issuer signs (as
/// `MobileSecurityObjectBytes = #6.24(bstr .cbor MobileSecurityObject)`).
///
/// A class (immutable), like ``Document``: several checks read it, and sharing a reference is
/// cheaper than copying its dictionaries, strings and nodes.
public final class MobileSecurityObject: Sendable, CBORDecodable {
    public struct ValidityInfo: Sendable {
        public let signed: Date
        public let validFrom: Date
        public let validUntil: Date
        public let expectedUpdate: Date?
    }

    public struct KeyAuthorizations: Sendable {
        /// Namespaces the device key may sign as a whole.
        public let nameSpaces: [String]
        /// Individual elements the device key may sign: namespace → identifiers.
        public let dataElements: [String: [String]]

        public func allows(nameSpace: String, identifier: String) -> Bool {
            nameSpaces.contains(nameSpace) || (dataElements[nameSpace]?.contains(identifier) ?? false)
        }
    }

    public let version: String
    /// "SHA-256", "SHA-384" or "SHA-512" as received.
    public let digestAlgorithm: String
    /// namespace → digestID → digest.
    public let valueDigests: [String: [UInt64: ArraySlice<UInt8>]]
    /// The COSE_Key as received.
    public let deviceKeyNode: CBORNode
    /// The device key, or why it cannot be used.
    public let deviceKey: Result<COSEPublicKey, COSEError>
    public let keyAuthorizations: KeyAuthorizations?
    public let docType: String
    public let validityInfo: ValidityInfo
    /// The `status` entry (revocation information: identifier_list / status_list), kept as received.
    public let status: CBORNode?

    public init(cbor node: CBORNode) throws(CBORError) {
        let map = try node.map("MobileSecurityObject")
        version = try map.required("version", in: "MSO").text("MSO version")
        digestAlgorithm = try map.required("digestAlgorithm", in: "MSO").text("digestAlgorithm")
        var digests: [String: [UInt64: ArraySlice<UInt8>]] = [:]
        for space in try map.required("valueDigests", in: "MSO").map("valueDigests") {
            let name = try space.key.text("valueDigests namespace")
            let entries = try space.value.map("digests of \(name)")
            var ids: [UInt64: ArraySlice<UInt8>] = [:]
            ids.reserveCapacity(entries.count)
            for entry in entries {
                ids[try entry.key.uint("digestID")] = try entry.value.bytes("digest")
            }
            digests[name] = ids
        }
        valueDigests = digests

        let keyInfo = try map.required("deviceKeyInfo", in: "MSO").map("deviceKeyInfo")
        deviceKeyNode = try keyInfo.required("deviceKey", in: "deviceKeyInfo")
        do {
            deviceKey = .success(try COSEPublicKey(coseKey: deviceKeyNode))
        } catch {
            deviceKey = .failure(error)
        }
        if let authorizations = keyInfo["keyAuthorizations"] {
            let authMap = try authorizations.map("keyAuthorizations")
            let spaces = try authMap["nameSpaces"].map { (n) throws(CBORError) in try n.array("keyAuthorizations.nameSpaces").map { (s) throws(CBORError) in try s.text("namespace") } } ?? []
            var elements: [String: [String]] = [:]
            if let dataElements = authMap["dataElements"] {
                for entry in try dataElements.map("keyAuthorizations.dataElements") {
                    elements[try entry.key.text("namespace")] = try entry.value.array("data elements").map { (s) throws(CBORError) in try s.text("identifier") }
                }
            }
            keyAuthorizations = KeyAuthorizations(nameSpaces: spaces, dataElements: elements)
        } else {
            keyAuthorizations = nil
        }

        docType = try map.required("docType", in: "MSO").text("MSO docType")
        let validity = try map.required("validityInfo", in: "MSO").map("validityInfo")
        func date(_ key: String) throws(CBORError) -> Date {
            try CBORDateTime(cbor: try validity.required(key, in: "validityInfo")).date
        }
        validityInfo = ValidityInfo(
            signed: try date("signed"),
            validFrom: try date("validFrom"),
            validUntil: try date("validUntil"),
            expectedUpdate: try validity["expectedUpdate"].map { (n) throws(CBORError) in try CBORDateTime(cbor: n).date }
        )
        status = map["status"]
    }
}
