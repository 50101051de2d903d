import Crypto
import Foundation
import Mdoc
import VerificationCore
import WalletCBOR
import X509

/// A document as the verifier saw it: its type, the issuer and the elements. Element values are
/// personal data: `description` does not show them.
public struct VerifiedDocument: Sendable, CustomStringConvertible {
    /// One namespace's elements, in received order.
    public struct NameSpace: Sendable {
        /// The namespace identifier, such as `org.iso.18013.5.1`.
        public let name: String
        /// The namespace's elements: identifier and value.
        public let elements: [(identifier: String, value: ElementValue)]

        /// The value of the first element with this identifier; nil when it was not disclosed.
        public subscript(identifier: String) -> ElementValue? {
            elements.first { $0.identifier == identifier }?.value
        }
    }

    /// Position in the DeviceResponse's documents: the `i` of the checks' `document[i]` scope.
    public let index: Int
    /// The document's docType as received.
    public let docType: String
    /// The issuer-signed elements, by namespace.
    public let issuerSigned: [NameSpace]
    /// The device-signed elements, by namespace; empty when the document has no DeviceSigned.
    public let deviceSigned: [NameSpace]
    /// Subject of the document signer and of the trusted root, when known.
    public let documentSigner: String?
    /// Subject of the trusted root the chain ends at (the signer's own when pinned); nil when the chain did not validate.
    public let issuingAuthority: String?
    /// The MSO validity window, when the MSO decoded.
    public let validFrom: Date?
    /// End of the MSO validity window, when the MSO decoded.
    public let validUntil: Date?
    /// The MSO `status` entry (revocation), as received.
    public let msoStatus: CBORNode?
    /// The validated issuer chain, document signer first and the trusted root last (one
    /// certificate for a pinned signer; empty when the chain did not validate). Revocation lists
    /// must chain to the same root.
    public internal(set) var validatedChain: [Certificate] = []
    /// When the issuer signed the MSO (`validityInfo.signed`), when the MSO decoded.
    public internal(set) var signed: Date?

    /// The value of an issuer-signed element; nil when it was not disclosed (device-signed elements are not searched).
    public func element(_ nameSpace: String, _ identifier: String) -> ElementValue? {
        issuerSigned.first { $0.name == nameSpace }?[identifier]
    }

    /// The docType and the number of issuer-signed elements, never their values.
    public var description: String {
        "VerifiedDocument(\(docType), \(issuerSigned.reduce(0) { $0 + $1.elements.count }) issuer-signed elements, values redacted)"
    }

    /// The kind of document its docType names: `mDL` (ISO/IEC 18013-5 `org.iso.18013.5.1.mDL`: a
    /// driver's licence or a state ID), `photoID` (ISO/IEC 23220 `org.iso.23220.photoid.1`: Apple's
    /// passport Digital ID), `myNumberCard` (`org.iso.23220.1.jp.mnc`) or `other`.
    public var kind: String {
        switch docType {
        case "org.iso.18013.5.1.mDL": return "mDL"
        case "org.iso.23220.photoid.1": return "photoID"
        case "org.iso.23220.1.jp.mnc": return "myNumberCard"
        default: return "other"
        }
    }

    /// `{"docType", "kind", "elements": {namespace: {identifier: value}}, "deviceSignedElements": {...}}`.
    public func json(includeElements: Bool) -> String {
        func spaces(_ list: [NameSpace]) -> String {
            "{"
                + list.map { space in
                    JSONText.quote(space.name) + ":{"
                        + space.elements.map { JSONText.quote($0.identifier) + ":" + $0.value.json }.joined(separator: ",") + "}"
                }.joined(separator: ",") + "}"
        }
        var fields = [JSONText.quote("docType") + ":" + JSONText.quote(docType), JSONText.quote("kind") + ":" + JSONText.quote(kind)]
        if includeElements {
            fields.append(JSONText.quote("elements") + ":" + spaces(issuerSigned))
            fields.append(JSONText.quote("deviceSignedElements") + ":" + spaces(deviceSigned))
        }
        return "{" + fields.joined(separator: ",") + "}"
    }
}

/// The outcome of verifying a DeviceResponse: the report, and — only when the verdict is accepted —
/// the documents with their elements (personal data). A rejected or indeterminate response's
/// documents are in ``documentsRegardlessOfVerdict``, for diagnostics only.
public struct MdocVerificationResult: Sendable {
    /// The check results and the verdict.
    public let report: VerificationReport
    private let decoded: [VerifiedDocument]

    /// A result of this report and these documents; ``documents`` withholds them unless the verdict is accepted.
    public init(report: VerificationReport, documents: [VerifiedDocument]) {
        self.report = report
        self.decoded = documents
    }

    /// The documents of an accepted response; empty for any other verdict.
    public var documents: [VerifiedDocument] { report.verdict == .accepted ? decoded : [] }

    /// Every document that was decoded, whatever the verdict: for diagnostics (which docType was
    /// sent) and for composing further checks, never for acting on its elements.
    public var documentsRegardlessOfVerdict: [VerifiedDocument] { decoded }
}

/// Verifies ISO/IEC 18013-5 DeviceResponses (§9.1.2 issuer data authentication, §9.1.3 mdoc
/// authentication, §9.3). Create one per trust store and reuse it: it caches validated DS → IACA chains.
public struct MdocVerifier: Sendable {
    /// The IACA roots that issuer chains must lead to.
    public let trustStore: IACATrustStore
    /// The requirement level of each check and the verification parameters.
    public let policy: MdocVerificationPolicy
    let chainCache: ValidatedChainCache
    /// The policy's requirements with `identity.document.expiry` advisory and required, made once:
    /// every verification of a flow that checks the expiry runs under one of them, and copying the
    /// policy's overrides costs about a microsecond each time.
    private let expiryRequirements: (advisory: VerificationPolicy, required: VerificationPolicy)

    /// A verifier with its own, empty chain cache.
    public init(trustStore: IACATrustStore, policy: MdocVerificationPolicy = .iso18013Strict) {
        self.trustStore = trustStore
        self.policy = policy
        self.chainCache = ValidatedChainCache()
        self.expiryRequirements = Self.expiryRequirements(policy.requirements)
    }

    /// A verifier with another policy that shares this one's trust store and chain cache.
    public init(sharing other: MdocVerifier, policy: MdocVerificationPolicy) {
        self.trustStore = other.trustStore
        self.policy = policy
        self.chainCache = other.chainCache
        // A verifier narrowed for one response (its requested docTypes, the passport rules) keeps the
        // other's requirements: their variants are shared, not made again for every such verification.
        self.expiryRequirements =
            policy.requirements == other.policy.requirements ? other.expiryRequirements : Self.expiryRequirements(policy.requirements)
    }

    private static func expiryRequirements(_ requirements: VerificationPolicy) -> (advisory: VerificationPolicy, required: VerificationPolicy) {
        (
            MdocPresentationExpectations(documentExpiry: .advisory).requirements(requirements),
            MdocPresentationExpectations(documentExpiry: .required).requirements(requirements)
        )
    }

    /// This verifier's policy requirements as `expectations` change them (the same policy
    /// ``MdocPresentationExpectations/requirements(_:)`` gives for ``policy``), without copying the
    /// policy on every verification: a flow creates its runner with this.
    public func requirements(for expectations: MdocPresentationExpectations) -> VerificationPolicy {
        switch expectations.documentExpiry {
        case .notChecked: policy.requirements
        case .advisory: expiryRequirements.advisory
        case .required: expiryRequirements.required
        }
    }

    /// Verifies DeviceResponse bytes. Bytes that are not a DeviceResponse give a rejected report (a
    /// failed `mdoc.response.structure`), never a thrown error.
    public func verify(
        deviceResponse bytes: [UInt8], transcript: SessionTranscript, readerKey: P256.KeyAgreement.PrivateKey? = nil, context: VerificationContext,
        flow: String = "mdoc"
    ) async -> MdocVerificationResult {
        var runner = CheckRunner(policy: policy.requirements, context: context.allowingClockSkew(policy.clockSkew))
        guard let response = MdocPresentationVerifier.decode(bytes, runner: &runner, advice: nil) else {
            return MdocVerificationResult(report: runner.report(flow: flow), documents: [])
        }
        return await verify(response, transcript: transcript, readerKey: readerKey, runner: &runner, flow: flow)
    }

    /// Verifies a decoded DeviceResponse.
    public func verify(
        _ response: DeviceResponse, transcript: SessionTranscript, readerKey: P256.KeyAgreement.PrivateKey? = nil, context: VerificationContext,
        flow: String = "mdoc"
    ) async -> MdocVerificationResult {
        var runner = CheckRunner(policy: policy.requirements, context: context.allowingClockSkew(policy.clockSkew))
        return await verify(response, transcript: transcript, readerKey: readerKey, runner: &runner, flow: flow)
    }

    /// Runs the checks into an existing runner (flows that add their own checks before and after).
    /// `deviceMacAllowed` is false in flows whose session transcript can only be signed (Apple's in-app
    /// flow, which only uses ECDSA, and the DC API, where the reader has no key agreement with the
    /// device): there a deviceMac fails `mdoc.device.authentication` with `deviceMacNotAllowed`
    /// instead of asking for a reader key that cannot exist. `transcriptCandidates` (see
    /// ``TranscriptDiagnosis``) are tried only when a document's device signature fails.
    public func verify(
        _ response: DeviceResponse, transcript: SessionTranscript, readerKey: P256.KeyAgreement.PrivateKey?, runner: inout CheckRunner, flow: String,
        deviceMacAllowed: Bool = true, transcriptCandidates: [TranscriptCandidate] = []
    ) async -> MdocVerificationResult {
        let transcriptCandidates = TranscriptDiagnosis.bounded(transcriptCandidates)
        let responseVersion = MdocVersion(response.version)
        var structure = response
        await runner.run(ResponseStructureCheck(maxDocuments: policy.maxDocuments, acceptedDocTypes: policy.acceptedDocTypes), state: &structure)
        if let refused = runner.results.last, refused.id == .mdocResponseStructure, refused.status == .failed,
            ResponseStructureCheck.refusedWhole.contains(refused.reason)
        {
            // Refused whole, before any signature: each document check is reported once, skipped, so
            // the report stays small whatever the response holds.
            for id in Self.documentChecks { runner.skip(id, requires: .mdocResponseStructure) }
            return MdocVerificationResult(report: runner.report(flow: flow), documents: [])
        }

        var documents: [VerifiedDocument] = []
        for (index, decoded) in response.documentResults.enumerated() {
            var state = DocumentState(
                index: index, decoded: decoded, responseVersion: responseVersion, transcript: transcript, readerKey: readerKey,
                trustStore: trustStore, policy: policy, chainCache: chainCache, deviceMacAllowed: deviceMacAllowed)
            let scope = state.scope
            await runner.run(DocumentStructureCheck(), state: &state, scope: scope)
            await runner.run(IssuerSignatureCheck(), state: &state, scope: scope)
            await runner.run(IssuerChainCheck(), state: &state, scope: scope)
            await runner.run(CertificateProfileCheck(), state: &state, scope: scope)
            await runner.run(IssuerCountryCheck(), state: &state, scope: scope)
            await runner.run(MSOStructureCheck(), state: &state, scope: scope)
            await runner.run(MSOVersionCheck(), state: &state, scope: scope)
            await runner.run(ValueDigestsCheck(), state: &state, scope: scope)
            await runner.run(IssuingCountryElementCheck(), state: &state, scope: scope)
            await runner.run(DocTypeCheck(), state: &state, scope: scope)
            await runner.run(ValidityCheck(), state: &state, scope: scope)
            if !transcriptCandidates.isEmpty {
                state.transcriptCandidates = transcriptCandidates
                state.transcriptDiagnosisEligible =
                    runner.passed(.mdocIssuerSignature, scope: scope) && runner.passed(.mdocValueDigests, scope: scope)
            }
            await runner.run(DeviceAuthenticationCheck(), state: &state, scope: scope)
            await runner.run(KeyAuthorizationsCheck(), state: &state, scope: scope)
            if let document = state.document {
                documents.append(Self.verifiedDocument(index: index, document: document, state: state))
            }
        }
        return MdocVerificationResult(report: runner.report(flow: flow), documents: documents)
    }

    /// The checks run for each document, in order.
    static let documentChecks: [CheckID] = [
        .mdocDocumentStructure, .mdocIssuerSignature, .mdocIssuerChain, .mdocIssuerCertificateProfile, .mdocIssuerCountry, .mdocMSOStructure,
        .mdocMSOVersion, .mdocValueDigests, .mdocIssuingCountryElement, .mdocDocType, .mdocValidity, .mdocDeviceAuthentication,
        .mdocDeviceKeyAuthorizations,
    ]

    static func verifiedDocument(index: Int, document: Document, state: DocumentState) -> VerifiedDocument {
        // The table keeps each namespace's items together, in received order.
        let table = document.issuerSigned.elements
        var issuer: [VerifiedDocument.NameSpace] = []
        issuer.reserveCapacity(table.nameSpaces.count)
        var next = 0
        for (index, name) in table.nameSpaces.enumerated() {
            // The namespace's run of items first, so that its array is allocated once at its size (an
            // mDL's 15 elements appended one by one were five allocations and four copies).
            var end = next
            while end < table.elements.count, table.elements[end].nameSpace == index { end += 1 }
            var elements: [(identifier: String, value: ElementValue)] = []
            elements.reserveCapacity(end - next)
            for item in next..<end { elements.append((identifier: table.elements[item].identifier, value: table.elements[item].value)) }
            next = end
            issuer.append(VerifiedDocument.NameSpace(name: name, elements: elements))
        }
        let device = (document.deviceSigned?.nameSpaces ?? []).map { space in
            VerifiedDocument.NameSpace(
                name: space.name,
                elements: space.elements.map {
                    (identifier: $0.identifier, value: ElementValue($0.value, depth: DeviceSigned.elementValueDepth, limits: .default))
                })
        }
        let signer = state.signer?.subject
        var verified = VerifiedDocument(
            index: index, docType: document.docType, issuerSigned: issuer, deviceSigned: device,
            documentSigner: signer, issuingAuthority: state.chain?.subjects.last,
            validFrom: state.mso?.validityInfo.validFrom, validUntil: state.mso?.validityInfo.validUntil,
            msoStatus: state.mso?.status)
        verified.validatedChain = state.chain?.chain ?? []
        verified.signed = state.mso?.validityInfo.signed
        return verified
    }
}
