import Crypto
import Foundation
import VerificationCore
import WalletEncoding

/// Server-side sessions for Verify with Wallet on the Web, like the in-app request sessions: the
/// server creates the request (a fresh nonce in the EncryptionInfo, the origin, the requested
/// elements) and stores it in the ``ReplayStore``; a response that opens for it consumes it exactly
/// once (atomic, also across instances sharing a store).
public struct WebRequestSessions: Sendable {
    /// A newly created request: what the page passes to the browser and the identifier to submit the response with.
    public struct Created: Sendable, CustomStringConvertible {
        /// The identifier the response is submitted with; base64url of 18 random bytes.
        public let requestID: String
        /// The request, encryption info and DeviceRequest to hand to the page.
        public let presentation: WebPresentationRequest
        /// When the request stops being accepted.
        public let expiresAt: Date

        /// The nonce is left out.
        public var description: String { "WebRequest(\(requestID), \(presentation.origin), expires \(RFC3339.format(expiresAt)))" }
    }

    /// The store that issues and consumes requests exactly once.
    public let store: any ReplayStore
    /// The verifier that opens and checks the responses.
    public let verifier: WebIdentityVerifier
    /// How long a request stays usable (default 10 minutes).
    public var lifetime: Duration

    /// Creates sessions verifying with `verifier`; `lifetime` counts whole seconds.
    public init(store: any ReplayStore, verifier: WebIdentityVerifier, lifetime: Duration = .seconds(600)) {
        self.store = store
        self.verifier = verifier
        self.lifetime = lifetime
    }

    struct Payload: Codable {
        var encryptionInfo: String
        var origin: String
        var request: WebDocumentRequest
        /// Thumbprint of the recipient key the request was issued for (absent in sessions stored
        /// before keys rotated: then the first key is used).
        var recipientKey: String?
    }

    /// Creates a request with a 32-byte nonce from the system CSPRNG, encrypted responses going to
    /// `recipientPublicKey`.
    /// With `readerAuth`, the DeviceRequest is signed (ISO/IEC 18013-5 §9.1.4) for this request's own
    /// transcript: per DocRequest, or once with `readerAuthAll`.
    public func create(
        request: WebDocumentRequest, origin: String, recipientPublicKey: P256.KeyAgreement.PublicKey, now: Date,
        readerAuth: ReaderAuthSigner? = nil, readerAuthAll: Bool = false
    ) async throws -> Created {
        let nonce = Self.randomBytes(32)
        let presentation = try WebPresentationRequest(
            request: request, origin: origin, nonce: nonce, recipientPublicKey: recipientPublicKey,
            readerAuth: readerAuth, readerAuthAll: readerAuthAll)
        let requestID = Base64.encodeURL(Self.randomBytes(18))
        let expiresAt = now.addingTimeInterval(Double(lifetime.components.seconds))
        let payload = try JSONEncoder().encode(
            Payload(
                encryptionInfo: presentation.encryptionInfo.base64URL, origin: origin, request: request,
                recipientKey: WebRecipientKey.thumbprint(recipientPublicKey)))
        try await store.issueNonce(requestID, payload: [UInt8](payload), expiresAt: expiresAt)
        return Created(requestID: requestID, presentation: presentation, expiresAt: expiresAt)
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// As ``verify(requestID:response:recipientKey:at:)`` with a key ring: the response is decrypted
    /// with the key its request was issued for (rotated keys keep opening responses to requests
    /// issued before the rotation, until those expire).
    /// With an idempotency tag in `context`, a retry of the same submission (same key and body, within its window,
    /// before the request expires) is verified again, its `replay.nonce` passing as `idempotentRetry`.
    public func verify(requestID: String, response: [UInt8], recipientKeys: [P256.KeyAgreement.PrivateKey], context: VerificationContext) async
        -> WebVerificationResult
    {
        await verify(requestID: requestID, response: response, recipientKeys: recipientKeys, recipientKey: nil, context: context)
    }

    /// Verifies the response against the request and consumes the request — only once the response
    /// opens (HPKE) for the request's transcript, atomically: a response sealed for another origin or
    /// request (or garbage) sent with this identifier leaves the request open for its genuine
    /// response. A second use is rejected by `replay.nonce`; a store failure makes the verdict
    /// indeterminate. An indeterminate verdict gives the request back (until it expires), so the same
    /// submission can be verified again; accepted and rejected answers keep it used.
    public func verify(requestID: String, response: [UInt8], recipientKey: P256.KeyAgreement.PrivateKey, context: VerificationContext) async
        -> WebVerificationResult
    {
        await verify(requestID: requestID, response: response, recipientKeys: [recipientKey], recipientKey: recipientKey, context: context)
    }

    private func verify(
        requestID: String, response: [UInt8], recipientKeys: [P256.KeyAgreement.PrivateKey], recipientKey fixed: P256.KeyAgreement.PrivateKey?,
        context: VerificationContext
    ) async -> WebVerificationResult {
        let time = context.time
        // Before the session is read, failures are reported with any key (nothing is decrypted).
        guard let recipientKey = fixed ?? recipientKeys.first else {
            return await verifier.verify(
                response: response, encryptionInfo: "", origin: "", recipientKey: P256.KeyAgreement.PrivateKey(), context: context,
                nonceOutcome: .error(.noRecipientKey, "No web recipient key is configured.", retryable: false))
        }
        let idempotency = context.idempotency
        let lookup: NonceLookup
        do {
            lookup = try await store.lookupNonce(requestID, now: time, idempotency: idempotency)
        } catch {
            return await verifier.verify(
                response: response, encryptionInfo: "", origin: "", recipientKey: recipientKey, context: context,
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
            return await verifier.verify(
                response: response, encryptionInfo: "", origin: "", recipientKey: recipientKey, context: context, nonceOutcome: Self.reused)
        case .expired:
            return await verifier.verify(
                response: response, encryptionInfo: "", origin: "", recipientKey: recipientKey, context: context, nonceOutcome: Self.expired)
        case .unknown:
            return await verifier.verify(
                response: response, encryptionInfo: "", origin: "", recipientKey: recipientKey, context: context, nonceOutcome: Self.unknown)
        }
        guard let payload = try? JSONDecoder().decode(Payload.self, from: Data(bytes)) else {
            return await verifier.verify(
                response: response, encryptionInfo: "", origin: "", recipientKey: recipientKey, context: context,
                nonceOutcome: .error(.storeCorrupt, "The stored request could not be read.", retryable: false))
        }
        let key =
            fixed ?? payload.recipientKey.flatMap { thumbprint in recipientKeys.first { WebRecipientKey.thumbprint($0.publicKey) == thumbprint } }
            ?? recipientKey
        guard consumes else {
            return await verifier.verify(
                response: response, encryptionInfo: payload.encryptionInfo, origin: payload.origin, recipientKey: key,
                request: payload.request, context: context, nonceOutcome: foundOutcome)
        }
        let attempt = NonceAttempt.random()
        var attempted = false
        let result = await verifier.verify(
            response: response, encryptionInfo: payload.encryptionInfo, origin: payload.origin, recipientKey: key,
            request: payload.request, context: context, nonceOutcome: foundOutcome, prefix: [], prefixWarnings: []
        ) {
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
