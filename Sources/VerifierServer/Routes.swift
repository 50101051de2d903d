import Foundation
import Hummingbird

/// The HTTP API. Verification answers are 200 for accepted and rejected (a rejection is an answer),
/// 503 for indeterminate (a store is down; retry), 400/413/415 problem+json for requests that cannot
/// be read. The JSON of a verification is exactly what the CLI prints for the same input.
///
/// One route collection per flow (``IdentityRoutes``, ``WebRoutes``, ``MdocRoutes``,
/// ``ApplePayRoutes``, ``GooglePayRoutes``), one for what the service trusts (``TrustRoutes``) and one for operations
/// (``OperationsRoutes``); what they share (body deadline, admission, Idempotency-Key) is in
/// RouteHandling.swift, the middleware in RouteMiddleware.swift. HEAD is the router's
/// (`autoGenerateHeadEndpoints`): the GET answer without its body.
struct APIRoutes: Sendable {
    let live: LiveServices
    /// The configuration of the request being answered (``current()`` takes it when a request starts).
    private(set) var services: VerifierServices
    let admission: RequestAdmission
    /// Path → the methods it takes ("GET, HEAD"), filled once all routes are registered.
    let knownPaths = KnownPaths()

    init(live: LiveServices) {
        self.live = live
        let services = live.current
        self.services = services
        self.admission = RequestAdmission(settings: services.settings)
    }

    /// These routes with the configuration current now: a request keeps it to the end, whatever a
    /// reload does meanwhile.
    func current() -> APIRoutes {
        var routes = self
        routes.services = live.current
        return routes
    }

    func register(on router: Router<VerifierRequestContext>) {
        // A path that is not written the one way the routes are (an empty or dot segment, an encoded
        // slash) is a 404 before any route or middleware sees it: the router would otherwise match
        // `//v1/trust` as `/v1/trust`.
        router.add(middleware: CanonicalPathMiddleware(metrics: services.metrics))
        router.add(middleware: NotFoundProblemMiddleware(knownPaths: knownPaths, metrics: services.metrics))
        // Without a token: health, readiness, metrics and the OpenAPI document.
        router.addRoutes(OperationsRoutes.collection(self))
        // The receipt JWKS is public (an auditor holding a receipt has no API token): outside the group.
        ReceiptRoutes.registerJWKS(self, on: router)
        // Every /v1 route sits in one group; the API token is checked by that group's middleware,
        // that is on the route that matched, never on the raw path.
        let v1 = router.group("v1")
        if let token = services.apiToken {
            v1.add(middleware: APITokenMiddleware(token: token, metrics: services.metrics))
        }
        // A request the routes refuse is counted by its problem type (the router answers it).
        v1.add(middleware: ProblemMetricsMiddleware(metrics: services.metrics))
        v1.addRoutes(TrustRoutes.collection(live))
        // Idempotency-Key (IdempotentSubmissions) on every POST that changes the store.
        let idempotent = IdempotentSubmissions(services: services)
        v1.addRoutes(IdentityRoutes.collection(self, idempotent), atPath: "identity")
        v1.addRoutes(ApplePayRoutes.collection(self, idempotent), atPath: "applepay")
        v1.addRoutes(GooglePayRoutes.collection(self, idempotent), atPath: "googlepay")
        v1.addRoutes(WebRoutes.collection(self, idempotent), atPath: "web")
        v1.addRoutes(MdocRoutes.collection(self), atPath: "mdoc")
        v1.addRoutes(KeptReceiptRoutes.collection(self), atPath: "receipts")
    }

    /// Another method on a path the router serves — any method, also ones HTTPTypes has no name for,
    /// such as QUERY — is a 405 naming the allowed ones, not a 404. Derived from the routes already
    /// registered, so call it after all of them; the answer comes from ``NotFoundProblemMiddleware``.
    func registerMethodNotAllowed(on router: Router<VerifierRequestContext>) {
        var allowed: [String: String] = [:]
        for routes in Dictionary(grouping: router.routes, by: { $0.path.description }).values {
            let path = routes[0].path.description
            var methods = Set(routes.map(\.method.rawValue))
            // The router answers HEAD wherever GET is (autoGenerateHeadEndpoints); it adds those
            // routes when it builds its responder, after this.
            if methods.contains("GET") { methods.insert("HEAD") }
            allowed[path.hasPrefix("/") ? path : "/" + path] = methods.sorted().joined(separator: ", ")
        }
        knownPaths.set(allowed)
    }
}
