import HTTPTypes
import Hummingbird

/// Answers 400 to a request without a `Host` header or with more than one, as RFC 9112 (3.2) requires
/// of a server: a request that reached it through a proxy or a cache with a second `Host` could be
/// read as addressed to another host by one of them. HTTP/1.0 clients that send no `Host` are refused
/// too; every client of the routes (curl, the apps, Apprise, the designs' callers) sends one.
struct HostHeaderMiddleware: RouterMiddleware {
    typealias Context = EndpointRequestContext

    /// A `Host` header after the first: the first becomes the request's authority, later ones stay
    /// among its header fields.
    private static let host = HTTPField.Name("Host")!

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        if let problem = Self.problem(authority: request.head.authority, headers: request.headers) {
            throw EndpointError.badRequest(problem)
        }
        return try await next(request, context)
    }

    /// What is wrong with a request's `Host`, `nil` when it has exactly one.
    static func problem(authority: String?, headers: HTTPFields) -> String? {
        let extra = headers[values: host].count
        if authority == nil {
            return "the request has no Host header: HTTP/1.1 requires exactly one"
        }
        if extra > 0 {
            return "the request has \(extra + 1) Host headers: HTTP/1.1 allows exactly one"
        }
        return nil
    }
}
