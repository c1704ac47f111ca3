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
/// their own, `EndpointService.authFailures`): a client past it gets 429 without its secret being
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

    /// Whether `request` may pass: throws the 401 when it may not.
    ///
    /// The WebSocket route (`/gateway/ws`) calls this itself once upgraded, so that a refusal can be
    /// answered as a message on the socket (an upgrade refused before it is answered only with a bare 400).
    /// - Returns: `true` when it was let in without the secret, from an `--open-registration` network.
    func admit(_ request: Request, client: String) throws(EndpointError) -> Bool {
        guard let secret else { return false }
        let presented = SharedSecret.presented(
            authorization: request.headers[.authorization],
            openClawAuth: request.headers[Self.openClawAuth], acceptingBasic: acceptsBasic)
        if presented == nil, openRegistration.contains(where: { $0.contains(client) }) {
            return true
        }
        if let retryAfter = failures.exhausted(client) {
            throw EndpointError.rateLimited(
                retryAfter: retryAfter, limit: failures.perMinute, what: "failed authentications")
        }
        guard let presented else {
            _ = failures.admit(client)
            throw EndpointError.unauthorized(
                acceptsBasic
                    ? "missing credentials: send Authorization: Bearer <secret>, or the secret as the password of "
                        + "HTTP Basic (ntfy://user:SECRET@host/topic)"
                    : "missing credentials: send Authorization: Bearer <secret> or X-OpenClaw-Auth: <secret>")
        }
        guard secret.matches(presented) else {
            _ = failures.admit(client)
            throw EndpointError.unauthorized("wrong secret")
        }
        return false
    }
}
