import Hummingbird

/// The endpoint's `Router`: middleware every request passes, then the routes, each in the group
/// whose middleware states its rules (`EndpointRouteGroups`).
///
/// Every request gets an id, an access-log line and its metrics; errors become JSON answers; the
/// router's 404 becomes a 405 with `Allow` where the path exists; a request without exactly one
/// `Host` is answered 400. `HEAD` is answered wherever `GET` is.
enum EndpointRouter {
    typealias Context = EndpointRequestContext

    static func make(_ parts: EndpointParts) -> Router<Context> {
        let router = Router(context: Context.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: AccessLogMiddleware())
        router.add(middleware: RequestMetricsMiddleware(metrics: parts.metrics))
        router.add(middleware: EndpointErrorMiddleware())
        router.add(middleware: MethodNotAllowedMiddleware())
        router.add(middleware: HostHeaderMiddleware())

        let groups = EndpointRouteGroups(router, parts: parts)
        let registrations = parts.registrations
        let sender = parts.sender
        HealthRoutes(health: parts.health, metrics: parts.metrics).add(to: groups)
        SvenRoutes(registrations: registrations).add(to: groups)
        OpenClawRoutes(registrations: registrations, sender: sender).add(to: groups)
        GatewayHookRoutes(registrations: registrations, sender: sender).add(to: groups)
        ProxyChatRoutes(registrations: registrations, sender: sender, serverKey: parts.settings.secret?.serverKey)
            .add(to: groups)
        GatewayRoutes(registrations: registrations, limiter: parts.limiter).add(to: groups)
        AgentRoutes(
            registrations: registrations, sender: sender,
            deadline: parts.settings.deliveryPolicy.timeout + AgentRoutes.deadlineMargin
        ).add(to: groups)
        NtfyRoutes(registrations: registrations, sender: sender).add(to: groups)
        BarkRoutes(registrations: registrations, sender: sender).add(to: groups)
        return router
    }
}

/// The endpoint's route groups, one per set of rules: whether a route needs the secret, whether an
/// `--open-registration` network may call it without, and whether each call spends the client's
/// allowance (`--rate-limit`). A route family adds each route to the group of its rules, under
/// its own path prefix; the middleware decides from the group, never by looking the route up.
struct EndpointRouteGroups {
    typealias Context = EndpointRequestContext

    /// No secret: the health checks.
    let open: RouterGroup<Context>
    /// The secret: the routes that list, send or report (`/metrics`).
    let guarded: RouterGroup<Context>
    /// The secret, or a peer on an `--open-registration` network; each request spends the allowance:
    /// the routes that register a device.
    let registration: RouterGroup<Context>
    /// The secret; each request spends the allowance: the routes that remove a device.
    let removal: RouterGroup<Context>
    /// The secret, or a peer on an `--open-registration` network; the allowance is spent per message
    /// that changes the registry (`GatewaySession`), not per request: the Ember gateway's routes,
    /// registration channels where no message lists, removes or sends.
    let gateway: RouterGroup<Context>
    /// The secret, also as the password of HTTP Basic (any user name): ntfy's and Bark's publish
    /// routes, whose clients (Apprise, Shoutrrr, Uptime Kuma) send credentials no other way.
    let notifiers: RouterGroup<Context>

    init(_ router: Router<Context>, parts: EndpointParts) {
        let settings = parts.settings
        let secretOnly = AuthMiddleware(secret: settings.secret, openRegistration: [], failures: parts.authFailures)
        let openNetworks = parts.gatewayAuth
        let rateLimit = RateLimitMiddleware(limiter: parts.limiter)
        open = router.group()
        guarded = router.group().add(middleware: secretOnly)
        registration = router.group().add(middleware: openNetworks).add(middleware: rateLimit)
        removal = router.group().add(middleware: secretOnly).add(middleware: rateLimit)
        gateway = router.group().add(middleware: openNetworks)
        var basic = secretOnly
        basic.acceptsBasic = true
        notifiers = router.group().add(middleware: basic)
    }
}
