import Crypto
import Foundation
import MdocVerifier
import VerificationCore
import WalletCBOR
import WalletEncoding
import WalletJSON

/// Server-side sessions for Verify with Wallet on the Web, like the in-app request sessions: the
/// server creates the request (a fresh nonce in the EncryptionInfo, the origin, the requested
/// elements; with OpenID4VP offered too, its own nonce and DCQL query) and stores it in the
/// ``ReplayStore``; a response bound to it consumes it exactly once, whichever protocol answered
/// (atomic, also across instances sharing a store).
public struct WebRequestSessions: Sendable {
    /// A newly created request: what the page passes to the browser and the identifier to submit the response with.
    public struct Created: Sendable, CustomStringConvertible {
        /// The identifier the response is submitted with; base64url of 18 random bytes.
        public let requestID: String
        /// The Annex C request, encryption info and DeviceRequest (built for every session; offered
        /// to the page only when ``protocols`` holds `org-iso-mdoc`).
        public let presentation: WebPresentationRequest
        /// When the request stops being accepted.
        public let expiresAt: Date
        /// The protocols this request offers, Annex C first.
        public let protocols: [WebRequestProtocol]
        /// The OpenID4VP entry of the DC API argument (`{"protocol", "data"}` JSON), when OpenID4VP is offered.
        public let openID4VPRequest: String?

        /// The argument of `navigator.credentials.get`: `{"mediation": "required", "digital": {"requests": [...]}}`,
        /// one entry per offered protocol, Annex C first.
        public var navigatorCredentialsGetArgument: String {
            presentation.navigatorCredentialsGetArgument(offering: protocols, openID4VPRequest: openID4VPRequest)
        }

        /// The nonce is left out.
        public var description: String {
            "WebRequest(\(requestID), \(presentation.origin), \(protocols.map(\.rawValue).joined(separator: "+")), expires \(RFC3339.format(expiresAt)))"
        }
    }

    /// The store that issues and consumes requests exactly once.
    public let store: any ReplayStore
    /// The verifier that opens and checks the responses.
    public private(set) var verifier: WebIdentityVerifier
    /// How long a request stays usable (default 10 minutes).
    public var lifetime: Duration
    /// What one request may ask for and store (elements, stored session size).
    public var limits: RequestLimits
    /// The docTypes requests may be created for; nil: any docType of the data identifier form.
    public var allowedDocTypes: Set<String>?

    /// Creates sessions verifying with `verifier`; `lifetime` counts whole seconds.
    public init(
        store: any ReplayStore, verifier: WebIdentityVerifier, lifetime: Duration = .seconds(600), limits: RequestLimits = .standard,
        allowedDocTypes: Set<String>? = nil
    ) {
        self.store = store
        self.verifier = verifier
        self.lifetime = lifetime
        self.limits = limits
        self.allowedDocTypes = allowedDocTypes
    }

    /// The same sessions (store, limits) whose verifier names the transcript a failed device
    /// signature was made for (``WebIdentityVerifier/explainDeviceFailures``): the operator's page.
    public func explainingDeviceFailures() -> WebRequestSessions {
        var copy = self
        copy.verifier.explainDeviceFailures = true
        return copy
    }

    /// What the store keeps for a request: what each offered protocol's transcript needs.
    struct Payload: Codable {
        /// The Annex C EncryptionInfo (base64url), always built.
        var encryptionInfo: String
        var origin: String
        var request: WebDocumentRequest
        /// Thumbprint of the recipient key the request was issued for (absent in sessions stored
        /// before keys rotated: then the first key is used).
        var recipientKey: String?
        /// The offered protocols; absent in sessions stored before OpenID4VP: Annex C only.
        var protocols: [WebRequestProtocol]?
        /// The OpenID4VP record (nonce, key thumbprint and kid, client identifier, credential queries) when OpenID4VP was offered.
        var openID4VP: OpenID4VPSession?

        var offered: [WebRequestProtocol] { protocols ?? [.annexC] }
    }

    /// Creates a request with a 32-byte nonce from the system CSPRNG, encrypted responses going to
    /// `recipientPublicKey`.
    /// With `readerAuth`, the DeviceRequest is signed (ISO/IEC 18013-5 §9.1.4) for this request's own
    /// transcript: per DocRequest, or once with `readerAuthAll`.
    ///
    /// `protocols` chooses what the request offers (default: Annex C only); an OpenID4VP protocol
    /// gets its own fresh nonce and its own encryption key, derived from `recipientPrivateKey` (the
    /// private key of `recipientPublicKey`, required then) and the request id
    /// (``OpenID4VPRequestKey``), and `openid4vp-v1-signed` needs `requestSigner`. Throws
    /// ``WebRequestError`` for a request that cannot be built (code ``ErrorCode/requestTooLarge`` past
    /// ``limits``, checked before anything is signed), or the store's error.
    public func create(
        request: WebDocumentRequest, origin: String, recipientPublicKey: P256.KeyAgreement.PublicKey, now: Date,
        readerAuth: ReaderAuthSigner? = nil, readerAuthAll: Bool = false, protocols: [WebRequestProtocol] = [.annexC],
        requestSigner: OpenID4VPRequestSigner? = nil, recipientPrivateKey: P256.KeyAgreement.PrivateKey? = nil
    ) async throws -> Created {
        let protocols = WebRequestProtocol.ordered(protocols)
        guard !protocols.isEmpty, Set(protocols).count == protocols.count else {
            throw WebRequestError("name each protocol once, at least one")
        }
        let openID4VPProtocols = protocols.filter(\.isOpenID4VP)
        guard openID4VPProtocols.count <= 1 else {
            throw WebRequestError("offer one of openid4vp-v1-signed and openid4vp-v1-unsigned, not both: a wallet could answer the unsigned one")
        }
        if let chosen = openID4VPProtocols.first, chosen == .openID4VPSigned && requestSigner == nil {
            throw WebRequestError(.invalidRequest, "openid4vp-v1-signed needs a request-signing key and certificate")
        }
        // An OpenID4VP request gets an encryption key of its own, derived from the web key and the request id.
        var webKey: P256.KeyAgreement.PrivateKey?
        if !openID4VPProtocols.isEmpty {
            guard let key = recipientPrivateKey, key.publicKey.rawRepresentation == recipientPublicKey.rawRepresentation else {
                throw WebRequestError(
                    .invalidRequest, "an OpenID4VP request needs the web recipient private key, to derive the request's own encryption key")
            }
            webKey = key
        }
        // Everything a caller controls is bounded before anything is signed or encoded for the wallet.
        try request.validate()
        if let allowedDocTypes, !allowedDocTypes.contains(request.docType) {
            throw WebRequestError("requests are created for \(allowedDocTypes.sorted().joined(separator: ", ")) only")
        }
        guard request.elements.count <= limits.maxElements else {
            throw WebRequestError(
                .requestTooLarge, "the request asks for \(request.elements.count) elements; at most \(limits.maxElements) may be asked for")
        }
        let nonce = Self.randomBytes(32)
        let encryptionInfo = try DCAPIEncryptionInfo(nonce: nonce, recipientPublicKey: recipientPublicKey)
        let requestID = Base64.encodeURL(Self.randomBytes(18))
        // The session as it will be stored, checked against the limits before anything is signed: the
        // OpenID4VP record is that of the unsigned request (the request's own key and nonce), with the
        // signed protocol's client identifier when it is the signed one.
        let annexCOnly = protocols == [.annexC]
        let chosen = openID4VPProtocols.first
        var unsigned: OpenID4VPRequest?
        var record: OpenID4VPSession?
        if chosen != nil, let webKey {
            let built = try OpenID4VPRequest(requests: [request], origin: origin, webKey: webKey, requestKeyID: requestID)
            var session = built.session
            if chosen == .openID4VPSigned {
                session.protocol = .signed
                session.clientID = requestSigner?.clientID
            }
            (unsigned, record) = (built, session)
        }
        let payload = Payload(
            encryptionInfo: encryptionInfo.base64URL, origin: origin, request: request, recipientKey: WebRecipientKey.thumbprint(recipientPublicKey),
            protocols: annexCOnly ? nil : protocols, openID4VP: record)
        // A session offering Annex C alone is stored exactly as before OpenID4VP existed.
        var stored = try JSONEncoder().encode(payload)
        try checkStoredSize(stored.count)
        let presentation = try WebPresentationRequest(
            request: request, origin: origin, nonce: nonce, recipientPublicKey: recipientPublicKey,
            readerAuth: readerAuth, readerAuthAll: readerAuthAll)
        var openID4VP = unsigned
        if chosen == .openID4VPSigned, let webKey, let unsigned {
            let signed = try OpenID4VPRequest(
                requests: [request], origin: origin, webKey: webKey, requestKeyID: requestID, nonce: unsigned.session.nonce, signer: requestSigner)
            if signed.session != record {
                // Not expected (the same record, signed): store what the signed request says, within the limits.
                var resigned = payload
                resigned.openID4VP = signed.session
                stored = try JSONEncoder().encode(resigned)
                try checkStoredSize(stored.count)
            }
            openID4VP = signed
        }
        let expiresAt = now.addingTimeInterval(Double(lifetime.components.seconds))
        try await store.issueNonce(requestID, payload: [UInt8](stored), expiresAt: expiresAt)
        return Created(
            requestID: requestID, presentation: presentation, expiresAt: expiresAt, protocols: protocols,
            openID4VPRequest: openID4VP?.digitalCredentialsRequest)
    }

    /// Throws ``ErrorCode/requestTooLarge`` when a session of `size` bytes is more than ``limits`` lets the store keep.
    func checkStoredSize(_ size: Int) throws(WebRequestError) {
        guard size <= limits.maxSessionBytes else {
            throw WebRequestError(
                .requestTooLarge,
                "the request session would store \(size) bytes; at most \(limits.maxSessionBytes) may be stored: ask for fewer elements or shorter names"
            )
        }
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// As ``verify(requestID:response:recipientKey:context:)`` with a key ring: the response is decrypted
    /// with the key its request was issued for (rotated keys keep opening responses to requests
    /// issued before the rotation, until those expire).
    /// With an idempotency tag in `context`, a retry of the same submission (same key and body, within its window,
    /// before the request expires) is verified again, its `replay.nonce` passing as `idempotentRetry`.
    public func verify(requestID: String, response: [UInt8], recipientKeys: [P256.KeyAgreement.PrivateKey], context: VerificationContext) async
        -> WebVerificationResult
    {
        await verify(requestID: requestID, credential: .annexC(response), recipientKeys: recipientKeys, recipientKey: nil, context: context)
    }

    /// Verifies an Annex C response against the request and consumes the request — only once the response
    /// opens (HPKE) for the request's transcript, atomically: a response sealed for another origin or
    /// request (or garbage) sent with this identifier leaves the request open for its genuine
    /// response. A second use is rejected by `replay.nonce`; a store failure makes the verdict
    /// indeterminate. An indeterminate verdict gives the request back (until it expires), so the same
    /// submission can be verified again; accepted and rejected answers keep it used.
    public func verify(requestID: String, response: [UInt8], recipientKey: P256.KeyAgreement.PrivateKey, context: VerificationContext) async
        -> WebVerificationResult
    {
        await verify(requestID: requestID, credential: .annexC(response), recipientKeys: [recipientKey], recipientKey: recipientKey, context: context)
    }

    /// Verifies what the page received, over whichever protocol the request offered answered it
    /// (Annex C or OpenID4VP), with the key ring as ``verify(requestID:response:recipientKeys:context:)``.
    /// The request is consumed once, whichever protocol answers: an answer over the other protocol
    /// afterwards is a replay. An answer over a protocol the request did not offer is rejected
    /// (`replay.nonce`, `protocolNotOffered`) and leaves the request open.
    public func verify(requestID: String, credential: WebCredential, recipientKeys: [P256.KeyAgreement.PrivateKey], context: VerificationContext)
        async
        -> WebVerificationResult
    {
        await verify(requestID: requestID, credential: credential, recipientKeys: recipientKeys, recipientKey: nil, context: context)
    }

    /// Runs the verifier of the protocol that answered; `payload` nil: no session (a failure found before it was read).
    private func run(
        _ credential: WebCredential, payload: Payload?, key: P256.KeyAgreement.PrivateKey, keys: [P256.KeyAgreement.PrivateKey],
        context: VerificationContext, nonceOutcome: CheckOutcome, consumeOnOpen: (() async -> CheckOutcome)? = nil
    ) async -> WebVerificationResult {
        // A request that offered both protocols: the other one's transcript is a candidate for a failed device signature.
        let explain = verifier.explainDeviceFailures
        var result: WebVerificationResult
        switch credential {
        case .annexC(let response):
            let alongside = explain ? (payload?.openID4VP).map { [WebTranscriptCandidates.openID4VPTranscript($0)] } ?? [] : []
            result = await verifier.verify(
                response: response, encryptionInfo: payload?.encryptionInfo ?? "", origin: payload?.origin ?? "", recipientKey: key,
                request: payload?.request, context: context, nonceOutcome: nonceOutcome, prefix: [], prefixWarnings: [],
                offeredAlongside: alongside, consumeOnOpen: consumeOnOpen)
        case .openID4VP(_, let response):
            let alongside =
                explain && payload?.offered.contains(.annexC) == true
                ? payload.map { [WebTranscriptCandidates.annexCTranscript(encryptionInfo: $0.encryptionInfo, origin: $0.origin)] } ?? [] : []
            // The record names its key by thumbprint: the ring is searched for it (rotated keys included).
            result = await verifyOpenID4VP(
                response: response, session: payload?.openID4VP, recipientKeys: keys.isEmpty ? [key] : keys, context: context,
                nonceOutcome: nonceOutcome, offeredAlongside: alongside, consumeOnOpen: consumeOnOpen)
        }
        if let payload {
            result.origin = payload.origin
            result.requests =
                credential.protocol.isOpenID4VP
                ? (payload.openID4VP?.credentials.sorted { $0.key < $1.key }.map(\.value) ?? []) : [payload.request]
        }
        return result
    }

    private func verify(
        requestID: String, credential: WebCredential, recipientKeys: [P256.KeyAgreement.PrivateKey],
        recipientKey fixed: P256.KeyAgreement.PrivateKey?, context: VerificationContext
    ) async -> WebVerificationResult {
        let time = context.time
        // Before the session is read, failures are reported with any key (nothing is decrypted).
        guard let recipientKey = fixed ?? recipientKeys.first else {
            return await run(
                credential, payload: nil, key: P256.KeyAgreement.PrivateKey(), keys: [], context: context,
                nonceOutcome: .error(.noRecipientKey, "No web recipient key is configured.", retryable: false))
        }
        let idempotency = context.idempotency
        let lookup: NonceLookup
        do {
            lookup = try await store.lookupNonce(requestID, now: time, idempotency: idempotency)
        } catch {
            return await run(
                credential, payload: nil, key: recipientKey, keys: recipientKeys, context: context,
                nonceOutcome: .error(.storeUnavailable, "The request store could not be reached; try again.", retryable: true))
        }
        let bytes: [UInt8], foundOutcome: CheckOutcome
        var consumes = false
        switch lookup {
        case .outstanding(let payloadBytes):
            bytes = payloadBytes
            consumes = true
            foundOutcome = .passed("The request was issued here and has not expired; it is used once the response opens for it.")
        case .consumedAgain(let payloadBytes, let firstConsumed):
            bytes = payloadBytes
            foundOutcome = .idempotentRetry(
                "The request was consumed by this same submission (its Idempotency-Key and body): a retry, not a replay.",
                firstSeen: firstConsumed)
        case .alreadyConsumed:
            return await run(credential, payload: nil, key: recipientKey, keys: recipientKeys, context: context, nonceOutcome: Self.reused)
        case .expired:
            return await run(credential, payload: nil, key: recipientKey, keys: recipientKeys, context: context, nonceOutcome: Self.expired)
        case .unknown:
            return await run(credential, payload: nil, key: recipientKey, keys: recipientKeys, context: context, nonceOutcome: Self.unknown)
        }
        guard let payload = try? JSONDecoder().decode(Payload.self, from: Data(bytes)) else {
            // The store is shared by every flow: an identifier of another flow's request (an in-app
            // identity request) is a client's mistake, not a corrupt store.
            let identity = (try? StrictJSON.parse(bytes))?.object.map { $0["encryptionInfo"] == nil && $0["descriptor"] != nil } ?? false
            return await run(
                credential, payload: nil, key: recipientKey, keys: recipientKeys, context: context,
                nonceOutcome: Self.outcomes.unreadable(storedBy: identity ? ("an in-app identity request", "/v1/identity/verify") : nil))
        }
        // The two OpenID4VP variants answer alike (a session offers at most one of them): the family must have been offered.
        let answered = credential.protocol
        guard payload.offered.contains(where: { $0 == answered || ($0.isOpenID4VP && answered.isOpenID4VP) }),
            !answered.isOpenID4VP || payload.openID4VP != nil
        else {
            return await run(
                credential, payload: nil, key: recipientKey, keys: recipientKeys, context: context,
                nonceOutcome: .failed(
                    .protocolNotOffered,
                    "The response came over \(credential.protocol), which this request did not offer (it offered \(payload.offered.map(\.rawValue).joined(separator: ", "))); the request stays open for an answer over an offered protocol.",
                    details: ["protocol": credential.protocol.rawValue, "offered": payload.offered.map(\.rawValue).joined(separator: ",")]))
        }
        let key =
            fixed ?? payload.recipientKey.flatMap { thumbprint in recipientKeys.first { WebRecipientKey.thumbprint($0.publicKey) == thumbprint } }
            ?? recipientKey
        guard consumes else {
            return await run(credential, payload: payload, key: key, keys: recipientKeys, context: context, nonceOutcome: foundOutcome)
        }
        let attempt = NonceAttempt.random()
        var attempted = false
        let result = await run(credential, payload: payload, key: key, keys: recipientKeys, context: context, nonceOutcome: foundOutcome) {
            attempted = true
            return await Self.outcomes.consume(requestID, store: store, now: time, idempotency: idempotency, attempt: attempt)
        }
        guard attempted,
            let report = await Self.outcomes.releasingAfterIndeterminate(
                result.report, requestID: requestID, store: store, attempt: attempt, now: time)
        else { return result }
        return WebVerificationResult(report: report, documents: result.documentsRegardlessOfVerdict)
    }

    static let outcomes = RequestNonceOutcomes(
        subject: "The request", store: "request store", reused: "This request was answered already: a response is accepted once (replay).")
    static var reused: CheckOutcome { outcomes.reused }
    static var expired: CheckOutcome { outcomes.expired }
    static var unknown: CheckOutcome { outcomes.unknown }
}
