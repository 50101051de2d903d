import Crypto
import FoundationEssentials
import Mdoc
import VerificationCore
import WalletCBOR

/// `mdoc.valueDigests` (ISO 18013-5 §9.1.2.5): for every received IssuerSignedItem, the digest over its
/// tag-24 bytes as received equals `valueDigests[namespace][digestID]`. The MSO may hold more digests
/// than items disclosed; an item without a digest, or two items with one digestID, fails.
struct ValueDigestsCheck: VerificationCheck {
    var id: CheckID { .mdocValueDigests }
    var prerequisites: [CheckID] { MdocPrerequisites.msoStructure }

    static func digest(_ algorithm: String, _ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        switch algorithm {
        case "SHA-256": return Array(SHA256.hash(data: bytes))
        case "SHA-384": return Array(SHA384.hash(data: bytes))
        case "SHA-512": return Array(SHA512.hash(data: bytes))
        default: return nil
        }
    }

    private enum Algorithm {
        case sha256, sha384, sha512

        init?(_ name: String) {
            switch name {
            case "SHA-256": self = .sha256
            case "SHA-384": self = .sha384
            case "SHA-512": self = .sha512
            default: return nil
            }
        }

        /// Whether the digest of `bytes` equals `expected`, without copying the digest out.
        func matches(_ bytes: UnsafeRawBufferPointer, _ expected: UnsafeRawBufferPointer) -> Bool {
            func equal<D: Digest>(_ digest: D) -> Bool {
                digest.withUnsafeBytes { actual in
                    guard actual.count == expected.count else { return false }
                    for i in 0..<actual.count where actual[i] != expected[i] { return false }
                    return true
                }
            }
            func hash<H: HashFunction>(_: H.Type) -> H.Digest {
                var hasher = H()
                hasher.update(bufferPointer: bytes)
                return hasher.finalize()
            }
            switch self {
            case .sha256: return equal(hash(SHA256.self))
            case .sha384: return equal(hash(SHA384.self))
            case .sha512: return equal(hash(SHA512.self))
            }
        }
    }

    func evaluate(_ state: inout DocumentState, context: VerificationContext) async throws -> CheckOutcome {
        guard let document = state.document, let mso = state.mso else { return .notEvaluated(because: .mdocMSOStructure) }
        guard let algorithm = Algorithm(mso.digestAlgorithm) else {
            return .failed(
                .unsupportedDigestAlgorithm, "The MSO digest algorithm \"\(mso.digestAlgorithm)\" is not one of SHA-256, SHA-384, SHA-512.")
        }
        // Element names are built only for the items that do not match.
        var mismatched: [String] = []
        var missing: [String] = []
        var duplicated: [String] = []
        let table = document.issuerSigned.elements
        let count = table.elements.count
        // Namespace by namespace (the table keeps them together): the digestIDs seen, and where the
        // MSO lists the digests of the namespace being read (nil when it has none).
        var current = -1
        var seen = DigestIDSet(capacity: 0)
        var msoNameSpace: Int?
        let expectedDigests = mso.digests
        // One pointer to the received items and one to the MSO's digests for every item: no slice,
        // no reference counted per item.
        table.bytes.withUnsafeBytes { received in
            expectedDigests.bytes.withUnsafeBytes { digestBytes in
                let (base, digestBase) = (table.bytes.startIndex, expectedDigests.bytes.startIndex)
                // Each element read where it is (its identifier only for a message): a copy would
                // retain its identifier and value.
                for index in table.elements.indices {
                    let (nameSpace, digestID, tagged) = (
                        table.elements[index].nameSpace, table.elements[index].digestID, table.elements[index].taggedRange
                    )
                    if nameSpace != current {
                        current = nameSpace
                        seen = DigestIDSet(capacity: count)
                        msoNameSpace = expectedDigests.nameSpaceIndex(table.nameSpaces[current])
                    }
                    var name: String { "\(table.nameSpaces[nameSpace])/\(table.elements[index].identifier)" }
                    if !seen.insert(digestID) {
                        duplicated.append(name)
                        continue
                    }
                    guard let expected = msoNameSpace.flatMap({ expectedDigests.digestRange(nameSpace: $0, id: digestID) }) else {
                        missing.append(name)
                        continue
                    }
                    let range = (tagged.lowerBound - base)..<(tagged.upperBound - base)
                    let expectedRange = (expected.lowerBound - digestBase)..<(expected.upperBound - digestBase)
                    if !algorithm.matches(
                        UnsafeRawBufferPointer(rebasing: received[range]), UnsafeRawBufferPointer(rebasing: digestBytes[expectedRange]))
                    {
                        mismatched.append(name)
                    }
                }
            }
        }
        var problems: [String] = []
        var details: [String: String] = [:]
        if !mismatched.isEmpty {
            problems.append("digest mismatch for \(mismatched.joined(separator: ", ")) (the element was altered after issuance)")
            details["mismatched"] = mismatched.joined(separator: ",")
        }
        if !missing.isEmpty {
            problems.append("no digest in the MSO for \(missing.joined(separator: ", "))")
            details["missing"] = missing.joined(separator: ",")
        }
        if !duplicated.isEmpty {
            problems.append("digestID used by more than one item: \(duplicated.joined(separator: ", "))")
            details["duplicated"] = duplicated.joined(separator: ",")
        }
        guard problems.isEmpty else {
            let reason: ReasonCode = !mismatched.isEmpty ? .digestMismatch : (!missing.isEmpty ? .digestMissing : .duplicateDigestID)
            return .failed(reason, "Issuer-signed data does not match the MSO: \(problems.joined(separator: "; ")).", details: details)
        }
        let (elements, name) = (count, mso.digestAlgorithm)
        return .passed { ("All \(elements) issuer-signed elements match their \(name) digests in the MSO.", ["elements": String(elements)]) }
    }
}

/// The digestIDs seen in one namespace: a short array searched linearly for the few items a response
/// usually discloses (no hashing, one allocation), a set past 32.
private struct DigestIDSet {
    private var few: [UInt64] = []
    private var many: Set<UInt64>?

    init(capacity: Int) {
        if capacity > 32 { many = Set(minimumCapacity: capacity) } else { few.reserveCapacity(capacity) }
    }

    /// Adds `id`; false when it was already there.
    mutating func insert(_ id: UInt64) -> Bool {
        if many != nil { return many!.insert(id).inserted }
        if few.contains(id) { return false }
        few.append(id)
        return true
    }
}
