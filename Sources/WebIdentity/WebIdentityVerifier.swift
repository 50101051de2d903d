import Crypto
import Foundation
import Mdoc
import MdocVerifier
import VerificationCore
import WalletCBOR

/// The result of verifying a Digital Credentials API response: the report and — only when the
/// verdict is accepted — the documents (personal data).
public struct WebVerificationResult: Sendable {
    /// The verification report: the verdict and every check's outcome.
    public let report: VerificationReport
    private let decoded: [VerifiedDocument]

    init(report: VerificationReport, documents: [VerifiedDocument]) {
        self.report = report
        self.decoded = documents
    }

    /// The documents of an accepted response; empty for any other verdict.
    public var documents: [VerifiedDocument] { report.verdict == .accepted ? decoded : [] }
    /// Every document that was decoded, whatever the verdict: for diagnostics, never for acting on.
    public var documentsRegardlessOfVerdict: [VerifiedDocument] { decoded }
}

/// Verify with Wallet on the Web: ISO/IEC 18013-7 Annex C (`org-iso-mdoc` over the W3C Digital
/// Credentials API). Opens the EncryptedResponse with HPKE — base mode, DHKEM(P-256, HKDF-SHA256),
/// HKDF-SHA256, AES-128-GCM, info = SessionTranscript `[null, null, ["dcapi", SHA-256(CBOR([base64url(EncryptionInfo), origin]))]]`,
/// empty aad — and verifies the DeviceResponse with the same transcript. Photo ID documents get the
/// photo ID checks; a revocation checker adds the MSO revocation checks.
public struct WebIdentityVerifier: Sendable {
    /// The mdoc verifier (trust store, policy and caches) that checks the decrypted DeviceResponse.
    public let mdocVerifier: MdocVerifier
    /// The MSO revocation checks: a checker with its list sources, or
    /// ``RevocationChecker/off(because:trustStore:)``, whose reason every report then shows.
    public let revocation: RevocationChecker

    static let ciphersuite = HPKE.Ciphersuite(kem: .P256_HKDF_SHA256, kdf: .HKDF_SHA256, aead: .AES_GCM_128)

    /// Production: ISO/IEC 18013-5 as written (`web verify` and the service's `/v1/web/verify`).
    public static let productionPolicy = MdocVerificationPolicy.iso18013Strict

    /// Test issuers (a demo wallet, a capture): the issuer checks and revocation are reported but not
    /// required; the device signature and the envelope still are. Every report made under this
    /// policy is marked test-only and must never be trusted in production.
    public static let developerPolicy: MdocVerificationPolicy = {
        var requirements = VerificationPolicy(name: "web-identity/developer@1", testOnly: true)
        for id in [
            CheckID.mdocIssuerSignature, .mdocIssuerChain, .mdocIssuerCertificateProfile, .mdocIssuerCountry, .mdocRevocationList,
            .mdocRevocationStatus,
        ] {
            requirements = requirements.with(id, .advisory)
        }
        var policy = MdocVerificationPolicy.iso18013Strict
        policy.requirements = requirements
        return policy
    }()

    /// Creates a verifier trusting the issuers (IACAs) of `trustStore` under `policy`, by default ``productionPolicy``.
    public init(trustStore: IACATrustStore, policy: MdocVerificationPolicy = .iso18013Strict, revocation: RevocationChecker) {
        self.mdocVerifier = MdocVerifier(trustStore: trustStore, policy: policy)
        self.revocation = revocation
    }

    /// Creates a verifier around an existing mdoc verifier, sharing its trust store, policy and caches.
    public init(mdocVerifier: MdocVerifier, revocation: RevocationChecker) {
        self.mdocVerifier = mdocVerifier
        self.revocation = revocation
    }

    /// Verifies an EncryptedResponse (CBOR bytes) for a request whose EncryptionInfo (base64url, as
    /// sent to the browser) and origin are known. `prefix` results (trust-list checks) go first;
    /// `nonceOutcome` is the request session's `replay.nonce`.
    public func verify(
        response: [UInt8], encryptionInfo: String, origin: String, recipientKey: P256.KeyAgreement.PrivateKey,
        request: WebDocumentRequest? = nil, context: VerificationContext, nonceOutcome: CheckOutcome? = nil,
        prefix: [CheckResult] = [], prefixWarnings: [ReportWarning] = []
    ) async -> WebVerificationResult {
        await verify(
            response: response, encryptionInfo: encryptionInfo, origin: origin, recipientKey: recipientKey, request: request, context: context,
            nonceOutcome: nonceOutcome, prefix: prefix, prefixWarnings: prefixWarnings, consumeOnOpen: nil)
    }

    /// The outcome recorded for `replay.nonce` when the response did not open for the request's
    /// transcript (another origin, another request, altered or garbage): the request was left unused.
    static let notConsumed = CheckOutcome(
        status: .skipped, reason: .prerequisiteFailed,
        message:
            "Not consumed: the response did not open for this request's session transcript (origin and encryption info), so the request stays open for the response that does.",
        details: ["prerequisite": CheckID.webEnvelopeDecryption.rawValue])

    /// As the public `verify`; with `consumeOnOpen`, `nonceOutcome` is provisional (the request was
    /// found, unused) and the request is consumed by `consumeOnOpen` only once HPKE opened the
    /// response with its transcript; that outcome replaces the provisional `replay.nonce`, in place.
    /// Nothing after the decryption is evaluated unless the consumption passed.
    func verify(
        response: [UInt8], encryptionInfo: String, origin: String, recipientKey: P256.KeyAgreement.PrivateKey,
        request: WebDocumentRequest?, context: VerificationContext, nonceOutcome: CheckOutcome?,
        prefix: [CheckResult], prefixWarnings: [ReportWarning], consumeOnOpen: (() async -> CheckOutcome)?
    ) async -> WebVerificationResult {
        let time = context.time
        let policy = mdocVerifier.policy
        var runner = CheckRunner(
            policy: policy.requirements.with(.identityDocumentExpiry, .advisory), context: context.allowingClockSkew(policy.clockSkew))
        for result in prefix { runner.record(result) }
        for warning in prefixWarnings { runner.warn(warning.code, warning.message, scope: warning.scope) }
        if let nonceOutcome { runner.run(.webNonce) { nonceOutcome } }
        let noncePrerequisite: [CheckID] = nonceOutcome == nil ? [] : [.webNonce]

        var envelope: DCAPIEncryptedResponse?
        runner.run(.webEnvelopeStructure) {
            do {
                envelope = try DCAPIEncryptedResponse(cborBytes: response)
            } catch {
                return .failed(.malformedStructure, "The response is not an Annex C EncryptedResponse: \(error).")
            }
            return .passed("[\"dcapi\", {enc, cipherText}] with a \(envelope!.cipherText.count)-byte cipher text.")
        }

        runner.run(.webEnvelopeEncryptionInfo, requires: noncePrerequisite) {
            let info: DCAPIEncryptionInfo
            do { info = try DCAPIEncryptionInfo(base64URL: encryptionInfo) } catch {
                return .failed(.malformedEncryptionInfo, "The request's encryption info is unusable: \(error).")
            }
            guard info.recipientPublicKey.x963Representation == recipientKey.publicKey.x963Representation else {
                return .failed(
                    .recipientKeyMismatch,
                    "The request's encryption info names another recipient key than the one configured here (configured \(WebRecipientKey.thumbprint(recipientKey.publicKey).prefix(16))…)."
                )
            }
            return .passed("The encryption info names the configured recipient key and a \(info.nonce.count)-byte nonce.")
        }

        let transcript = SessionTranscript.dcapi(encryptionInfoBase64URL: encryptionInfo, origin: origin)
        var plaintext: [UInt8]?
        runner.run(.webEnvelopeDecryption, requires: [.webEnvelopeStructure, .webEnvelopeEncryptionInfo]) {
            guard let envelope else { return .failed(.malformedInput, "No envelope.") }
            do {
                var recipient = try HPKE.Recipient(
                    privateKey: recipientKey, ciphersuite: Self.ciphersuite, info: Data(transcript.bytes), encapsulatedKey: Data(envelope.enc))
                plaintext = [UInt8](try recipient.open(envelope.cipherText, authenticating: Data()))
            } catch {
                return .failed(
                    .decryptionFailed,
                    "HPKE (DHKEM P-256, HKDF-SHA256, AES-128-GCM) could not open the response: the cipher text or enc was altered, or the wallet used another origin or encryption info than \(origin) and this request's.",
                    details: ["origin": origin])
            }
            return .passed("HPKE opened the response with the session transcript for origin \(origin).", details: ["origin": origin])
        }

        if let consumeOnOpen, nonceOutcome != nil {
            // The request is used up only by a response that opened for it.
            let consumed = runner.passed(.webEnvelopeDecryption) ? await consumeOnOpen() : Self.notConsumed
            runner.revise(.webNonce, consumed)
        }

        var deviceResponse: DeviceResponse?
        runner.run(.webPlaintextStructure, requires: [.webEnvelopeDecryption] + noncePrerequisite) {
            guard let plaintext else { return .failed(.malformedInput, "No plaintext.") }
            do {
                deviceResponse = try DeviceResponse(cborBytes: plaintext)
            } catch let error as MdocDecodingError {
                return .failed(ReasonCode(error.code.rawValue), "The decrypted data is not a DeviceResponse: \(error.message).")
            }
            return .passed("The plaintext is a DeviceResponse (\(plaintext.count) bytes).")
        }

        var documents: [VerifiedDocument] = []
        if let deviceResponse {
            var verifier = mdocVerifier
            var narrowed = PhotoIDChecks.policy(policy, for: deviceResponse)
            if let request, policy.acceptedDocTypes == nil {
                narrowed.acceptedDocTypes = [request.docType]
            }
            if narrowed.acceptedDocTypes != policy.acceptedDocTypes || narrowed.requireCountryName != policy.requireCountryName
                || narrowed.requireFullCertificateProfile != policy.requireFullCertificateProfile
            {
                verifier = MdocVerifier(sharing: mdocVerifier, policy: narrowed)
            }
            // The DC API gives the reader no key agreement with the device: a deviceMac is a failure.
            documents = await verifier.verify(
                deviceResponse, transcript: transcript, readerKey: nil, runner: &runner, flow: "webIdentity", deviceMacAllowed: false
            ).documentsRegardlessOfVerdict
            let requirePhotoID = request?.docType == PhotoIDDocument.docType
            PhotoIDChecks.run(
                documents: documents, documentCount: deviceResponse.documentResults.count, requirePhotoID: requirePhotoID, runner: &runner)
        } else {
            runner.run(.mdocResponseStructure, requires: [.webPlaintextStructure]) {
                .failed(.malformedInput, "Unreachable: the plaintext did not decode.")
            }
        }

        // The physical document's own expiry: a warning here (the web request has no requireUnexpired),
        // as in the in-app flow when the request does not require an unexpired document.
        for document in documents {
            runner.run(.identityDocumentExpiry, requires: [.mdocResponseStructure], scope: documents.count > 1 ? "document[\(document.index)]" : nil)
            {
                DocumentExpiry.outcome(document: document, requireUnexpired: false, at: time)
            }
        }
        if let request {
            runner.run(.webRequestElements, requires: [.mdocResponseStructure]) {
                Self.elementsOutcome(documents: documents, request: request)
            }
        }
        await RevocationChecker.run(revocation, documents: documents, runner: &runner)
        return WebVerificationResult(report: runner.report(flow: "webIdentity"), documents: documents)
    }

    static func elementsOutcome(documents: [VerifiedDocument], request: WebDocumentRequest) -> CheckOutcome {
        guard !documents.isEmpty else { return .failed(.noDocument, "No document to compare with the request.") }
        var unrequested: [String] = []
        for document in documents {
            guard document.docType == request.docType else {
                return .failed(.unexpectedDocType, "The response holds a \(document.docType); the request asked for \(request.docType).")
            }
            for space in document.issuerSigned + document.deviceSigned {
                for element in space.elements where !request.allows(nameSpace: space.name, identifier: element.identifier) {
                    unrequested.append("\(space.name)/\(element.identifier)")
                }
            }
        }
        guard unrequested.isEmpty else {
            return .failed(
                .unrequestedElement, "The response holds elements that were not requested: \(unrequested.joined(separator: ", ")).",
                details: ["unrequested": unrequested.joined(separator: ",")])
        }
        return .passed("The response holds the requested \(request.docType) and only requested elements.")
    }
}
