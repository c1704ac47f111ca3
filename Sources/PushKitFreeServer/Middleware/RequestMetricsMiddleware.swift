import Hummingbird

/// Counts and times every request in `EndpointMetrics`: `pushkit_http_requests_total{route,method,status}`
/// and `pushkit_http_request_duration_seconds{route}`, the route as the router matched it
/// (`/api/v1/devices/{token}`), `unmatched` for a 404 or 405.
///
/// Hummingbird's `MetricsMiddleware` records `hb_requests` and `http_server_request_duration` through the
/// process-wide metrics system instead; the names and labels the endpoint documents are these.
struct RequestMetricsMiddleware: RouterMiddleware {
    typealias Context = EndpointRequestContext
    let metrics: EndpointMetrics

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        metrics.request(
            route: context.routeLabel, method: request.method.rawValue,
            status: Int(response.status.code), seconds: started.secondsElapsed)
        return response
    }
}
