import Crypto
import Foundation
import Mdoc
import MdocVerifier
import VerificationCore
import WalletEncoding
import WalletJOSE

/// Verifies OpenID4VP 1.0 responses from the W3C Digital Credentials API (protocols
/// `openid4vp-v1-unsigned` and `openid4vp-v1-signed`, response mode `dc_api.jwt`): decrypts the JWE
/// (ECDH-ES on P-256, A128GCM or A256GCM) with the request's key, reads the `vp_token`, matches it
/// against the DCQL query, and verifies each DeviceResponse with the session transcript
/// `[null, null, ["OpenID4VPDCAPIHandover", SHA-256(CBOR([origin, nonce, jwkThumbprint]))]]` — then
/// every check of the Annex C flow: issuer, chain, validity, digests, device signature (a deviceMac is
/// refused), photo ID rules, document expiry (advisory), requested elements, revocation. The report's
/// flow is `webIdentity`; `web.openid4vp.response` names the protocol in `details.protocol`.
public struct OpenID4VPVerifier: Sendable {
    /// The mdoc verifier (trust store, policy and caches) that checks each DeviceResponse.
    public let mdocVerifier: MdocVerifier
    /// The MSO revocation checks.
    public let revocation: RevocationChecker

    /// A verifier of this mdoc verifier and revocation checker.
    public init(mdocVerifier: MdocVerifier, revocation: RevocationChecker) {
        self.mdocVerifier = mdocVerifier
        self.revocation = revocation
    }

    /// A verifier sharing the Annex C verifier's trust store, policy, caches and revocation checker.
    public init(sharing web: WebIdentityVerifier) {
        self.init(mdocVerifier: web.mdocVerifier, revocation: web.revocation)
        explainDeviceFailures = web.explainDeviceFailures
    }

    /// Whether a device signature that fails is verified over the transcripts of a few likely mistakes
    /// (the origin spelled otherwise, a draft handover), to name the one the wallet signed in the
    /// failure (``TranscriptDiagnosis``). Off by default.
    public var explainDeviceFailures = false

    /// The outcome recorded for `replay.nonce` when the response is not bound to the request: the request was left unused.
    static func notConsumed(_ session: OpenID4VPSession) -> CheckOutcome {
        CheckOutcome(
            status: .skipped, reason: .prerequisiteFailed,
            message:
                "Not consumed: the response did not show that it could be accepted (an issuer chain to a trusted IACA, a valid issuer signature, and a device signature over this request's session transcript: origin \(session.origin), key thumbprint \(session.jwkThumbprint)), so the request stays open for the response that does.",
            details: ["prerequisite": CheckID.mdocDeviceAuthentication.rawValue])
    }

    /// Verifies what the page posted (`{"response": "<JWE>"}`, the credential around it, or the JWE
    /// text) for the request recorded in `session`. The key is the one of `recipientKeys` whose RFC 7638
    /// thumbprint the session recorded; the JWE must name the session's `kid`.
    ///
    /// `nonceOutcome` is the request session's `replay.nonce`; with `consume`, it is provisional (the
    /// request was found, unused) and the request is consumed by `consume` only once the response is
    /// bound to it and could be accepted — it decrypted, and every issuer chain, issuer signature and
    /// device signature over this session's transcript verified — and that outcome replaces the
    /// provisional one, in place. (Decryption alone proves nothing about the session: the encryption
    /// key is public in every request.) An answer whose device signatures did not verify over this
    /// transcript is not reported beyond its structure, and no document is returned for it.
    /// `prefix` results (trust-list checks) go first. `offeredAlongside`: the transcripts of the other
    /// protocols the same request offered (``WebTranscriptCandidates/annexCTranscript(encryptionInfo:origin:)``),
    /// tried with ``explainDeviceFailures`` when a device signature fails, as are the thumbprints of
    /// the configured keys.
    public func verify(
        response: [UInt8], session: OpenID4VPSession, recipientKeys: [P256.KeyAgreement.PrivateKey], context: VerificationContext,
        nonceOutcome: CheckOutcome? = nil, prefix: [CheckResult] = [], prefixWarnings: [ReportWarning] = [],
        offeredAlongside: [TranscriptCandidate] = [], consume: (() async -> CheckOutcome)? = nil
    ) async -> WebVerificationResult {
        let policy = mdocVerifier.policy
        var runner = CheckRunner(
            policy: mdocVerifier.requirements(for: MdocPresentationExpectations(documentExpiry: .advisory)),
            context: context.allowingClockSkew(policy.clockSkew))
        runner.record(prefix: prefix, warnings: prefixWarnings)
        if let nonceOutcome { await runner.recordReplayNonce(nonceOutcome) }
        let noncePrerequisite: [CheckID] = nonceOutcome == nil ? [] : [.replayNonce]

        var entries: [OpenID4VPResponse.Entry] = []
        runner.run(.webOpenID4VPResponse, requires: noncePrerequisite) {
            do throws(OpenID4VPResponseError) {
                let (decrypted, outcome) = try Self.decrypt(response, session: session, recipientKeys: recipientKeys)
                entries = decrypted
                return outcome
            } catch {
                return .failed(error.reason, error.message, details: ["protocol": session.protocol.rawValue])
            }
        }

        // The presentations that decoded for a credential query of the request, for the mdoc checks.
        var presentations: [(scope: String, request: WebDocumentRequest, response: DeviceResponse)] = []
        runner.run(.webOpenID4VPCredentials, requires: [.webOpenID4VPResponse]) {
            let (decoded, outcome) = Self.matchCredentials(entries, session: session)
            // An answer that is not exactly what was asked for (more presentations, other credential
            // ids or docTypes) is refused before any signature is verified: its cost stays that of decoding.
            presentations = outcome.status == .passed ? decoded : []
            return outcome
        }

        let transcript = session.sessionTranscript
        let candidates =
            explainDeviceFailures
            ? WebTranscriptCandidates.openID4VP(
                origin: session.origin, nonce: session.nonce, jwkThumbprint: Base64.decodeURL(session.jwkThumbprint) ?? [],
                webKeys: recipientKeys) + offeredAlongside : []
        var documents: [VerifiedDocument] = []
        let (start, warningsStart) = (runner.results.count, runner.warnings.count)
        let composition = MdocPresentationVerifier(mdocVerifier: mdocVerifier, revocation: revocation)
        if presentations.isEmpty {
            let request = session.credentials.sorted { $0.key < $1.key }.first?.value
            await composition.skip(after: .webOpenID4VPCredentials, expectations: WebIdentityVerifier.expectations(request: request), runner: &runner)
        }
        // One presentation (the usual answer) is verified in the runner itself: its checks keep their
        // own scopes, as they would when copied from a runner of their own. Several are each verified
        // in a runner of their own, whose results and warnings get the presentation's scope.
        if presentations.count == 1 {
            let start = runner.results.count
            documents = await composition.verify(
                presentations[0].response, transcript: transcript, readerKey: nil,
                expectations: WebIdentityVerifier.expectations(request: presentations[0].request),
                deviceMacAllowed: false, runner: &runner, flow: "webIdentity", transcriptCandidates: candidates)
            runner.amendResults(from: start) { Self.explainTranscript(&$0, session: session) }
        } else {
            for presentation in presentations {
                var sub = CheckRunner(policy: runner.policy, context: runner.context)
                // The composition every flow shares, with the Annex C flow's expectations: the requested
                // docType, every document's expiry as a warning, nothing unrequested; no deviceMac (the DC
                // API gives the reader no key agreement with the device).
                let verified = await composition.verify(
                    presentation.response, transcript: transcript, readerKey: nil,
                    expectations: WebIdentityVerifier.expectations(request: presentation.request),
                    deviceMacAllowed: false, runner: &sub, flow: "webIdentity", transcriptCandidates: candidates)
                documents += verified
                let scopePrefix = presentation.scope
                for var result in sub.results {
                    result.scope = result.scope.map { scopePrefix + "." + $0 } ?? scopePrefix
                    Self.explainTranscript(&result, session: session)
                    runner.record(result)
                }
                for warning in sub.warnings {
                    runner.warn(warning.code, warning.message, scope: warning.scope.map { scopePrefix + "." + $0 } ?? scopePrefix)
                }
            }
        }

        // Only a provisional outcome that passed (the request was found, unused) is replaced: by the
        // consumption once the answer has shown it could be accepted (``ResponseBinding``).
        let bound = ResponseBinding.deviceBound(runner, from: start)
        if let consume, nonceOutcome?.status == .passed {
            let acceptable = runner.passed(.webOpenID4VPResponse) && ResponseBinding.mayUseRequest(runner, from: start, bound: bound)
            runner.revise(.replayNonce, acceptable ? await consume() : Self.notConsumed(session))
        }
        if !presentations.isEmpty, !ResponseBinding.withholdPlaintext(&runner, from: start, warningsFrom: warningsStart, bound: bound) {
            documents = []
        }
        return WebVerificationResult(report: runner.report(flow: "webIdentity"), documents: documents)
    }

    /// A device signature that failed over this flow's transcript says which transcript that was.
    static func explainTranscript(_ result: inout CheckResult, session: OpenID4VPSession) {
        guard result.id == .mdocDeviceAuthentication, result.status == .failed, result.reason != .deviceMacNotAllowed else { return }
        result.message +=
            " OpenID4VP transcript used here: OpenID4VPDCAPIHandover for origin \(session.origin) and encryption key thumbprint \(session.jwkThumbprint) (kid \(session.keyID)) with this request's nonce; a wallet that answered another origin or request, or for another key, signed another transcript."
        result.details["origin"] = session.origin
        result.details["jwkThumbprint"] = session.jwkThumbprint
    }

    /// The JWE opened with the session's key, and the `vp_token` entries.
    static func decrypt(_ response: [UInt8], session: OpenID4VPSession, recipientKeys: [P256.KeyAgreement.PrivateKey]) throws(OpenID4VPResponseError)
        -> ([OpenID4VPResponse.Entry], CheckOutcome)
    {
        let text = try OpenID4VPResponse.jweText(fromSubmission: response, expected: session.protocol)
        let jwe: JWE
        do { jwe = try JWE(compact: text) } catch { throw OpenID4VPResponseError(Self.reason(error.code), error.message) }
        guard jwe.keyID == session.keyID else {
            throw OpenID4VPResponseError(
                .unknownKeyID,
                (jwe.keyID.map { "The JWE names kid \"\(OpenID4VPResponse.printable($0))\"" } ?? "The JWE names no kid")
                    + "; this request offered one key, kid \"\(session.keyID)\" (thumbprint \(session.jwkThumbprint)). The wallet encrypted to a key of another request or verifier."
            )
        }
        guard let key = requestKey(session: session, recipientKeys: recipientKeys) else {
            if session.requestKeyID != nil {
                throw OpenID4VPResponseError(
                    .unknownKeyID,
                    "No configured web recipient key derives this request's own encryption key (thumbprint \(session.jwkThumbprint), kid \"\(session.keyID)\"): the key it was derived from is no longer configured (\(recipientKeys.count) configured). Keep a rotated key configured until the requests issued with it expire."
                )
            }
            let configured = recipientKeys.map { RecipientKeyThumbprints.thumbprint(of: $0) }
            throw OpenID4VPResponseError(
                .unknownKeyID,
                "No configured web recipient key has the thumbprint \(session.jwkThumbprint) (kid \"\(session.keyID)\") this request offered; configured: "
                    + (configured.isEmpty ? "none" : configured.joined(separator: ", "))
                    + ". Keep a rotated key configured until the requests issued with it expire.")
        }
        let plaintext: [UInt8]
        do { plaintext = try jwe.decrypt(with: key) } catch { throw OpenID4VPResponseError(.decryptionFailed, error.message) }
        let entries = try OpenID4VPResponse.vpToken(payload: plaintext)
        // The report's text is written when it is read, from these texts only: not the JWE, the
        // session (its key) or the presentations.
        let (encryption, keyID, thumbprint, protocolName) = (jwe.encryption.rawValue, session.keyID, session.jwkThumbprint, session.protocol.rawValue)
        let ids = entries.map { ($0.id, $0.presentations.count) }
        return (
            entries,
            .passed {
                let count = ids.reduce(0) { $0 + $1.1 }
                let named = ids.map { OpenID4VPResponse.printable($0.0) }
                return (
                    "The JWE (ECDH-ES, \(encryption), kid \"\(keyID)\") decrypted with the key of thumbprint \(thumbprint); its vp_token holds \(count) presentation(s) for \(named.joined(separator: ", ")).",
                    ["protocol": protocolName, "enc": encryption, "kid": keyID, "jwkThumbprint": thumbprint]
                )
            }
        )
    }

    /// The key that opens responses to `session`: the request's own key derived from one of
    /// `recipientKeys` (``OpenID4VPRequestKey``) when the session names the identifier it was derived
    /// from, else (records from before request keys) the configured key of the recorded thumbprint.
    static func requestKey(session: OpenID4VPSession, recipientKeys: [P256.KeyAgreement.PrivateKey]) -> P256.KeyAgreement.PrivateKey? {
        guard let identifier = session.requestKeyID else {
            return recipientKeys.first { RecipientKeyThumbprints.thumbprint(of: $0) == session.jwkThumbprint }
        }
        for webKey in recipientKeys {
            let derived = OpenID4VPRequestKey.derive(from: webKey, identifier: identifier)
            if Base64.encodeURL(JWK(publicKey: derived.publicKey).thumbprint) == session.jwkThumbprint { return derived }
        }
        return nil
    }

    static func reason(_ code: JOSEError.Code) -> ReasonCode {
        switch code {
        case .unsupportedAlgorithm: return .jweUnsupportedAlgorithm
        case .unsupportedEncryption: return .unsupportedEncryption
        case .unsupportedHeader: return .unsupportedHeader
        case .invalidKey: return .invalidEphemeralKey
        case .decryptionFailed: return .decryptionFailed
        default: return .malformedResponse
        }
    }

    /// Every id asked for, every query answered, each presentation a DeviceResponse of its query's docType.
    static func matchCredentials(_ entries: [OpenID4VPResponse.Entry], session: OpenID4VPSession) -> (
        [(scope: String, request: WebDocumentRequest, response: DeviceResponse)], CheckOutcome
    ) {
        var decoded: [(scope: String, request: WebDocumentRequest, response: DeviceResponse)] = []
        decoded.reserveCapacity(entries.count)
        var problems: [(ReasonCode, String)] = []
        // The usual answer (each id asked for answered once, nothing else) is told by counting; the
        // lists a message names are built only when something is wrong.
        let answeredOnce =
            entries.count == session.credentials.count
            && entries.allSatisfy { entry in entry.presentations.count == 1 && session.credentials[entry.id] != nil }
            && (entries.count < 2 || Set(entries.map(\.id)).count == entries.count)
        if !answeredOnce {
            let asked = session.credentials.keys.sorted()
            let unrequested = entries.map(\.id).filter { session.credentials[$0] == nil }
            if !unrequested.isEmpty {
                problems.append(
                    (
                        .unrequestedCredential,
                        "The vp_token answers credential id(s) the request did not ask for: \(unrequested.map(OpenID4VPResponse.printable).joined(separator: ", ")); it asked for \(asked.joined(separator: ", "))."
                    ))
            }
            let missing = asked.filter { id in !entries.contains { $0.id == id } }
            if !missing.isEmpty {
                problems.append(
                    (
                        .missingCredential,
                        "The vp_token has no presentation for \(missing.joined(separator: ", ")); every credential query of the request is required."
                    ))
            }
            // The DCQL queries leave `multiple` at its default (false): one presentation per query (§6.1).
            let repeated = entries.filter { session.credentials[$0.id] != nil && $0.presentations.count > 1 }
            if !repeated.isEmpty {
                problems.append(
                    (
                        .tooManyPresentations,
                        "The vp_token holds several presentations for \(repeated.map { "\($0.id) (\($0.presentations.count))" }.joined(separator: ", ")); the request's credential queries allow one each (DCQL multiple is false)."
                    ))
            }
        }
        for entry in entries {
            guard let request = session.credentials[entry.id] else { continue }
            for (index, bytes) in entry.presentations.enumerated() {
                let scope = "vp_token.\(entry.id)[\(index)]"
                let response: DeviceResponse
                do { response = try DeviceResponse(cborBytes: bytes) } catch {
                    problems.append((.malformedPresentation, "\(scope) is not a DeviceResponse: \(error.message)."))
                    continue
                }
                if response.containsDocument(where: { $0.docType != request.docType }) {
                    let others = response.documentResults.compactMap { try? $0.get().docType }.filter { $0 != request.docType }
                    problems.append(
                        (
                            .wrongDocType,
                            "\(scope) holds \(Set(others).sorted().joined(separator: ", ")); its credential query asked for \(request.docType)."
                        ))
                }
                decoded.append((scope, request, response))
            }
        }
        if let first = problems.first {
            return (
                decoded,
                .failed(
                    first.0, problems.map { $0.1 }.joined(separator: " "), details: ["reasons": problems.map { $0.0.rawValue }.joined(separator: ",")]
                )
            )
        }
        let credentials = session.credentials
        return (
            decoded,
            .passed(
                "The vp_token answers exactly the credential queries asked for (\(credentials.keys.sorted().joined(separator: ", "))), each with DeviceResponses of the requested docType."
            )
        )
    }
}
