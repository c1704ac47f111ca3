import Foundation
import Testing

/// `pushkit-mcp`'s framing of standard input, with raw JSON-RPC lines (no client library): a line
/// far over the limit, lines that are no request, and the end of input with requests unanswered.
@Suite("pushkit-mcp on standard input: long lines, refused lines, the end of input")
struct AgentStdioEndToEndTests: ClientToolSuite {
    let setup: ProviderSetup
    let devicesFile: String

    init() throws {
        setup = try ProviderSetup()
        devicesFile = setup.directory.file("state/devices.json")
    }

    var clientSettings: [String: String] { ["APNS_STATE_FILE": devicesFile] }

    static let initialize =
        #"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}"#
    static let initialized = #"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#

    /// A `tools/call` request of `tool` with `arguments` (JSON).
    static func call(_ id: Int, _ tool: String, _ arguments: String) -> String {
        #"{"jsonrpc": "2.0", "id": \#(id), "method": "tools/call", "params": {"name": "\#(tool)", "arguments": \#(arguments)}}"#
    }

    /// Runs `pushkit-mcp` with `lines` on standard input (closed after them), expecting exit 0: its
    /// answers by id, and those with a null id (refused lines) in order.
    func answers(
        _ lines: [String], env: [String: String]
    ) throws -> (byID: [Int: [String: Any]], refused: [[String: Any]]) {
        let input = Data((lines.joined(separator: "\n") + "\n").utf8)
        let run = try BuiltTool.run("pushkit-mcp", [], environment: env, stdin: input)
        #expect(run.status == 0, "\(run.stderr)")
        var byID: [Int: [String: Any]] = [:]
        var refused: [[String: Any]] = []
        for answer in jsonLines(run.stdout) {
            if let id = answer["id"] as? Int {
                byID[id] = answer
            } else if answer["id"] is NSNull {
                refused.append(answer)
            }
        }
        return (byID, refused)
    }

    @Test("a 2 MB line is answered with a JSON-RPC error (id null) and skipped; the request after it is answered")
    func longLine() throws {
        let long =
            #"{"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"padding": ""#
            + String(repeating: "a", count: 2_000_000) + #""}}"#
        let tools = #"{"jsonrpc": "2.0", "id": 3, "method": "tools/list"}"#
        let (byID, refused) = try answers(
            [Self.initialize, Self.initialized, long, tools], env: clientEnvironment(nil))
        #expect(byID[1]?["result"] != nil, "\(byID)")
        #expect(byID[2] == nil, "the long line is not a request")
        let error = try #require(refused.first?["error"] as? [String: Any], "\(refused)")
        #expect(refused.count == 1 && error["code"] as? Int == -32600)
        #expect((error["message"] as? String)?.contains("at most 1048576 bytes, on one line") == true, "\(error)")
        let listed = ((byID[3]?["result"] as? [String: Any])?["tools"] as? [[String: Any]])?.map {
            $0["name"] as? String
        }
        #expect(
            listed == ["notify", "withdraw", "list_devices", "ask", "wait_for_answer", "cancel_question"], "\(byID)")
    }

    @Test("lines that are not one request or notification: each refused with an error (id null), the rest answered")
    func refusedLines() throws {
        let (byID, refused) = try answers(
            [
                Self.initialize, Self.initialized, #"[{"jsonrpc": "2.0", "id": 2, "method": "ping"}]"#, "not json",
                #"{"jsonrpc": "2.0", "id": 3, "result": {}}"#, #"{"jsonrpc": "2.0", "id": 4, "method": "ping"}"#,
            ], env: clientEnvironment(nil))
        #expect(refused.map { ($0["error"] as? [String: Any])?["code"] as? Int } == [-32600, -32700, -32600])
        #expect(byID[2] == nil && byID[3] == nil)
        #expect(byID[4]?["result"] != nil, "\(byID)")
    }

    @Test("requests written, then standard input closed: every one is answered before pushkit-mcp exits")
    func answeredAfterTheEnd() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register("phone", hexToken(1), ["--group", "family"], env: env)
        let (byID, refused) = try answers(
            [
                Self.initialize, Self.initialized,
                Self.call(2, "notify", #"{"title": "Build", "body": "green", "device": "phone"}"#),
                Self.call(3, "list_devices", "{}"),
                #"{"jsonrpc": "2.0", "id": 4, "method": "ping"}"#,
                Self.call(5, "notify", #"{"body": "hi", "collapse_id": "build\u2028apns-priority: 5"}"#),
                Self.call(6, "notify", #"{"body": "to the family", "group": "family"}"#),
            ], env: env)
        #expect(refused.isEmpty && Set(byID.keys) == [1, 2, 3, 4, 5, 6], "\(byID)")
        func text(_ id: Int) -> String? {
            (((byID[id]?["result"] as? [String: Any])?["content"] as? [[String: Any]])?.first)?["text"] as? String
        }
        func isError(_ id: Int) -> Bool? { (byID[id]?["result"] as? [String: Any])?["isError"] as? Bool }
        #expect(text(2) == "Delivered to 1 device (phone).", "\(byID[2] ?? [:])")
        #expect(text(3)?.hasPrefix("1 device: phone") == true, "\(byID[3] ?? [:])")
        #expect(byID[4]?["result"] != nil)
        #expect(
            isError(5) == true && text(5)?.contains("must not contain control characters") == true, "\(byID[5] ?? [:])")
        #expect(text(6) == "Delivered to 1 device (phone).", "\(byID[6] ?? [:])")
        #expect(emulator.waitForRecords(2).count == 2)
        #expect(emulator.records().count == 2, "both sends reached APNs, the refused one did not")
    }
}
