import MCP
import PushKitFreeCore

/// Limits and words the question tools share.
package enum QuestionTools {
    /// The longest one `wait_for_answer` call waits, in seconds (serve holds a request up to 60).
    package static let longestWait = 55
    /// The members `ask` takes: `POST /v1/questions`' body.
    static let askArguments: Set<String> = [
        "title", "body", "choices", "reply", "device", "group", "timeout", "urgency", "encrypt",
    ]
    /// What the question tools say when the program has no question desk.
    static let unconfigured =
        "questions are not set up here; for pushkit-mcp, set the endpoint (register-apns serve's URL: --endpoint, "
        + "PUSHKIT_ENDPOINT or endpoint in the config file) and the file with serve's secret (--secret-file, "
        + "PUSHKIT_ENDPOINT_SECRET_FILE or endpoint_secret_file), then start it again"
}

extension AgentTools {
    /// `ask`: checks the arguments' names and the title, then hands the body to the desk.
    func ask(_ arguments: [String: JSONValue]) async throws -> CallTool.Result {
        let desk = try questionDesk()
        if let unknown = arguments.keys.sorted().first(where: { !QuestionTools.askArguments.contains($0) }) {
            throw AgentToolError(
                "unknown argument \"\(TerminalText.field(unknown))\"; ask takes "
                    + QuestionTools.askArguments.sorted().joined(separator: ", "))
        }
        guard let title = arguments["title"]?.stringValue, !title.trimmingWhitespace.isEmpty else {
            throw AgentToolError("title is required: the question to show, a non-empty string")
        }
        if arguments["choices"] == nil, arguments["reply"] == nil {
            throw AgentToolError(
                "give choices (1 to 4 buttons, each {\"id\", \"title\"}) or reply ({} for a typed answer)")
        }
        let asked: JSONValue
        do {
            asked = try await desk.ask(arguments)
        } catch let error as QuestionDeskError {
            throw AgentToolError(error.message)
        }
        guard let id = asked.objectValue?["id"]?.stringValue else {
            throw AgentToolError("the server's answer to the question named no id")
        }
        let expiresAt = asked.objectValue?["expires_at"]?.stringValue ?? "unknown"
        let devices = asked.objectValue?["devices"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let asking = devices.isEmpty ? "" : " on \(devices.map { TerminalText.field($0) }.joined(separator: ", "))"
        let summary =
            "Asked\(asking); question \(id) expires at \(expiresAt). Call wait_for_answer with id \"\(id)\" "
            + "until its state is no longer pending."
        var structured = asked.objectValue ?? [:]
        structured["summary"] = .string(summary)
        return Self.success(summary, structured: .object(structured), isError: false)
    }

    /// `wait_for_answer`: the desk's status after waiting up to `wait` seconds.
    func waitForAnswer(_ arguments: [String: JSONValue]) async throws -> CallTool.Result {
        let desk = try questionDesk()
        let id = try Self.questionID(arguments, tool: "wait_for_answer", also: ["wait"])
        var wait = QuestionTools.longestWait
        if let given = arguments["wait"] {
            guard let seconds = given.integerValue, (0...QuestionTools.longestWait).contains(seconds) else {
                throw AgentToolError(
                    "wait must be a whole number of seconds from 0 to \(QuestionTools.longestWait), "
                        + "not \(given.serializedString())")
            }
            wait = seconds
        }
        do {
            return try Self.statusResult(await desk.status(of: id, wait: wait))
        } catch let error as QuestionDeskError {
            throw AgentToolError(error.message)
        }
    }

    /// `cancel_question`: cancels through the desk; a settled question's state is said, as an error.
    func cancelQuestion(_ arguments: [String: JSONValue]) async throws -> CallTool.Result {
        let desk = try questionDesk()
        let id = try Self.questionID(arguments, tool: "cancel_question", also: [])
        do {
            return try Self.statusResult(await desk.cancel(id))
        } catch let error as QuestionDeskError {
            guard let state = error.state else { throw AgentToolError(error.message) }
            throw AgentToolError("the question cannot be cancelled: it was already \(state) (\(error.message))")
        }
    }

    private func questionDesk() throws -> any QuestionDesk {
        guard let desk = host.questions else { throw AgentToolError(QuestionTools.unconfigured) }
        return desk
    }

    /// The `id` argument; no arguments but it and `also`.
    private static func questionID(
        _ arguments: [String: JSONValue], tool: String, also: Set<String>
    ) throws -> String {
        if let unknown = arguments.keys.sorted().first(where: { $0 != "id" && !also.contains($0) }) {
            throw AgentToolError(
                "unknown argument \"\(TerminalText.field(unknown))\"; \(tool) takes "
                    + (["id"] + also.sorted()).joined(separator: ", "))
        }
        guard let id = arguments["id"]?.stringValue, !id.isEmpty else {
            throw AgentToolError("id is required: the id ask returned")
        }
        return id
    }

    /// A status in words, with what to do next: an agent treats all but an answer as "no".
    static func statusResult(_ status: JSONValue) throws -> CallTool.Result {
        guard let object = status.objectValue else {
            throw AgentToolError("the server's status of the question is not a JSON object")
        }
        let read: QuestionStatus
        do {
            read = try QuestionStatus(object)
        } catch {
            throw AgentToolError(error.description)
        }
        let summary: String
        switch read.state {
        case .pending:
            summary = "Nobody has answered yet. Call wait_for_answer again with id \"\(read.id)\"."
        case .answered:
            let by = read.answeringDevice.map { " on \(TerminalText.field($0))" } ?? ""
            switch read.answer {
            case .choice(let choice): summary = "Answered\(by): the user chose \"\(TerminalText.field(choice))\"."
            case .text(let text): summary = "Answered\(by): the user wrote \"\(TerminalText.field(text))\"."
            case nil: summary = "Answered\(by)."
            }
        case .expired:
            summary = "Nobody answered before the question expired. Treat this as \"no\": do not go ahead."
        case .cancelled:
            summary = "The question was cancelled. Treat this as \"no\": do not go ahead."
        }
        var structured = object
        structured["summary"] = .string(summary)
        return success(summary, structured: .object(structured), isError: false)
    }
}
