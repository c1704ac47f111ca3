import Hummingbird

/// The endpoint's `Router`: middleware every request passes, then one route group per family.
///
/// Every request gets an id, an access-log line and its metrics; errors become JSON answers; the
/// router's 404 becomes a 405 with `Allow` where the path exists. The health checks need no
/// secret; every other route is behind `AuthMiddleware` and `RateLimitMiddleware`. `HEAD` is
/// answered wherever `GET` is.
enum EndpointRouter {
    typealias Context = EndpointRequestContext

    static func make(_ service: EndpointService) -> Router<Context> {
        let settings = service.settings
        let router = Router(context: Context.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: AccessLogMiddleware())
        router.add(middleware: RequestMetricsMiddleware(metrics: service.metrics))
        router.add(middleware: EndpointErrorMiddleware())
        router.add(middleware: MethodNotAllowedMiddleware())

        let health = HealthRoutes(service: service)
        health.addHealthChecks(to: router.group())

        let guarded = router.group()
            .add(
                middleware: AuthMiddleware(
                    secret: settings.secret, openRegistration: settings.openRegistration,
                    failures: service.authFailures)
            )
            .add(middleware: RateLimitMiddleware(limiter: service.limiter))
        health.addMetrics(to: guarded)
        NativeRoutes(service: service).add(to: guarded)
        OpenClawRoutes(service: service).add(to: guarded.group("api/v1"))
        GatewayHookRoutes(service: service).add(to: guarded.group("hooks"))
        ProxyChatRoutes(service: service).add(to: guarded)
        GatewayRoutes(service: service).add(to: guarded.group("gateway"))
        return router
    }
}
