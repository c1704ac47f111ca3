import Foundation
import Testing

/// The Ember gateway's push messages on the real `register-apns serve`: over its WebSocket
/// (`/gateway/ws`), spoken by a client nobody here wrote (Python's `websockets` from PyPI, through
/// Tests/Tools/gateway_ws_client.py), and posted one at a time to `/gateway/messages` with curl; the
/// device and its briefing are checked in the real state file.
@Suite("Ember gateway messages on register-apns serve end to end")
struct GatewayWebSocketEndToEndTests {
    static let script = RepositoryFiles.path("Tests/Tools/gateway_ws_client.py")
    static let secret = "gateway-secret-for-tests"
    static let auth = ["Authorization": "Bearer \(secret)"]
    static var briefing: [String: Any] {
        [
            "type": "briefing_config", "enabled": true, "time": "07:00", "timezone": "America/New_York",
            "sources": ["weather", "calendar"],
        ]
    }

    let setup: ProviderSetup
    let stateFile: String

    init() throws {
        setup = try ProviderSetup()
        stateFile = setup.directory.file("state/devices.json")
    }

    var environment: [String: String] {
        var env = setup.environment
        env["APNS_STATE_FILE"] = stateFile
        return env
    }

    func serve(_ arguments: [String] = []) throws -> RunningServe {
        let secretFile = try setup.directory.write("secret", Self.secret + "\n")
        return try RunningServe(["--secret-file", secretFile] + arguments, environment: environment)
    }

    func devices() throws -> [String: [String: Any]] {
        let object =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stateFile))) as? [String: Any]
        return try #require(object?["devices"] as? [String: [String: Any]])
    }

    /// Runs the client's plan against the server's `/gateway/ws`; one output line per step.
    func converse(
        _ server: RunningServe, headers: [String: String] = auth, _ steps: [[String: Any]]
    ) throws -> [[String: Any]] {
        var arguments = [Self.script, "ws://127.0.0.1:\(server.port)/gateway/ws"]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { arguments += ["--header", "\(name): \(value)"] }
        let plan = try JSONSerialization.data(withJSONObject: ["steps": steps])
        let result = try BuiltTool.runSystem("python3", arguments, stdin: plan)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = jsonLines(result.stdout)
        #expect(lines.count == steps.count, "\(result.stdout)\(result.stderr)")
        return lines
    }

    static func reply(_ line: [String: Any]?) -> [String: Any] { line?["reply"] as? [String: Any] ?? [:] }
    static func type(_ line: [String: Any]?) -> String? { reply(line)["type"] as? String }
    static func message(_ line: [String: Any]?) -> String { reply(line)["message"] as? String ?? "" }

    static func deviceToken(_ token: String, _ extra: [String: Any] = [:]) -> [String: Any] {
        ["send": ["type": "device_token", "token": token, "platform": "ios"].merging(extra) { $1 }]
    }

    @Test("a WebSocket client that speaks the Ember messages registers a device and sets its briefing")
    func registersAndSetsBriefing() throws {
        let server = try serve()
        let first = hexToken(1), rotated = hexToken(2)
        let lines = try converse(
            server,
            [
                ["send": ["type": "register", "client": "ember-ios", "version": "1.4.0", "capabilities": ["push"]]],
                Self.deviceToken(first),
                ["send": Self.briefing],
                ["send": ["type": "ping"]],
                ["send": ["type": "inbox_list", "limit": 20]],
                ["send": ["type": "ping"]],
                Self.deviceToken(rotated),
                Self.deviceToken(hexToken(3), ["platform": "android"]),
                ["send": ["type": "briefing_config", "time": "07:00", "timezone": "Mars/Olympus_Mons"]],
                ["send": ["type": "briefing_config", "time": "7 o'clock", "timezone": "Europe/Berlin"]],
            ])
        let derived = "apns-" + String(try sha256Hex(first).prefix(16))
        #expect(
            lines.map { Self.type($0) } == [
                "registered", "device_token_confirmed", "ack", "pong", "error", "pong", "device_token_confirmed",
                "error", "error", "error",
            ])
        #expect(Self.reply(lines[1])["device_id"] as? String == derived)
        #expect(Self.message(lines[4]).contains("\"inbox_list\""), "\(lines[4])")
        #expect(Self.message(lines[4]).contains("register, device_token, briefing_config, ping"))
        #expect(Self.reply(lines[6])["device_id"] as? String == derived, "rotation updates the same device")
        #expect(Self.message(lines[7]).contains("\"platform\" is \"android\", but \"token\" is an APNs"), "\(lines[7])")
        #expect(Self.message(lines[8]).contains("Mars/Olympus_Mons"), "\(lines[8])")
        #expect(Self.message(lines[9]).contains("\"time\""), "\(lines[9])")

        let devices = try devices()
        #expect(devices.count == 1, "one device per connection: \(devices.keys.sorted())")
        let device = try #require(devices[derived])
        #expect(device["token"] as? String == rotated)
        let briefing = try #require(device["briefing"] as? [String: Any])
        #expect(briefing["enabled"] as? Bool == true && briefing["time"] as? String == "07:00")
        #expect(briefing["timezone"] as? String == "America/New_York")
        #expect(briefing["sources"] as? [String] == ["weather", "calendar"])

        // The access log has a line per message, tokens masked; no whole token anywhere.
        let log = server.stderr
        #expect(log.contains("WS /gateway/ws 200 "), "\(log)")
        #expect(log.contains("message=device_token") && log.contains("message=briefing_config"))
        #expect(log.contains("token=\(maskedToken(rotated))"))
        #expect(log.contains("GET /gateway/ws 101 "))
        #expect(!log.contains(first) && !log.contains(rotated))

        // The metrics count the upgrade as a request and each device_token as a registration.
        let metrics = try server.request("GET", "/metrics", headers: Self.auth).body
        #expect(metrics.contains(#"pushkit_registrations_total{route="/gateway/ws"} 2"#), "\(metrics)")
        #expect(metrics.contains(#"pushkit_http_requests_total{route="/gateway/ws",method="GET",status="101"} 1"#))
    }

    @Test(
        "briefing_config before device_token waits for it; register's device_id names the device; a re-sent config keeps the day it was sent"
    )
    func orderAndDeviceID() throws {
        let server = try serve()
        let lines = try converse(
            server,
            [
                ["send": Self.briefing],
                ["send": ["type": "register", "client": "ember-ios", "device_id": "anna-iphone"]],
                Self.deviceToken(hexToken(7)),
                Self.deviceToken(hexToken(8), ["device_id": "someone-else"]),
                ["send": Self.briefing],
            ])
        #expect(lines.map { Self.type($0) } == ["ack", "registered", "device_token_confirmed", "error", "ack"])
        #expect(Self.reply(lines[2])["device_id"] as? String == "anna-iphone")
        #expect(Self.message(lines[3]).contains("anna-iphone"), "\(lines[3])")
        let devices = try devices()
        #expect(devices.keys.sorted() == ["anna-iphone"])
        #expect(devices["anna-iphone"]?["token"] as? String == hexToken(7))
        #expect((devices["anna-iphone"]?["briefing"] as? [String: Any])?["time"] as? String == "07:00")
    }

    @Test(
        "the Ember app's own order: register, inbox_subscribe, its configuration, then device_token; nothing closes it")
    func emberAppOrder() throws {
        let server = try serve()
        let lines = try converse(
            server,
            [
                [
                    "send": [
                        "type": "register", "client": "ember-ios", "version": "1.0",
                        "capabilities": ["inbox", "memory", "briefing", "push"],
                    ]
                ],
                ["post": ["type": "inbox_subscribe"]],
                ["post": ["type": "inbox_config", "vips": ["Mom"], "topics": ["launch"]]],
                ["post": ["type": "memory_sync"]],
                ["send": Self.briefing],
                Self.deviceToken(hexToken(9)),
                ["send": ["type": "ping"]],
            ])
        #expect(
            lines.map { Self.type($0) } == ["registered", nil, nil, nil, "ack", "device_token_confirmed", "pong"],
            "the gateway's inbox and memory messages get no answer, and no error: \(lines)")
        let id = try #require(Self.reply(lines[5])["device_id"] as? String)
        let devices = try devices()
        #expect(devices[id]?["token"] as? String == hexToken(9))
        let briefing = devices[id]?["briefing"] as? [String: Any]
        #expect(briefing?["time"] as? String == "07:00" && briefing?["timezone"] as? String == "America/New_York")

        let posted = try server.request(
            "POST", "/gateway/messages", json: #"{"type": "inbox_subscribe"}"#, headers: Self.auth)
        #expect(posted.status == 200 && posted.json?["type"] as? String == "ack", "\(posted.body)")
    }

    @Test("nothing one client sends closes or disturbs another connection")
    func badMessagesStayOnTheirConnection() throws {
        let server = try serve()
        let oversized = String(repeating: "x", count: 70_000)
        let lines = try converse(
            server,
            [
                ["on": "a", "send": ["type": "register", "client": "ember-ios"]],
                ["on": "b", "text": "this is not JSON"],
                ["on": "b", "binary": #"{"type": "ping"}"#],
                ["on": "b", "send": ["type": "memory_save", "text": "remember the milk"]],
                ["on": "b", "send": ["kind": "ping"]],
                ["on": "b", "text": "[1, 2]"],
                ["on": "b", "send": ["type": "ping"]],
                ["on": "a", "send": ["type": "ping"]],
                ["on": "b", "text": oversized],
                ["on": "a", "send": ["type": "ping"]],
                ["on": "a", "send": ["type": "device_token", "token": hexToken(9), "platform": "ios"]],
            ])
        #expect(
            lines.map { Self.type($0) ?? "closed \($0["code"] ?? "")" } == [
                "registered", "error", "error", "error", "error", "error", "pong", "pong", "closed 1009", "pong",
                "device_token_confirmed",
            ])
        #expect(Self.message(lines[1]).contains("not JSON"))
        #expect(Self.message(lines[2]).contains("binary"))
        #expect(Self.message(lines[3]).contains("\"memory_save\" messages are not served here"))
        #expect(Self.message(lines[4]).contains("no \"type\""))
        #expect(Self.message(lines[5]).contains("JSON object"))
        #expect(try devices().count == 1)
    }

    @Test("the secret: without it, or with a wrong one, 401 before any upgrade; an open network is let in")
    func authentication() throws {
        let server = try serve()
        let missing = try converse(server, headers: [:], [["send": ["type": "ping"]]])
        #expect(missing[0]["status"] as? Int == 401, "\(missing)")
        #expect((missing[0]["body"] as? String)?.contains("missing credentials") == true, "\(missing)")
        let wrong = try converse(server, headers: ["Authorization": "Bearer nope"], [["send": ["type": "ping"]]])
        #expect(wrong[0]["status"] as? Int == 401, "\(wrong)")
        #expect((wrong[0]["body"] as? String)?.contains("wrong secret") == true, "\(wrong)")
        let openClaw = try converse(
            server, headers: ["X-OpenClaw-Auth": Self.secret], [["send": ["type": "ping"]]])
        #expect(Self.type(openClaw[0]) == "pong")
        #expect(!FileManager.default.fileExists(atPath: stateFile), "nothing was registered")
        #expect(server.stderr.contains("GET /gateway/ws 401 "))

        // Without the upgrade, the route says what it is; without the secret, 401 as everywhere.
        let plain = try server.request("GET", "/gateway/ws", headers: Self.auth)
        #expect(plain.status == 426 && plain.headers["upgrade"] == "websocket", "\(plain.body)")
        #expect(
            plain.json?["type"] as? String == "error"
                && (plain.json?["message"] as? String)?.contains("WebSocket") == true)
        #expect(try server.request("GET", "/gateway/ws").status == 401)

        let open = try serve(["--open-registration", "127.0.0.0/8"])
        let lines = try converse(open, headers: [:], [Self.deviceToken(hexToken(4)), ["send": Self.briefing]])
        #expect(lines.map { Self.type($0) } == ["device_token_confirmed", "ack"])
    }

    @Test("the Ember app's bare gateway URL (ws://host:port) upgrades at / as at /gateway/ws; POST / stays ntfy's")
    func socketAtRoot() throws {
        let server = try serve()
        let root = "ws://127.0.0.1:\(server.port)"
        func converse(_ headers: [String: String], _ steps: [[String: Any]]) throws -> [[String: Any]] {
            var arguments = [Self.script, root]
            for (name, value) in headers { arguments += ["--header", "\(name): \(value)"] }
            let plan = try JSONSerialization.data(withJSONObject: ["steps": steps])
            let result = try BuiltTool.runSystem("python3", arguments, stdin: plan)
            #expect(result.status == 0, "\(result.stderr)")
            return jsonLines(result.stdout)
        }
        let lines = try converse(Self.auth, [Self.deviceToken(hexToken(8)), ["send": ["type": "ping"]]])
        #expect(lines.map { Self.type($0) } == ["device_token_confirmed", "pong"], "\(lines)")
        #expect(try devices().count == 1)
        let refused = try converse([:], [["send": ["type": "ping"]]])
        #expect(refused.first?["status"] as? Int == 401, "\(refused)")
        #expect((refused.first?["body"] as? String)?.contains("missing credentials") == true, "\(refused)")
        #expect(server.stderr.contains("GET / 101 "), "\(server.stderr)")

        let plain = try server.request("GET", "/", headers: Self.auth)
        #expect(plain.status == 426 && plain.json?["type"] as? String == "error", "\(plain.body)")
        #expect(try server.request("GET", "/").status == 401)
        let ntfy = try server.request("POST", "/", json: #"{"topic": "nobody", "message": "hi"}"#, headers: Self.auth)
        #expect(ntfy.status == 404 && ntfy.json?["http"] as? Int == 404, "ntfy's answer: \(ntfy.body)")
    }

    @Test("with a secret and no open network, serve warns at start that the Sven and Ember apps get 401")
    func secretOnlyWarning() throws {
        let closed = try serve()
        #expect(closed.stderr.contains("the Sven and Ember apps send none"), "\(closed.stderr)")
        #expect(closed.stderr.contains("--open-registration CIDR"))
        let open = try serve(["--open-registration", "100.64.0.0/10"])
        #expect(!open.stderr.contains("the Sven and Ember apps"), "\(open.stderr)")
    }

    /// The server's resident memory in KiB (`VmRSS` of /proc/PID/status).
    static func residentKiB(_ server: RunningServe) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(server.process.processIdentifier)/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return try #require(line.split(separator: " ").compactMap { Int($0) }.first, "\(status)")
    }

    @Test("a message of endless empty continuation frames is closed with 1009, and the server does not grow")
    func emptyContinuationFlood() throws {
        let server = try serve()
        #expect(try converse(server, [["send": ["type": "ping"]]]).map { Self.type($0) } == ["pong"])
        let before = try Self.residentKiB(server)
        let flood = try BuiltTool.runSystem(
            "python3",
            [
                RepositoryFiles.path("Tests/Tools/ws_fragment_flood.py"), "\(server.port)", "1000000", "--header",
                "Authorization: Bearer \(Self.secret)",
            ])
        let after = try Self.residentKiB(server)
        print(
            "flood: \(flood.stdout.trimmingCharacters(in: .whitespacesAndNewlines)); VmRSS \(before) KiB -> \(after) KiB"
        )
        let result = try #require(jsonLines(flood.stdout).first, "\(flood.stdout)\(flood.stderr)")
        #expect(result["close_code"] as? Int == 1009, "\(result)")
        #expect(after - before < 32 * 1024, "serve grew from \(before) KiB to \(after) KiB")
        // The connection's end is its own: the server answers others as before.
        #expect(try converse(server, [["send": ["type": "ping"]]]).map { Self.type($0) } == ["pong"])
    }

    @Test("SIGTERM with a socket open: the socket is closed normally and the server exits 0")
    func shutdownClosesSockets() throws {
        let server = try serve()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Self.script, "ws://127.0.0.1:\(server.port)/gateway/ws", "--header",
            "Authorization: Bearer \(Self.secret)",
        ]
        let plan = try JSONSerialization.data(withJSONObject: ["steps": [["send": ["type": "ping"]], ["closed": true]]])
        let client = try RunningTool(process, stdin: plan)
        _ = try server.process.waitForLine("WS /gateway/ws 200 .* message=ping", in: server.stderrPath, timeout: 30)
        #expect(server.terminate() == 0, "\(server.stderr)")
        let result = try client.wait()
        let lines = jsonLines(result.stdout)
        #expect(Self.type(lines.first) == "pong", "\(result.stdout)\(result.stderr)")
        #expect(lines.last?["code"] as? Int == 1000, "\(result.stdout)\(result.stderr)")
    }

    @Test("an Upgrade asked of any other route, or not for a WebSocket, is ignored: the route answers as before")
    func otherUpgradesIgnored() throws {
        let server = try serve()
        let h2c = try BuiltTool.runSystem(
            "curl",
            [
                "-sS", "--http2", "-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(Self.secret)",
                server.baseURL + "/api/v1/devices",
            ])
        #expect(h2c.stdout == "200", "curl --http2 asks to upgrade to h2c: \(h2c.stdout)\(h2c.stderr)")
        let upgrade = [
            "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
            "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        ]
        let registered = try server.request(
            "POST", "/register-apns", json: #"{"device_token": "p1", "apns_token": "\#(hexToken(31))"}"#,
            headers: Self.auth.merging(upgrade) { $1 })
        #expect(registered.status == 200, "\(registered.body)")
        let listed = try server.request("GET", "/api/v1/devices", headers: Self.auth.merging(upgrade) { $1 })
        #expect(listed.status == 200 && listed.json?["count"] as? Int == 1, "\(listed.body)")
        #expect(!server.stderr.contains("error"), "\(server.stderr)")
    }

    @Test("over TLS (--tls-cert): wss:// speaks the same messages")
    func secureSocket() throws {
        let (certificate, key) = try setup.directory.selfSignedCertificate()
        let server = try serve(["--tls-cert", certificate, "--tls-key", key])
        let plan = try JSONSerialization.data(withJSONObject: [
            "steps": [["send": ["type": "ping"]], Self.deviceToken(hexToken(6))]
        ])
        let result = try BuiltTool.runSystem(
            "python3",
            [
                Self.script, "wss://127.0.0.1:\(server.port)/gateway/ws", "--cafile", certificate, "--header",
                "Authorization: Bearer \(Self.secret)",
            ], stdin: plan)
        let lines = jsonLines(result.stdout)
        #expect(lines.map { Self.type($0) } == ["pong", "device_token_confirmed"], "\(result.stdout)\(result.stderr)")
        #expect(try devices().count == 1)
    }

    @Test("messages that change the registry spend the rate limit; the connection stays open")
    func rateLimit() throws {
        let server = try serve(["--rate-limit", "2"])
        let lines = try converse(
            server,
            [
                Self.deviceToken(hexToken(5)), ["send": Self.briefing], ["send": Self.briefing],
                ["send": ["type": "ping"]],
            ])
        #expect(lines.map { Self.type($0) } == ["device_token_confirmed", "ack", "error", "pong"])
        #expect(Self.message(lines[2]).contains("too many registration requests"), "\(lines[2])")
    }

    @Test("the same messages posted one at a time to /gateway/messages")
    func httpMessages() throws {
        let server = try serve()
        func post(
            _ message: [String: Any], headers: [String: String] = GatewayWebSocketEndToEndTests.auth
        ) throws -> HTTPExchange {
            let body = try JSONSerialization.data(withJSONObject: message)
            return try server.request("POST", "/gateway/messages", body: body, headers: headers)
        }
        let token = hexToken(11)
        let derived = "apns-" + String(try sha256Hex(token).prefix(16))
        let registered = try post(["type": "register", "client": "gateway", "version": "2"])
        #expect(registered.status == 200 && registered.json as NSDictionary? == ["type": "registered"])
        let confirmed = try post(["type": "device_token", "token": token, "platform": "ios", "timezone": "Asia/Tokyo"])
        #expect(confirmed.status == 200 && confirmed.json?["type"] as? String == "device_token_confirmed")
        #expect(confirmed.json?["device_id"] as? String == derived)
        #expect(try post(Self.briefing.merging(["token": token]) { $1 }).json as NSDictionary? == ["type": "ack"])
        #expect(try post(["type": "ping"]).json as NSDictionary? == ["type": "pong"])
        let device = try #require(try devices()[derived])
        #expect(device["timezone"] as? String == "Asia/Tokyo")
        #expect((device["briefing"] as? [String: Any])?["timezone"] as? String == "America/New_York")

        // Rotation over HTTP: the device id names the device.
        let rotated = try post(["type": "device_token", "token": hexToken(12), "device_id": derived])
        #expect(rotated.status == 200 && rotated.json?["device_id"] as? String == derived)
        let byID = try post(Self.briefing.merging(["device_id": derived, "time": "06:30"]) { $1 })
        #expect(byID.status == 200)
        #expect((try devices()[derived]?["briefing"] as? [String: Any])?["time"] as? String == "06:30")
        #expect(try devices().count == 1)

        let before = try Data(contentsOf: URL(fileURLWithPath: stateFile))
        for (message, status, text) in [
            (Self.briefing, 400, "names its device"),
            (Self.briefing.merging(["device_id": "nobody"]) { $1 }, 404, "no device"),
            (
                Self.briefing.merging(["device_id": derived, "timezone": "Nowhere/Atlantis"]) { $1 }, 422,
                "Nowhere/Atlantis"
            ),
            (["type": "inbox_list"], 400, "\"inbox_list\" messages are not served here"),
            (["type": "device_token", "token": "xyz", "platform": "ios"], 422, "token"),
            (["type": "device_token", "token": hexToken(13), "platform": "android"], 400, "platform"),
        ] as [([String: Any], Int, String)] {
            let answer = try post(message)
            #expect(answer.status == status, "\(message): \(answer.body)")
            #expect(answer.json?["type"] as? String == "error", "\(answer.body)")
            #expect((answer.json?["message"] as? String)?.contains(text) == true, "\(answer.body)")
        }
        let refused = try post(["type": "ping"], headers: [:])
        #expect(refused.status == 401 && refused.json?["type"] as? String == "error")
        #expect(try Data(contentsOf: URL(fileURLWithPath: stateFile)) == before, "nothing refused changed the file")
    }

    @Test("every registration route takes the device's time zone; an unknown zone is 422 naming it")
    func registrationTimeZones() throws {
        let server = try serve()
        let native = try server.request(
            "POST", "/register-apns",
            json: #"{"device_token": "p1", "apns_token": "\#(hexToken(21))", "timezone": "Europe/Berlin"}"#,
            headers: Self.auth)
        #expect(native.status == 200)
        let openClaw = try server.request(
            "POST", "/api/v1/devices/register",
            json: #"{"device_token": "\#(hexToken(22))", "timezone": "Asia/Kolkata"}"#,
            headers: Self.auth)
        #expect(openClaw.status == 200)
        let query = try server.request(
            "POST", "/register-apns?device_token=p3&apns_token=\(hexToken(23))&timezone=America/Los_Angeles",
            headers: Self.auth)
        #expect(query.status == 200, "\(query.body)")
        let subscription = try server.request(
            "POST", "/registerSubscription",
            json:
                #"{"cwd": "/w", "installation_id": "p4", "apns_token": "\#(hexToken(24))", "timezone": "Australia/Sydney"}"#,
            headers: Self.auth)
        #expect(subscription.status == 200, "\(subscription.body)")
        let hook = try server.request(
            "POST", "/hooks/ios-device",
            json: #"{"action": "register", "device_token": "p5", "apns_token": "\#(hexToken(25))", "timezone": "UTC"}"#,
            headers: Self.auth)
        #expect(hook.status == 200, "\(hook.body)")
        let zones = try devices().mapValues { $0["timezone"] as? String }
        #expect(zones["p1"] == "Europe/Berlin" && zones["p3"] == "America/Los_Angeles")
        #expect(zones["p4"] == "Australia/Sydney" && zones["p5"] == "UTC")
        #expect(zones["apns-" + String(try sha256Hex(hexToken(22)).prefix(16))] == "Asia/Kolkata")

        let before = try Data(contentsOf: URL(fileURLWithPath: stateFile))
        for (path, body) in [
            (
                "/register-apns",
                #"{"device_token": "p6", "apns_token": "\#(hexToken(26))", "timezone": "Europe/Atlantis"}"#
            ),
            ("/api/v1/devices/register", #"{"device_token": "\#(hexToken(26))", "timezone": "Europe/Atlantis"}"#),
            ("/register-apns?device_token=p6&apns_token=\(hexToken(26))&timezone=Europe/Atlantis", nil),
            // Beside a body the query is not read, but what it holds must still be valid.
            ("/register-apns?timezone=Europe/Atlantis", #"{"device_token": "p6", "apns_token": "\#(hexToken(26))"}"#),
        ] as [(String, String?)] {
            let answer = try server.request("POST", path, json: body, headers: Self.auth)
            #expect(
                answer.status == 422 && answer.error?.contains("Europe/Atlantis") == true, "\(path): \(answer.body)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: stateFile)) == before)
    }
}
