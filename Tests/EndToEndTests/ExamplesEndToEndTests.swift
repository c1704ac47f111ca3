import Foundation
import Testing

/// Every file in `examples/` that users copy, run the way the guide (docs/hooks-and-cron.md) says
/// to run it, against the real `apns-emulator`, with the built tools first on PATH.
@Suite("examples/ end to end")
struct ExamplesEndToEndTests: ClientToolSuite {
    static let examples = RepositoryFiles.path("examples")
    /// The built tools first, then the system's PATH (python3, sh, at).
    static let path = BuiltTool.binDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")

    let setup: ProviderSetup
    var home: String { setup.environment["HOME"]! }
    /// The state directory every tool uses by default under this HOME: devices.json, push.log.
    var stateDirectory: String { home + "/.local/state/pushkit-free" }

    init() throws {
        setup = try ProviderSetup()
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
    }

    /// The built tools on the clients' PATH.
    var clientSettings: [String: String] { ["PATH": Self.path] }

    /// Runs `argv` (found on `env`'s PATH) with exactly `env`, and waits.
    @discardableResult
    func run(_ argv: [String], env: [String: String], stdin: String? = nil) throws -> ToolResult {
        try RunningTool(Self.process(argv, env: env), stdin: stdin.map { Data($0.utf8) }).wait()
    }

    static func process(_ argv: [String], env: [String: String]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = argv
        process.environment = BuiltTool.childEnvironment(env)
        return process
    }

    /// `argv` run with no signal blocked. Processes started from the test runner's threads inherit
    /// their mask, which blocks SIGTERM and SIGHUP: a server would ignore `stop()`, and atd would
    /// never hear `at`'s SIGHUP about a new job. Python clears the mask, then becomes `argv`.
    static func withSignalsUnblocked(_ argv: [String]) -> [String] {
        [
            "python3", "-c",
            "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execvp(sys.argv[1], sys.argv[1:])",
        ] + argv
    }

    func pushLog() -> [[String: Any]] {
        jsonLines((try? String(contentsOfFile: stateDirectory + "/push.log", encoding: .utf8)) ?? "")
    }

    /// Polls `condition` every 20 ms until it holds or `timeout` passes; returns whether it held.
    func poll(timeout: TimeInterval, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !condition() {
            if Date() > deadline { return false }
            usleep(20_000)
        }
        return true
    }

    /// The alert of a record's payload, comparable with a dictionary literal.
    static func alert(_ record: [String: Any]?) -> NSDictionary? {
        (((record?["payload"] as? [String: Any])?["aps"] as? [String: Any])?["alert"] as? [String: Any]).map {
            NSDictionary(dictionary: $0)
        }
    }

    /// Copies an example to ~/.local/bin, executable: the install step the guide gives.
    @discardableResult
    func install(_ example: String) throws -> String {
        let bin = home + "/.local/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        let target = bin + "/" + example
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.copyItem(atPath: Self.examples + "/" + example, toPath: target)
        chmod(target, 0o755)
        return target
    }

    /// The configuration a user keeps in ~/.config/pushkit-free/config.json.
    func writeUserConfig() throws {
        let directory = home + "/.config/pushkit-free"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let config: [String: Any] = [
            "team_id": ProviderSetup.teamID, "key_id": ProviderSetup.keyID,
            "bundle_id": ProviderSetup.topic, "key_path": setup.key.pkcs8Path,
        ]
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: directory + "/config.json"))
    }

    // MARK: Reply hooks

    /// The back end's call, as each hook is meant to be made. reply_hook.py is itself the caller
    /// (its notify_reply runs send-push through `subprocess.run(..., capture_output=True)`); the
    /// shell hook is run by such a Python caller, as back ends run hook commands.
    func callReplyHook(_ hook: String, messageID: String, reply: String, env: [String: String]) throws -> ToolResult {
        if hook == "reply_hook.py" {
            return try run(["python3", Self.examples + "/reply_hook.py", messageID], env: env, stdin: reply)
        }
        let caller = """
            import subprocess, sys
            done = subprocess.run([sys.argv[1], sys.argv[2]], input=sys.stdin.read(), capture_output=True, text=True, timeout=10)
            sys.stdout.write(done.stdout); sys.stderr.write(done.stderr); sys.exit(done.returncode)
            """
        return try run(["python3", "-c", caller, Self.examples + "/reply-hook.sh", messageID], env: env, stdin: reply)
    }

    @Test(
        "reply hooks (Python, shell): the caller is back while the slow delivery is pending; then push.log and the phone get the reply cut to 100 characters",
        arguments: ["reply_hook.py", "reply-hook.sh"])
    func replyHook(hook: String) throws {
        // Every APNs answer takes 4 s: the delivery cannot have ended before then.
        let emulator = try RunningEmulator(["--quiet", "--delay", "4000"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register("phone", hexToken(1, filler: "ef"), env: env)
        let reply =
            "Here is what I found about the trip: " + String(repeating: "trains, hotels and weather; ", count: 6) + "\n"
        let messageID = "msg-\(hook)"

        let result = try callReplyHook(hook, messageID: messageID, reply: reply, env: env)
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty, "a hook that worked says nothing: \(result.stderr)")
        #expect(
            !pushLog().contains { $0["message_id"] as? String == messageID },
            "the caller was back before the delivery ended")
        #expect(emulator.records().isEmpty)

        #expect(poll(timeout: 30) { pushLog().contains { $0["message_id"] as? String == messageID } })
        let logged = try #require(pushLog().first { $0["message_id"] as? String == messageID })
        #expect(logged["outcome"] as? String == "delivered", "\(logged)")
        #expect(logged["device"] as? String == "phone")
        #expect(logged["status"] as? Int == 200)
        let sent = try #require(emulator.waitForRecords(1).first)
        #expect(
            (sent["payload"] as? NSDictionary) == [
                "aps": [
                    "alert": ["title": "app", "body": String(reply.prefix(100)) + "..."], "badge": 1,
                    "sound": "default",
                ],
                "message_id": messageID,
            ] as NSDictionary)
    }

    @Test(
        "reply hooks never break the caller: without send-push on PATH, Python logs and returns, the shell hook exits 69; usage is 64"
    )
    func replyHookFailures() throws {
        // A PATH with nothing on it; Python by its full path (it needs no PATH itself).
        let python = try run(["python3", "-c", "import sys; print(sys.executable)"], env: ["PATH": Self.path]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let nothing = setup.directory.file("empty-bin")
        try FileManager.default.createDirectory(atPath: nothing, withIntermediateDirectories: true)
        let bare = ["PATH": nothing, "HOME": home]

        let pythonHook = try run([python, Self.examples + "/reply_hook.py", "m1"], env: bare, stdin: "reply")
        #expect(pythonHook.status == 0, "notify_reply never raises: \(pythonHook.stderr)")
        #expect(pythonHook.stderr.contains("send-push is not on PATH; no push for message m1"), "\(pythonHook.stderr)")
        let shellHook = try run([Self.examples + "/reply-hook.sh", "m1"], env: bare, stdin: "reply")
        #expect(shellHook.status == 69)
        #expect(shellHook.stderr.contains("send-push is not on PATH"), "\(shellHook.stderr)")
        #expect(try run([python, Self.examples + "/reply_hook.py"], env: bare, stdin: "").status == 64)
        #expect(try run([Self.examples + "/reply-hook.sh", "m1", "extra"], env: bare, stdin: "").status == 64)
    }

    // MARK: Briefing (script, crontab, systemd units)

    static let briefingText = "Three meetings today, rain after four, and the build is green."

    /// What the phone receives for a briefing of `context` with `title` and `body`.
    /// What the OpenClaw service's outreach scheduler sends (seed 000's morning_briefing and
    /// evening_summary, through its APNs client).
    static func briefingPayload(title: String, body: String, category: String, context: String) -> NSDictionary {
        [
            "aps": [
                "alert": ["title": title, "body": body], "category": category, "thread-id": "openclaw",
                "sound": "default", "mutable-content": 1,
            ],
            "openclaw": ["type": "start_conversation", "context": context],
        ] as NSDictionary
    }

    @Test(
        "briefing.py: the model's text goes out as the OpenClaw outreach scheduler sends it; a model that is down or answers garbage gives the fallback text"
    )
    func briefing() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        try register("phone", hexToken(1, filler: "ef"), env: env)
        let model = try ChatStandIn(in: setup.directory)
        model.answer(content: "  \"Three meetings today,\n rain after four, and the build is green.\"  ")
        env["LLM_BASE_URL"] = model.baseURL
        env["LLM_MODEL"] = "test-model"
        env["LLM_API_KEY"] = "sk-test"

        let morning = try run(["python3", Self.examples + "/briefing.py", "morning"], env: env)
        #expect(morning.status == 0, "\(morning.stderr)")
        #expect(
            morning.stdout.isEmpty && morning.stderr.isEmpty,
            "quiet when all went out: \(morning.stdout) \(morning.stderr)")
        let request = try #require(model.requests().first)
        #expect(request["path"] as? String == "/v1/chat/completions")
        #expect(request["authorization"] as? String == "Bearer sk-test")
        #expect((request["body"] as? [String: Any])?["model"] as? String == "test-model")
        #expect(
            emulator.waitForRecords(1).first?["payload"] as? NSDictionary
                == Self.briefingPayload(
                    title: "Good Morning ☀️", body: Self.briefingText, category: "OPENCLAW_BRIEFING",
                    context: "morning_briefing"))
        #expect(emulator.waitForRecords(1).first?["expiration"] as? Int == 0)

        model.answer(raw: "<html>502 Bad Gateway</html>")
        let garbage = try run(["python3", Self.examples + "/briefing.py", "evening"], env: env)
        #expect(garbage.status == 0)
        #expect(garbage.stderr.contains("not a chat completion; sending the fallback text"), "\(garbage.stderr)")

        model.stop()
        let down = try run(["python3", Self.examples + "/briefing.py", "morning"], env: env)
        #expect(down.status == 0)
        #expect(down.stderr.contains("did not answer"), "\(down.stderr)")

        let records = emulator.waitForRecords(3)
        #expect(records.count == 3)
        #expect(
            records.dropFirst().map { $0["payload"] as? NSDictionary } == [
                Self.briefingPayload(
                    title: "Evening Check-in", body: "How was your day? I'm here if you'd like to chat.",
                    category: "OPENCLAW_MESSAGE", context: "evening_summary"),
                Self.briefingPayload(
                    title: "Good Morning ☀️", body: "Good morning! Ready to start your day?",
                    category: "OPENCLAW_BRIEFING", context: "morning_briefing"),
            ])
        #expect(try run(["python3", Self.examples + "/briefing.py", "noon"], env: env).status == 64)
    }

    /// Registers `id` with a morning briefing at `time` in `zone`, not yet sent since 2000 (as
    /// `register-apns list --json` prints a device, imported), so it is due once its time has come.
    func registerWithBriefing(
        _ id: String, token: String, time: String = "00:00", zone: String = "UTC", env: [String: String]
    ) throws {
        let line =
            #"{"device_id":"\#(id)","token":"\#(token)","briefing":{"time":"\#(time)","timezone":"\#(zone)","#
            + #""last_sent_on":"2000-01-01"}}"# + "\n"
        let imported = try run(["register-apns", "import", "-"], env: env, stdin: line)
        #expect(imported.status == 0, "\(imported.stderr)")
    }

    /// An emulator, and a model that answers `briefingText`, with the environment of both.
    fileprivate func briefingScene() throws -> (emulator: RunningEmulator, model: ChatStandIn, env: [String: String]) {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        let model = try ChatStandIn(in: setup.directory)
        model.answer(content: Self.briefingText)
        env["LLM_BASE_URL"] = model.baseURL
        return (emulator, model, env)
    }

    @Test("briefing.py due: asks the model and sends only when a device's own briefing time has come, once a day")
    func briefingDue() throws {
        let (emulator, model, env) = try briefingScene()
        try registerWithBriefing("tokyo", token: hexToken(1, filler: "ef"), time: "07:00", zone: "Asia/Tokyo", env: env)
        try registerWithBriefing(
            "berlin", token: hexToken(2, filler: "ef"), time: "23:30", zone: "Europe/Berlin", env: env)
        let script = Self.examples + "/briefing.py"

        // 21:00 UTC: 06:00 in Tokyo, 22:00 in Berlin: nobody is due.
        let early = try run(["python3", script, "due", "--now", "2030-03-10T21:00:00Z"], env: env)
        #expect(early.status == 0 && early.stdout.isEmpty && early.stderr.isEmpty, "\(early.stderr)")
        #expect(model.requests().isEmpty, "the model is not asked when nobody is due")
        // 22:00 UTC: 07:00 in Tokyo, 23:00 in Berlin.
        let tokyo = try run(["python3", script, "due", "--now", "2030-03-10T22:00:00Z"], env: env)
        #expect(tokyo.status == 0 && tokyo.stdout.isEmpty && tokyo.stderr.isEmpty, "\(tokyo.stderr)")
        let again = try run(["python3", script, "due", "--now", "2030-03-10T22:01:00Z"], env: env)
        #expect(again.status == 0 && again.stderr.isEmpty)
        #expect(model.requests().count == 1)
        let records = emulator.waitForRecords(1)
        #expect(records.map { $0["device_token"] as? String } == [hexToken(1, filler: "ef")])
        #expect(
            records.first?["payload"] as? NSDictionary
                == Self.briefingPayload(
                    title: "Good Morning ☀️", body: Self.briefingText, category: "OPENCLAW_BRIEFING",
                    context: "morning_briefing"))
        #expect(emulator.waitForRecords(1).first?["expiration"] as? Int == 0)
        #expect(try run(["python3", script, "due", "--bogus"], env: env).status == 64)
    }

    @Test("briefing.py due with BRIEFING_PROFILE=ember-briefing: the Ember app's BRIEFING with its destination")
    func briefingDueForEmber() throws {
        let scene = try briefingScene()
        let emulator = scene.emulator
        var env = scene.env
        env["BRIEFING_PROFILE"] = "ember-briefing"
        // The model answers for as long as the test runs.
        defer { withExtendedLifetime(scene.model) {} }
        try registerWithBriefing("ember-phone", token: hexToken(3, filler: "ef"), time: "07:00", env: env)
        let script = Self.examples + "/briefing.py"
        let due = try run(["python3", script, "due", "--now", "2030-03-10T07:00:00Z"], env: env)
        #expect(due.status == 0 && due.stderr.isEmpty, "\(due.stderr)")
        let payload = try #require(emulator.waitForRecords(1).first?["payload"] as? [String: Any])
        let aps = payload["aps"] as? [String: Any]
        #expect(aps?["category"] as? String == "BRIEFING", "\(payload)")
        #expect(payload["destination"] as? String == "briefing", "\(payload)")
        #expect((aps?["alert"] as? [String: Any])?["body"] as? String == Self.briefingText, "\(payload)")
        #expect(payload["openclaw"] == nil, "no OpenClaw envelope: \(payload)")
        env["BRIEFING_PROFILE"] = "sven"
        let wrong = try run(["python3", script, "morning"], env: env)
        #expect(wrong.status == 64 && wrong.stderr.contains("BRIEFING_PROFILE"), "\(wrong.stderr)")
    }

    @Test("briefing.py reports a failed send: send-push's status and report on stderr")
    func briefingFailure() throws {
        let emulator = try RunningEmulator(
            ["--quiet", "--fail-first", "10:503:ServiceUnavailable"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        env["LLM_BASE_URL"] = "http://127.0.0.1:1"
        try register("phone", hexToken(1, filler: "ef"), env: env)
        let result = try run(["python3", Self.examples + "/briefing.py", "morning"], env: env)
        #expect(result.status == 75, "only temporary failures: \(result.stderr)")
        #expect(result.stderr.contains("\"outcome\":\"failed\""), "\(result.stderr)")
        #expect(result.stderr.contains("0 delivered, 1 failed"))
    }

    @Test(
        "examples/crontab: every minute (each device's briefing at its own time) and 18:00; each line's command, run by sh as cron would, sends"
    )
    func crontab() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let model = try ChatStandIn(in: setup.directory)
        model.answer(content: Self.briefingText)
        try install("briefing.py")
        let text = try String(contentsOfFile: Self.examples + "/crontab", encoding: .utf8)
        var cronEnvironment: [String: String] = [:]
        var jobs: [(schedule: String, command: String)] = []
        for line in text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) })
        where !line.isEmpty && !line.hasPrefix("#") {
            if let assignment = line.firstMatch(of: /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/) {
                cronEnvironment[String(assignment.1)] = String(assignment.2)
                continue
            }
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            try #require(fields.count == 6, "not a cron line: \(line)")
            jobs.append((fields.prefix(5).joined(separator: " "), fields[5].trimmingCharacters(in: .whitespaces)))
        }
        #expect(jobs.map { $0.schedule } == ["* * * * *", "0 18 * * *"])
        #expect(
            cronEnvironment["PATH"]?.split(separator: ":").contains("/usr/local/bin") == true,
            "cron's PATH must reach make install's tools")

        // cron's own variables (HOME), the crontab's, then the test's: the built tools and the stand-in model.
        var env = cronEnvironment.merging(clientEnvironment(emulator)) { _, test in test }
        env["LLM_BASE_URL"] = model.baseURL
        try registerWithBriefing("phone", token: hexToken(1, filler: "ef"), env: env)
        // The every-minute job twice: the second minute finds today's briefing sent.
        for job in [jobs[0], jobs[0], jobs[1]] {
            let result = try run(["sh", "-c", job.command], env: env)
            #expect(result.status == 0, "\(job.command): \(result.stderr)")
            #expect(
                result.stdout.isEmpty && result.stderr.isEmpty, "cron would mail: \(result.stdout) \(result.stderr)")
        }
        let records = emulator.waitForRecords(2)
        #expect(
            records.map { $0["payload"] as? NSDictionary } == [
                Self.briefingPayload(
                    title: "Good Morning ☀️", body: Self.briefingText, category: "OPENCLAW_BRIEFING",
                    context: "morning_briefing"),
                Self.briefingPayload(
                    title: "Evening Check-in", body: Self.briefingText, category: "OPENCLAW_MESSAGE",
                    context: "evening_summary"),
            ])
        #expect(
            model.requests().allSatisfy {
                ($0["body"] as? [String: Any])?["model"] as? String == cronEnvironment["LLM_MODEL"]
            })
    }

    /// What a user manager gives every unit: HOME, PATH (with the tools), and here the emulator in
    /// place of Apple. The key settings come from the user's config file, as they would.
    func managerEnvironment(_ emulator: RunningEmulator) -> [String: String] {
        [
            "HOME": home, "PATH": Self.path, "APNS_PRODUCTION_URL": emulator.baseURL,
            "APNS_SANDBOX_URL": emulator.baseURL, "APNS_CA_FILE": emulator.caPath,
        ]
    }

    @Test(
        "systemd units: each timer's calendar and unit, and every service's ExecStart (specifiers expanded for an instance) sends"
    )
    func systemdUnits() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        try writeUserConfig()
        let model = try ChatStandIn(in: setup.directory)
        model.answer(content: Self.briefingText)
        try install("briefing.py")
        try FileManager.default.createDirectory(
            atPath: home + "/.config/pushkit-free", withIntermediateDirectories: true)
        try "# the model's settings\nLLM_BASE_URL=\(model.baseURL)\nLLM_API_KEY=\"sk-from-file\"\n"
            .write(toFile: home + "/.config/pushkit-free/briefing.env", atomically: true, encoding: .utf8)
        let manager = managerEnvironment(emulator)
        try registerWithBriefing("phone", token: hexToken(1, filler: "ef"), env: manager)

        let directory = Self.examples + "/systemd"
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: directory)) == [
                "briefing@.service", "briefing-morning.timer", "briefing-evening.timer", "register-apns-serve.service",
            ],
            "every unit here is run below")
        var timers: [String: String] = [:]
        for (name, calendar) in [
            ("briefing-morning.timer", "*-*-* *:*:00"), ("briefing-evening.timer", "*-*-* 18:00:00"),
        ] {
            let timer = try SystemdUnit(path: directory + "/" + name)
            #expect(timer.values("Timer", "OnCalendar") == [calendar])
            #expect(timer.values("Install", "WantedBy") == ["timers.target"])
            timers[name] = timer.values("Timer", "Unit").first
        }
        #expect(
            timers == [
                "briefing-morning.timer": "briefing@due.service",
                "briefing-evening.timer": "briefing@evening.service",
            ])
        for unitName in ["briefing@due.service", "briefing@evening.service"] {
            let unit = try SystemdUnit(path: directory + "/briefing@.service", instance: unitName)
            let result = try run(try unit.execStart(home: home), env: try unit.environment(manager: manager))
            #expect(result.status == 0, "\(unitName): \(result.stderr)")
        }
        #expect(
            model.requests().map { $0["authorization"] as? String } == ["Bearer sk-from-file", "Bearer sk-from-file"],
            "EnvironmentFile= is read")
        #expect(
            model.requests().allSatisfy { ($0["body"] as? [String: Any])?["model"] as? String == "llama3.2" },
            "Environment= is read")

        let task = try SystemdUnit(
            path: Self.examples + "/task-finished@.service", instance: "task-finished@train-model.service")
        let taskResult = try run(try task.execStart(home: home), env: try task.environment(manager: manager))
        #expect(taskResult.status == 0, "\(taskResult.stderr)")

        let records = emulator.waitForRecords(3)
        #expect(
            records.prefix(2).map { $0["payload"] as? NSDictionary } == [
                Self.briefingPayload(
                    title: "Good Morning ☀️", body: Self.briefingText, category: "OPENCLAW_BRIEFING",
                    context: "morning_briefing"),
                Self.briefingPayload(
                    title: "Evening Check-in", body: Self.briefingText, category: "OPENCLAW_MESSAGE",
                    context: "evening_summary"),
            ])
        let taskRecord = try #require(records.last)
        #expect(Self.alert(taskRecord) == ["title": "Task finished", "body": "train-model is done"] as NSDictionary)
        #expect(taskRecord["collapse_id"] as? String == "train-model")
    }

    @Test(
        "apns-emulator.service: its ExecStart (on a free port) listens, records to standard output (the journal), stops on SIGTERM"
    )
    func emulatorService() throws {
        try writeUserConfig()
        let unit = try SystemdUnit(path: Self.examples + "/apns-emulator.service")
        var argv = try unit.execStart(home: home)
        let port = try #require(argv.firstIndex(of: "--port"))
        #expect(argv[port + 1] == "2197")
        argv[port + 1] = "0"
        let env = try unit.environment(manager: ["HOME": home, "PATH": Self.path])
        let service = try ServerProcess(argv, env: env)
        defer { service.stop() }
        let listening = try #require(service.waitForLine(#"^listening on (https://127\.0\.0\.1:\d+) \(ca: (.+)\)$"#))
        var client = env
        client["APNS_PRODUCTION_URL"] = listening[1]
        client["APNS_CA_FILE"] = listening[2]
        try run(["send-push", "--token", hexToken(1, filler: "ef"), "--body", "staging"], env: client).expectSuccess()
        #expect(
            service.waitForLine(#"^\{.*"device_token":"\#(hexToken(1, filler: "ef"))".*"status":200"#) != nil,
            "a record on stdout")
        #expect(service.stop() == 0, "a clean stop on SIGTERM, as systemctl stop sends")
    }

    // MARK: Agent tool

    func callAgentTool(_ call: String, env: [String: String]) throws -> [String: Any] {
        let script = "import json, sys; sys.path.insert(0, sys.argv[1]); import agent_tool; print(json.dumps(\(call)))"
        // No __pycache__ left in examples/ by the import.
        let result = try run(
            ["python3", "-c", script, Self.examples], env: env.merging(["PYTHONDONTWRITEBYTECODE": "1"]) { $1 })
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], "\(result.stdout)")
    }

    @Test(
        "agent_tool.py: the tool definition, and send_notification sends as the OpenClaw tool handler, reporting the devices notified or why not"
    )
    func agentTool() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        let tool = try callAgentTool("agent_tool.TOOL", env: env)
        let function = try #require(tool["function"] as? [String: Any])
        #expect(function["name"] as? String == "send_notification")
        let parameters = try #require(function["parameters"] as? [String: Any])
        #expect(parameters["required"] as? [String] == ["title", "message"], "urgency optional, as in the design")
        #expect(
            ((parameters["properties"] as? [String: Any])?["urgency"] as? [String: Any])?["enum"] as? [String] == [
                "low", "normal", "high",
            ])

        let none = try callAgentTool("agent_tool.send_notification('Build', 'All green', 'high')", env: env)
        #expect(none["success"] as? Bool == true && none["devices_notified"] as? Int == 0, "as the design: \(none)")
        #expect(none["note"] as? String == "no device is registered to receive notifications")

        try register("phone", hexToken(1, filler: "ef"), env: env)
        try register("ipad", hexToken(2, filler: "ef"), env: env)
        let sent = try callAgentTool(
            "agent_tool.send_notification('Build finished', 'All green: 312 tests passed.', 'high')", env: env)
        #expect(sent.count == 2 && sent["success"] as? Bool == true && sent["devices_notified"] as? Int == 2, "\(sent)")
        let records = emulator.waitForRecords(2)
        #expect(
            Set(records.compactMap { $0["device_token"] as? String }) == [
                hexToken(1, filler: "ef"), hexToken(2, filler: "ef"),
            ])
        for record in records {
            let payload = record["payload"] as? [String: Any]
            let aps = payload?["aps"] as? [String: Any]
            #expect(aps?["interruption-level"] as? String == "time-sensitive")
            #expect(aps?["category"] as? String == "OPENCLAW_ALERT" && aps?["thread-id"] as? String == "openclaw")
            #expect(
                payload?["openclaw"] as? NSDictionary == ["type": "start_conversation", "context": "ai_initiated"])
            #expect(
                Self.alert(record) == ["title": "Build finished", "body": "All green: 312 tests passed."]
                    as NSDictionary)
        }

        let badUrgency = try callAgentTool(
            #"json.loads(agent_tool.handle_tool_call('{"title": "x", "message": "y", "urgency": "urgent"}'))"#, env: env
        )
        #expect(badUrgency["success"] as? Bool == false)
        #expect((badUrgency["error"] as? String)?.contains("urgency") == true)
        #expect(emulator.records().count == 2, "nothing sent for a bad call")

        env["APNS_PRODUCTION_URL"] = "https://127.0.0.1:1"
        let unreachable = try callAgentTool("agent_tool.send_notification('Build', 'All green', 'low')", env: env)
        #expect(unreachable["success"] as? Bool == false)
        #expect((unreachable["error"] as? String)?.isEmpty == false, "\(unreachable)")
    }

    // MARK: Reminder

    /// A directory of stand-ins put first on PATH; each `name` runs `script` (sh).
    func shims(_ scripts: [String: String]) throws -> String {
        let directory = setup.directory.file("shims-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, script) in scripts {
            try ("#!/bin/sh\n" + script + "\n").write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
            chmod(directory + "/" + name, 0o755)
        }
        return directory
    }

    /// Stand-ins for a systemd user manager: `systemctl` says it answers, `systemd-run` writes its
    /// arguments down. Returns their directory and a reader of the arguments last recorded.
    func recordingSystemdRun() throws -> (directory: String, recorded: () throws -> [String]) {
        let argumentsFile = setup.directory.file("systemd-run.args")
        let directory = try shims([
            "systemctl": #"[ "$1 $2" = "--user show-environment" ] && exit 0; exit 1"#,
            "systemd-run":
                #"python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@" > "\#(argumentsFile)""#,
        ])
        return (
            directory,
            {
                try #require(
                    try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: argumentsFile)))
                        as? [String])
            }
        )
    }

    static let reminderText = #"It's 5 o'clock: take the "bread" out ($HOME, `date`, \n stay as typed)"#

    /// This machine has no systemd user manager (PID 1 is not systemd), so the systemd-run branch is
    /// checked with recording stand-ins: `systemctl` says the user manager answers, `systemd-run`
    /// writes its arguments down. The test then runs exactly the command it was given, with the
    /// variables its --setenv names, and the emulator must receive the reminder.
    @Test(
        "remind-in.sh with a systemd user manager: systemd-run --user --on-active=Nm, and the command it schedules sends"
    )
    func reminderWithSystemdRun() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        try register("phone", hexToken(1, filler: "ef"), env: env)
        let (shimDirectory, recorded) = try recordingSystemdRun()
        env["PATH"] = shimDirectory + ":" + Self.path
        let result = try run([Self.examples + "/remind-in.sh", "25", Self.reminderText], env: env)
        #expect(result.status == 0, "\(result.stderr)")

        let arguments = try recorded()
        let separator = try #require(arguments.firstIndex(of: "--"))
        let options = arguments[..<separator]
        #expect(Array(options.prefix(3)) == ["--user", "--on-active=25m", "--timer-property=AccuracySec=1s"])
        let passed = Set(options.dropFirst(3).map { $0.replacingOccurrences(of: "--setenv=", with: "") })
        // The tool's environment as the test runs it: with the isolation from the machine's config.
        let chooses = ["XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "XDG_STATE_HOME"]
        let expected = BuiltTool.childEnvironment(env).keys.filter {
            $0.hasPrefix("APNS_") || $0.hasPrefix("PUSHKIT_") || chooses.contains($0)
        }
        #expect(passed == Set(expected), "the settings that choose the configuration, by name only")
        let command = Array(arguments[(separator + 1)...])
        #expect(
            command == [
                BuiltTool.path("send-push"), "--title", "Reminder", "--body", Self.reminderText, "--timeout", "60",
            ])

        // What the transient service would run: the command, in the manager's environment plus --setenv.
        var unitEnvironment = ["HOME": home, "PATH": "/usr/bin:/bin"]
        for name in passed { unitEnvironment[name] = env[name] }
        try run(command, env: unitEnvironment).expectSuccess()
        #expect(
            Self.alert(emulator.waitForRecords(1).first) == ["title": "Reminder", "body": Self.reminderText]
                as NSDictionary)
    }

    /// The at branch for real: `make deps` installs at; atd is started here when it is not running
    /// (as a child of the test, stopped at the end). `at now + 1 minutes` is due at the start of
    /// the next minute but one, so this waits up to a minute for atd to run it.
    @Test(
        "remind-in.sh with at: the job is queued for N minutes and atd's run of it sends the text and options as typed",
        .timeLimit(.minutes(4)))
    func reminderWithAt() throws {
        let which = try run(
            ["sh", "-c", "command -v at && command -v atd && command -v atq"],
            env: ["PATH": Self.path + ":/usr/sbin:/sbin"])
        try #require(which.status == 0, "at is not installed: run `make deps` (Debian package at)")
        let atd = try StartedATD(path: Self.path + ":/usr/sbin:/sbin")
        defer { atd.stop() }

        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        try register("phone", hexToken(1, filler: "ef"), env: env)
        // No systemd user manager, whatever this machine has, so the script takes the at branch.
        env["PATH"] = try shims(["systemctl": "exit 1"]) + ":" + Self.path
        // at counts from the start of the current minute: keep clear of its last seconds, so the
        // job cannot come due before atq has been read.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        #expect(poll(timeout: 10) { calendar.component(.second, from: Date()) < 50 })
        let submitted = Date()
        // An option after the text, quoted for at's shell like the text ($, a single quote).
        let data = #"{"note": "it's $HOME"}"#
        let result = try run([Self.examples + "/remind-in.sh", "1", Self.reminderText, "--data", data], env: env)
        #expect(result.status == 0, "\(result.stderr)")
        let job = try #require(result.stderr.firstMatch(of: /job (\d+) at (.+)/), "\(result.stderr)")
        defer { _ = try? run(["atrm", String(job.1)], env: ["PATH": Self.path]) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "EEE MMM d HH:mm:ss yyyy"
        let due = try #require(formatter.date(from: String(job.2).trimmingCharacters(in: .whitespaces)), "\(job.2)")
        let minute = try #require(calendar.dateInterval(of: .minute, for: submitted)).start
        #expect(due == minute.addingTimeInterval(60), "due one minute after \(minute), not \(due)")
        let queue = try run(["atq"], env: ["PATH": Self.path]).stdout
        #expect(queue.split(separator: "\n").contains { $0.hasPrefix(job.1 + "\t") }, "\(queue)")
        let script = try run(["at", "-c", String(job.1)], env: ["PATH": Self.path]).stdout
        #expect(script.contains("'" + BuiltTool.path("send-push") + "' --title Reminder --body "), "\(script)")

        let record = emulator.waitForRecords(1, timeout: 100).first
        #expect(record != nil, "atd did not run job \(job.1)")
        #expect(Self.alert(record) == ["title": "Reminder", "body": Self.reminderText] as NSDictionary)
        #expect((record?["payload"] as? [String: Any])?["note"] as? String == "it's $HOME")
        let sent = (record?["time"] as? String).flatMap {
            try? Date($0, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true))
        }
        #expect(sent.map { $0 >= due } == true, "sent at \(String(describing: sent)), not before it was due at \(due)")
    }

    @Test("remind-in.sh refuses bad usage (64) and a broken configuration (78) before scheduling anything")
    func reminderRefuses() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        let argumentsFile = setup.directory.file("systemd-run.args")
        env["PATH"] =
            try shims([
                "systemctl": "exit 0",
                "systemd-run": "echo \"$@\" > \(argumentsFile)",
                "at": "echo \"$@\" > \(argumentsFile)",
            ]) + ":" + Self.path
        for arguments in [[], ["5"], ["0", "x"], ["five", "x"], ["5", ""], ["5", "x", "y"]] {
            #expect(try run([Self.examples + "/remind-in.sh"] + arguments, env: env).status == 64, "\(arguments)")
        }
        env["APNS_KEY_PATH"] = setup.directory.file("missing.p8")
        let broken = try run([Self.examples + "/remind-in.sh", "5", "x"], env: env)
        #expect(broken.status == 78)
        #expect(broken.stderr.contains("missing.p8"), "the doctor's report: \(broken.stderr)")
        #expect(!FileManager.default.fileExists(atPath: argumentsFile), "nothing was scheduled")
    }

    @Test(
        "openclaw_events.py reminder --in: remind-in.sh schedules send-push with the OpenClaw reminder's options, which then send it as the design does"
    )
    func openClawReminderLater() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        try register("phone", hexToken(1, filler: "ef"), env: env)
        let (shimDirectory, recorded) = try recordingSystemdRun()
        env["PATH"] = shimDirectory + ":" + Self.path
        let result = try run(
            [Self.examples + "/openclaw_events.py", "reminder", "--in", "25", "-"], env: env,
            stdin: "Stand-up in 5 minutes\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(emulator.records().isEmpty, "nothing is sent now")

        let arguments = try recorded()
        #expect(arguments.contains("--on-active=25m"))
        let command = Array(arguments[(try #require(arguments.firstIndex(of: "--")) + 1)...])
        let data = #"{"type": "start_conversation", "context": "reminder"}"#
        #expect(
            command == [
                BuiltTool.path("send-push"), "--title", "Reminder", "--body", "Stand-up in 5 minutes", "--timeout",
                "60",
                "--profile", "openclaw", "--category", "OPENCLAW_REMINDER", "--data", data,
            ])
        try run(command, env: env).expectSuccess()
        let payload = emulator.waitForRecords(1).first?["payload"] as? [String: Any]
        let aps = payload?["aps"] as? [String: Any]
        #expect(aps?["category"] as? String == "OPENCLAW_REMINDER" && aps?["thread-id"] as? String == "openclaw")
        #expect(payload?["openclaw"] as? NSDictionary == ["type": "start_conversation", "context": "reminder"])
    }

    @Test("openclaw_events.py refuses bad usage with 64 and sends nothing")
    func openClawEventsUsage() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register("phone", hexToken(1, filler: "ef"), env: env)
        let script = Self.examples + "/openclaw_events.py"
        for arguments in [
            [], ["remind", "x"], ["task-complete", "build"], ["task-complete", "build", ""], ["reminder"],
            ["reminder", "--in", "0", "x"], ["reminder", "--in", "soon", "x"], ["proactive", "a", "b"],
            ["proactive", "-"],
        ] {
            let result = try run([script] + arguments, env: env, stdin: "")
            #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stderr.contains("usage: openclaw_events.py"), "\(arguments): \(result.stderr)")
        }
        #expect(emulator.records().isEmpty)
    }

    @Test("remind-in.sh checks the send-push options it is given now, and a stray word is a usage error")
    func reminderChecksOptions() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        let argumentsFile = setup.directory.file("systemd-run.args")
        env["PATH"] =
            try shims(["systemctl": "exit 0", "systemd-run": "echo \"$@\" > \(argumentsFile)"]) + ":" + Self.path
        let misspelt = try run([Self.examples + "/remind-in.sh", "5", "x", "--categry", "A"], env: env)
        #expect(misspelt.status == 64, "\(misspelt.stderr)")
        #expect(misspelt.stderr.contains("--categry"), "send-push's own message: \(misspelt.stderr)")
        let badData = try run([Self.examples + "/remind-in.sh", "5", "x", "--data", "[1]"], env: env)
        #expect(badData.status != 0, "\(badData.stderr)")
        #expect(try run([Self.examples + "/remind-in.sh", "5", "x", "y", "--sound", "none"], env: env).status == 64)
        #expect(!FileManager.default.fileExists(atPath: argumentsFile), "nothing was scheduled")
        let fine = try run([Self.examples + "/remind-in.sh", "5", "x", "--sound", "none"], env: env)
        #expect(fine.status == 0, "\(fine.stderr)")
        #expect(try String(contentsOfFile: argumentsFile, encoding: .utf8).contains("--sound none"))
    }

    // MARK: Registration handler

    @Test(
        "register_handler.py: a valid body is 200 and registered; bad bodies are 400 and leave the devices file byte for byte; no answer echoes a token"
    )
    func registerHandler() throws {
        let env = ["HOME": home, "PATH": Self.path]
        let server = try ServerProcess(["python3", Self.examples + "/register_handler.py", "--port", "0"], env: env)
        defer { server.stop() }
        let url = try #require(server.waitForLine(#"^listening on (http://127\.0\.0\.1:\d+)$"#))[1] + "/register"
        let token = hexToken(7, filler: "ef")

        let good = try post(url, #"{"device_token": "ada-iphone", "apns_token": "\#(token)"}"#)
        #expect(good.status == 200, "\(good.body) \(server.stderr)")
        #expect(good.body == #"{"registered": true}"#)
        let listed = try BuiltTool.run("register-apns", ["list", "--json"], environment: env)
        #expect(
            jsonLines(listed.stdout).map { "\($0["device_id"] ?? "") \($0["token"] ?? "")" } == ["ada-iphone \(token)"])

        let devicesFile = stateDirectory + "/devices.json"
        let before = try Data(contentsOf: URL(fileURLWithPath: devicesFile))
        let badToken = "z" + String(token.dropFirst())
        for body in [
            #"{"device_token": "ada-iphone", "apns_token": "\#(badToken)"}"#, "not json",
            #"{"apns_token": "\#(token)"}"#, "",
        ] {
            let answer = try post(url, body)
            #expect(answer.status == 400, "\(body): \(answer.body)")
            #expect(answer.body.contains("\"registered\": false"))
            #expect(!answer.body.contains(String(token.dropFirst())), "no token in the answer: \(answer.body)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: devicesFile)) == before, "bad bodies change nothing on disk")
        #expect(try post(url.replacingOccurrences(of: "/register", with: "/other"), "{}").status == 404)
        #expect(!server.stderr.contains(String(token.dropFirst(8))), "no token in the log: \(server.stderr)")
    }

    @Test("register_handler.py: a registry that cannot be written is 500, and says nothing of it to the client")
    func registerHandlerServerError() throws {
        let blocker = try setup.directory.write("not-a-directory", "")
        let env = ["HOME": home, "PATH": Self.path, "APNS_STATE_FILE": blocker + "/devices.json"]
        let server = try ServerProcess(["python3", Self.examples + "/register_handler.py", "--port", "0"], env: env)
        defer { server.stop() }
        let url = try #require(server.waitForLine(#"^listening on (http://127\.0\.0\.1:\d+)$"#))[1] + "/register"
        let answer = try post(url, #"{"device_token": "ada-iphone", "apns_token": "\#(hexToken(7, filler: "ef"))"}"#)
        #expect(answer.status == 500)
        #expect(answer.body == #"{"registered": false, "error": "registration failed on the server"}"#)
    }

    func post(_ url: String, _ body: String) throws -> (status: Int, body: String) {
        let directory = try TemporaryDirectory()
        let request = try directory.write("request", body)
        let result = try BuiltTool.runSystem(
            "curl", ["-sS", "-o", directory.file("answer"), "-w", "%{http_code}", "--data-binary", "@" + request, url])
        return (Int(result.stdout) ?? 0, (try? directory.read("answer")) ?? "")
    }

    // MARK: Demo

    @Test("examples/demo.sh: exit 0, the iPhone and the Android phone delivered, and the dead token pruned")
    func demo() throws {
        let result = try run(["bash", Self.examples + "/demo.sh", BuiltTool.binDirectory], env: ["PATH": Self.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("delivered") && $0.contains("iphone-of-ada") }, "\(result.stdout)")
        #expect(
            lines.contains {
                $0.hasPrefix("unregistered") && $0.contains("old-ipad") && $0.contains("removed from registry")
            })
        #expect(
            lines.contains { $0.hasPrefix("delivered") && $0.contains("pixel-of-ada") && $0.contains("projects/") },
            "the Android phone gets it through FCM: \(result.stdout)")
        #expect(lines.contains { $0.hasPrefix("200 FCM (Android)") }, "\(result.stdout)")
        #expect(result.stderr.contains("2 delivered, 0 failed, 1 pruned"), "\(result.stderr)")
        let finalListing =
            try #require(result.stdout.components(separatedBy: "== the dead token was pruned").last)
            .components(separatedBy: "== what the phone").first ?? ""
        #expect(finalListing.contains("iphone-of-ada"))
        let pixel = finalListing.split(separator: "\n").first { $0.hasPrefix("pixel-of-ada") } ?? ""
        #expect(
            pixel.split(separator: " ").prefix(4) == ["pixel-of-ada", "eX4mPl3T…q-Zw", "fcm", "-"],
            "an FCM device learns no APNs environment: \(finalListing)")
        #expect(!finalListing.contains("old-ipad"), "the registry no longer lists it: \(finalListing)")
        let question = result.stdout.components(separatedBy: "== a question").last ?? ""
        #expect(
            question.contains(#""status":200"#) && question.contains(#""state":"answered""#)
                && question.contains(#""choice":"allow","device":"iphone-of-ada""#),
            "the played phone's tap answered the question: \(question)")
        #expect(
            question.contains(#"Answered: Deploy to production? (Ada's iPhone)"#),
            "the notice replaced the question: \(question)")
    }
}

// MARK: - Helpers

/// A long-running process (a server) whose output goes to files that can be polled.
private final class ServerProcess {
    let process: Process
    private let directory: TemporaryDirectory

    init(_ argv: [String], env: [String: String]) throws {
        directory = try TemporaryDirectory()
        process = ExamplesEndToEndTests.process(ExamplesEndToEndTests.withSignalsUnblocked(argv), env: env)
        _ = FileManager.default.createFile(atPath: directory.file("out"), contents: nil)
        _ = FileManager.default.createFile(atPath: directory.file("err"), contents: nil)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.file("out")))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: directory.file("err")))
        try process.run()
    }

    deinit { stop() }

    var stdout: String { (try? directory.read("out")) ?? "" }
    var stderr: String { (try? directory.read("err")) ?? "" }

    /// Polls standard output for a line matching `pattern`; returns the match and its groups.
    func waitForLine(_ pattern: String, timeout: TimeInterval = 20) -> [String]? {
        guard let regex = try? NSRegularExpression(pattern: pattern, options: [.anchorsMatchLines]) else { return nil }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let text = stdout
            if let match = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) {
                return (0..<match.numberOfRanges).map {
                    Range(match.range(at: $0), in: text).map { String(text[$0]) } ?? ""
                }
            }
            if !process.isRunning { return nil }
            usleep(20_000)
        }
        return nil
    }

    /// SIGTERM, then the exit status (SIGKILL after 10 s).
    @discardableResult
    func stop() -> Int32 {
        process.stop()
    }
}

/// A stand-in for an OpenAI-compatible chat endpoint: answers every POST with what `answer` set
/// last and writes each request down (path, Authorization, JSON body).
private final class ChatStandIn {
    private let server: ServerProcess
    private let answerFile: String
    private let requestsFile: String
    let baseURL: String

    init(in directory: TemporaryDirectory) throws {
        let name = UUID().uuidString
        answerFile = directory.file("answer-\(name)")
        requestsFile = directory.file("requests-\(name)")
        let script = try directory.write(
            "chat-\(name).py",
            """
            import http.server, json, sys
            answer_file, requests_file = sys.argv[1], sys.argv[2]
            class Chat(http.server.BaseHTTPRequestHandler):
                def do_POST(self):
                    body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                    with open(requests_file, "a") as requests:
                        requests.write(json.dumps({"path": self.path, "authorization": self.headers.get("Authorization"),
                                                   "body": json.loads(body)}) + "\\n")
                    answer = open(answer_file, "rb").read()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                def log_message(self, *args):
                    pass
            server = http.server.HTTPServer(("127.0.0.1", 0), Chat)
            print(f"port {server.server_address[1]}", flush=True)
            server.serve_forever()
            """)
        server = try ServerProcess(
            ["python3", script, answerFile, requestsFile], env: ["PATH": ExamplesEndToEndTests.path])
        let port = try #require(server.waitForLine(#"^port (\d+)$"#))[1]
        baseURL = "http://127.0.0.1:\(port)"
    }

    /// Answers with a chat completion whose message is `content`.
    func answer(content: String) {
        let completion: [String: Any] = [
            "id": "chatcmpl-1", "object": "chat.completion", "model": "test-model",
            "choices": [["index": 0, "message": ["role": "assistant", "content": content], "finish_reason": "stop"]],
        ]
        try? JSONSerialization.data(withJSONObject: completion).write(to: URL(fileURLWithPath: answerFile))
    }

    /// Answers with `raw` bytes, whatever they are.
    func answer(raw: String) {
        try? Data(raw.utf8).write(to: URL(fileURLWithPath: answerFile))
    }

    func requests() -> [[String: Any]] {
        let text = (try? String(contentsOfFile: requestsFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    func stop() { server.stop() }
}

/// A unit file read as systemd reads it, enough for the examples: sections, repeated keys, and
/// ExecStart/Environment= split into words with specifiers expanded for an instance.
/// A unit file as the examples suites read it (ServeExamplesTests splits ExecStart with `words`).
struct SystemdUnit {
    let name: String
    private let entries: [(section: String, key: String, value: String)]

    /// - Parameter instance: the full unit name for a template (`briefing@morning.service`).
    init(path: String, instance: String? = nil) throws {
        name = instance ?? URL(fileURLWithPath: path).lastPathComponent
        var section = ""
        var entries: [(String, String, String)] = []
        for raw in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                section = String(line.dropFirst().dropLast())
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            entries.append(
                (
                    section, line[..<equals].trimmingCharacters(in: .whitespaces),
                    line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                ))
        }
        self.entries = entries
    }

    func values(_ section: String, _ key: String) -> [String] {
        entries.filter { $0.section == section && $0.key == key }.map(\.value)
    }

    /// `%i`/`%I` the instance, `%n` the unit name, `%N` without its suffix, `%h` HOME, `%%` a percent.
    func expand(_ word: String, home: String) throws -> String {
        let unitPrefix = name.split(separator: ".").dropLast().joined(separator: ".")
        let instance = name.contains("@") ? String(unitPrefix.split(separator: "@", maxSplits: 1).last ?? "") : ""
        var result = ""
        var characters = word.makeIterator()
        while let character = characters.next() {
            guard character == "%" else {
                result.append(character)
                continue
            }
            switch characters.next() {
            case "i", "I": result += instance
            case "n": result += name
            case "N": result += unitPrefix
            case "h": result += home
            case "%": result += "%"
            case let other:
                throw SystemdUnitError(message: "unexpected specifier %\(other.map(String.init) ?? "") in \(word)")
            }
        }
        return result
    }

    /// The one ExecStart= line as argv, specifiers expanded, without systemd's prefix characters (-@:+!).
    func execStart(home: String) throws -> [String] {
        let lines = values("Service", "ExecStart")
        guard lines.count == 1 else { throw SystemdUnitError(message: "\(name): \(lines.count) ExecStart= lines") }
        var words = try Self.words(lines[0]).map { try expand($0, home: home) }
        if let first = words.first { words[0] = String(first.drop { "-@:+!".contains($0) }) }
        return words
    }

    /// The service's environment: the manager's, then Environment=, then EnvironmentFile= (which
    /// overrides, as in systemd; a leading "-" makes a missing file fine). Specifiers expanded.
    func environment(manager: [String: String]) throws -> [String: String] {
        let home = manager["HOME"] ?? ""
        var env = manager
        for line in values("Service", "Environment") {
            for assignment in try Self.words(line) {
                let expanded = try expand(assignment, home: home)
                guard let equals = expanded.firstIndex(of: "=") else { continue }
                env[String(expanded[..<equals])] = String(expanded[expanded.index(after: equals)...])
            }
        }
        for line in values("Service", "EnvironmentFile") {
            let optional = line.hasPrefix("-")
            let path = try expand(optional ? String(line.dropFirst()) : line, home: home)
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                if optional { continue }
                throw SystemdUnitError(message: "\(name): EnvironmentFile \(path) is missing")
            }
            for raw in text.split(separator: "\n") {
                let line = raw.trimmingCharacters(in: .whitespaces)
                guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
                env[String(line[..<equals])] = String(line[line.index(after: equals)...]).trimmingCharacters(
                    in: CharacterSet(charactersIn: "\"'"))
            }
        }
        return env
    }

    /// Splits a command line as systemd does: whitespace separates words; "..." and '...' quote;
    /// a backslash escapes the next character.
    static func words(_ line: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var characters = line.makeIterator()
        while let character = characters.next() {
            if character == "\\" {
                guard let next = characters.next() else {
                    throw SystemdUnitError(message: "trailing backslash in \(line)")
                }
                current.append(next)
                inWord = true
            } else if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
                inWord = true
            } else if character == " " || character == "\t" {
                if inWord {
                    words.append(current)
                    current = ""
                    inWord = false
                }
            } else {
                current.append(character)
                inWord = true
            }
        }
        if quote != nil { throw SystemdUnitError(message: "unbalanced quotes in \(line)") }
        if inWord { words.append(current) }
        return words
    }
}

struct SystemdUnitError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// atd for the at test: the running one when there is one, else `atd -f` started (and later
/// stopped) by the test.
private final class StartedATD {
    private var process: Process?

    init(path: String) throws {
        for pidFile in ["/run/atd.pid", "/var/run/atd.pid"] {
            if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
                let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                kill(pid, 0) == 0
            {
                return
            }
        }
        let process = ExamplesEndToEndTests.process(
            ExamplesEndToEndTests.withSignalsUnblocked(["atd", "-f"]), env: ["PATH": path])
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        // at signals atd through its pid file; wait until atd has written it.
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: "/run/atd.pid"), process.isRunning, Date() < deadline {
            usleep(20_000)
        }
        try #require(process.isRunning, "atd -f exited at once (not root?)")
    }

    func stop() {
        guard let process, process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}
