#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// The question routes of `register-apns serve` (`/v1/questions`) over `EndpointClient`: ask,
/// read the state (holding the request while it is pending), cancel. JSON in, JSON out; each
/// call is one blocking request, so callers keep it off Swift's cooperative pool.
package final class QuestionsClient: Sendable {
    /// The longest a status request asks serve to hold it, in seconds (serve allows 60).
    package static let longestWait = 55
    /// How long a request may take beyond the `wait` it asks for.
    package static let answerAllowance: Duration = .seconds(20)

    private let client: EndpointClient

    /// A client for the endpoint of `access`.
    /// - Throws: `LibcurlUnavailable` (exit 69) when libcurl cannot be loaded.
    package init(access: EndpointAccess, caFile: String?, proxy: String?) throws(LibcurlUnavailable) {
        client = try EndpointClient(baseURL: access.baseURL, secret: access.secret, caFile: caFile, proxy: proxy)
    }

    /// The endpoint's base URL.
    package var baseURL: String { client.baseURL }

    /// `POST /v1/questions` with `body`.
    /// - Returns: the 201 answer: `{"id", "expires_at", "devices"}`.
    /// - Throws: `EndpointClientError`, or `EndpointRefusal` for any other status.
    package func ask(_ body: JSONValue) throws -> [String: JSONValue] {
        try exchange(.post, "/v1/questions", body: body.serialized(), expecting: 201, timeout: .seconds(60))
    }

    /// `GET /v1/questions/{id}?wait=S`: the question's status once it is no longer pending or
    /// `wait` seconds (0 to `longestWait`) have passed.
    /// - Parameter shouldStop: asked about once a second; `true` ends the request (`.interrupted`).
    package func status(
        of id: String, wait: Int, shouldStop: @escaping () -> Bool = { false }
    ) throws -> [String: JSONValue] {
        let wait = min(max(wait, 0), Self.longestWait)
        return try exchange(
            .get, "/v1/questions/\(try Self.checked(id))?wait=\(wait)", body: nil, expecting: 200,
            timeout: .seconds(wait) + Self.answerAllowance, shouldStop: shouldStop)
    }

    /// `DELETE /v1/questions/{id}`: cancels the question.
    /// - Returns: its status (state `cancelled`); a question already answered or expired is an
    ///   `EndpointRefusal` with status 409 whose `body` holds its status.
    package func cancel(_ id: String) throws -> [String: JSONValue] {
        try exchange(.delete, "/v1/questions/\(try Self.checked(id))", body: nil, expecting: 200, timeout: .seconds(20))
    }

    /// `id` when it has a question id's shape (32 lowercase hex digits), so nothing else reaches the path.
    /// - Throws: `EndpointRefusal` 404, as serve would answer.
    package static func checked(_ id: String) throws(EndpointRefusal) -> String {
        guard id.utf8.count == 32, id.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else {
            throw EndpointRefusal(
                status: 404,
                body: [
                    "error": .string("no question has the id \"\(TerminalText.field(id))\" (ids are 32 hex digits)")
                ],
                origin: "")
        }
        return id
    }

    private func exchange(
        _ method: EndpointClient.Method, _ path: String, body: Data?, expecting status: Int, timeout: Duration,
        shouldStop: @escaping () -> Bool = { false }
    ) throws -> [String: JSONValue] {
        let response = try client.send(method, path, body: body, timeout: timeout, shouldStop: shouldStop)
        let object = (try? JSONValue.parse(response.body))?.objectValue
        guard response.status == status else {
            throw EndpointRefusal(status: response.status, body: object, origin: client.baseURL)
        }
        guard let object else {
            throw EndpointRefusal(
                status: response.status,
                body: ["error": .string("\(client.baseURL) answered \(method.rawValue) \(path) with no JSON object")],
                origin: client.baseURL)
        }
        return object
    }
}
