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

    var document: Document?
    /// x5chain as certificates (leaf first), or why it is unusable.
    var certificates: Result<[Certificate], MdocCheckFailure>?
    /// The document signer (first x5chain entry), parsed once per verifier.
    var signer: ValidatedChainCache.ParsedCertificate?
    /// x5chain as received (DER), for the chain cache key.
    var certificateDERs: [[UInt8]] = []
    /// The validated chain, leaf first, the trusted root last.
    var chain: [Certificate]?
    /// Subject texts of ``chain``.
    var chainSubjects: [String]?
    /// Annex B profile violations of ``chain``, when known from the cache.
    var profileViolations: [String]?
    /// countryName of the document signer and the root of ``chain``, when known from the cache.
    var chainCountryNames: (documentSigner: String?, iaca: String?)?
    var mso: MobileSecurityObject?

    var scope: String { "document[\(index)]" }
}

/// A failure a check reports: a reason code and a message.
struct MdocCheckFailure: Error, CheckFailureDescribing {
    let reasonCode: ReasonCode
    let checkMessage: String

    init(_ reason: ReasonCode, _ message: String) {
        self.reasonCode = reason
        self.checkMessage = message
    }
}

extension Certificate {
    /// "CN=..., C=..." for reports.
    var subjectSummary: String { subject.description }
}
