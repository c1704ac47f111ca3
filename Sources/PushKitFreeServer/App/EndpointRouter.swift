import Hummingbird
import PushKitFreeMCP

/// The endpoint's `Router`: middleware every request passes, then the routes, each in the group
/// whose middleware states its rules (`EndpointRouteGroups`).
///
/// Every request gets an id, an access-log line and its metrics; errors become JSON answers; the
/// router's 404 becomes a 405 with `Allow` where the path exists; a request without exactly one
/// `Host` is answered 400. `HEAD` is answered wherever `GET` is. The 405's `Allow` and the names no
/// notifier topic may take come from the router's own routes (`RouteCatalogue`), recorded once
/// every group has added its routes; errors take the shape of the adapter that claims the request
/// (`ErrorShape`), the endpoint's `{"error": ...}` otherwise.
///
/// Each replaced design's adapter is one line here: removing the adapter is deleting its folder
/// under `Compatibility/` and its line.
enum EndpointRouter {
    typealias Context = EndpointRequestContext

    static func make(_ parts: EndpointParts) -> Router<Context> {
        let routes = RouteCatalogue()
        let errorShapes = ErrorShapes()
        let router = Router(context: Context.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: AccessLogMiddleware(routes: routes))
        router.add(middleware: RequestMetricsMiddleware(metrics: parts.metrics))
        router.add(middleware: EndpointErrorMiddleware(routes: routes, shapes: errorShapes))
        router.add(middleware: MethodNotAllowedMiddleware(routes: routes))
        router.add(middleware: HostHeaderMiddleware())

        let groups = EndpointRouteGroups(router, parts: parts, routes: routes, errorShapes: errorShapes)
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
            registrations: registrations, sender: sender, questions: parts.questions, tls: parts.settings.tls != nil,
            deadline: max(parts.settings.deliveryPolicy.timeout, .seconds(QuestionTools.longestWait))
                + AgentRoutes.deadlineMargin
        ).add(to: groups)
        QuestionRoutes(questions: parts.questions, tls: parts.settings.tls != nil).add(to: groups)
        WithdrawRoutes(registrations: registrations, sender: sender).add(to: groups)
        NtfyRoutes(registrations: registrations, sender: sender, routes: routes).add(to: groups)
        BarkRoutes(registrations: registrations, sender: sender, routes: routes).add(to: groups)
        routes.record(router)
        return router
    }
}

extension RouteCatalogue {
    /// The routes of the endpoint `settings` describe, as its router holds them (for the contract
    /// test and the fuzzer, which match paths without serving them).
    package static func endpoint(_ settings: EndpointSettings) -> RouteCatalogue {
        let routes = RouteCatalogue()
        routes.record(EndpointRouter.make(EndpointParts(settings: settings)))
        return routes
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

    /// The routes, recorded once every group has added its own.
    let routes: RouteCatalogue
    private let errorShapes: ErrorShapes

    init(_ router: Router<Context>, parts: EndpointParts, routes: RouteCatalogue, errorShapes: ErrorShapes) {
        self.routes = routes
        self.errorShapes = errorShapes
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

    /// Answers the errors of the requests `shape` claims in its shape: an adapter whose clients
    /// read another error shape than the endpoint's registers it with its routes.
    func answerErrors(in shape: some ErrorShape) {
        errorShapes.add(shape)
    }
}
