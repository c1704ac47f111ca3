import PushKitFreeCore
import PushKitFreeMCP

/// The agent tools' questions (`ask`, `wait_for_answer`, `cancel_question`) at `POST /mcp`: the
/// endpoint's own questions, in process, with the routes' rules and words, so an agent at `/mcp`
/// and one using `pushkit-mcp` (which calls the routes over HTTP) are answered alike.
struct EndpointQuestionDesk: QuestionDesk {
    let questions: EndpointQuestions
    /// The `/mcp` request's `scheme://host`, for the answer URL when there is no `--public-url`.
    let origin: String?

    func ask(_ body: [String: JSONValue]) async throws -> JSONValue {
        try await answering { () async throws(EndpointError) in
            try await questions.ask(json: .object(body), origin: origin)
        }
    }

    func status(of id: String, wait: Int) async throws -> JSONValue {
        try await answering { () async throws(EndpointError) in
            try await questions.status(try QuestionRoutes.checkedID(id), wait: .seconds(max(0, wait)))
        }
    }

    func cancel(_ id: String) async throws -> JSONValue {
        let (status, settled) = try await answering { () async throws(EndpointError) in
            try await questions.cancel(try QuestionRoutes.checkedID(id))
        }
        guard settled else { return status }
        let state = status["state"]?.stringValue
        throw QuestionDeskError(status: 409, message: "the question was \(state ?? "settled") already", state: state)
    }

    /// `work`'s result; its `EndpointError` as the desk's error, with the same status and sentence.
    private func answering<T>(_ work: () async throws(EndpointError) -> T) async throws -> T {
        do {
            return try await work()
        } catch {
            throw QuestionDeskError(status: Int(error.status.code), message: error.message)
        }
    }
}
