import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization
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
            context.logger.warning("receipts: the receipt could not be signed (\(operatorDescription(error))); the answer carries none")
            return reportResponse(json, report: report)
        }
        if services.settings.receipts == .keep, let store = services.receiptStore {
            if let refusal = services.keptReceiptShares.refusal(report: report, client: context.clientKey, now: services.clock.now()) {
                services.metrics.receiptKept(outcome: refusal)
                return reportResponse(Self.appending(receipt: issued.jws, to: json), report: report)
            }
            do {
                try await store.keepReceipt(issued.stored, keepUntil: issued.issuedAt.addingTimeInterval(services.receiptKeyRetention))
                services.metrics.receiptKept(outcome: "kept")
            } catch {
                // The answer stands with its receipt; only the stored copy is missing.
                services.metrics.receiptFailure(stage: "keep")
                context.logger.warning("receipts: a receipt could not be kept in the store (\(operatorDescription(error))); the answer carries it")
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

/// `GET /v1/receipts/jwks`: the public keys of receipts, for anyone holding a receipt to verify it:
/// the current key (`--receipt-key`) and the previous ones the operator names
/// (`--receipt-previous-key`), and no other — not a key another instance on the same store signs
/// with, not a key withdrawn by a reload. It takes no API token.
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
        let keys = [signer.publicJWK] + services.receiptPreviousKeys.filter { $0.keyID != signer.keyID }.map(\.jwk)
        var response = jsonResponse(ReceiptKeySet.json(keys))
        response.headers[.cacheControl] = "public, max-age=300"
        return response
    }
}

extension VerifierServices {
    /// How long a kept receipt is kept (`--receipt-retention` days).
    var receiptKeyRetention: TimeInterval { TimeInterval(settings.receiptRetention) * 86_400 }

    /// The `kid`s of the keys named by `--receipt-previous-key`.
    var receiptPreviousKeyIDs: [String] { receiptPreviousKeys.map(\.keyID) }
}

/// Which receipts `--receipts keep` keeps: those of verifications that got past their structure
/// checks (every `….structure` check passed: junk is answered with a receipt, not kept), and at most
/// `--max-client-kept-receipts` per client address (IPv6: its /64) per UTC day in this process. So one
/// client adds at most that many receipts a day per instance to the store, and at most that times
/// `--receipt-retention` days in all.
final class KeptReceiptShares: Sendable {
    private struct Day {
        var day: Int64 = 0
        var counts: [String: Int] = [:]
    }
    private let state = Mutex(Day())
    /// Clients tracked in one day at most; past it a new client's receipts are not kept that day.
    static let maxClients = 100_000
    let perClient: Int

    init(perClient: Int) { self.perClient = perClient }

    /// Whether `report` got past its structure checks: it has checks, and each `….structure` one passed.
    static func passedStructure(_ report: VerificationReport) -> Bool {
        let checks = report.checks
        guard !checks.isEmpty else { return false }
        return checks.allSatisfy { !$0.id.rawValue.hasSuffix(".structure") || $0.status == .passed }
    }

    /// Nil when the receipt of `report` for `client` is to be kept (and counted), else why not
    /// (`structure`, `client-share`).
    func refusal(report: VerificationReport, client: String, now: Date) -> String? {
        guard Self.passedStructure(report) else { return "structure" }
        let day = Int64((now.timeIntervalSince1970 / 86_400).rounded(.down))
        return state.withLock { state in
            if state.day != day { state = Day(day: day) }
            let count = state.counts[client] ?? 0
            guard count < perClient, count > 0 || state.counts.count < Self.maxClients else { return "client-share" }
            state.counts[client] = count + 1
            return nil
        }
    }
}
