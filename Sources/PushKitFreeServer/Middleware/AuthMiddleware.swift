import HTTPTypes
import Hummingbird

/// The shared secret: `Authorization: Bearer <secret>` or `X-OpenClaw-Auth: <secret>` (on the ntfy
/// and Bark routes also as the password of HTTP Basic), 401 without it or with another. In the groups that take registrations (`EndpointRouteGroups`), a request
/// without credentials is let in from an `--open-registration` network, and the context says so.
///
/// Added to every group but the health checks' (`/metrics` needs the secret wherever the server
/// listens: one rule docs/openapi.yaml can state); with `--no-auth` there is no secret to check.
///
/// Failed attempts are limited per client like registrations (`--rate-limit` a minute, in a bucket of
/// their own, `EndpointParts.authFailures`): a client past it gets 429 without its secret being
/// looked at, so the secret cannot be guessed at the speed of the network.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = EndpointRequestContext
    let secret: SharedSecret?
    /// The networks let in without the secret: empty but in the registration groups.
    let openRegistration: [IPNetwork]
    /// The allowance of failed attempts.
    let failures: RateLimiter
    /// Whether HTTP Basic credentials carry the secret too, as their password (any user name): only
    /// on the ntfy and Bark routes, whose clients can send nothing else.
    var acceptsBasic = false

    static let openClawAuth = HTTPField.Name("X-OpenClaw-Auth")!

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.openNetwork = try admit(request, client: context.client)
        return try await next(request, context)
    }

    /// Whether `request` may pass: throws the 401 (or the 429 past the allowance of failures) when
    /// it may not, and spends one failure from the client's allowance for a wrong or missing secret.
    ///
    /// - Returns: `true` when it was let in without the secret, from an `--open-registration` network.
    func admit(_ request: Request, client: String) throws(EndpointError) -> Bool {
        let decision = decide(
            authorization: request.headers[.authorization], openClawAuth: request.headers[Self.openClawAuth],
            client: client)
        switch decision {
        case .pass: return false
        case .openNetwork: return true
        case .exhausted(let retryAfter):
            throw EndpointError.rateLimited(
                retryAfter: retryAfter, limit: failures.perMinute, what: "failed authentications")
        case .missing:
            _ = failures.admit(client)
            throw EndpointError.unauthorized(
                acceptsBasic
                    ? "missing credentials: send Authorization: Bearer <secret>, or the secret as the password of "
                        + "HTTP Basic (ntfy://user:SECRET@host/topic)"
                    : "missing credentials: send Authorization: Bearer <secret> or X-OpenClaw-Auth: <secret>")
        case .wrong:
            _ = failures.admit(client)
            throw EndpointError.unauthorized("wrong secret")
        }
    }

    /// Whether a request with these credentials from `client` would pass `admit`, without spending
    /// anything: the WebSocket upgrade asks before it answers 101 (`UpgradeRequestFilter`), and a
    /// request it refuses is answered by the router, where `admit` answers and counts it.
    func wouldAdmit(authorization: String?, openClawAuth: String?, client: String) -> Bool {
        switch decide(authorization: authorization, openClawAuth: openClawAuth, client: client) {
        case .pass, .openNetwork: true
        case .exhausted, .missing, .wrong: false
        }
    }

    private enum Decision {
        case pass, openNetwork
        case exhausted(retryAfter: Int)
        case missing, wrong
    }

    /// The decision for these credentials, with no side effect. A client past its allowance of
    /// failures is refused before its secret is looked at, so the secret cannot be guessed at the
    /// speed of the network.
    private func decide(authorization: String?, openClawAuth: String?, client: String) -> Decision {
        guard let secret else { return .pass }
        let presented = SharedSecret.presented(
            authorization: authorization, openClawAuth: openClawAuth, acceptingBasic: acceptsBasic)
        if presented == nil, openRegistration.contains(where: { $0.contains(client) }) { return .openNetwork }
        if let retryAfter = failures.exhausted(client) { return .exhausted(retryAfter: retryAfter) }
        guard let presented else { return .missing }
        return secret.matches(presented) ? .pass : .wrong
    }
}
