import Hummingbird

/// Gives each request its id (`RequestID`): kept in the context for error answers and the log, and
/// sent back in `X-Request-Id` on every answer.
struct RequestIDMiddleware: RouterMiddleware {
    typealias Context = EndpointRequestContext

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.requestID = RequestID.make(presented: request.headers[RequestID.header])
        var response = try await next(request, context)
        response.headers[RequestID.header] = context.requestID
        return response
    }
}
