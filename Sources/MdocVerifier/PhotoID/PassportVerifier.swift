import Crypto
import Foundation
import Mdoc
import VerificationCore

extension MdocVerificationPolicy {
    /// Apple's passport Digital ID: ISO/IEC 18013-5 checks as written (countryName required in the
    /// document signer and the IACA), and only the photo ID docType accepted.
    public static let passport = MdocVerificationPolicy(
        requirements: VerificationPolicy(name: "mdoc/passport-photoid@1"),
        requireCountryName: true, acceptedDocTypes: [PhotoIDDocument.docType])
}

/// The passport rules every flow applies to a photo ID document (``MdocPresentationVerifier`` runs
/// the `photoid.*` checks).
public enum PhotoIDChecks {
    /// The policy a flow verifies `response` under: `policy` as given, with the passport rules when
    /// any document is a photo ID (`org.iso.23220.photoid.1`): the document signer and the IACA carry
    /// countryName, and the whole Annex B certificate profile is required (as ``MdocVerificationPolicy/passport``). Every flow (in-app, web, mdoc) applies it by docType, so the
    /// same passport gets the same report whichever way it came.
    public static func policy(_ policy: MdocVerificationPolicy, for response: DeviceResponse) -> MdocVerificationPolicy {
        guard response.containsDocument(where: { $0.docType == PhotoIDDocument.docType }) else { return policy }
        var passport = policy
        passport.requireCountryName = true
        passport.requireFullCertificateProfile = true
        return passport
    }
}

/// The parameters of a passport Digital ID verification.
public struct PassportPolicy: Sendable {
    /// The mdoc checks' policy; ``MdocVerificationPolicy/passport`` by default.
    public var mdoc: MdocVerificationPolicy
    /// What undetermined revocation means (``RevocationPolicy/strict`` by default); used only with a revocation source.
    public var revocation: RevocationPolicy

    /// Creates the parameters; the defaults are those of ``standard``.
    public init(mdoc: MdocVerificationPolicy = .passport, revocation: RevocationPolicy = .strict) {
        self.mdoc = mdoc
        self.revocation = revocation
    }

    /// The passport mdoc policy with strict revocation.
    public static let standard = PassportPolicy()
}

/// The outcome of verifying a passport Digital ID response.
public struct PassportVerificationResult: Sendable {
    /// The verification report; only an accepted verdict makes ``documents`` and ``passport`` available.
    public let report: VerificationReport
    private let decoded: [VerifiedDocument]
    private let typed: PhotoIDDocument?

    init(report: VerificationReport, documents: [VerifiedDocument], passport: PhotoIDDocument?) {
        self.report = report
        self.decoded = documents
        self.typed = passport
    }

    /// The documents of an accepted response; empty for any other verdict.
    public var documents: [VerifiedDocument] { report.verdict == .accepted ? decoded : [] }
    /// The typed elements of the first photo ID document of an accepted response; nil otherwise.
    public var passport: PhotoIDDocument? { report.verdict == .accepted ? typed : nil }
    /// Every document that was decoded, whatever the verdict: for diagnostics, never for acting on.
    public var documentsRegardlessOfVerdict: [VerifiedDocument] { decoded }

    /// The response is not a usable passport Digital ID response (it did not decode, has no
    /// document, or holds another docType): let the person retry or fall back to another
    /// verification method. Other failures (a bad signature, a revoked document) are not retried.
    public var shouldRetryOrFallBack: Bool {
        report.check(.mdocResponseStructure)?.status == .failed || report.check(.photoIDDocType)?.status == .failed
    }
}

/// Verifies Apple's passport Digital ID (ISO/IEC 23220-2 photo ID) responses: the mdoc checks
/// under ``MdocVerificationPolicy/passport``, the photo ID checks, and the MSO revocation status
/// (or, where the caller turned it off, a report that says so and why).
public struct PassportVerifier: Sendable {
    /// Runs the ISO/IEC 18013-5 checks under ``PassportPolicy/mdoc``.
    public let mdocVerifier: MdocVerifier
    /// Checks the MSO revocation status, or says in every report why it is off.
    public let revocation: RevocationChecker
    /// The parameters the verifier was created with.
    public let policy: PassportPolicy

    /// A verifier that checks revocation lists from `revocationSource` (seed 002: "validate the MSO,
    /// its validity period, and the revocation list") under `policy.revocation`.
    public init(trustStore: IACATrustStore, policy: PassportPolicy = .standard, revocationSource: any RevocationListSource) {
        self.init(
            trustStore: trustStore, policy: policy,
            revocation: RevocationChecker(source: revocationSource, trustStore: trustStore, policy: policy.revocation))
    }

    /// A verifier with its revocation checker given: one with its own sources and policy, or
    /// ``RevocationChecker/off(because:trustStore:)`` with the reason reports will show.
    public init(trustStore: IACATrustStore, policy: PassportPolicy = .standard, revocation: RevocationChecker) {
        self.mdocVerifier = MdocVerifier(trustStore: trustStore, policy: policy.mdoc)
        self.policy = policy
        self.revocation = revocation
    }

    /// Verifies DeviceResponse bytes at `time`; bytes that do not decode fail `mdoc.response.structure`, never throw.
    /// `readerKey` is the reader's ephemeral private key (EReaderKey), needed only to check a deviceMac.
    public func verify(
        deviceResponse bytes: [UInt8], transcript: SessionTranscript, readerKey: P256.KeyAgreement.PrivateKey? = nil, context: VerificationContext
    ) async -> PassportVerificationResult {
        var runner = CheckRunner(policy: policy.mdoc.requirements, context: context.allowingClockSkew(policy.mdoc.clockSkew))
        let documents = await composition.verify(
            deviceResponse: bytes, transcript: transcript, readerKey: readerKey, expectations: Self.expectations, runner: &runner,
            flow: "passport", advice: "Let the person retry or fall back to another verification method.")
        return Self.result(runner.report(flow: "passport"), documents: documents)
    }

    /// Runs every check into an existing runner (flows that decrypt first).
    public func verify(
        _ response: DeviceResponse, transcript: SessionTranscript, readerKey: P256.KeyAgreement.PrivateKey?, runner: inout CheckRunner, flow: String
    ) async -> PassportVerificationResult {
        let documents = await composition.verify(
            response, transcript: transcript, readerKey: readerKey, expectations: Self.expectations, runner: &runner, flow: flow)
        return Self.result(runner.report(flow: flow), documents: documents)
    }

    /// A passport is asked for: `photoid.docType` runs; the physical document's expiry is not checked.
    static let expectations = MdocPresentationExpectations(requirePhotoID: true)

    private var composition: MdocPresentationVerifier {
        MdocPresentationVerifier(mdocVerifier: mdocVerifier, revocation: revocation)
    }

    private static func result(_ report: VerificationReport, documents: [VerifiedDocument]) -> PassportVerificationResult {
        let passport = documents.first { $0.docType == PhotoIDDocument.docType }.map(PhotoIDDocument.init(document:))
        return PassportVerificationResult(report: report, documents: documents, passport: passport)
    }
}
