import Hummingbird
import PushKitFreeCore

/// Writes one `AccessLog` line per request to standard error, once it is answered.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = EndpointRequestContext
    let routes: RouteCatalogue

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        StandardStreams.writeError(
            AccessLog.line(
                client: context.client, method: request.method.rawValue,
                path: AccessLog.loggedPath(request.uri.path, routePath: context.routePath, routes: routes),
                status: Int(response.status.code), seconds: started.secondsElapsed, token: context.notes.token))
        return response
    }
}
