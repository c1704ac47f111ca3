import Foundation
import Testing

/// Asking and answering from the client side, end to end: the built `ask-push`, `pushkit-mcp`'s
/// question tools and the PermissionRequest hook example against the built `register-apns serve`,
/// which sends the question's push to the real `apns-emulator`. The test plays the phone: it reads
/// the recorded push's `pushkit` member (`answer_url`, `answer_token`) and posts the answer.
@Suite("ask-push, pushkit-mcp's questions and the permission hook against serve")
struct AskPushEndToEndTests {
    static let secret = "s3cret-for-question-tests"

    let setup: ProviderSetup
    let stateFile: String
    let secretFile: String

    init() throws {
        setup = try ProviderSetup()
        stateFile = setup.directory.file("state/devices.json")
        secretFile = try setup.directory.write("serve.secret", Self.secret + "\n", mode: 0o600)
    }

    /// The emulator, serve with a secret, one registered device ("phone"), and the clients'
    /// environment: the endpoint and its secret file, nothing of the provider's.
    struct Scene {
        let emulator: RunningEmulator
        let server: RunningServe
        let client: [String: String]
    }

    func scene() throws -> Scene {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var serveEnvironment = emulator.asAPNs(for: setup.environment)
        serveEnvironment["APNS_STATE_FILE"] = stateFile
        try BuiltTool.run("register-apns", ["add", "phone", hexToken(42)], environment: serveEnvironment)
            .expectSuccess()
        let server = try RunningServe(["--secret-file", secretFile], environment: serveEnvironment)
        let client = [
            "HOME": setup.directory.file("client-home"), "PUSHKIT_ENDPOINT": server.baseURL,
            "PUSHKIT_ENDPOINT_SECRET_FILE": secretFile,
        ]
        return Scene(emulator: emulator, server: server, client: client)
    }

    /// The `pushkit` member of the `count`th question push the emulator recorded, polled for up
    /// to 30 seconds, or until `asker` (the process asking) has ended without it.
    func questionPush(
        _ emulator: RunningEmulator, count: Int = 1, asker: RunningTool? = nil
    ) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(30)
        while true {
            let ended = asker.map { !$0.process.isRunning } ?? false
            let found: [[String: Any]] = emulator.records().compactMap { record in
                let pushkit = (record["payload"] as? [String: Any])?["pushkit"] as? [String: Any]
                return pushkit?["answer_token"] != nil ? pushkit : nil
            }
            if found.count >= count { return found[count - 1] }
            if ended, let result = try asker?.wait() {
                throw AskerEnded(status: result.status, stderr: result.stderr)
            }
            try #require(Date() < deadline, "no question push recorded: \(emulator.records())")
            usleep(20_000)
        }
    }

    /// Answers the question of `push` as the phone would: `POST answer_url` with its token.
    @discardableResult
    func answer(_ push: [String: Any], _ members: [String: String]) throws -> HTTPExchange {
        let url = try #require(push["answer_url"] as? String)
        var body = members
        body["token"] = try #require(push["answer_token"] as? String)
        let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        return try HTTPExchange.curl(
            "POST", url, body: Data(json.utf8), headers: ["Content-Type": "application/json"])
    }

    /// The question's status as another client reads it.
    func status(_ scene: Scene, _ id: String) throws -> [String: Any] {
        try #require(
            try scene.server.request("GET", "/v1/questions/\(id)", headers: ["Authorization": "Bearer \(Self.secret)"])
                .json)
    }

    // MARK: ask-push

    @Test("answered: the chosen id alone on stdout, exit 0; the question as the options asked it")
    func answered() throws {
        let scene = try scene()
        let run = try BuiltTool.start(
            "ask-push",
            [
                "--title", "Deploy to production?", "--body", "main at 3f2c1a", "--choice", "deploy=Deploy",
                "--choice", "cancel=Cancel", "--destructive", "cancel", "--timeout", "600",
            ], environment: scene.client)
        let push = try questionPush(scene.emulator, asker: run)
        let choices = try #require(push["choices"] as? [[String: Any]])
        #expect(choices.map { $0["id"] as? String } == ["deploy", "cancel"])
        #expect(choices[1]["destructive"] as? Bool == true)
        #expect(try answer(push, ["choice": "deploy"]).status == 200)
        let result = try run.wait()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "deploy\n")
        #expect(!result.stderr.contains(Self.secret) && !result.stdout.contains(Self.secret))
    }

    @Test("a typed reply with --json: the whole final status on stdout, the text in it")
    func typedReplyAsJSON() throws {
        let scene = try scene()
        let run = try BuiltTool.start(
            "ask-push", ["--title", "What should the release be called?", "--reply", "--json"],
            environment: scene.client)
        let push = try questionPush(scene.emulator, asker: run)
        #expect(push["reply"] != nil && push["choices"] == nil)
        #expect(try answer(push, ["text": "Nimbus 2"]).status == 200)
        let result = try run.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let status = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        #expect(status["state"] as? String == "answered" && status["id"] as? String == push["question"] as? String)
        #expect((status["answer"] as? [String: Any])?["text"] as? String == "Nimbus 2")
        #expect(result.stdout.split(separator: "\n").count == 1)
    }

    @Test("nobody answers: exit 2 once the question expires, nothing on stdout")
    func expired() throws {
        let scene = try scene()
        let result = try BuiltTool.run(
            "ask-push", ["--title", "Anyone there?", "--choice", "yes=Yes", "--timeout", "2"],
            environment: scene.client)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("expired"), "\(result.stderr)")
    }

    @Test("cancelled by another client (DELETE): exit 3, nothing on stdout")
    func cancelledElsewhere() throws {
        let scene = try scene()
        let run = try BuiltTool.start(
            "ask-push", ["--title", "Restart the database?", "--choice", "yes=Yes", "--choice", "no=No"],
            environment: scene.client)
        let id = try #require(try questionPush(scene.emulator, asker: run)["question"] as? String)
        let cancel = try scene.server.request(
            "DELETE", "/v1/questions/\(id)", headers: ["Authorization": "Bearer \(Self.secret)"])
        #expect(cancel.status == 200, "\(cancel.body)")
        let result = try run.wait()
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("SIGINT or SIGTERM while waiting: the question is cancelled, exit 130 / 143", arguments: [SIGINT, SIGTERM])
    func interrupted(signal: Int32) throws {
        let scene = try scene()
        let run = try BuiltTool.start(
            "ask-push", ["--title", "Delete the bucket?", "--choice", "yes=Yes"], environment: scene.client)
        let id = try #require(try questionPush(scene.emulator, asker: run)["question"] as? String)
        // The push may be out before serve has answered the POST: a signal then is kept until the
        // POST's answer names the question, which is cancelled all the same.
        run.kill(signal)
        let result = try run.wait()
        #expect(result.status == 128 + signal, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("the question was cancelled"), "\(result.stderr)")
        #expect(try status(scene, id)["state"] as? String == "cancelled")
    }

    @Test("serve restarts while ask-push waits: it tries again, and prints the answer given after the restart")
    func serveRestarts() throws {
        let scene = try scene()
        let run = try BuiltTool.start(
            "ask-push", ["--title", "Roll back?", "--choice", "yes=Yes", "--choice", "no=No"],
            environment: scene.client)
        let push = try questionPush(scene.emulator, asker: run)
        scene.server.terminate()
        var serveEnvironment = scene.emulator.asAPNs(for: setup.environment)
        serveEnvironment["APNS_STATE_FILE"] = stateFile
        let again = try RunningServe(
            ["--secret-file", secretFile, "--listen", "127.0.0.1:\(scene.server.port)"], environment: serveEnvironment)
        #expect(again.port == scene.server.port)
        #expect(try answer(push, ["choice": "no"]).status == 200)
        let result = try run.wait()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "no\n")
    }

    @Test("--no-wait prints the id at once; the question stays open for another client")
    func noWait() throws {
        let scene = try scene()
        let result = try BuiltTool.run(
            "ask-push", ["--title", "Later?", "--choice", "ok=OK", "--no-wait"], environment: scene.client)
        #expect(result.status == 0, "\(result.stderr)")
        let id = result.stdout.trimmingCharacters(in: .newlines)
        #expect(id.count == 32)
        #expect(try status(scene, id)["state"] as? String == "pending")
        let json = try BuiltTool.run(
            "ask-push", ["--title", "Later?", "--choice", "ok=OK", "--no-wait", "--json"], environment: scene.client)
        let asked = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        #expect((asked["id"] as? String)?.count == 32 && asked["devices"] as? [String] == ["phone"], "\(asked)")
    }

    @Test("a wrong secret is a configuration error naming the file, never showing the secret")
    func wrongSecret() throws {
        let scene = try scene()
        let wrong = try setup.directory.write("wrong.secret", "not-the-secret\n", mode: 0o600)
        let result = try BuiltTool.run(
            "ask-push", ["--title", "Q?", "--choice", "a=A", "--secret-file", wrong], environment: scene.client)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("ask-push: error: the secret in \(wrong)"), "\(result.stderr)")
        #expect(!result.stderr.contains("not-the-secret"))
        let unknown = try BuiltTool.run(
            "ask-push", ["--title", "Q?", "--choice", "a=A", "--device", "tablet"], environment: scene.client)
        #expect(unknown.status == 65, "\(unknown.stderr)")
        #expect(unknown.stderr.hasPrefix("ask-push: error: "), "\(unknown.stderr)")
    }

    @Test(
        "usage errors exit 64 before anything is asked",
        arguments: [
            (["--choice", "a=A"], "--title"),
            (["--title", "Q"], "--choice ID=TITLE"),
            (["--title", "Q", "--choice", "a=A", "--reply"], "--reply and --choice cannot be used together"),
            (["--title", "Q", "--choice", "a"], "--choice"),
            (["--title", "Q", "--choice", "a=A", "--choice", "a=B"], "given twice"),
            (["--title", "Q", "--choice", "a=A", "--destructive", "b"], "--destructive b names no --choice"),
            (["--title", "Q", "--reply", "--button", "Go", "--device", "d", "--group", "g"], "--device and --group"),
            (["--title", "Q", "--choice", "a=A", "--placeholder", "x"], "go with --reply"),
            (["--title", "Q", "--choice", "a=A", "--timeout", "86401"], "--timeout must be 1 to 86400 seconds"),
            (["--title", "Q", "--choice", "a=A", "--urgency", "asap"], "--urgency"),
            (["--title", "", "--choice", "a=A"], "--title must not be empty"),
        ] as [([String], String)])
    func usage(arguments: [String], message: String) throws {
        let result = try BuiltTool.run("ask-push", arguments, environment: ["HOME": setup.directory.file("home")])
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test("no endpoint is exit 78 naming the setting; an endpoint nobody listens on is exit 69")
    func unconfiguredAndUnreachable() throws {
        let home = ["HOME": setup.directory.file("home"), "PUSHKIT_SYSTEM_CONFIG": ""]
        let none = try BuiltTool.run("ask-push", ["--title", "Q", "--choice", "a=A"], environment: home)
        #expect(none.status == 78 && none.stderr.contains("PUSHKIT_ENDPOINT or endpoint"), "\(none.stderr)")
        var closed = home
        closed["PUSHKIT_ENDPOINT"] = "http://127.0.0.1:1"
        closed["PUSHKIT_ENDPOINT_SECRET_FILE"] = secretFile
        let unreachable = try BuiltTool.run("ask-push", ["--title", "Q", "--choice", "a=A"], environment: closed)
        #expect(unreachable.status == 69, "\(unreachable.stderr)")
        #expect(
            unreachable.stderr.hasPrefix("ask-push: error: cannot reach http://127.0.0.1:1"), "\(unreachable.stderr)")
        #expect(!unreachable.stderr.contains(Self.secret))
    }

    // MARK: pushkit-mcp

    @Test("pushkit-mcp: ask returns the id at once, wait_for_answer returns the phone's choice")
    func agentAsksAndWaits() throws {
        let scene = try scene()
        let agent = try AgentSession(environment: scene.client)
        defer { agent.close() }
        try agent.send(
            #"{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}"#
        )
        try agent.send(#"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#)
        _ = try agent.answer(1)
        try agent.call(
            2, "ask",
            #"{"title": "Merge the pull request?", "choices": [{"id": "allow", "title": "Allow"}, {"id": "deny", "title": "Deny", "destructive": true}], "timeout": 600}"#
        )
        let asked = try agent.result(2)
        #expect(asked["isError"] as? Bool != true, "\(asked)")
        let id = try #require((asked["structuredContent"] as? [String: Any])?["id"] as? String, "\(asked)")

        try agent.call(3, "wait_for_answer", #"{"id": "\#(id)", "wait": 0}"#)
        let pending = try agent.result(3)
        #expect((pending["structuredContent"] as? [String: Any])?["state"] as? String == "pending", "\(pending)")

        let push = try questionPush(scene.emulator)
        #expect(push["question"] as? String == id)
        #expect(try answer(push, ["choice": "allow"]).status == 200)
        try agent.call(4, "wait_for_answer", #"{"id": "\#(id)"}"#)
        let answered = try agent.result(4)
        let structured = try #require(answered["structuredContent"] as? [String: Any], "\(answered)")
        #expect(structured["state"] as? String == "answered")
        #expect((structured["answer"] as? [String: Any])?["choice"] as? String == "allow")
        #expect(AgentSession.text(answered).contains("the user chose \"allow\""), "\(answered)")

        try agent.call(5, "cancel_question", #"{"id": "\#(id)"}"#)
        let late = try agent.result(5)
        #expect(late["isError"] as? Bool == true && AgentSession.text(late).contains("already answered"), "\(late)")
    }

    // MARK: The PermissionRequest hook

    /// Runs the hook example on the fixture `fixture` (Fixtures/Hooks), started at once.
    func startHook(_ fixture: String, environment: [String: String]) throws -> RunningTool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", RepositoryFiles.path("examples/claude_permission_request.py")]
        var env = environment
        env["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        env["ASK_PUSH"] = BuiltTool.path("ask-push")
        process.environment = env
        let input = try Data(
            contentsOf: URL(fileURLWithPath: RepositoryFiles.path("Tests/EndToEndTests/Fixtures/Hooks/\(fixture)")))
        return try RunningTool(process, stdin: input)
    }

    @Test("the hook turns Allow and Deny into Claude Code's decision JSON", arguments: ["allow", "deny"])
    func hookDecides(choice: String) throws {
        let scene = try scene()
        let hook = try startHook("permission-request-bash.json", environment: scene.client)
        let push = try questionPush(scene.emulator, asker: hook)
        let payload = try #require(scene.emulator.records().last?["payload"] as? [String: Any])
        let alert = try #require(payload["aps"] as? [String: Any])
        #expect((alert["alert"] as? [String: Any])?["title"] as? String == "Allow Bash: git push --force origin main?")
        #expect(try answer(push, ["choice": choice]).status == 200)
        let result = try hook.wait()
        #expect(result.status == 0, "\(result.stderr)")
        let output = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
        let decision: NSDictionary =
            choice == "allow" ? ["behavior": "allow"] : ["behavior": "deny", "message": "Denied from the phone"]
        #expect(
            output as NSDictionary
                == ["hookSpecificOutput": ["hookEventName": "PermissionRequest", "decision": decision]])
    }

    @Test("the hook leaves the decision to the terminal: nothing on stdout, exit 0, when nobody answers")
    func hookExpires() throws {
        let scene = try scene()
        var env = scene.client
        env["PUSHKIT_ASK_TIMEOUT"] = "2"
        let result = try startHook("permission-request-write.json", environment: env).wait()
        #expect(result.status == 0 && result.stdout.isEmpty, "\(result.stdout)\n\(result.stderr)")
        let push = try questionPush(scene.emulator)
        #expect(push["question"] != nil)
        let other = try startHook("pre-tool-use.json", environment: env).wait()
        #expect(other.status == 0 && other.stdout.isEmpty)
        #expect(try questionPush(scene.emulator, count: 1)["question"] as? String == push["question"] as? String)
    }
}

/// `pushkit-mcp` driven one request at a time: lines written to its standard input as the test
/// goes, its answers read from a file, each polled for by id.
final class AgentSession {
    private let process: Process
    private let input = Pipe()
    private let outputPath: String
    private let directory: TemporaryDirectory

    init(environment: [String: String]) throws {
        directory = try TemporaryDirectory()
        outputPath = directory.file("stdout")
        FileManager.default.createFile(atPath: outputPath, contents: nil)
        process = BuiltTool.process("pushkit-mcp", [], environment: environment)
        process.standardInput = input
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    func send(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Sends `tools/call` of `tool` with `arguments` (JSON) as request `id`.
    func call(_ id: Int, _ tool: String, _ arguments: String) throws {
        try send(
            #"{"jsonrpc": "2.0", "id": \#(id), "method": "tools/call", "params": {"name": "\#(tool)", "arguments": \#(arguments)}}"#
        )
    }

    /// The answer to request `id`, polled for up to 90 seconds (a wait_for_answer may take 55).
    func answer(_ id: Int) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline {
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            for line in text.split(separator: "\n") {
                if let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any],
                    object["id"] as? Int == id
                {
                    return object
                }
            }
            usleep(20_000)
        }
        throw AgentSessionTimeout(id: id)
    }

    /// The `result` of request `id`'s answer.
    func result(_ id: Int) throws -> [String: Any] {
        let answer = try answer(id)
        return try #require(answer["result"] as? [String: Any], "\(answer)")
    }

    /// A tool result's text content.
    static func text(_ result: [String: Any]) -> String {
        ((result["content"] as? [[String: Any]]) ?? []).compactMap { $0["text"] as? String }.joined()
    }

    func close() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

struct AskerEnded: Error, CustomStringConvertible {
    let status: Int32
    let stderr: String
    var description: String { "the asking process ended (exit \(status)) before its question's push: \(stderr)" }
}

struct AgentSessionTimeout: Error, CustomStringConvertible {
    let id: Int
    var description: String { "pushkit-mcp did not answer request \(id) in time" }
}
