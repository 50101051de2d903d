import MdocVerifier
import VerificationCore
import WalletIdentity

/// JSON of mdoc and identity results, the same for the CLI and the HTTP API:
/// the report plus `documents` (elements only for an accepted verdict) and, for identity results with
/// a request, `claims` (only for an accepted verdict).
public enum IdentityOutput {
    /// A JSON array of the documents: docType and kind of each, their elements only when `accepted`.
    public static func documentsJSON(_ documents: [VerifiedDocument], accepted: Bool) -> String {
        "[" + documents.map { $0.json(includeElements: accepted) }.joined(separator: ",") + "]"
    }

    /// The report's JSON with `documents` (every decoded one; elements only when accepted), then `extra`.
    public static func json(_ result: MdocVerificationResult, extra: [(key: String, rawJSON: String)] = []) -> String {
        let accepted = result.report.verdict == .accepted
        // docType and kind of every document whatever the verdict; elements only when accepted.
        return result.report.json(
            extra: [("documents", documentsJSON(result.documentsRegardlessOfVerdict, accepted: accepted))] + extra)
    }

    /// The report's JSON with `documents` and, for an accepted result that has claims, `claims`.
    public static func json(_ result: IdentityVerificationResult) -> String {
        let accepted = result.report.verdict == .accepted
        var extra: [(key: String, rawJSON: String)] = [("documents", documentsJSON(result.documentsRegardlessOfVerdict, accepted: accepted))]
        if let claims = result.claims, accepted { extra.append(("claims", claims.json)) }
        return result.report.json(extra: extra)
    }
}
