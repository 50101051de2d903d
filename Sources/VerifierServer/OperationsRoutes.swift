import Foundation
import Hummingbird
import NIOCore
import VerificationCore
import WalletCBOR

/// What operators and orchestrators ask, without the API token: `GET /healthz` (the process
/// answers), `GET /readyz` (its replay store answers), `GET /metrics` (Prometheus text) and
/// `GET /openapi.yaml` (the API's contract).
enum OperationsRoutes {
    /// The routes, at the root.
    static func collection(_ api: APIRoutes) -> RouteCollection<VerifierRequestContext> {
        let services = api.services
        let live = api.live
        let routes = RouteCollection(context: VerifierRequestContext.self)
        routes.get("healthz") { _, _ in jsonResponse(#"{"status":"ok"}"#) }
        routes.get("readyz") { _, _ -> Response in
            do {
                try await services.store.ping()
                // Ready, and named: trust sources not loaded or stale (the service runs without their roots).
                let current = live.current
                let problems = current.trustSourceProblems(at: current.clock.now())
                guard !problems.isEmpty else { return jsonResponse(#"{"status":"ready"}"#) }
                return jsonResponse(#"{"status":"ready","trust":["# + problems.map(JSONText.quote).joined(separator: ",") + "]}")
            } catch {
                return Problem.unavailable("the replay store does not answer").response()
            }
        }
        routes.get("metrics") { _, _ in
            let current = live.current
            services.metrics.trustSources(current.currentTrustSources(at: current.clock.now()))
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: services.metrics.text())))
        }
        routes.get("openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.text)))
        }
        return routes
    }
}
