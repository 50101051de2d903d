import VerificationCore
import WalletCBOR

/// Where an MSO says its revocation status is published (ISO/IEC 18013-5 second edition, the MSO
/// `status` entry):
///
/// ```
/// Status = { ? "identifier_list": {"id": bstr, "uri": tstr, ? "certificate": bstr},
///            ? "status_list":     {"idx": uint, "uri": tstr, ? "certificate": bstr} }
/// ```
///
/// `certificate`, when present, is the list signer's certificate (DER) as the issuer signed it into
/// the MSO.
public enum MSOStatusReference: Sendable, Hashable {
    /// An `identifier_list` reference: the document's identifier on the list at `uri`.
    case identifierList(id: [UInt8], uri: String, certificate: [UInt8]?)
    /// A `status_list` reference: the document's entry index (`idx`) in the list at `uri`.
    case statusList(index: UInt64, uri: String, certificate: [UInt8]?)

    /// The uri the referenced list is published at, whichever the mechanism.
    public var uri: String {
        switch self {
        case .identifierList(_, let uri, _), .statusList(_, let uri, _): return uri
        }
    }

    /// The list signer's certificate (DER) as signed into the MSO, or nil when the issuer named none.
    public var certificate: [UInt8]? {
        switch self {
        case .identifierList(_, _, let certificate), .statusList(_, _, let certificate): return certificate
        }
    }

    /// `identifier_list` or `status_list`, for reports.
    public var mechanism: String {
        switch self {
        case .identifierList: return "identifier_list"
        case .statusList: return "status_list"
        }
    }

    var expectedKind: RevocationListToken.Kind {
        switch self {
        case .identifierList: return .identifierList
        case .statusList: return .statusList
        }
    }

    /// The references in an MSO `status` entry (identifier_list first). An entry with neither, or a
    /// malformed one, is an error: the issuer signed something this verifier cannot follow.
    public static func references(in status: CBORNode) throws(RevocationFailure) -> [MSOStatusReference] {
        guard let map = status.mapValue else {
            throw RevocationFailure(.malformedStatus, "The MSO status entry is a \(status.value.kindDescription), not a map.")
        }
        var references: [MSOStatusReference] = []
        func info(_ key: String) throws(RevocationFailure) -> (map: CBORMap, uri: String, certificate: [UInt8]?)? {
            guard let node = map[key] else { return nil }
            guard let entry = node.mapValue else {
                throw RevocationFailure(.malformedStatus, "The MSO status \(key) is a \(node.value.kindDescription), not a map.")
            }
            guard let uri = entry["uri"]?.textValue, !uri.isEmpty else {
                throw RevocationFailure(.malformedStatus, "The MSO status \(key) has no uri text.")
            }
            var certificate: [UInt8]?
            if let node = entry["certificate"] {
                guard let der = node.bytesValue else {
                    throw RevocationFailure(.malformedStatus, "The MSO status \(key) certificate is not a byte string.")
                }
                certificate = Array(der)
            }
            return (entry, uri, certificate)
        }
        if let identifier = try info("identifier_list") {
            guard let id = identifier.map["id"]?.bytesValue else {
                throw RevocationFailure(.malformedStatus, "The MSO status identifier_list has no id byte string.")
            }
            references.append(.identifierList(id: Array(id), uri: identifier.uri, certificate: identifier.certificate))
        }
        if let statusList = try info("status_list") {
            guard let node = statusList.map["idx"], case .unsignedInt(let index) = node.value else {
                throw RevocationFailure(.malformedStatus, "The MSO status status_list has no unsigned idx.")
            }
            references.append(.statusList(index: index, uri: statusList.uri, certificate: statusList.certificate))
        }
        guard !references.isEmpty else {
            throw RevocationFailure(.malformedStatus, "The MSO status entry holds neither identifier_list nor status_list.")
        }
        return references
    }
}
