import VerificationCore

extension VerifiedDocument {
    /// A JSON array of `documents`: docType and kind of each, their elements only when `accepted`
    /// (personal data leaves the library only with an accepted verdict).
    public static func listJSON(_ documents: [VerifiedDocument], accepted: Bool) -> String {
        "[" + documents.map { $0.json(includeElements: accepted) }.joined(separator: ",") + "]"
    }
}

extension MdocVerificationResult {
    /// The JSON the CLI prints and the HTTP API answers: the report with `documents` (every decoded
    /// one; elements only when accepted), then `extra`.
    public func json(extra: [(key: String, rawJSON: String)] = []) -> String {
        String(decoding: jsonBytes(extra: extra), as: UTF8.self)
    }

    /// ``json(extra:)`` as UTF-8 bytes, what the HTTP API sends.
    public func jsonBytes(extra: [(key: String, rawJSON: String)] = []) -> [UInt8] {
        let accepted = report.verdict == .accepted
        return report.jsonBytes(extra: [("documents", VerifiedDocument.listJSON(documentsRegardlessOfVerdict, accepted: accepted))] + extra)
    }
}
