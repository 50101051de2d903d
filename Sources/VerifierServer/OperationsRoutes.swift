import Foundation
import Hummingbird
import NIOCore
import VerificationCore

/// What operators and orchestrators ask, without the API token: `GET /healthz` (the process
/// answers), `GET /readyz` (its replay store answers), `GET /metrics` (Prometheus text) and
/// `GET /openapi.yaml` (the API's contract).
enum OperationsRoutes {
    /// The routes, at the root.
    static func collection(_ api: APIRoutes) -> RouteCollection<VerifierRequestContext> {
        let services = api.services
        let routes = RouteCollection(context: VerifierRequestContext.self)
        routes.get("healthz") { _, _ in jsonResponse(#"{"status":"ok"}"#) }
        routes.get("readyz") { _, _ -> Response in
            do {
                try await services.store.ping()
                return jsonResponse(#"{"status":"ready"}"#)
            } catch {
                return Problem.unavailable("the replay store does not answer").response()
            }
        }
        routes.get("metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                body: .init(byteBuffer: ByteBuffer(string: services.metrics.text())))
        }
        routes.get("openapi.yaml") { _, _ in
            Response(status: .ok, headers: [.contentType: "application/yaml"], body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.text)))
        }
        return routes
    }
}
