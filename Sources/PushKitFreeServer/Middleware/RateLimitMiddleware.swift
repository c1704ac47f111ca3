import Hummingbird

/// The per-client limit on the routes that change the registry (the groups
/// `EndpointRouteGroups.registration` and `.removal`): 429 with `Retry-After` past the allowance.
/// Runs after `AuthMiddleware`, so a caller without the secret spends nobody's allowance.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = EndpointRequestContext
    let limiter: RateLimiter

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let retryAfter = limiter.admit(context.client) {
            throw EndpointError.rateLimited(retryAfter: retryAfter, limit: limiter.perMinute)
        }
        return try await next(request, context)
    }
}
