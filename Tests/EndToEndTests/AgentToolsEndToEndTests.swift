import Foundation
import Testing

/// The agent tools (`notify`, `list_devices`) through the official MCP Python SDK from PyPI
/// (Tests/Tools/mcp_client.py), a client nobody here wrote: over standard input and output with
/// `pushkit-mcp`, and over streamable HTTP with `register-apns serve`'s `/mcp`, both sending to
/// `apns-emulator`. The same calls must give the same answers over both.
@Suite("MCP agent tools end to end")
struct AgentToolsEndToEndTests {
    static let script = RepositoryFiles.path("Tests/Tools/mcp_client.py")
    static let secret = "mcp-s3cret-for-tests"

    let setup: ProviderSetup
    let stateFile: String

    init() throws {
        setup = try ProviderSetup()
        stateFile = setup.directory.file("state/devices.json")
    }

    func environment(_ emulator: RunningEmulator) -> [String: String] {
        var env = emulator.asAPNs(for: setup.environment)
        env["APNS_STATE_FILE"] = stateFile
        return env
    }

    /// phone and ipad in group family, old-phone too (its token answered 410 from now on), desk alone.
    func registerDevices(_ emulator: RunningEmulator) throws {
        let env = environment(emulator)
        for (id, n, arguments) in [
            ("phone", 1, ["--name", "Ann's iPhone", "--group", "family"]), ("ipad", 2, ["--group", "family"]),
            ("old-phone", 3, ["--group", "family"]), ("desk", 4, []),
        ] {
            try BuiltTool.run("register-apns", ["add", id, hexToken(n)] + arguments, environment: env)
                .expectSuccess()
        }
        try BuiltTool.runSystem(
            "curl",
            [
                "-sf", "--http2", "--cacert", emulator.caPath, "-X", "POST",
                emulator.baseURL + "/emulator/unregister/" + hexToken(3),
            ]
        ).expectSuccess()
    }

    /// The calls both transports make, in order (JSON for the client script).
    static let calls = [
        #"{"tool": "list_devices", "arguments": {}}"#,
        #"{"tool": "notify", "arguments": {"title": "Build finished", "body": "All 42 tests passed", "urgency": "high", "url": "https://example.com/builds/42", "device": "phone", "collapse_id": "build-42"}}"#,
        #"{"tool": "notify", "arguments": {"body": "Dinner is ready", "group": "family", "data": {"room": "kitchen"}}}"#,
        #"{"tool": "notify", "arguments": {"body": "hello", "device": "nosuch"}}"#,
        #"{"tool": "notify", "arguments": {"urgency": "low"}}"#,
        #"{"tool": "notify", "arguments": {"body": "hello", "urgency": "urgent"}}"#,
        #"{"tool": "list_devices", "arguments": {"group": "family"}}"#,
        #"{"tool": "withdraw", "arguments": {"id": "build-42", "device": "phone"}}"#,
        #"{"tool": "withdraw", "arguments": {"id": "build-42", "body": "x"}}"#,
    ]

    static var callsJSON: String { "[" + calls.joined(separator: ", ") + "]" }

    /// Checks what the client printed, and what reached the emulator, the same for both transports.
    func check(_ output: String, emulator: RunningEmulator) throws {
        let lines = jsonLines(output)
        try #require(lines.count == Self.calls.count + 1, "\(output)")
        let listing = lines[0]
        #expect((listing["server"] as? [String: Any])?["name"] as? String == "pushkit-free")
        #expect(listing["protocol"] as? String == "2025-11-25")
        let tools = try #require(listing["tools"] as? [[String: Any]])
        #expect(
            tools.map { $0["name"] as? String } == [
                "notify", "withdraw", "list_devices", "ask", "wait_for_answer", "cancel_question",
            ])
        let notifySchema = try #require(tools.first?["inputSchema"] as? [String: Any])
        let properties = try #require(notifySchema["properties"] as? [String: Any])
        #expect(
            Set(properties.keys) == [
                "title", "body", "subtitle", "urgency", "url", "data", "device", "group", "collapse_id", "badge",
                "image", "volume",
            ])
        #expect(
            (properties["urgency"] as? [String: Any])?["enum"] as? [String] == ["low", "normal", "high", "critical"])
        #expect(tools.allSatisfy { ($0["description"] as? String)?.isEmpty == false && $0["outputSchema"] != nil })

        let results = Array(lines.dropFirst())
        let everyDevice = results[0]
        #expect(everyDevice["is_error"] as? Bool == false)
        #expect(
            everyDevice["text"] as? String
                == "4 devices: desk, ipad (groups: family), old-phone (groups: family), phone (Ann's iPhone; groups: family)."
        )
        let listed = try #require((everyDevice["structured"] as? [String: Any])?["devices"] as? [[String: Any]])
        #expect(listed.map { $0["id"] as? String } == ["desk", "ipad", "old-phone", "phone"])
        #expect(listed.last?["token"] as? String == String(hexToken(1).prefix(8)) + "…" + String(hexToken(1).suffix(4)))
        #expect((everyDevice["structured"] as? [String: Any])?["groups"] as? [String] == ["family"])

        let toPhone = results[1]
        #expect(toPhone["is_error"] as? Bool == false, "\(toPhone)")
        #expect(toPhone["text"] as? String == "Delivered to 1 device (phone).")
        let phoneResult = try #require(
            ((toPhone["structured"] as? [String: Any])?["results"] as? [[String: Any]])?.first)
        #expect(phoneResult["outcome"] as? String == "delivered" && phoneResult["device"] as? String == "phone")

        let toFamily = results[2]
        #expect(toFamily["is_error"] as? Bool == false, "\(toFamily)")
        #expect(
            toFamily["text"] as? String
                == "Delivered to 2 devices (ipad, phone); 1 token pruned: old-phone (Unregistered, removed from the registry).",
            "\(toFamily)")
        let familyCounts = try #require(toFamily["structured"] as? [String: Any])
        #expect(familyCounts["delivered"] as? Int == 2 && familyCounts["pruned"] as? Int == 1)

        #expect(results[3]["is_error"] as? Bool == true)
        #expect(
            results[3]["text"] as? String
                == "no device \"nosuch\" is registered; the devices are desk, ipad, phone (list_devices has them)",
            "old-phone was pruned by the send before")
        #expect(results[4]["is_error"] as? Bool == true)
        #expect(results[4]["text"] as? String == "nothing to send: give \"title\" or \"body\" (or both)")
        #expect(results[5]["is_error"] as? Bool == true)
        #expect(results[5]["text"] as? String == "\"urgency\" must be low, normal, high or critical, not \"urgent\"")
        // old-phone was pruned by the send to the family.
        #expect(
            results[6]["text"] as? String
                == "2 devices in group \"family\": ipad (groups: family), phone (Ann's iPhone; groups: family).")

        #expect(results[7]["is_error"] as? Bool == false, "\(results[7])")
        #expect(results[7]["text"] as? String == "Delivered to 1 device (phone).", "\(results[7])")
        #expect(results[8]["is_error"] as? Bool == true)
        #expect(results[8]["text"] as? String == "unknown argument \"body\"; withdraw takes device, group, id")

        // Never a whole token, never a provider token (a JWT: base64 of `{"`), never the key.
        #expect(!output.contains(hexToken(1)) && !output.contains(hexToken(3)) && !output.contains("eyJ"))
        let key = try String(contentsOfFile: setup.key.pkcs8Path, encoding: .utf8)
        for line in key.split(separator: "\n") where !line.hasPrefix("-----") { #expect(!output.contains(line)) }

        // What APNs received: the alert as notify described it, the family's three, then the
        // withdrawal of the alert.
        let records = emulator.waitForRecords(5)
        try #require(records.count == 5, "\(records)")
        let alert = try #require(records[0]["payload"] as? [String: Any])
        let aps = try #require(alert["aps"] as? [String: Any])
        #expect(records[0]["device_token"] as? String == hexToken(1))
        #expect(records[0]["collapse_id"] as? String == "build-42")
        #expect(
            aps["alert"] as? NSDictionary == ["title": "Build finished", "body": "All 42 tests passed"]
                && aps["interruption-level"] as? String == "time-sensitive")
        #expect(alert["url"] as? String == "https://example.com/builds/42")
        let family = records[1..<4]
        #expect(Set(family.compactMap { $0["device_token"] as? String }) == [hexToken(1), hexToken(2), hexToken(3)])
        #expect(family.allSatisfy { ($0["payload"] as? [String: Any])?["room"] as? String == "kitchen" })
        let withdrawal = records[4]
        #expect(
            withdrawal["device_token"] as? String == hexToken(1) && withdrawal["push_type"] as? String == "background")
        #expect(withdrawal["collapse_id"] == nil || withdrawal["collapse_id"] is NSNull, "\(withdrawal)")
        #expect(withdrawal["priority"] as? Int == 5, "\(withdrawal)")
        let payload = withdrawal["payload"] as? [String: Any]
        #expect((payload?["pushkit"] as? [String: Any])?["withdraw"] as? String == "build-42", "\(withdrawal)")
        #expect((payload?["aps"] as? [String: Any])?["content-available"] as? Int == 1, "\(withdrawal)")
    }

    @Test("pushkit-mcp over standard input and output: the tools an agent sees, sends, prunes, refusals")
    func stdio() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        try registerDevices(emulator)
        var env = ProcessInfo.processInfo.environment
        env.merge(environment(emulator)) { _, new in new }
        let result = try BuiltTool.runSystem(
            "env",
            env.map { "\($0.key)=\($0.value)" }
                + ["python3", Self.script, "stdio", BuiltTool.path("pushkit-mcp"), Self.callsJSON])
        #expect(result.status == 0, "\(result.stderr)")
        try check(result.stdout, emulator: emulator)
    }

    @Test("register-apns serve /mcp over streamable HTTP: the same answers, behind the secret")
    func http() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        try registerDevices(emulator)
        let secretFile = try setup.directory.write("secret", Self.secret + "\n", mode: 0o600)
        let server = try RunningServe(["--secret-file", secretFile], environment: environment(emulator))

        let refused = try server.request(
            "POST", "/mcp", json: #"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#,
            headers: ["Accept": "application/json, text/event-stream"])
        #expect(refused.status == 401, "no secret, no tools")

        let result = try BuiltTool.runSystem(
            "python3", [Self.script, "http", server.baseURL + "/mcp", Self.secret, Self.callsJSON])
        #expect(result.status == 0, "\(result.stderr)\n\(server.stderr)")
        try check(result.stdout, emulator: emulator)
        #expect(!server.stderr.contains(Self.secret) && !result.stdout.contains(Self.secret))

        let stream = try server.request(
            "GET", "/mcp", headers: ["Authorization": "Bearer \(Self.secret)", "Accept": "text/event-stream"])
        #expect(stream.status == 405, "no server-sent events: each request is answered with JSON")
    }
}
