import MCP
import PushKitFreeCore
import Testing

@testable import PushKitFreeMCP

/// A desk in memory: one question per `ask`, its status set by the test, every call recorded.
final class RecordingDesk: QuestionDesk, @unchecked Sendable {
    private(set) var asked: [[String: JSONValue]] = []
    private(set) var waits: [(id: String, wait: Int)] = []
    private(set) var cancelled: [String] = []
    var status: JSONValue = ["id": "0123456789abcdef0123456789abcdef", "state": "pending"]
    var refusal: QuestionDeskError?

    func ask(_ body: [String: JSONValue]) async throws -> JSONValue {
        if let refusal { throw refusal }
        asked.append(body)
        return [
            "id": "0123456789abcdef0123456789abcdef", "expires_at": "2026-11-29T10:00:00Z", "devices": ["phone"],
        ]
    }

    func status(of id: String, wait: Int) async throws -> JSONValue {
        waits.append((id, wait))
        if let refusal { throw refusal }
        return status
    }

    func cancel(_ id: String) async throws -> JSONValue {
        cancelled.append(id)
        if let refusal { throw refusal }
        return ["id": .string(id), "state": "cancelled"]
    }
}

@Suite("The question tools")
struct QuestionToolsTests {
    static let id = "0123456789abcdef0123456789abcdef"

    func tools() throws -> (AgentTools, RecordingDesk) {
        let host = try RecordingHost([("phone", 1, [])])
        let desk = RecordingDesk()
        host.questions = desk
        return (AgentTools(host: host), desk)
    }

    @Test("schemas are strict: no member beyond the route's body, title required, choices 1 to 4")
    func schemas() throws {
        let byName = Dictionary(uniqueKeysWithValues: AgentTools.definitions.map { ($0.name, $0) })
        for name in ["ask", "wait_for_answer", "cancel_question"] {
            let schema = try #require(byName[name]?.inputSchema.objectValue)
            #expect(schema["additionalProperties"] == false, "\(name)")
        }
        let ask = try #require(byName["ask"]?.inputSchema.objectValue)
        let properties = try #require(ask["properties"]?.objectValue)
        #expect(Set(properties.keys) == QuestionTools.askArguments)
        #expect(ask["required"] == ["title"])
        let choices = try #require(properties["choices"]?.objectValue)
        #expect(choices["minItems"] == 1 && choices["maxItems"] == 4)
        #expect(choices["items"]?.objectValue?["additionalProperties"] == false)
        let wait = try #require(byName["wait_for_answer"])
        #expect(wait.description?.contains("expired") == true && wait.description?.contains("\"no\"") == true)
    }

    @Test("ask hands the body to the desk as given and returns the id at once")
    func ask() async throws {
        let (tools, desk) = try tools()
        let arguments: [String: Value] = [
            "title": "Deploy?", "choices": [["id": "deploy", "title": "Deploy", "destructive": true]],
            "device": "phone", "timeout": 600,
        ]
        let result = await tools.call("ask", arguments: arguments)
        #expect(result.isError == nil, "\(AgentToolsTests.text(result))")
        #expect(desk.asked == [arguments.mapValues { JSONValue($0) }])
        let structured = try #require(result.structuredContent?.objectValue)
        #expect(structured["id"] == .string(Self.id))
        #expect(structured["expires_at"] == .string("2026-11-29T10:00:00Z"))
        #expect(AgentToolsTests.text(result).contains("wait_for_answer"))
    }

    @Test(
        "ask refuses what serve would not take, before asking",
        arguments: [
            (["choices": [["id": "a", "title": "A"]]], "title is required"),
            (["title": "", "reply": [:]], "title is required"),
            (["title": "Q"], "give choices"),
            (["title": "Q", "reply": [:], "colour": "red"], "unknown argument \"colour\""),
        ] as [([String: Value], String)])
    func askRefused(arguments: [String: Value], message: String) async throws {
        let (tools, desk) = try tools()
        let result = await tools.call("ask", arguments: arguments)
        #expect(result.isError == true)
        #expect(AgentToolsTests.text(result).hasPrefix(message), "\(AgentToolsTests.text(result))")
        #expect(desk.asked.isEmpty)
    }

    @Test("a refusal of the desk is relayed as a tool error in its words")
    func deskRefusal() async throws {
        let (tools, desk) = try tools()
        desk.refusal = QuestionDeskError(status: 404, message: "no device \"tablet\" is registered")
        let result = await tools.call("ask", arguments: ["title": "Q", "reply": [:], "device": "tablet"])
        #expect(result.isError == true && AgentToolsTests.text(result) == "no device \"tablet\" is registered")
    }

    @Test("wait_for_answer: 55 seconds unless told; each state in words, all but an answer a no")
    func waitForAnswer() async throws {
        let (tools, desk) = try tools()
        var result = await tools.call("wait_for_answer", arguments: ["id": .string(Self.id)])
        #expect(desk.waits.last?.wait == 55)
        #expect(result.isError == nil && AgentToolsTests.text(result).contains("Call wait_for_answer again"))
        desk.status = [
            "id": .string(Self.id), "state": "answered",
            "answer": ["choice": "deploy", "device": "phone", "answered_at": "2026-11-29T09:58:00Z"],
        ]
        result = await tools.call("wait_for_answer", arguments: ["id": .string(Self.id), "wait": 5])
        #expect(desk.waits.last?.wait == 5)
        #expect(AgentToolsTests.text(result) == "Answered on phone: the user chose \"deploy\".")
        #expect(result.structuredContent?.objectValue?["state"] == "answered")
        for state in ["expired", "cancelled"] {
            desk.status = ["id": .string(Self.id), "state": .string(state)]
            result = await tools.call("wait_for_answer", arguments: ["id": .string(Self.id)])
            #expect(result.isError == nil && AgentToolsTests.text(result).contains("Treat this as \"no\""))
        }
        desk.status = ["id": .string(Self.id), "state": "answered"]
        result = await tools.call("wait_for_answer", arguments: ["id": .string(Self.id)])
        #expect(result.isError == true, "an answer without a choice or text is no answer")
        result = await tools.call("wait_for_answer", arguments: ["id": .string(Self.id), "wait": 56])
        #expect(result.isError == true && AgentToolsTests.text(result).hasPrefix("wait must be"))
        result = await tools.call("wait_for_answer", arguments: [:])
        #expect(result.isError == true && AgentToolsTests.text(result).hasPrefix("id is required"))
    }

    @Test("cancel_question cancels; a settled question's state is said")
    func cancel() async throws {
        let (tools, desk) = try tools()
        var result = await tools.call("cancel_question", arguments: ["id": .string(Self.id)])
        #expect(desk.cancelled == [Self.id])
        #expect(result.isError == nil && result.structuredContent?.objectValue?["state"] == "cancelled")
        desk.refusal = QuestionDeskError(status: 409, message: "the question was answered", state: "answered")
        result = await tools.call("cancel_question", arguments: ["id": .string(Self.id)])
        #expect(result.isError == true && AgentToolsTests.text(result).contains("already answered"))
    }

    @Test("without a desk each question tool says how to set one up")
    func unconfigured() async throws {
        let tools = AgentTools(host: try RecordingHost([("phone", 1, [])]))
        for name in ["ask", "wait_for_answer", "cancel_question"] {
            let result = await tools.call(name, arguments: ["id": .string(Self.id), "title": "Q"])
            #expect(result.isError == true && AgentToolsTests.text(result) == QuestionTools.unconfigured)
        }
    }
}
