import Crypto
import Mdoc
import VerificationCore
import WalletCBOR
import WalletCOSE
import X509

/// What the per-document checks share: the inputs, and what earlier checks learned.
struct DocumentState: Sendable {
    let index: Int
    let decoded: Result<Document, MdocDecodingError>
    let responseVersion: MdocVersion?
    let transcript: SessionTranscript
    let readerKey: P256.KeyAgreement.PrivateKey?
    let trustStore: IACATrustStore
    let policy: MdocVerificationPolicy
    let chainCache: ValidatedChainCache
    /// Whether the flow can carry a deviceMac at all (see ``MdocVerifier/verify(_:transcript:readerKey:runner:flow:deviceMacAllowed:)``).
    var deviceMacAllowed = true
    /// Other transcripts the device may have signed (see ``TranscriptDiagnosis``), tried only when the
    /// device signature fails over ``transcript``.
    var transcriptCandidates: [TranscriptCandidate] = []
    /// Whether this document's issuer signature and value digests passed: only then is a failed
    /// device signature worth diagnosing.
    var transcriptDiagnosisEligible = false

    var document: Document?
    /// x5chain as parsed certificates (leaf first, each parsed once per verifier), or why it is unusable.
    var certificates: Result<[ValidatedChainCache.ParsedCertificate], MdocCheckFailure>?
    /// The document signer (first x5chain entry).
    var signer: ValidatedChainCache.ParsedCertificate?
    /// The validated chain (leaf first, the trusted root last) with what the checks derive from it.
    var chain: ValidatedChainCache.Entry?
    var mso: MobileSecurityObject?

    var scope: String { "document[\(index)]" }
}

/// A failure a check reports: a reason code and a message.
typealias MdocCheckFailure = CheckFailure

extension Certificate {
    /// "CN=..., C=..." for reports.
    var subjectSummary: String { subject.description }
}
