import Crypto
import Foundation
import Synchronization
import VerificationCore
import WalletCBOR
import WalletEncoding
import WalletJSON

/// Server-side request sessions: the server creates the nonce the app puts in its PKIdentityRequest,
/// bound to the caller's session and the descriptor, with an expiry; a response that opens for the
/// request consumes the nonce exactly once through the ``ReplayStore`` (atomic, also across instances
/// sharing a store).
public struct IdentityRequestSessions: Sendable {
    /// A newly created request, returned to the caller for the app's `PKIdentityRequest`.
    public struct Created: Sendable, CustomStringConvertible {
        /// The identifier the response is submitted with; base64url of 18 random bytes.
        public let requestID: String
        /// The 32-byte nonce the app must use in its `PKIdentityRequest`; keep it out of logs.
        public let nonce: [UInt8]
        /// When the nonce stops being accepted.
        public let expiresAt: Date

        /// The nonce is left out: it must not reach logs.
        public var description: String { "IdentityRequest(\(requestID), expires \(RFC3339.format(expiresAt)))" }
    }

    /// The store that issues and consumes nonces exactly once.
    public let store: any ReplayStore
    /// The verifier of the first (default) merchant.
    public private(set) var verifier: AppleIdentityVerifier
    /// Every configured (merchant identifier, team identifier) pair, the default first: a request
    /// records the pair it was made for, and its response is verified with that pair.
    public let merchants: [(merchantID: String, teamID: String)]
    /// How long a nonce stays usable (default 10 minutes).
    public var lifetime: Duration
    /// What one request may ask for and store (elements, stored session size with its session binding).
    public var limits: RequestLimits = .standard

    /// Creates sessions verifying with `verifier` (the default merchant) and also accepting `otherMerchants`.
    /// A response arriving more than `lifetime` (whole seconds) after creation fails `replay.nonce` as expired.
    public init(
        store: any ReplayStore, verifier: AppleIdentityVerifier, lifetime: Duration = .seconds(600),
        otherMerchants: [(merchantID: String, teamID: String)] = []
    ) {
        self.store = store
        var verifier = verifier
        if verifier.otherMerchants.isEmpty { verifier.otherMerchants = otherMerchants }
        self.verifier = verifier
        self.lifetime = lifetime
        self.merchants = [(verifier.merchantID, verifier.teamID)] + otherMerchants
    }

    /// The same sessions (store, merchants, limits) whose verifier names the transcript a failed
    /// device signature was made for (``AppleIdentityVerifier/explainDeviceFailures``): the operator's page.
    public func explainingDeviceFailures() -> IdentityRequestSessions {
        var copy = self
        copy.verifier.explainDeviceFailures = true
        return copy
    }

    struct Payload: Codable {
        var nonce: String
        var descriptor: IdentityRequestDescriptor
        var sessionBinding: String?
        /// The merchant the request was made for (absent: the default merchant).
        var merchantId: String?
    }

    /// The verifier for a recorded merchant (the default one when none or an unknown one is recorded).
    func verifier(forMerchant merchantID: String?) -> AppleIdentityVerifier {
        guard let merchantID, merchantID != verifier.merchantID, let pair = merchants.first(where: { $0.merchantID == merchantID }) else {
            return verifier
        }
        return verifier.with(merchantID: pair.merchantID, teamID: pair.teamID)
    }

    /// The stored payload (as `create` wrote it with JSONEncoder), read with the strict reader; the
    /// descriptor goes through a small cache, as a merchant asks with a handful of descriptors and
    /// decoding one is the slow part.
    static func readPayload(_ bytes: [UInt8]) -> Payload? {
        guard let object = (try? StrictJSON.parse(bytes))?.object, let nonce = object["nonce"]?.string,
            let range = object.range(of: "descriptor")
        else { return nil }
        let binding = object["sessionBinding"]
        guard binding == nil || binding == .null || binding?.string != nil else { return nil }
        let descriptorJSON = Array(bytes[range])
        let descriptor: IdentityRequestDescriptor
        if let cached = descriptorCache.withLock({ $0[descriptorJSON] }) {
            descriptor = cached
        } else {
            guard let decoded = try? JSONDecoder().decode(IdentityRequestDescriptor.self, from: Data(descriptorJSON)) else { return nil }
            descriptorCache.withLock { cache in
                if cache.count >= 64 { cache.removeAll() }
                cache[descriptorJSON] = decoded
            }
            descriptor = decoded
        }
        return Payload(nonce: nonce, descriptor: descriptor, sessionBinding: binding?.string, merchantId: object["merchantId"]?.string)
    }

    private static let descriptorCache = Mutex<[[UInt8]: IdentityRequestDescriptor]>([:])

    /// Creates a request: a 32-byte nonce from the system CSPRNG and a random request identifier, for
    /// `merchantID` (one of ``merchants``; nil: the default). A descriptor with more elements than
    /// ``limits`` allow, or a session (with its binding) larger than they let the store keep, is a
    /// ``DescriptorError`` with the code ``ErrorCode/requestTooLarge``; nothing is stored.
    public func create(descriptor: IdentityRequestDescriptor, sessionBinding: String? = nil, merchantID: String? = nil, now: Date) async throws
        -> Created
    {
        guard descriptor.elements.count <= limits.maxElements else {
            throw DescriptorError(
                .requestTooLarge, "the request asks for \(descriptor.elements.count) elements; at most \(limits.maxElements) may be asked for")
        }
        try descriptor.validate()
        if let merchantID, !merchants.contains(where: { $0.merchantID == merchantID }) {
            throw DescriptorError("merchant identifier \(merchantID) is not configured on this server")
        }
        let nonce = Self.randomBytes(32)
        let requestID = Base64.encodeURL(Self.randomBytes(18))
        let expiresAt = now.addingTimeInterval(Double(lifetime.components.seconds))
        let recorded = merchantID == verifier.merchantID ? nil : merchantID
        let payload = try JSONEncoder().encode(
            Payload(nonce: Hex.encode(nonce), descriptor: descriptor, sessionBinding: sessionBinding, merchantId: recorded))
        guard payload.count <= limits.maxSessionBytes else {
            throw DescriptorError(
                .requestTooLarge,
                "the request session would store \(payload.count) bytes; at most \(limits.maxSessionBytes) may be stored: send a shorter session binding or ask for fewer elements"
            )
        }
        try await store.issueNonce(requestID, payload: [UInt8](payload), expiresAt: expiresAt)
        return Created(requestID: requestID, nonce: nonce, expiresAt: expiresAt)
    }

    static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// Verifies the response against the request and consumes the request's nonce — only once the
    /// response opens (HPKE) for the request's session transcript, atomically, so that a response
    /// made for another request (or garbage) sent with this request's identifier leaves the request
    /// open for its genuine response. A second use of the same request is rejected by `replay.nonce`;
    /// a store failure makes the verdict indeterminate. An indeterminate verdict gives the nonce back
    /// (until the request expires), so the same submission can be verified again; accepted and
    /// rejected answers keep it used.
    /// With an idempotency tag in `context`, a retry of the same submission (same key and body, within its window,
    /// before the request expires) finds the nonce it consumed and is verified again, its
    /// `replay.nonce` passing as `idempotentRetry`.
    public func verify(requestID: String, encryptedData: [UInt8], sessionBinding: String? = nil, context: VerificationContext) async
        -> IdentityVerificationResult
    {
        let time = context.time
        let idempotency = context.idempotency
        let lookup: NonceLookup
        do {
            lookup = try await store.lookupNonce(requestID, now: time, idempotency: idempotency)
        } catch {
            let outcome = CheckOutcome.error(.storeUnavailable, "The nonce store could not be reached; try again.", retryable: true)
            return await verifier.verify(encryptedData: encryptedData, nonce: [], request: nil, context: context, nonceOutcome: outcome)
        }
        let payloadBytes: [UInt8], foundOutcome: CheckOutcome
        var consumes = false
        switch lookup {
        case .outstanding(let bytes):
            payloadBytes = bytes
            consumes = true
            foundOutcome = .passed("The request nonce was issued here and has not expired; it is used once the response opens for this request.")
        case .consumedAgain(let bytes, let firstConsumed):
            payloadBytes = bytes
            foundOutcome = .idempotentRetry(
                "The request nonce was consumed by this same submission (its Idempotency-Key and body): a retry, not a replay.",
                firstSeen: firstConsumed)
        case .alreadyConsumed:
            return await verifier.verify(encryptedData: encryptedData, nonce: [], context: context, nonceOutcome: Self.reused)
        case .expired:
            return await verifier.verify(encryptedData: encryptedData, nonce: [], context: context, nonceOutcome: Self.expired)
        case .unknown:
            return await verifier.verify(encryptedData: encryptedData, nonce: [], context: context, nonceOutcome: Self.unknown)
        }
        guard let payload = Self.readPayload(payloadBytes), let nonce = Hex.decode(payload.nonce) else {
            // The store is shared by every flow: an identifier of a web request is a client's
            // mistake, not a corrupt store.
            let web =
                (try? StrictJSON.parse(payloadBytes))?.object.map {
                    $0["descriptor"] == nil && ($0["encryptionInfo"] != nil || $0["protocols"] != nil)
                } ?? false
            return await verifier.verify(
                encryptedData: encryptedData, nonce: [], context: context,
                nonceOutcome: Self.outcomes.unreadable(storedBy: web ? ("a web request", "/v1/web/verify") : nil))
        }
        let merchantVerifier = verifier(forMerchant: payload.merchantId)
        if let expected = payload.sessionBinding, expected != sessionBinding {
            // Nothing is opened or consumed: the request stays open for its own session.
            return await merchantVerifier.verify(
                encryptedData: encryptedData, nonce: nonce, request: payload.descriptor, context: context,
                nonceOutcome: .failed(.sessionMismatch, "The request was created for another session."))
        }
        guard consumes else {
            return await merchantVerifier.verify(
                encryptedData: encryptedData, nonce: nonce, request: payload.descriptor, context: context, nonceOutcome: foundOutcome)
        }
        let attempt = NonceAttempt.random()
        var attempted = false
        let result = await merchantVerifier.verify(
            encryptedData: encryptedData, nonce: nonce, request: payload.descriptor, context: context, nonceOutcome: foundOutcome,
            requireUnexpired: false
        ) {
            attempted = true
            return await Self.outcomes.consume(requestID, store: store, now: time, idempotency: idempotency, attempt: attempt)
        }
        guard attempted,
            let report = await Self.outcomes.releasingAfterIndeterminate(
                result.report, requestID: requestID, store: store, attempt: attempt, now: time)
        else { return result }
        return IdentityVerificationResult(
            report: report, documents: result.documentsRegardlessOfVerdict, claims: result.claimsRegardlessOfVerdict, request: result.request)
    }

    static let outcomes = RequestNonceOutcomes(
        subject: "The request nonce", store: "nonce store", reused: "This request's nonce was used already: a response is accepted once (replay).")
    static var reused: CheckOutcome { outcomes.reused }
    static var expired: CheckOutcome { outcomes.expired }
    static var unknown: CheckOutcome { outcomes.unknown }
}
