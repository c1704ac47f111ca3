import HTTPTypes
import Hummingbird

/// The shared secret: `Authorization: Bearer <secret>` or `X-OpenClaw-Auth: <secret>`, 401 without
/// it or with another. Registrations without credentials are let in from an `--open-registration`
/// network (the routes whose `acceptsOpenRegistration` says so), and the context says so.
///
/// Added to every group but the health checks' (`/metrics` needs the secret wherever the server
/// listens: one rule docs/openapi.yaml can state); with `--no-auth` there is no secret to check.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = EndpointRequestContext
    let secret: SharedSecret?
    let openRegistration: [IPNetwork]

    static let openClawAuth = HTTPField.Name("X-OpenClaw-Auth")!

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let secret else { return try await next(request, context) }
        let presented = SharedSecret.presented(
            authorization: request.headers[.authorization],
            openClawAuth: request.headers[Self.openClawAuth])
        guard let presented else {
            if context.route(of: request)?.acceptsOpenRegistration == true,
                openRegistration.contains(where: { $0.contains(context.client) })
            {
                var context = context
                context.openNetwork = true
                return try await next(request, context)
            }
            throw EndpointError.unauthorized(
                "missing credentials: send Authorization: Bearer <secret> or X-OpenClaw-Auth: <secret>")
        }
        guard secret.matches(presented) else { throw EndpointError.unauthorized("wrong secret") }
        return try await next(request, context)
    }
}
