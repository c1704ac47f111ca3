import Hummingbird

/// Turns the router's 404 into the endpoint's answer: 405 with `Allow` for a path some route has
/// (another method, as `RouteCatalogue.match` finds it among the router's routes), else a 404 naming the method and path.
///
/// Hummingbird's router answers 404 for a known path with a method it lacks; HTTP says 405, and
/// the OpenAPI document promises it.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = EndpointRequestContext
    let routes: RouteCatalogue

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound && context.routePath == nil {
            let method = request.method.rawValue
            let path = request.uri.path
            if case .methodNotAllowed(let allowed) = routes.match(method: method, path: path) {
                throw EndpointError.methodNotAllowed(method, path: path, allowed: allowed)
            }
            throw EndpointError.notFound("no route \(method) \(path); see docs/openapi.yaml for the routes")
        }
    }
}
