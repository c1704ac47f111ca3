import PushKitFreeCore

/// Where the agent tools ask questions (`ask`, `wait_for_answer`, `cancel_question`): serve's
/// question routes, in the routes' own JSON. `pushkit-mcp` reaches them over HTTP (`endpoint`,
/// `endpoint_secret_file`); `register-apns serve` answers them in process.
///
/// Implementations never hold one of Swift's cooperative threads while a request blocks.
package protocol QuestionDesk: Sendable {
    /// Asks a question: `body` is `POST /v1/questions`' body.
    /// - Returns: the 201 answer, `{"id", "expires_at", "devices"}`.
    /// - Throws: `QuestionDeskError` with the route's status and sentence.
    func ask(_ body: [String: JSONValue]) async throws -> JSONValue

    /// The question's status once it is no longer pending or `wait` seconds (0 to 55) have passed:
    /// `GET /v1/questions/{id}?wait=S`'s answer.
    /// - Throws: `QuestionDeskError` (404 for an unknown id).
    func status(of id: String, wait: Int) async throws -> JSONValue

    /// Cancels the question: `DELETE /v1/questions/{id}`'s answer, the status with state `cancelled`.
    /// - Throws: `QuestionDeskError` (409 when it was already answered or expired, 404 unknown id).
    func cancel(_ id: String) async throws -> JSONValue
}

/// A question route's refusal, or a failure to reach it, as the agent tools relay it.
package struct QuestionDeskError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status the route answered (or would have: 502 unreachable, 504 no answer in time).
    package let status: Int
    /// The route's sentence, in words an agent can relay: no secret, no token.
    package let message: String
    /// The question's state, when the refusal names one (a 409's).
    package let state: String?

    /// A refusal with `status` saying `message`.
    package init(status: Int, message: String, state: String? = nil) {
        self.status = status
        self.message = message
        self.state = state
    }

    /// The message.
    package var description: String { message }
}
