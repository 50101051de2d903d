import Crypto
import Foundation
import Mdoc
import VerificationCore

/// The one composition of the mdoc checks that every flow runs once it has a DeviceResponse and
/// its session transcript (in-app after HPKE, the web protocols after decryption, `mdoc verify`,
/// `POST /v1/mdoc/verify`, passports and the page), in this order:
///
/// 1. policy narrowing: a photo ID document gets the passport rules (``PhotoIDChecks/policy(_:for:)``)
///    and only the requested docTypes are accepted;
/// 2. the ISO/IEC 18013-5 checks (``MdocVerifier``);
/// 3. `photoid.docType` (when the request asked for a passport) and `photoid.elements` for every
///    photo ID document;
/// 4. `identity.document.expiry` for every document (scoped `document[i]` when there are several),
///    unless the flow does not check it;
/// 5. the flow's request checks (nothing unrequested, ...), each flow with its own check ids;
/// 6. MSO revocation.
public struct MdocPresentationVerifier: Sendable {
    /// Runs the ISO/IEC 18013-5 checks; its policy is narrowed per response.
    public let mdocVerifier: MdocVerifier
    /// The revocation checks: a checker with its list sources, or
    /// ``RevocationChecker/off(because:trustStore:)``, whose reason every report then shows.
    public let revocation: RevocationChecker

    /// Creates the composition from the mdoc verifier (trust store, policy, caches) and the revocation checker.
    public init(mdocVerifier: MdocVerifier, revocation: RevocationChecker) {
        self.mdocVerifier = mdocVerifier
        self.revocation = revocation
    }

    /// Decodes `bytes` and runs every step into `runner`. Bytes that are not a DeviceResponse fail
    /// `mdoc.response.structure` (with `advice` after the decoder's message, when given) and
    /// nothing else runs.
    public func verify(
        deviceResponse bytes: [UInt8], transcript: SessionTranscript, readerKey: P256.KeyAgreement.PrivateKey?,
        expectations: MdocPresentationExpectations, deviceMacAllowed: Bool = true, runner: inout CheckRunner, flow: String,
        advice: String? = nil, transcriptCandidates: [TranscriptCandidate] = []
    ) async -> [VerifiedDocument] {
        guard let response = Self.decode(bytes, runner: &runner, advice: advice) else { return [] }
        return await verify(
            response, transcript: transcript, readerKey: readerKey, expectations: expectations, deviceMacAllowed: deviceMacAllowed,
            runner: &runner, flow: flow, transcriptCandidates: transcriptCandidates)
    }

    /// Runs every step for a decoded response into `runner` and returns the decoded documents
    /// (whatever the verdict: callers expose them only when the report is accepted).
    /// `deviceMacAllowed` is false where the session transcript can only be signed (Apple's in-app
    /// flow, the DC API): a deviceMac then fails `mdoc.device.authentication`. `transcriptCandidates`
    /// name the transcript a device signed when its signature fails (``TranscriptDiagnosis``).
    public func verify(
        _ response: DeviceResponse, transcript: SessionTranscript, readerKey: P256.KeyAgreement.PrivateKey?,
        expectations: MdocPresentationExpectations, deviceMacAllowed: Bool = true, runner: inout CheckRunner, flow: String,
        transcriptCandidates: [TranscriptCandidate] = []
    ) async -> [VerifiedDocument] {
        let verifier = narrowed(for: response, expectations: expectations)
        let documents = await verifier.verify(
            response, transcript: transcript, readerKey: readerKey, runner: &runner, flow: flow, deviceMacAllowed: deviceMacAllowed,
            transcriptCandidates: transcriptCandidates
        ).documentsRegardlessOfVerdict
        var presented = PresentedDocuments(documents: documents, documentCount: response.documentResults.count)
        if expectations.requirePhotoID {
            await runner.run(PhotoIDDocTypeCheck(), state: &presented)
        }
        for document in documents where document.docType == PhotoIDDocument.docType {
            var typed = PhotoIDDocument(document: document)
            await runner.run(PhotoIDElementsCheck(), state: &typed, scope: "document[\(document.index)]")
        }
        if expectations.documentExpiry != .notChecked {
            let check = DocumentExpiryCheck(requireUnexpired: expectations.documentExpiry == .required)
            for document in documents {
                var document = document
                await runner.run(check, state: &document, scope: documents.count > 1 ? "document[\(document.index)]" : nil)
            }
        }
        for check in expectations.requestChecks {
            await runner.run(check, state: &presented)
        }
        await RevocationChecker.run(revocation, documents: documents, runner: &runner)
        return documents
    }

    /// For a flow whose envelope gave no DeviceResponse (it did not open, or its plaintext did not
    /// decode): `mdoc.response.structure` is recorded as skipped because of `prerequisite`, and the
    /// request checks as skipped after it, so a report always lists them.
    public func skip(after prerequisite: CheckID, expectations: MdocPresentationExpectations, runner: inout CheckRunner) async {
        runner.skip(.mdocResponseStructure, requires: prerequisite)
        var nothing = PresentedDocuments(documents: [], documentCount: 0)
        for check in expectations.requestChecks {
            await runner.run(check, state: &nothing)
        }
    }

    /// The mdoc verifier for this response and request: the passport rules for a photo ID, and
    /// only the requested docTypes accepted (within what the policy accepts).
    func narrowed(for response: DeviceResponse, expectations: MdocPresentationExpectations) -> MdocVerifier {
        let policy = mdocVerifier.policy
        var narrowed = PhotoIDChecks.policy(policy, for: response)
        if let requested = expectations.requestedDocTypes {
            narrowed.acceptedDocTypes = policy.acceptedDocTypes.map { $0.intersection(requested) } ?? requested
            // One document per docType asked for.
            narrowed.maxDocuments = min(policy.maxDocuments, max(requested.count, 1))
        }
        guard
            narrowed.acceptedDocTypes != policy.acceptedDocTypes || narrowed.maxDocuments != policy.maxDocuments
                || narrowed.requireCountryName != policy.requireCountryName
                || narrowed.requireFullCertificateProfile != policy.requireFullCertificateProfile
        else { return mdocVerifier }
        return MdocVerifier(sharing: mdocVerifier, policy: narrowed)
    }

    /// Decodes DeviceResponse bytes; when they do not decode, records the failed
    /// `mdoc.response.structure` — the one place that failure is written — and returns nil.
    static func decode(_ bytes: [UInt8], runner: inout CheckRunner, advice: String?) -> DeviceResponse? {
        do {
            return try DeviceResponse(cborBytes: bytes)
        } catch {
            runner.run(.mdocResponseStructure) {
                .failed(
                    ReasonCode(error.code.rawValue),
                    "The DeviceResponse could not be decoded: \(error.message)." + (advice.map { " " + $0 } ?? ""))
            }
            return nil
        }
    }
}
