import VerificationCore
import WalletCBOR
import WalletCOSE

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why revocation could not be decided, or why a list is unusable: a stable reason code, a message
/// for people (never identifiers or personal data), and whether trying again later may help.
public struct RevocationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable reason code for reports and metrics (`listUnavailable`, `malformedList`, `listExpired`, ...).
    public let reason: ReasonCode
    /// Explanation for people; never carries identifiers or personal data.
    public let message: String
    /// Whether trying again later may help (the list could not be fetched, or it expired or is stale).
    public let retryable: Bool

    /// Creates a failure from a reason code and a message; it is not retryable unless `retryable` says so.
    public init(_ reason: ReasonCode, _ message: String, retryable: Bool = false) {
        self.reason = reason
        self.message = message
        self.retryable = retryable
    }

    /// The reason code and the message, for logs.
    public var description: String { "RevocationFailure.\(reason): \(message)" }

    /// A list that could not be fetched: `listUnavailable`, `listTooLarge`, `addressNotAllowed` or
    /// `unsupportedURI`, with the transport's message and retryability.
    public init(fetching failure: TrustDocumentFetchFailure) {
        let reason: ReasonCode =
            switch failure.kind {
            case .unavailable: .listUnavailable
            case .tooLarge: .listTooLarge
            case .addressNotAllowed: .addressNotAllowed
            case .unsupportedURL: .unsupportedURI
            }
        self.init(reason, failure.message, retryable: failure.retryable)
    }

    /// Runs a fetch, turning a ``TrustDocumentFetchFailure`` into the revocation failure it means
    /// (``init(fetching:)``), so revocation sources throw ``RevocationFailure`` as they always did.
    public static func fetching<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let failure as TrustDocumentFetchFailure { throw RevocationFailure(fetching: failure) }
    }

    /// The reason code of an error met while obtaining a list (`listUnavailable` for one of no known kind).
    public static func reason(of error: any Error) -> ReasonCode {
        if let failure = error as? RevocationFailure { return failure.reason }
        if let failure = error as? TrustDocumentFetchFailure { return RevocationFailure(fetching: failure).reason }
        return .listUnavailable
    }
}

/// A revocation list as published: a CWT (RFC 8392) signed with COSE_Sign1 carrying either an IETF
/// Token Status List (claim 65533, `typ` `application/statuslist+cwt`) or an ISO/IEC 18013-5
/// identifier list (claim 65530, `typ` `application/identifierlist+cwt`).
///
/// Decoding does not verify anything; ``RevocationChecker`` verifies the signature over the
/// protected header and payload exactly as received.
public struct RevocationListToken: Sendable {
    /// Which list a token carries; the raw value is the MSO `status` key that references that kind.
    public enum Kind: String, Sendable, Hashable {
        /// A Token Status List (claim 65533).
        case statusList = "status_list"
        /// An ISO/IEC 18013-5 identifier list (claim 65530).
        case identifierList = "identifier_list"
    }

    /// Token Status List: `{"bits": 1/2/4/8, "lst": zlib bytes, ? "aggregation_uri": tstr}`.
    public struct StatusList: Sendable {
        /// Bits per entry: 1, 2, 4 or 8.
        public let bits: Int
        /// The compressed list as received.
        public let compressed: ArraySlice<UInt8>
        /// The `aggregation_uri`, where the issuer lists its status lists, or nil when absent (decoded, not followed).
        public let aggregationURI: String?
    }

    /// Identifier list: `{"identifiers": {bstr => IdentifierInfo}, ? "aggregation_uri": tstr}`.
    public struct IdentifierList: Sendable {
        /// The listed (revoked) document identifiers; the `IdentifierInfo` values are not kept.
        public let identifiers: Set<[UInt8]>
        /// The `aggregation_uri`, where the issuer lists its identifier lists, or nil when absent (decoded, not followed).
        public let aggregationURI: String?
    }

    /// The `typ` header of a Token Status List CWT (also accepted without the `application/` prefix).
    public static let statusListType = "application/statuslist+cwt"
    /// The `typ` header of an identifier list CWT (also accepted without the `application/` prefix).
    public static let identifierListType = "application/identifierlist+cwt"

    // CWT claim keys.
    static let subjectClaim: Int64 = 2
    static let expirationClaim: Int64 = 4
    static let issuedAtClaim: Int64 = 6
    static let timeToLiveClaim: Int64 = 65534
    static let statusListClaim: Int64 = 65533
    static let identifierListClaim: Int64 = 65530
    static let typeHeader: Int64 = 16

    /// The COSE_Sign1 as received, for verifying its signature over the exact protected header and payload.
    public let sign1: COSESign1
    /// Whether the token carries a status list or an identifier list.
    public let kind: Kind
    /// The `typ` header (16), when present.
    public let type: String?
    /// `sub` (2): the uri the list is published at.
    public let subject: String?
    /// `iat` (6).
    public let issuedAt: Date?
    /// `exp` (4).
    public let expiresAt: Date?
    /// `ttl` (65534), seconds: how long a fetched copy may be cached.
    public let timeToLive: UInt64?
    /// The `status_list` claim (65533); nil when the token carries an identifier list.
    public let statusList: StatusList?
    /// The `identifier_list` claim (65530); nil when the token carries a status list.
    public let identifierList: IdentifierList?

    /// Decodes a revocation list from its encoded bytes, without verifying it.
    /// Throws ``RevocationFailure`` `malformedList` when the bytes are not well-formed CBOR or not a revocation list CWT.
    public init(bytes: [UInt8], limits: CBORDecoder.Limits = .default) throws(RevocationFailure) {
        let node: CBORNode
        do { node = try CBORDecoder(limits: limits).decode(bytes) } catch {
            throw RevocationFailure(.malformedList, "The revocation list is not well-formed CBOR (\(error.code)).")
        }
        try self.init(cbor: node, limits: limits)
    }

    /// Decodes a revocation list from a decoded COSE_Sign1 (optionally inside CWT tag 61), without verifying it.
    /// Throws `malformedList` for malformed claims, neither or both lists, a `typ` that disagrees, or an identifier list without `exp`.
    public init(cbor node: CBORNode, limits: CBORDecoder.Limits = .default) throws(RevocationFailure) {
        var content = node
        // A CWT may carry the CWT tag (61) around the COSE tag (18).
        if case .tagged(61, let inner) = node.value { content = inner }
        do { sign1 = try COSESign1(cbor: content) } catch {
            throw RevocationFailure(.malformedList, "The revocation list is not a COSE_Sign1 (\(error.message)).")
        }
        type = sign1.headers[Self.typeHeader]?.textValue
        guard let payload = sign1.payload else {
            throw RevocationFailure(.malformedList, "The revocation list's COSE_Sign1 has a detached payload; a CWT carries its claims.")
        }
        let claims: CBORMap
        do { claims = try CBORDecoder(limits: limits).decode(payload).map("CWT claims") } catch {
            throw RevocationFailure(.malformedList, "The revocation list's payload is not a CWT claims map (\(error.code)).")
        }
        func date(_ key: Int64, _ name: String) throws(RevocationFailure) -> Date? {
            guard let node = claims[key] else { return nil }
            switch node.value {
            case .unsignedInt(let seconds) where seconds <= UInt64(Int64.max):
                return Date(timeIntervalSince1970: Double(seconds))
            case .float(let seconds) where seconds.isFinite && seconds >= 0:
                return Date(timeIntervalSince1970: seconds)
            default:
                throw RevocationFailure(.malformedList, "The revocation list's \(name) claim is not a NumericDate.")
            }
        }
        if let node = claims[Self.subjectClaim] {
            guard let text = node.textValue else { throw RevocationFailure(.malformedList, "The revocation list's sub claim is not text.") }
            subject = text
        } else {
            subject = nil
        }
        issuedAt = try date(Self.issuedAtClaim, "iat")
        expiresAt = try date(Self.expirationClaim, "exp")
        if let node = claims[Self.timeToLiveClaim] {
            guard case .unsignedInt(let seconds) = node.value else {
                throw RevocationFailure(.malformedList, "The revocation list's ttl claim is not an unsigned integer.")
            }
            timeToLive = seconds
        } else {
            timeToLive = nil
        }

        switch (claims[Self.statusListClaim], claims[Self.identifierListClaim]) {
        case (let status?, nil):
            kind = .statusList
            let map: CBORMap
            do { map = try status.map("status_list") } catch {
                throw RevocationFailure(.malformedList, "The status_list claim is not a map.")
            }
            guard let bitsNode = map["bits"], case .unsignedInt(let bits) = bitsNode.value, [1, 2, 4, 8].contains(bits) else {
                throw RevocationFailure(.malformedList, "The status list's bits must be 1, 2, 4 or 8.")
            }
            guard let compressed = map["lst"]?.bytesValue else {
                throw RevocationFailure(.malformedList, "The status list has no lst byte string.")
            }
            statusList = StatusList(bits: Int(bits), compressed: compressed, aggregationURI: map["aggregation_uri"]?.textValue)
            identifierList = nil
        case (nil, let identifiers?):
            kind = .identifierList
            guard let map = identifiers.mapValue, let entries = map["identifiers"]?.mapValue else {
                throw RevocationFailure(.malformedList, "The identifier_list claim is not a map with an identifiers map.")
            }
            var set = Set<[UInt8]>()
            set.reserveCapacity(entries.count)
            for entry in entries {
                guard let id = entry.key.bytesValue else {
                    throw RevocationFailure(.malformedList, "An identifier in the identifier list is not a byte string.")
                }
                set.insert(Array(id))
            }
            identifierList = IdentifierList(identifiers: set, aggregationURI: map["aggregation_uri"]?.textValue)
            statusList = nil
        case (nil, nil):
            throw RevocationFailure(.malformedList, "The CWT carries neither a status_list (65533) nor an identifier_list (65530) claim.")
        case (_?, _?):
            throw RevocationFailure(.malformedList, "The CWT carries both a status_list and an identifier_list claim.")
        }

        if let type {
            let expected = kind == .statusList ? Self.statusListType : Self.identifierListType
            let short = String(expected.dropFirst("application/".count))
            guard type == expected || type == short else {
                throw RevocationFailure(
                    .malformedList, "The revocation list's typ is \"\(type)\" but it carries a \(kind.rawValue) (expected \"\(expected)\").")
            }
        }
        if kind == .identifierList, expiresAt == nil {
            throw RevocationFailure(.malformedList, "An identifier list must carry an exp claim (ISO/IEC 18013-5 §12.3.6.3).")
        }
    }
}

extension RevocationListToken.StatusList {
    /// The status list's entries, decompressed (at most `maximumSize` bytes).
    public func decompressed(maximumSize: Int) throws(RevocationFailure) -> [UInt8] {
        do {
            return try Zlib.decompress(compressed, maximumOutputSize: maximumSize)
        } catch {
            if error.code == .outputTooLarge {
                throw RevocationFailure(.listTooLarge, "The status list decompresses to more than \(maximumSize) bytes; it is refused.")
            }
            throw RevocationFailure(.malformedList, "The status list's lst is not a valid zlib stream (\(error.code.rawValue)).")
        }
    }

    /// The status at `index` in decompressed entries (`bits` per entry, least significant bits
    /// first), or nil when the index is outside the list.
    public static func status(at index: UInt64, bits: Int, in entries: [UInt8]) -> UInt8? {
        let perByte = UInt64(8 / bits)
        let byteIndex = index / perByte
        guard byteIndex < UInt64(entries.count) else { return nil }
        let shift = UInt8((index % perByte) * UInt64(bits))
        let mask: UInt8 = bits == 8 ? 0xff : UInt8((1 << bits) - 1)
        return (entries[Int(byteIndex)] >> shift) & mask
    }
}
