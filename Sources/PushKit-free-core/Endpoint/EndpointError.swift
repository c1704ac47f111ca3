/// A request the endpoint refuses: the HTTP status, the message for `{"error": ...}`, and any
/// header the status calls for (`Allow`, `Retry-After`, `WWW-Authenticate`).
public struct EndpointError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: Int
    public let message: String
    public let headers: [String: String]

    public init(status: Int, _ message: String, headers: [String: String] = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status): \(message)" }

    /// 400: not JSON, or not the shape the route takes.
    public static func badRequest(_ message: String) -> EndpointError { EndpointError(status: 400, message) }
    /// 401: the shared secret is missing or wrong.
    public static func unauthorized(_ message: String) -> EndpointError {
        EndpointError(status: 401, message, headers: ["WWW-Authenticate": "Bearer"])
    }
    /// 404: no such route, or no such device.
    public static func notFound(_ message: String) -> EndpointError { EndpointError(status: 404, message) }
    /// 405: the path exists for other methods.
    public static func methodNotAllowed(_ method: String, path: String, allowed: [String]) -> EndpointError {
        EndpointError(status: 405, "\(path) does not take \(method); it takes \(allowed.joined(separator: ", "))",
                      headers: ["Allow": allowed.joined(separator: ", ")])
    }
    /// 413: the body is over the limit.
    public static func tooLarge(limit: Int) -> EndpointError {
        EndpointError(status: 413, "the request body is over \(limit) bytes")
    }
    /// 413: the notification the body describes is over APNs' payload limit.
    public static func tooLarge(_ message: String) -> EndpointError { EndpointError(status: 413, message) }
    /// 422: a well-formed body whose APNs token is not one.
    public static func invalidToken(_ message: String) -> EndpointError { EndpointError(status: 422, message) }
    /// 429: over the rate limit; try again after `retryAfter` seconds.
    public static func rateLimited(retryAfter: Int, limit: Int) -> EndpointError {
        EndpointError(status: 429, "too many registration requests from this client (limit \(limit) a minute); retry after \(retryAfter) s",
                      headers: ["Retry-After": String(retryAfter)])
    }
    /// 503: the server cannot send (no provider key, no libcurl).
    public static func unavailable(_ message: String) -> EndpointError { EndpointError(status: 503, message) }
    /// 500: the state file cannot be written or read.
    public static func internalError(_ message: String) -> EndpointError { EndpointError(status: 500, message) }

    /// The 400 or 422 for a registration body.
    public init(_ error: RegistrationBodyError) {
        switch error {
        case .invalidToken(let message): self = .invalidToken(message)
        case .invalidBody(let message): self = .badRequest(message)
        }
    }

    /// The response body: `{"error": "<message>"}`.
    public var body: JSONValue { .object(["error": .string(message)]) }
}
