import Foundation
import Testing

/// One golden test per server-side call site of the designs this project replaces: the fixture in
/// `Fixtures/Golden/` holds the input, the APNs request (headers and payload, key by key) and the
/// HTTP answer the design's own code produces for it, derived by reading the design's text; the
/// test drives our route with the same input and compares what reaches the emulator and what comes
/// back. A change that alters any app's notification fails here.
@Suite("golden notifications: each design's call site sends what its own server sent")
struct GoldenNotificationTests {
    let setup: ProviderSetup
    let stateFile: String

    init() throws {
        setup = try ProviderSetup()
        stateFile = setup.directory.file("state/devices.json")
    }

    static func fixture(_ name: String) throws -> [String: Any] {
        let data = try Data(
            contentsOf: URL(fileURLWithPath: RepositoryFiles.path("Tests/EndToEndTests/Fixtures/Golden/\(name).json")))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// JSON values compared as JSON (numbers by value, objects regardless of order).
    static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil), (nil, is NSNull), (is NSNull, nil), (is NSNull, is NSNull): return true
        case (let x as [String: Any], let y as [String: Any]):
            return Set(x.keys) == Set(y.keys) && x.keys.allSatisfy { same(x[$0], y[$0]) }
        case (let x as [Any], let y as [Any]):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (let x as NSNumber, let y as NSNumber): return x == y
        case (let x as String, let y as String): return x == y
        default: return false
        }
    }

    /// The serve secret of these tests: 44 characters, as the proxy-chat app makes them.
    static let secret = "Zm9yLXRlc3RzLW9ubHktbm90LWEtcmVhbC1zZWNyZXQ="

    /// `value` with the fixture's placeholders filled in: `{token}` (the registered device's
    /// token), `{server_key}` (SHA-256 of the secret, hex) and `{agent_key}` (SHA-256 of the cwd).
    static func filled(_ value: Any, _ placeholders: [String: String]) -> Any {
        switch value {
        case let text as String:
            return placeholders.reduce(text) { $0.replacingOccurrences(of: $1.key, with: $1.value) }
        case let object as [String: Any]: return object.mapValues { filled($0, placeholders) }
        case let array as [Any]: return array.map { filled($0, placeholders) }
        default: return value
        }
    }

    /// Sends one request of a fixture (`method`, `path`, `body`; none for a GET or DELETE without
    /// one) with the secret the way its design's caller sends it: `"auth": "x-openclaw-auth"` in the
    /// OpenClaw service's header, else as a Bearer token.
    func send(
        _ request: [String: Any], to server: RunningServe, _ placeholders: [String: String]
    ) throws
        -> HTTPExchange
    {
        let path = Self.filled(request["path"] ?? "", placeholders) as? String ?? ""
        let method = request["method"] as? String ?? "POST"
        var headers = ["Authorization": "Bearer \(Self.secret)"]
        if request["auth"] as? String == "x-openclaw-auth" { headers = ["X-OpenClaw-Auth": Self.secret] }
        var body: Data?
        if request["body"] != nil || !["GET", "DELETE"].contains(method) {
            body = try JSONSerialization.data(withJSONObject: Self.filled(request["body"] ?? [:], placeholders))
            headers["Content-Type"] = "application/json"
        }
        return try server.request(method, path, body: body, headers: headers)
    }

    /// Whether `actual` holds `expected`: an object every expected member (recursively), else the same value.
    static func contains(_ actual: Any?, _ expected: Any) -> Bool {
        guard let object = expected as? [String: Any] else { return same(actual, expected) }
        guard let actualObject = actual as? [String: Any] else { return false }
        return object.allSatisfy { contains(actualObject[$0.key], $0.value) }
    }

    /// Runs the fixture `name`: one device registered (unless it says `"setup": []`), serve started
    /// for its `setup` requests and its `request`, or its `tool` run; then compares.
    func check(_ name: String) throws {
        let golden = try Self.fixture(name)
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = emulator.asAPNs(for: setup.environment)
        env["APNS_STATE_FILE"] = stateFile
        env["FCM_URL"] = emulator.baseURL
        env["FCM_SERVICE_ACCOUNT"] = EmulatorFCMTests.accountPath(emulator)
        let token = hexToken(1)
        let setupRequests = golden["setup"] as? [[String: Any]] ?? []
        // A registration fixture says `"setup": []`: its request registers the device itself.
        if golden["setup"] == nil {
            try BuiltTool.run("register-apns", ["add", "phone", token], environment: env).expectSuccess()
        }
        var placeholders = [
            "{token}": token, "{token16}": String(token.prefix(16)), "{server_key}": try sha256Hex(Self.secret),
            "{fcm_token}": Self.fcmToken,
        ]
        let request = golden["request"] as? [String: Any]
        if let cwd = (request?["body"] as? [String: Any])?["cwd"] as? String {
            placeholders["{agent_key}"] = try sha256Hex(cwd)
        }
        var server: RunningServe?
        if request != nil || !setupRequests.isEmpty {
            let secretFile = try setup.directory.write("serve.secret", Self.secret + "\n")
            server = try RunningServe(["--secret-file", secretFile, "--rate-limit", "0"], environment: env)
        }
        for step in setupRequests {
            let answer = try send(step, to: try #require(server), placeholders)
            #expect(answer.status == 200, "\(name): setup \(step["path"] ?? ""): \(answer.status) \(answer.body)")
        }
        if let tool = golden["tool"] as? [String: Any] {
            try runTool(tool, golden: golden, name: name, env: env, placeholders: placeholders)
        } else {
            let answer = try send(try #require(request), to: try #require(server), placeholders)
            let expectedAnswer = try #require(Self.filled(golden["answer"] ?? [:], placeholders) as? [String: Any])
            #expect(answer.status == expectedAnswer["status"] as? Int, "\(name): \(answer.status) \(answer.body)")
            Self.compareAnswer(answer.json ?? [:], expectedAnswer, name: name)
        }
        try compare(golden, placeholders, emulator: emulator, token: token, name: name)
    }

    /// The answer's JSON against the fixture's `answer`: `members` each the same value, `contains`
    /// each holding the expected members, `first` the first element of an array member holding them
    /// (`"*"` stands for any value, for times), `keys` an array member's elements having exactly those keys.
    static func compareAnswer(_ json: [String: Any], _ expected: [String: Any], name: String) {
        for (member, value) in expected["members"] as? [String: Any] ?? [:] {
            #expect(same(json[member], value), "\(name): answer member \(member) is \(json[member] ?? "absent")")
        }
        for (member, value) in expected["contains"] as? [String: Any] ?? [:] {
            #expect(contains(json[member], value), "\(name): answer member \(member) is \(json[member] ?? "absent")")
        }
        for (member, value) in expected["first"] as? [String: [String: Any]] ?? [:] {
            let first = (json[member] as? [[String: Any]])?.first ?? [:]
            for (key, expectedValue) in value where expectedValue as? String != "*" || first[key] == nil {
                #expect(same(first[key], expectedValue), "\(name): \(member)[0].\(key) is \(first[key] ?? "absent")")
            }
        }
        for (member, keys) in expected["keys"] as? [String: [String]] ?? [:] {
            let elements = json[member] as? [[String: Any]] ?? []
            #expect(
                !elements.isEmpty && elements.allSatisfy { Set($0.keys) == Set(keys) },
                "\(name): \(member) is \(elements)")
        }
    }

    /// A call site that is a command (the reply hook's `send-push MESSAGE_ID PREVIEW`, the outreach
    /// scheduler's sends): the fixture's `tool` run with its `config` as the config file and its
    /// `environment`; the answer is its exit status and, with `stdout_json`, the members of the JSON
    /// it prints. A `command` with a slash is a script of this repository
    /// (`examples/openclaw_events.py`), run with the built tools first on PATH; any other is a built tool.
    func runTool(
        _ tool: [String: Any], golden: [String: Any], name: String, env: [String: String],
        placeholders: [String: String]
    ) throws {
        var env = env
        let config = try JSONSerialization.data(withJSONObject: Self.filled(tool["config"] ?? [:], placeholders))
        env["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", String(decoding: config, as: UTF8.self))
        for (variable, value) in tool["environment"] as? [String: String] ?? [:] { env[variable] = value }
        let command = tool["command"] as? String ?? ""
        let arguments = Self.filled(tool["arguments"] ?? [], placeholders) as? [String] ?? []
        let run: ToolResult
        if command.contains("/") {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: RepositoryFiles.path(command))
            process.arguments = arguments
            env["PATH"] =
                BuiltTool.binDirectory + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            process.environment = BuiltTool.childEnvironment(env)
            run = try RunningTool(process, stdin: nil).wait()
        } else {
            run = try BuiltTool.run(command, arguments, environment: env)
        }
        let answer = Self.filled(golden["answer"] ?? [:], placeholders) as? [String: Any] ?? [:]
        #expect(Int(run.status) == answer["exit"] as? Int ?? 0, "\(name): exit \(run.status): \(run.stderr)")
        if let members = answer["stdout_json"] as? [String: Any] {
            let printed = (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [String: Any]
            #expect(printed.map { Self.same($0, members) } == true, "\(name): printed \(run.stdout)")
        }
    }

    /// An FCM registration token of the shape the Firebase SDK gives an iOS app.
    static let fcmToken = "cV9xQ2e0Rk6zJ1mH4bN8aT:APA91bF" + String(repeating: "q7Lz_2Xw-K", count: 14)

    /// The emulator's one record against the fixture's `apns`, or its one FCM send against the
    /// fixture's `fcm` (the message, key by key); none at all when it has neither (a registration).
    func compare(
        _ golden: [String: Any], _ placeholders: [String: String], emulator: RunningEmulator, token: String,
        name: String
    ) throws {
        if let fcm = Self.filled(golden["fcm"] as Any, placeholders) as? [String: Any] {
            let sends = emulator.waitForRecords(2).filter {
                $0["provider"] as? String == "fcm" && $0["kind"] as? String == "send"
            }
            #expect(sends.count == 1, "\(name): \(sends.count) FCM sends")
            #expect(sends.first?["status"] as? Int == 200, "\(name): \(sends.first ?? [:])")
            #expect(
                Self.same(sends.first?["message"], fcm),
                "\(name): the message is \(sends.first?["message"] ?? "absent"), not \(fcm)")
            return
        }
        guard golden["apns"] != nil else {
            #expect(emulator.records().isEmpty, "\(name): a registration sends nothing")
            return
        }
        let apns = try #require(Self.filled(golden["apns"] ?? [:], placeholders) as? [String: Any])
        let record = try #require(emulator.waitForRecords(1).first)
        for key in ["push_type", "priority", "expiration", "collapse_id"] {
            #expect(
                Self.same(record[key], apns[key]),
                "\(name): \(key) is \(record[key] ?? "absent"), not \(apns[key] ?? "absent")")
        }
        #expect(record["device_token"] as? String == token)
        #expect(
            Self.same(record["payload"], apns["payload"]),
            "\(name): the payload is \(record["payload"] ?? "absent"), not \(apns["payload"] ?? "absent")")
    }

    /// Every fixture in `Fixtures/Golden/`, one test case each: a new fixture is run without a line here.
    static let fixtureNames: [String] = {
        let directory = RepositoryFiles.path("Tests/EndToEndTests/Fixtures/Golden")
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(".json".count)) }.sorted()
    }()

    @Test("each design's call site: the same APNs request and answer as its own server", arguments: fixtureNames)
    func callSite(_ name: String) throws { try check(name) }

    @Test("every design has its call sites in the fixtures")
    func fixturesCoverEveryDesign() throws {
        let designs = try Self.fixtureNames.map { try #require(Self.fixture($0)["design"] as? String).prefix(3) }
        #expect(Set(designs) == ["000", "001", "002", "003", "004"], "\(Self.fixtureNames)")
        #expect(Self.fixtureNames.count >= 30)
    }

    @Test("OpenClaw gateway extension: unregistering an unknown token answers 200, as its notifier does")
    func openClawGatewayUnregisterUnknown() throws {
        var env = setup.environment
        env["APNS_STATE_FILE"] = stateFile
        let server = try RunningServe(["--no-auth"], environment: env)
        let answer = try server.request(
            "POST", "/hooks/ios-device", json: #"{"action": "unregister", "device_token": "\#(hexToken(5))"}"#)
        #expect(answer.status == 200 && answer.json?["status"] as? String == "unregistered", "\(answer.body)")
    }
}
