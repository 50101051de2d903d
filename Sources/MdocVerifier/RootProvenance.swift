import Foundation

/// Where a trusted IACA root came from, and who vouched for it: a file, a pinned URL, or a VICAL
/// entry. Shown by `GET /v1/trust`, `trust list` and `trust check`, named in the `mdoc.issuer.chain`
/// details of every report whose chain passed, and (its kind only) in receipts.
public struct RootProvenance: Sendable, Equatable {
    /// The kinds of source.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// A PEM or DER file (`--trust FILE|DIR`, `--trust-doctype DOCTYPE=FILE|DIR`).
        case file
        /// A root fetched from a URL pinned by its SHA-256 (`--trust https://…#sha256=HEX`).
        case url
        /// An entry of a verified VICAL (`--vical FILE|URL`).
        case vical
        /// Given in code by an embedder (or a test).
        case memory
    }

    /// What the VICAL an entry came from says of it and of itself.
    public struct VICALEntry: Sendable, Equatable {
        /// The `vicalProvider`: who publishes the list.
        public let issuer: String
        /// The VICAL signer certificate's subject.
        public let signerSubject: String
        /// SHA-256 (hex) of the VICAL signer certificate's DER.
        public let signerSHA256: String
        /// The `vicalIssueID`, when present.
        public let issueID: UInt64?
        /// The VICAL's `date`.
        public let date: Date
        /// The VICAL's `nextUpdate`, when present.
        public let nextUpdate: Date?
        /// The entry's `issuingAuthority`, when present.
        public let issuingAuthority: String?
        /// The entry's `issuingCountry`, when present.
        public let country: String?
        /// The entry's `stateOrProvinceName`, when present.
        public let state: String?
        /// The docTypes the entry lists.
        public let docTypes: [String]

        /// An entry's provenance, as read from a verified VICAL.
        public init(
            issuer: String, signerSubject: String, signerSHA256: String, issueID: UInt64?, date: Date, nextUpdate: Date?,
            issuingAuthority: String?, country: String?, state: String? = nil, docTypes: [String]
        ) {
            self.issuer = issuer
            self.signerSubject = signerSubject
            self.signerSHA256 = signerSHA256
            self.issueID = issueID
            self.date = date
            self.nextUpdate = nextUpdate
            self.issuingAuthority = issuingAuthority
            self.country = country
            self.state = state
            self.docTypes = docTypes
        }
    }

    /// The kind of source.
    public let kind: Kind
    /// The file path, the URL (without its pin), or the VICAL's file or URL, as configured.
    public let location: String
    /// `file`: SHA-256 (hex) of the file as read.
    public let fileSHA256: String?
    /// `url`: the pinned SHA-256 (hex, lowercase) of the root's DER.
    public let pin: String?
    /// `url`, and `vical` from a URL: when the copy in use was fetched.
    public let fetchedAt: Date?
    /// `vical`: the list and the entry.
    public let vical: VICALEntry?

    /// A provenance of any kind; see the static constructors.
    public init(kind: Kind, location: String, fileSHA256: String? = nil, pin: String? = nil, fetchedAt: Date? = nil, vical: VICALEntry? = nil) {
        self.kind = kind
        self.location = location
        self.fileSHA256 = fileSHA256
        self.pin = pin
        self.fetchedAt = fetchedAt
        self.vical = vical
    }

    /// A root read from the file at `path`, whose contents hash to `sha256`.
    public static func file(_ path: String, sha256: String) -> RootProvenance {
        RootProvenance(kind: .file, location: path, fileSHA256: sha256)
    }

    /// A root fetched from `url`, pinned by `pin`, fetched at `fetchedAt`.
    public static func url(_ url: String, pin: String, fetchedAt: Date?) -> RootProvenance {
        RootProvenance(kind: .url, location: url, pin: pin, fetchedAt: fetchedAt)
    }

    /// A root given in code.
    public static let memory = RootProvenance(kind: .memory, location: "memory")

    /// One line for people: "file /etc/roots/ca.pem", "url https://… (pinned)", "VICAL entry of
    /// AAMVA issue 42 of 2026-11-30 for California (US)".
    public var summary: String {
        switch kind {
        case .file: return "file \(location)"
        case .url: return "pinned URL \(location)"
        case .memory: return "given in code"
        case .vical:
            guard let vical else { return "VICAL \(location)" }
            let issue = vical.issueID.map { " issue \($0)" } ?? ""
            let date = Self.day(vical.date)
            let place = [vical.country, vical.state].compactMap { $0 }.joined(separator: "-")
            let authority = [vical.issuingAuthority, place.isEmpty ? nil : "(\(place))"].compactMap { $0 }.joined(separator: " ")
            return "\(vical.issuer)'s VICAL entry\(authority.isEmpty ? "" : " for \(authority)"), list\(issue) of \(date) (\(location))"
        }
    }

    /// `yyyy-MM-dd` in UTC.
    static func day(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
