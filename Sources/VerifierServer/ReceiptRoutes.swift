import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import VerificationCore
import VerificationReceipts

/// Signed verification receipts (`--receipt-key`): each verification answer carries one beside its
/// report, as the member `receipt`, and `GET /v1/receipts/jwks` lists the keys that verify them.
extension APIRoutes {
    /// The answer of a verification: the report's JSON as ``reportResponse(_:report:)`` sends it,
    /// with `"receipt": "<JWS>"` as its last member when a receipt key is configured. `content`
    /// states what the receipt says; it is built only when a receipt is signed.
    func verificationResponse(
        _ json: [UInt8], report: VerificationReport, context: VerifierRequestContext, receipt content: () -> ReceiptContent
    ) async -> Response {
        guard let signer = services.receiptSigner else { return reportResponse(json, report: report) }
        let issued: IssuedReceipt
        do {
            issued = try await VerificationReceipt.issue(
                content(), signer: signer, issuer: services.settings.receiptIssuer, now: services.clock.now())
        } catch {
            // The verification stands; only its receipt is missing. Nothing of the receipt is logged.
            services.metrics.receiptFailure(stage: "sign")
            context.logger.warning("receipts: the receipt could not be signed (\(type(of: error))); the answer carries none")
            return reportResponse(json, report: report)
        }
        if services.settings.receipts == .keep, let store = services.receiptStore {
            do {
                try await store.keepReceipt(issued.stored, keepUntil: issued.issuedAt.addingTimeInterval(services.receiptKeyRetention))
            } catch {
                // The answer stands with its receipt; only the stored copy is missing.
                services.metrics.receiptFailure(stage: "keep")
                context.logger.warning("receipts: a receipt could not be kept in the store (\(type(of: error))); the answer carries it")
            }
        }
        return reportResponse(Self.appending(receipt: issued.jws, to: json), report: report)
    }

    /// `json` (one JSON object) with `"receipt": jws` added as its last member. A compact JWS is
    /// base64url and dots: it needs no escaping.
    static func appending(receipt jws: String, to json: [UInt8]) -> [UInt8] {
        guard let close = json.lastIndex(of: UInt8(ascii: "}")) else { return json }
        var bytes = Array(json[..<close])
        bytes.reserveCapacity(json.count + jws.utf8.count + 16)
        bytes += Array(#","receipt":""#.utf8)
        bytes += Array(jws.utf8)
        bytes += Array("\"}".utf8)
        return bytes
    }
}

/// `GET /v1/receipts/jwks`: the public keys of receipts (the current key and every earlier one used
/// within the retention), for anyone holding a receipt to verify it. It takes no API token.
struct ReceiptRoutes: Sendable {
    let api: APIRoutes
    var services: VerifierServices { api.services }

    /// The JWKS route, registered on `router` outside the API token's group.
    static func registerJWKS(_ api: APIRoutes, on router: some RouterMethods<VerifierRequestContext>) {
        router.get("v1/receipts/jwks") { _, _ in try await ReceiptRoutes(api: api.current()).jwks() }
    }

    func jwks() async throws -> Response {
        guard let signer = services.receiptSigner else {
            services.metrics.requestRejected(reason: "not-configured")
            throw Problem.notConfigured(
                "receipts are not signed on this server: start it with --receipt-key FILE (a P-256 key; --receipt-cert adds its certificate)")
        }
        var keys = [signer.publicJWK]
        if let store = services.receiptStore {
            let since = services.clock.now().addingTimeInterval(-services.receiptKeyRetention)
            do {
                for record in try await store.receiptKeys(usedSince: since) where record.keyID != signer.keyID { keys.append(record.jwk) }
            } catch {
                throw Problem.unavailable("the receipt key store does not answer")
            }
        }
        var response = jsonResponse(ReceiptKeySet.json(keys))
        response.headers[.cacheControl] = "public, max-age=300"
        return response
    }
}

extension VerifierServices {
    /// How long a receipt key stays listed after its last use.
    var receiptKeyRetention: TimeInterval { TimeInterval(settings.receiptRetention) * 86_400 }

    /// Records that the current receipt key signs receipts now (nothing without a key or a store).
    func recordReceiptKey(lastUsed: Date) async throws {
        guard let signer = receiptSigner, let store = receiptStore else { return }
        try await store.recordReceiptKey(ReceiptKeyRecord(keyID: signer.keyID, jwk: signer.publicJWK, lastUsed: lastUsed))
    }
}

/// Records the current receipt key in the store at start and once a day, so the JWKS of every
/// instance sharing the store lists it until the retention after its last use.
struct ReceiptKeyRecorder: Service {
    let live: LiveServices
    let logger: Logger
    var interval: Duration = .seconds(86_400)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var failures = 0
            while !Task.isCancelled {
                let recorded = await recordOnce()
                // A store that is not ready yet (PostgreSQL still starting) is tried again soon, then less often.
                if recorded { failures = 0 } else { failures += 1 }
                let wait: Duration = recorded ? interval : .seconds(min(60, 1 << min(failures - 1, 6)))
                do { try await Task.sleep(for: wait) } catch { return }
            }
        }
    }

    /// Records the current key; false when the store did not answer (tried again after 1, 2, 4 … 60 s).
    func recordOnce() async -> Bool {
        let services = live.current
        do {
            try await services.recordReceiptKey(lastUsed: services.clock.now())
            return true
        } catch {
            services.metrics.receiptFailure(stage: "record-key")
            logger.warning("receipts: the receipt key could not be recorded in the store (\(type(of: error))); retrying")
            return false
        }
    }
}
