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

    /// Sends one request of a fixture (`method`, `path`, `body`) with the secret.
    func send(
        _ request: [String: Any], to server: RunningServe, _ placeholders: [String: String]
    ) throws
        -> HTTPExchange
    {
        let path = Self.filled(request["path"] ?? "", placeholders) as? String ?? ""
        let body = try JSONSerialization.data(withJSONObject: Self.filled(request["body"] ?? [:], placeholders))
        return try server.request(
            request["method"] as? String ?? "POST", path, body: body,
            headers: ["Authorization": "Bearer \(Self.secret)", "Content-Type": "application/json"])
    }

    /// Whether `actual` holds `expected`: an object every expected member (recursively), else the same value.
    static func contains(_ actual: Any?, _ expected: Any) -> Bool {
        guard let object = expected as? [String: Any] else { return same(actual, expected) }
        guard let actualObject = actual as? [String: Any] else { return false }
        return object.allSatisfy { contains(actualObject[$0.key], $0.value) }
    }

    /// Runs the fixture `name` against serve (one device registered, then the fixture's `setup`
    /// requests) and compares.
    func check(_ name: String) throws {
        let golden = try Self.fixture(name)
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = emulator.asAPNs(for: setup.environment)
        env["APNS_STATE_FILE"] = stateFile
        let token = hexToken(1)
        let setupRequests = golden["setup"] as? [[String: Any]] ?? []
        // A registration fixture says `"setup": []`: its request registers the device itself.
        if golden["setup"] == nil {
            try BuiltTool.run("register-apns", ["add", "phone", token], environment: env).expectSuccess()
        }
        if let tool = golden["tool"] as? [String: Any] {
            try runTool(tool, golden: golden, name: name, env: env, emulator: emulator, token: token)
            return
        }
        let secretFile = try setup.directory.write("serve.secret", Self.secret + "\n")
        let server = try RunningServe(["--secret-file", secretFile, "--rate-limit", "0"], environment: env)
        var placeholders = [
            "{token}": token, "{token16}": String(token.prefix(16)), "{server_key}": try sha256Hex(Self.secret),
        ]
        let request = try #require(golden["request"] as? [String: Any])
        if let cwd = (request["body"] as? [String: Any])?["cwd"] as? String {
            placeholders["{agent_key}"] = try sha256Hex(cwd)
        }
        for step in setupRequests {
            let answer = try send(step, to: server, placeholders)
            #expect(answer.status == 200, "\(name): setup \(step["path"] ?? ""): \(answer.status) \(answer.body)")
        }
        let answer = try send(request, to: server, placeholders)

        let expectedAnswer = try #require(Self.filled(golden["answer"] ?? [:], placeholders) as? [String: Any])
        #expect(answer.status == expectedAnswer["status"] as? Int, "\(name): \(answer.status) \(answer.body)")
        let json = answer.json ?? [:]
        for (member, value) in expectedAnswer["members"] as? [String: Any] ?? [:] {
            #expect(Self.same(json[member], value), "\(name): answer member \(member) is \(json[member] ?? "absent")")
        }
        for (member, value) in expectedAnswer["contains"] as? [String: Any] ?? [:] {
            #expect(
                Self.contains(json[member], value), "\(name): answer member \(member) is \(json[member] ?? "absent")")
        }
        if let resultMembers = expectedAnswer["result_members"] as? [String: Any] {
            let first = (json["results"] as? [[String: Any]])?.first ?? [:]
            for (member, value) in resultMembers {
                #expect(
                    Self.same(first[member], value), "\(name): result member \(member) is \(first[member] ?? "absent")")
            }
        }

        try compare(golden, placeholders, emulator: emulator, token: token, name: name)
    }

    /// A call site that is a command (the reply hook's `send-push MESSAGE_ID PREVIEW`): the
    /// fixture's `tool` run with its `config` as the config file; its exit status is the answer.
    func runTool(
        _ tool: [String: Any], golden: [String: Any], name: String, env: [String: String],
        emulator: RunningEmulator, token: String
    ) throws {
        var env = env
        let config = try JSONSerialization.data(withJSONObject: tool["config"] ?? [:])
        env["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", String(decoding: config, as: UTF8.self))
        let run = try BuiltTool.run(
            tool["command"] as? String ?? "", tool["arguments"] as? [String] ?? [], environment: env)
        let expected = (golden["answer"] as? [String: Any])?["exit"] as? Int ?? 0
        #expect(Int(run.status) == expected, "\(name): exit \(run.status): \(run.stderr)")
        try compare(golden, ["{token}": token], emulator: emulator, token: token, name: name)
    }

    /// The emulator's one record against the fixture's `apns`; none at all when it has no `apns`
    /// (a registration).
    func compare(
        _ golden: [String: Any], _ placeholders: [String: String], emulator: RunningEmulator, token: String,
        name: String
    ) throws {
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

    @Test("OpenClaw notification service: POST /api/v1/notifications/send")
    func openClawServiceSend() throws { try check("openclaw-service-send") }

    @Test("OpenClaw notification service: POST /api/v1/notifications/send/{device_token}")
    func openClawServiceSendToDevice() throws { try check("openclaw-service-send-device") }

    @Test("OpenClaw gateway extension: POST /hooks/ios-notify")
    func openClawGatewayNotify() throws { try check("openclaw-gateway-notify") }

    @Test("Sven: POST /register-apns with the app's JSON body")
    func svenRegister() throws { try check("sven-register-apns") }

    @Test("OpenClaw notification service: POST /api/v1/devices/register")
    func openClawServiceRegister() throws { try check("openclaw-service-register") }

    @Test("OpenClaw gateway extension: POST /hooks/ios-device, register")
    func openClawGatewayRegister() throws { try check("openclaw-gateway-register") }

    @Test("Sven: the reply hook's send-push MESSAGE_ID PREVIEW, the preview cut at 100 characters")
    func svenLegacyCall() throws { try check("sven-legacy-send-push") }

    @Test("proxy chat: POST /triggerReplyFinished to the devices subscribed to the agent")
    func proxyChatReplyFinished() throws { try check("proxy-chat-reply-finished") }

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
