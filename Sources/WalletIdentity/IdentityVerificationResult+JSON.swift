import MdocVerifier
import VerificationCore

extension IdentityVerificationResult {
    /// The JSON the CLI prints and the HTTP API answers: the report with `documents` and, for an
    /// accepted result that has claims, `claims`.
    public func json() -> String { String(decoding: jsonBytes(), as: UTF8.self) }

    /// ``json()`` as UTF-8 bytes, what the HTTP API sends.
    public func jsonBytes() -> [UInt8] {
        let accepted = report.verdict == .accepted
        var extra: [(key: String, rawJSON: String)] = [("documents", VerifiedDocument.listJSON(documentsRegardlessOfVerdict, accepted: accepted))]
        if let claims, accepted { extra.append(("claims", claims.json)) }
        return report.jsonBytes(extra: extra)
    }
}
