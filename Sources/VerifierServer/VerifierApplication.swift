import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// Builds the service: routes, the web page, request logging (method, path, status, time — never
/// bodies), and the background services (PostgreSQL pool, purge loop).
public enum VerifierApplication {
    /// The service over a fixed configuration: the API listener on the configured host and port, with the background services.
    public static func build(
        services: VerifierServices, logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        build(live: LiveServices(services), logger: logger, onServerRunning: onServerRunning)
    }

    /// The service over a replaceable configuration (``LiveServices``); `extraServices` run beside the
    /// background services (``ReloadOnSignalService`` for SIGHUP).
    public static func build(
        live: LiveServices, logger: Logger, extraServices: [any Service] = [],
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let services = live.current
        var app = Application(
            router: buildRouter(live: live, logger: logger),
            server: ConnectionLimits(settings: services.settings, logger: logger).server,
            configuration: .init(address: .hostname(services.settings.host, port: services.settings.port), serverName: "wallet-verifier"),
            services: services.backgroundServices
                + [
                    VICALRefreshService(live: live, logger: logger),
                    GooglePayRootKeysRefreshService(live: live, logger: logger), TrustSourceMonitor(live: live, logger: logger),
                    ReceiptPurgeService(live: live, logger: logger),
                ] + extraServices,
            onServerRunning: onServerRunning,
            logger: logger
        )
        app.beforeServerStarts {
            try await services.prepare()
            // The store answers now: check the VICALs in use against its records before taking requests.
            await VICALRefreshService(live: live, logger: logger).reconcile()
            // Google's root keys: the copy in use is written to the store, or the store's is used.
            await GooglePayRootKeysRefreshService(live: live, logger: logger).refreshOnce()
            // Pinned roots: kept in the store once it answers (PostgreSQL), or found there.
            await TrustSourceMonitor(live: live, logger: logger).afterStoreReady()
        }
        return app
    }

    /// The API's router alone: every route and middleware of ``build(services:logger:onServerRunning:)``
    /// without a listener or background services (for in-process harnesses; call
    /// `services.prepare()` first).
    public static func buildRouter(services: VerifierServices, logger: Logger) -> Router<VerifierRequestContext> {
        buildRouter(live: LiveServices(services), logger: logger)
    }

    /// The API's router over a replaceable configuration: each request uses the configuration current when it starts.
    public static func buildRouter(live: LiveServices, logger: Logger) -> Router<VerifierRequestContext> {
        // HEAD is answered wherever GET is (RFC 9110 §9.3.2: the GET's answer without its body).
        let router = Router(context: VerifierRequestContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestLogMiddleware(logger: logger))
        let api = APIRoutes(live: live)
        api.register(on: router)
        // The web page is never on the API listener (see buildWebPage).
        api.registerMethodNotAllowed(on: router)
        return router
    }

    /// The operators' web page on its own listener (`--ui-listen`), behind the page token.
    public static func buildWebPage(
        services: VerifierServices, access: WebPageAccess, host: String, port: Int, logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        buildWebPage(live: LiveServices(services), access: access, host: host, port: port, logger: logger, onServerRunning: onServerRunning)
    }

    /// The operators' web page over a replaceable configuration, on its own listener behind the page token.
    public static func buildWebPage(
        live: LiveServices, access: WebPageAccess, host: String, port: Int, logger: Logger,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: VerifierRequestContext.self)
        router.add(middleware: RequestLogMiddleware(logger: logger))
        router.add(middleware: CanonicalPathMiddleware(metrics: nil))
        WebPage(live: live, services: live.current, access: access).register(on: router)
        return Application(
            router: router,
            server: ConnectionLimits(settings: live.current.settings, logger: logger).server,
            configuration: .init(address: .hostname(host, port: port), serverName: "wallet-verifier-ui"),
            onServerRunning: onServerRunning,
            logger: logger
        )
    }
}
