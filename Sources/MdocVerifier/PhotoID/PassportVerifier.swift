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

/// The photo ID checks, for any flow that verified a DeviceResponse into a runner.
public enum PhotoIDChecks {
    /// The policy a flow verifies `response` under: `policy` as given, with the passport rules when
    /// any document is a photo ID (`org.iso.23220.photoid.1`): the document signer and the IACA carry
    /// countryName, and the whole Annex B certificate profile is required (as ``MdocVerificationPolicy/passport``). Every flow (in-app, web, mdoc) applies it by docType, so the
    /// same passport gets the same report whichever way it came.
    public static func policy(_ policy: MdocVerificationPolicy, for response: DeviceResponse) -> MdocVerificationPolicy {
        guard response.documents.contains(where: { $0.docType == PhotoIDDocument.docType }) else { return policy }
        var passport = policy
        passport.requireCountryName = true
        passport.requireFullCertificateProfile = true
        return passport
    }

    /// `photoid.docType` (when `requirePhotoID`) and `photoid.elements` for each photo ID document.
    public static func run(documents: [VerifiedDocument], documentCount: Int, requirePhotoID: Bool, runner: inout CheckRunner) {
        if requirePhotoID {
            runner.run(.photoIDDocType, requires: [.mdocResponseStructure]) {
                let others = documents.filter { $0.docType != PhotoIDDocument.docType }.map(\.docType)
                guard documentCount == documents.count else {
                    return .failed(
                        .unexpectedDocType,
                        "A document in the response could not be decoded, so it is not known to be a passport Digital ID; let the person retry or fall back to another verification method."
                    )
                }
                guard others.isEmpty, !documents.isEmpty else {
                    return .failed(
                        .unexpectedDocType,
                        "The response holds \(others.isEmpty ? "no document" : others.joined(separator: ", ")), not a passport Digital ID (\(PhotoIDDocument.docType)); let the person retry or fall back to another verification method."
                    )
                }
                return .passed("The response holds \(documents.count) passport Digital ID document(s) (\(PhotoIDDocument.docType)).")
            }
        }
        for document in documents where document.docType == PhotoIDDocument.docType {
            let typed = PhotoIDDocument(document: document)
            runner.run(.photoIDElements, requires: [.mdocDocumentStructure], scope: "document[\(document.index)]") {
                guard typed.problems.isEmpty else {
                    let list = typed.problems.map { "\($0.identifier) \($0.problem)" }.joined(separator: "; ")
                    return .failed(
                        .invalidElement, "Photo ID elements have the wrong type or form: \(list).",
                        details: ["elements": typed.problems.map(\.identifier).joined(separator: ",")])
                }
                return .passed("The \(PhotoIDDocument.nameSpace) elements have their ISO/IEC 23220-2 types.")
            }
        }
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
        let response: DeviceResponse
        do {
            response = try DeviceResponse(cborBytes: bytes)
        } catch {
            runner.run(.mdocResponseStructure) {
                .failed(
                    ReasonCode(error.code.rawValue),
                    "The DeviceResponse could not be decoded: \(error.message). Let the person retry or fall back to another verification method.")
            }
            return PassportVerificationResult(report: runner.report(flow: "passport"), documents: [], passport: nil)
        }
        return await verify(response, transcript: transcript, readerKey: readerKey, runner: &runner, flow: "passport")
    }

    /// Runs every check into an existing runner (flows that decrypt first).
    public func verify(
        _ response: DeviceResponse, transcript: SessionTranscript, readerKey: P256.KeyAgreement.PrivateKey?, runner: inout CheckRunner, flow: String
    ) async -> PassportVerificationResult {
        let documents = await mdocVerifier.verify(response, transcript: transcript, readerKey: readerKey, runner: &runner, flow: flow)
            .documentsRegardlessOfVerdict
        PhotoIDChecks.run(documents: documents, documentCount: response.documentResults.count, requirePhotoID: true, runner: &runner)
        await RevocationChecker.run(revocation, documents: documents, runner: &runner)
        let passport = documents.first { $0.docType == PhotoIDDocument.docType }.map(PhotoIDDocument.init(document:))
        return PassportVerificationResult(report: runner.report(flow: flow), documents: documents, passport: passport)
    }
}
