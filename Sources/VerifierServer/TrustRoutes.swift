import Foundation
import Hummingbird

/// `GET /v1/trust`: what the service trusts right now (``TrustView``), after any reload.
enum TrustRoutes {
    /// The route, under /v1.
    static func collection(_ live: LiveServices) -> RouteCollection<VerifierRequestContext> {
        let routes = RouteCollection(context: VerifierRequestContext.self)
        routes.get("trust") { _, _ in jsonResponse(await TrustView.json(live.current)) }
        return routes
    }
}
