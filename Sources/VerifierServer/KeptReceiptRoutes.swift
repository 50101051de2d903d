import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import ServiceLifecycle
import VerificationCore
import VerificationReceipts
import WalletEncoding
import WalletJSON

/// Kept receipts (`--receipts keep`): `GET /v1/receipts/{jti}` answers one, `GET /v1/receipts`
/// lists them a page at a time. Behind the API token like every /v1 route.
struct KeptReceiptRoutes: Sendable {
    let api: APIRoutes
    var services: VerifierServices { api.services }

    /// The routes, under /v1/receipts (the JWKS beside them is ``ReceiptRoutes``).
    static func collection(_ api: APIRoutes) -> RouteCollection<VerifierRequestContext> {
        let routes = RouteCollection(context: VerifierRequestContext.self)
        routes.get { request, _ in try await KeptReceiptRoutes(api: api.current()).list(request) }
        routes.get("{jti}") { _, context in
            try await KeptReceiptRoutes(api: api.current()).receipt(context.parameters.get("jti") ?? "")
        }
        return routes
    }

    /// The store that keeps receipts, or a 501 naming `--receipts keep`.
    func keptStore() throws -> any ReceiptStore {
        guard services.settings.receipts == .keep, let store = services.receiptStore else {
            throw Problem.notConfigured(
                "receipts are not kept on this server: start it with --receipts keep (and --receipt-key FILE); --receipt-retention sets for how long")
        }
        return store
    }

    func receipt(_ id: String) async throws -> Response {
        let store = try keptStore()
        let kept: StoredReceipt?
        // A receipt id is base64url; anything else names no receipt.
        if id.utf8.count <= 200, !id.isEmpty, id.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) {
            do { kept = try await store.keptReceipt(id) } catch { throw Problem.unavailable("the receipt store does not answer") }
        } else {
            kept = nil
        }
        guard let kept else {
            throw Problem(
                status: .notFound, type: "not-found", title: "Not found",
                detail:
                    "no receipt with this id is kept (receipts are kept for --receipt-retention days after they are issued, and only with --receipts keep)"
            )
        }
        var writer = JSONWriter(capacity: kept.jws.utf8.count + 160)
        Self.write(kept, into: &writer)
        return jsonResponse(writer.text)
    }

    /// The query parameters `GET /v1/receipts` takes.
    static let parameters: Set<String> = ["from", "to", "verdict", "flow", "limit", "cursor"]

    /// The query of `GET /v1/receipts?from=&to=&verdict=&flow=&limit=&cursor=`: 400 naming the
    /// parameter that cannot be read.
    static func query(_ uri: URI) throws -> ReceiptQuery {
        var values: [String: String] = [:]
        for (name, value) in uri.queryParameters {
            let name = String(name)
            guard parameters.contains(name) else {
                throw Problem.badRequest("\(Self.printable(name)): not a parameter of /v1/receipts (from, to, verdict, flow, limit, cursor)")
            }
            guard values[name] == nil else { throw Problem.badRequest("\(name): given twice; give it once") }
            values[name] = String(value)
        }
        func time(_ name: String) throws -> Date? {
            guard let text = values[name] else { return nil }
            guard let date = RFC3339.parse(text) else {
                throw Problem.badRequest("\(name): must be an RFC 3339 time, such as 2026-01-01T00:00:00Z")
            }
            return date
        }
        var query = ReceiptQuery(from: try time("from"), to: try time("to"))
        if let verdict = values["verdict"] {
            guard ["accepted", "rejected", "indeterminate"].contains(verdict) else {
                throw Problem.badRequest("verdict: must be accepted, rejected or indeterminate")
            }
            query.verdict = verdict
        }
        if let flow = values["flow"] {
            guard ["identity", "web", "mdoc", "applepay", "googlepay"].contains(flow) else {
                throw Problem.badRequest("flow: must be identity, web, mdoc, applepay or googlepay")
            }
            query.flow = flow
        }
        if let text = values["limit"] {
            guard let limit = Int(text), (1...1000).contains(limit) else { throw Problem.badRequest("limit: must be a whole number in 1...1000") }
            query.limit = limit
        }
        if let cursor = values["cursor"] {
            do { _ = try ReceiptCursor.position(cursor) } catch { throw Problem.badRequest("cursor: \(error)") }
            query.cursor = cursor
        }
        return query
    }

    func list(_ request: Request) async throws -> Response {
        let store = try keptStore()
        let query = try Self.query(request.uri)
        let page: ReceiptPage
        do { page = try await store.keptReceipts(query) } catch let error as ReceiptStoreError {
            throw Problem.badRequest("cursor: \(error.description)")
        } catch {
            throw Problem.unavailable("the receipt store does not answer")
        }
        var writer = JSONWriter(capacity: 64 + page.receipts.reduce(0) { $0 + $1.jws.utf8.count + 160 })
        writer.raw("{\"nextCursor\":")
        if let next = page.nextCursor { writer.string(next) } else { writer.raw("null") }
        writer.raw(",\"receipts\":[")
        for (index, receipt) in page.receipts.enumerated() {
            if index > 0 { writer.raw(",") }
            Self.write(receipt, into: &writer)
        }
        writer.raw("]}")
        return jsonResponse(writer.text)
    }

    /// `{"flow","id","issuedAt","receipt","verdict"}` of a kept receipt.
    static func write(_ receipt: StoredReceipt, into writer: inout JSONWriter) {
        writer.sortedStringObject([
            "id": receipt.id, "issuedAt": RFC3339.format(receipt.issuedAt), "flow": receipt.flow, "verdict": receipt.verdict,
            "receipt": receipt.jws,
        ])
    }

    /// A parameter name fit for a message: visible ASCII, at most 40 characters.
    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.prefix(40).map { $0.value > 0x20 && $0.value < 0x7f ? Character($0) : "?" })
    }
}

/// Removes kept receipts past their retention and receipt keys unused for longer than it, every
/// five minutes (the store's other rows have their own purge).
struct ReceiptPurgeService: Service {
    let live: LiveServices
    let logger: Logger
    var interval: Duration = .seconds(300)

    func run() async throws {
        await repeatUntilShutdown(every: interval, startImmediately: false) { await purgeOnce() }
    }

    /// Purges once at the service clock's now.
    func purgeOnce() async {
        let services = live.current
        do {
            let removed = try await services.purgeReceipts(now: services.clock.now())
            if removed > 0 { logger.info("receipts: removed \(removed) receipt(s) past their retention") }
        } catch {
            services.metrics.receiptFailure(stage: "purge")
            logger.warning("receipts: the purge of kept receipts failed (\(operatorDescription(error))); retried in five minutes")
        }
    }
}

extension VerifierServices {
    /// Removes kept receipts whose retention ended by `now`, and key records last used more than the
    /// retention before it; returns how many receipts were removed (0 without a receipt store).
    public func purgeReceipts(now: Date) async throws -> Int {
        guard let store = receiptStore else { return 0 }
        return try await store.purgeReceipts(now: now, keysUsedBefore: now.addingTimeInterval(-receiptKeyRetention))
    }
}
