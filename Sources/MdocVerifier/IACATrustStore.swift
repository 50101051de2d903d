import Crypto
import Foundation
import SwiftASN1
import VerificationCore
import WalletEncoding
import X509

/// The issuing authorities' root certificates (IACA) a verifier trusts, optionally restricted per
/// docType (a passport root need not vouch for a driving licence). A passport (photo ID) is vouched
/// for only by a root scoped to its docType (``scopeRequiredDocTypes``).
public struct IACATrustStore: Sendable {
    /// One trusted root, with the docTypes it may vouch for and where it was loaded from.
    public struct Anchor: Sendable {
        /// The IACA root certificate.
        public let certificate: Certificate
        /// The docTypes this root may vouch for; nil for any.
        public let docTypes: Set<String>?
        /// Where it came from (the file path as configured, or a VICAL), for reports and `GET /v1/trust`.
        public let source: String
        /// Where it came from and who vouched for it (``RootProvenance``).
        public let provenance: RootProvenance
        /// SHA-256 (hex, lowercase) of the certificate's DER.
        public let sha256: String

        /// An anchor for `certificate`, with its scope and provenance; `source` defaults to the
        /// provenance's short form (the path of a file, the URL, the VICAL).
        public init(certificate: Certificate, docTypes: Set<String>?, provenance: RootProvenance, source: String? = nil) {
            self.certificate = certificate
            self.docTypes = docTypes
            self.provenance = provenance
            self.source = source ?? Self.legacySource(provenance)
            self.sha256 = IACATrustStore.sha256(certificate)
        }

        /// An anchor given in code, whose `source` names its origin.
        public init(certificate: Certificate, docTypes: Set<String>?, source: String) {
            self.init(certificate: certificate, docTypes: docTypes, provenance: RootProvenance(kind: .memory, location: source), source: source)
        }

        static func legacySource(_ provenance: RootProvenance) -> String {
            guard provenance.kind == .vical, let vical = provenance.vical else { return provenance.location }
            return "VICAL \(vical.issuer)" + (vical.issueID.map { " #\($0)" } ?? "") + " of " + RFC3339.format(vical.date)
        }
    }

    /// SHA-256 (hex, lowercase) of a certificate's DER encoding: how roots are named and pinned.
    public static func sha256(_ certificate: Certificate) -> String {
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(certificate)) != nil else { return "" }
        return Hex.encode(Array(SHA256.hash(data: serializer.serializedBytes)))
    }

    /// The trusted roots, in the order they were added.
    public private(set) var anchors: [Anchor] = []

    /// A store holding these anchors (none by default).
    public init(anchors: [Anchor] = []) {
        self.anchors = anchors
    }

    /// A store of in-memory roots, each trusted for `docTypes` (nil: any docType), with the source `memory`.
    public init(certificates: [Certificate], docTypes: Set<String>? = nil) {
        self.anchors = certificates.map { Anchor(certificate: $0, docTypes: docTypes, provenance: .memory) }
    }

    /// Adds one root trusted for `docTypes` (nil: any docType); `source` names its origin in reports.
    public mutating func add(_ certificate: Certificate, docTypes: Set<String>? = nil, source: String = "memory") {
        anchors.append(Anchor(certificate: certificate, docTypes: docTypes, source: source))
    }

    /// Adds one root trusted for `docTypes` (nil: any docType), with where it came from.
    public mutating func add(_ certificate: Certificate, docTypes: Set<String>? = nil, provenance: RootProvenance) {
        anchors.append(Anchor(certificate: certificate, docTypes: docTypes, provenance: provenance))
    }

    /// The anchor holding `certificate` that may vouch for `docType` (the first such, as ``roots(for:)``
    /// lists them); nil when none does.
    public func anchor(for certificate: Certificate, docType: String) -> Anchor? {
        let unscopedAllowed = !Self.requiresScopedRoot(docType)
        return anchors.first { $0.certificate == certificate && ($0.docTypes?.contains(docType) ?? unscopedAllowed) }
    }

    /// Adds every certificate in a PEM (one or more blocks) or DER file, or in every `.pem`, `.crt`,
    /// `.cer` and `.der` file of a directory.
    public mutating func load(path: String, docTypes: Set<String>? = nil) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw TrustStoreError("trust anchor path \(path) does not exist")
        }
        if isDirectory.boolValue {
            let names = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
            let certificateFiles = names.filter { ["pem", "crt", "cer", "der"].contains(($0 as NSString).pathExtension.lowercased()) }
            guard !certificateFiles.isEmpty else {
                throw TrustStoreError("directory \(path) holds no .pem, .crt, .cer or .der file")
            }
            for name in certificateFiles {
                try load(path: (path as NSString).appendingPathComponent(name), docTypes: docTypes)
            }
            return
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw TrustStoreError("cannot read \(path)")
        }
        let provenance = RootProvenance.file(path, sha256: Hex.encode(Array(SHA256.hash(data: data))))
        for certificate in try Self.certificates(in: [UInt8](data), name: path) {
            add(certificate, docTypes: docTypes, provenance: provenance)
        }
    }

    /// Certificates in PEM text (one or more blocks) or one DER certificate.
    public static func certificates(in bytes: [UInt8], name: String) throws -> [Certificate] {
        let text = String(decoding: bytes, as: UTF8.self)
        if text.contains("-----BEGIN CERTIFICATE-----") {
            let blocks: [PEM.Block]
            do {
                blocks = try PEM.blocks(in: text)
            } catch {
                throw TrustStoreError("\(name): a PEM certificate block could not be parsed (\(error))")
            }
            var result: [Certificate] = []
            for block in blocks where block.label == "CERTIFICATE" {
                do {
                    result.append(try Certificate(derEncoded: block.der))
                } catch {
                    throw TrustStoreError("\(name): a PEM certificate block could not be parsed (\(error))")
                }
            }
            return result
        }
        do {
            return [try Certificate(derEncoded: bytes)]
        } catch {
            throw TrustStoreError("\(name) is neither a PEM certificate nor a DER certificate")
        }
    }

    /// Reads a scoped trust entry, `DOCTYPE[,DOCTYPE...]=PATH` (docTypes may also be separated by
    /// `|`, which environment lists need): the roots at PATH vouch only for those docTypes.
    public static func scopedEntry(_ value: String) throws -> (docTypes: Set<String>, path: String) {
        guard let equals = value.firstIndex(of: "=") else {
            throw TrustStoreError("\"\(value)\" is not DOCTYPE[,DOCTYPE...]=PATH")
        }
        let path = String(value[value.index(after: equals)...])
        let docTypes = value[..<equals].split(whereSeparator: { $0 == "," || $0 == "|" }).map { $0.trimmingCharacters(in: .whitespaces) }
        guard !path.isEmpty, !docTypes.isEmpty,
            docTypes.allSatisfy({ !$0.isEmpty && !$0.contains("/") && $0.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value < 0x7f } })
        else {
            throw TrustStoreError("\"\(value)\" is not DOCTYPE[,DOCTYPE...]=PATH")
        }
        return (Set(docTypes), path)
    }

    /// Adds the roots of a scoped entry (see ``scopedEntry(_:)``), trusted only for its docTypes.
    public mutating func load(scoped value: String) throws {
        let entry = try Self.scopedEntry(value)
        try load(path: entry.path, docTypes: entry.docTypes)
    }

    /// DocTypes that only a root scoped to them may vouch for: a passport (ISO/IEC 23220 photo ID)
    /// must chain to the passport authority's IACA (Apple: "a valid X.509 chain of trust to the Apple
    /// … IACA"), so a root trusted for any docType (`--trust`) does not vouch for it; only a root
    /// given with `--trust-doctype org.iso.23220.photoid.1=PATH`, the config file's `trustDocTypes`,
    /// or a VICAL entry listing the docType does.
    public static let scopeRequiredDocTypes: Set<String> = ["org.iso.23220.photoid.1"]

    /// Whether only roots scoped to `docType` may vouch for it (see ``scopeRequiredDocTypes``).
    public static func requiresScopedRoot(_ docType: String) -> Bool {
        scopeRequiredDocTypes.contains(docType)
    }

    /// Roots that may vouch for a docType: those scoped to it, and the unscoped ones unless the docType
    /// requires a scoped root (``scopeRequiredDocTypes``).
    public func roots(for docType: String) -> [Certificate] {
        let unscopedAllowed = !Self.requiresScopedRoot(docType)
        return anchors.filter { $0.docTypes?.contains(docType) ?? unscopedAllowed }.map(\.certificate)
    }

    /// The unscoped roots that ``roots(for:)`` leaves out for a docType that requires a scoped root
    /// (empty for any other docType): the roots a message can tell the operator to scope.
    public func unscopedRootsRefused(for docType: String) -> [Certificate] {
        guard Self.requiresScopedRoot(docType) else { return [] }
        return anchors.filter { $0.docTypes == nil }.map(\.certificate)
    }
}

/// Why a trust anchor path or scoped entry could not be loaded.
public typealias TrustStoreError = CodedError<TrustStoreErrorDomain>

/// The domain of ``TrustStoreError``: trust anchors (IACAs) and their scopes.
public enum TrustStoreErrorDomain: ErrorDomain {
    /// `TrustStoreError`.
    public static let name = "TrustStoreError"
    /// ``ErrorCode/invalidCertificate``.
    public static let defaultCode = ErrorCode.invalidCertificate
}
