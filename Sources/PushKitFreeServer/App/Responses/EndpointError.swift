#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import HTTPTypes
import Hummingbird
import PushKitFreeCore
import PushKitFreeRegistry

/// A request the endpoint refuses: the HTTP status, the message for `{"error": ...}`, and any
/// header the status calls for (`Allow`, `Retry-After`, `WWW-Authenticate`).
///
/// The message is what the client reads, so it never holds a server path or a system error: what
/// only the operator may see (the state file's path, the provider key's, an unexpected error) goes
/// in `logDetail`, which the server logs under the request's id and never sends.
///
/// An `HTTPResponseError`: a route or middleware throws it, and `EndpointErrorMiddleware` answers it.
package struct EndpointError: HTTPResponseError, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status (4xx or 5xx).
    package let status: HTTPResponse.Status
    /// What the client reads in `error`.
    package let message: String
    /// Headers the status calls for (`Allow`, `Retry-After`, `WWW-Authenticate`).
    package let headers: [String: String]
    /// What the server's log shows beside the request id; never part of the answer.
    package let logDetail: String?
    /// The `detail` OpenClaw's routes answer when it is not `message` (FastAPI's "Device not found").
    package let openClawDetail: String?

    /// An error answered with `status` (a 4xx or 5xx code) and `message`.
    package init(
        status: Int, _ message: String, headers: [String: String] = [:], logDetail: String? = nil,
        openClawDetail: String? = nil
    ) {
        self.status = HTTPResponse.Status(code: status)
        self.message = message
        self.headers = headers
        self.logDetail = logDetail
        self.openClawDetail = openClawDetail
    }

    /// `STATUS: message (log detail)`, for logs and test failures; the client is answered `message` alone.
    package var description: String { "\(status.code): \(message)" + (logDetail.map { " (\($0))" } ?? "") }

    /// 400: not JSON, or not the shape the route takes.
    package static func badRequest(_ message: String) -> EndpointError { EndpointError(status: 400, message) }
    /// 401: the shared secret is missing or wrong.
    package static func unauthorized(_ message: String) -> EndpointError {
        EndpointError(status: 401, message, headers: ["WWW-Authenticate": "Bearer"])
    }
    /// 404: no such route.
    package static func notFound(_ message: String) -> EndpointError { EndpointError(status: 404, message) }
    /// 404: no such device; OpenClaw's routes answer `"detail": "Device not found"`, as that service does.
    package static func deviceNotFound(_ message: String) -> EndpointError {
        EndpointError(status: 404, message, openClawDetail: "Device not found")
    }
    /// 405: the path exists for other methods.
    package static func methodNotAllowed(_ method: String, path: String, allowed: [String]) -> EndpointError {
        EndpointError(
            status: 405, "\(path) does not take \(method); it takes \(allowed.joined(separator: ", "))",
            headers: ["Allow": allowed.joined(separator: ", ")])
    }
    /// 413: the body is over the limit.
    package static func tooLarge(limit: Int) -> EndpointError {
        EndpointError(status: 413, "the request body is over \(limit) bytes")
    }
    /// 413: the notification the body describes is over APNs' payload limit.
    package static func tooLarge(_ message: String) -> EndpointError { EndpointError(status: 413, message) }
    /// 409: the request needs something done first (a gateway `briefing_config` before `device_token`).
    package static func conflict(_ message: String) -> EndpointError { EndpointError(status: 409, message) }
    /// 422: a well-formed body whose APNs token is not one (or whose time zone does not exist).
    package static func invalidToken(_ message: String) -> EndpointError { EndpointError(status: 422, message) }
    /// 429: over the rate limit; try again after `retryAfter` seconds.
    package static func rateLimited(
        retryAfter: Int, limit: Int, what: String = "registration requests"
    ) -> EndpointError {
        EndpointError(
            status: 429,
            "too many \(what) from this client (limit \(limit) a minute); retry after \(retryAfter) s",
            headers: ["Retry-After": String(retryAfter)])
    }
    /// 503: the server cannot send (no provider key, no libcurl); `logDetail` says why, for the log.
    package static func unavailable(_ message: String, logDetail: String? = nil) -> EndpointError {
        EndpointError(status: 503, message, logDetail: logDetail)
    }
    /// 500: the state file cannot be written or read, or something unexpected failed.
    /// - Parameters:
    ///   - message: what the client reads, without paths or system errors.
    ///   - logDetail: the whole story, for the server's log only.
    package static func internalError(_ message: String, logDetail: String) -> EndpointError {
        EndpointError(status: 500, message, logDetail: logDetail)
    }

    /// The 400 or 422 for a registration body (422: a token that is not one, a time zone that does not exist).
    package init(_ error: RegistrationBodyError) {
        switch error {
        case .invalidToken(let message), .invalidValue(let message): self = .invalidToken(message)
        case .invalidBody(let message): self = .badRequest(message)
        }
    }

    /// The response body: `{"error": "<message>"}`; a route family whose clients read another
    /// shape adds to its members (`ErrorShape`).
    /// - Parameter requestID: named in the message and as `request_id` when there is a
    ///   `logDetail` to look up.
    package func body(requestID: String? = nil) -> JSONValue {
        .object(members(requestID: requestID))
    }

    /// The members of `body(requestID:)`, for a shape that adds its own.
    package func members(requestID: String?) -> [String: JSONValue] {
        var text = message
        var object: [String: JSONValue] = [:]
        if let requestID, logDetail != nil {
            text += " (request id \(requestID); the server's log has the details)"
            object["request_id"] = .string(requestID)
        }
        object["error"] = .string(text)
        return object
    }

    /// The answer in the endpoint's shape, with the status and headers. `EndpointErrorMiddleware`
    /// answers every error (in the shape of the adapter that claims the request, with the request
    /// id); this is what Hummingbird would answer for one that passed it.
    package func response(from request: Request, context: some RequestContext) throws -> Response {
        .json(body(), status: status, headers: headers)
    }
}
