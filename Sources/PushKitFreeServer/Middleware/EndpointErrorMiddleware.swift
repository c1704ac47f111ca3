import Hummingbird
import PushKitFreeCore

/// Answers whatever a route or middleware threw: an `EndpointError` as itself, anything else as a
/// 500 that names only the request id; in the shape of the adapter that claims the request
/// (`ErrorShape`), the endpoint's `{"error": ...}` otherwise. An error with a `logDetail` is written to standard error with
/// the request id, method, masked path and status; the answer never holds the detail.
///
/// A `HEAD` request's answer loses its body here too (Hummingbird's own `HEAD` routes do that for
/// answers, not for errors).
struct EndpointErrorMiddleware: RouterMiddleware {
    typealias Context = EndpointRequestContext
    let routes: RouteCatalogue
    let shapes: ErrorShapes

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let error: EndpointError
        do {
            return try await next(request, context)
        } catch let refusal as EndpointError {
            error = refusal
        } catch let unexpected {
            error = .internalError("the server failed to answer", logDetail: "unexpected error: \(unexpected)")
        }
        if let detail = error.logDetail {
            StandardStreams.writeError(
                "\(EndpointServer.tool): error: request \(context.requestID): "
                    + "\(request.method.rawValue) \(AccessLog.loggedPath(request.uri.path, routePath: context.routePath, routes: routes)) "
                    + "\(error.status.code): \(error.message): \(detail)\n")
        }
        let body = shapes.body(
            of: error, answering: request, routePath: context.routePath, routes: routes, requestID: context.requestID)
        let response = Response.json(body, status: error.status, headers: error.headers)
        return request.method == .head ? response.createHeadResponse() : response
    }
}
