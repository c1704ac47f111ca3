import Foundation
import Testing

/// `register-apns serve` end to end: the built server (started through `register-apns serve`),
/// real HTTP requests from curl, the real state file, and the real `apns-emulator` for the routes
/// that send.
@Suite("register-apns serve end to end")
struct ServeEndToEndTests {
    let setup: ProviderSetup
    let stateFile: String

    init() throws {
        setup = try ProviderSetup()
        stateFile = setup.directory.file("state/devices.json")
    }

    static func token(_ n: Int) -> String { hexToken(n) }

    /// The server's environment: the provider key, and APNs at `emulator` when given.
    func environment(_ emulator: RunningEmulator? = nil) -> [String: String] {
        var env = setup.environment
        env["APNS_STATE_FILE"] = stateFile
        return emulator?.asAPNs(for: env) ?? env
    }

    func secretFile(_ secret: String = "s3cret-for-tests", mode: Int = 0o600) throws -> String {
        try setup.directory.write("secret", secret + "\n", mode: mode)
    }

    func devices() throws -> [String: [String: Any]] {
        let object =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stateFile))) as? [String: Any]
        return try #require(object?["devices"] as? [String: [String: Any]])
    }

    func stateObject() throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stateFile))) as? [String: Any])
    }

    func stateBytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: stateFile)) }

    /// Makes the emulator answer 410 for `token` from now on (so devices registered before are pruned).
    func unregister(_ token: String, at emulator: RunningEmulator) throws {
        try BuiltTool.runSystem(
            "curl",
            [
                "-sf", "--http2", "--cacert", emulator.caPath, "-X", "POST",
                emulator.baseURL + "/emulator/unregister/" + token,
            ]
        ).expectSuccess()
    }

    // MARK: Registration routes

    @Test("every registration route writes the registry the CLI reads, and answers with masked tokens")
    func registrationRoutes() throws {
        let server = try RunningServe(["--no-auth"], environment: environment())

        let ok = try server.request(
            "POST", "/register-apns",
            json: #"{"device_token": "phone-1", "apns_token": "\#(Self.token(1).uppercased())"}"#)
        #expect(ok.status == 200 && ok.json as NSDictionary? == ["status": "ok"])
        #expect(ok.headers["content-type"] == "application/json")
        #expect(try devices()["phone-1"]?["token"] as? String == Self.token(1))

        let registered = try server.request(
            "POST", "/api/v1/devices/register",
            json: """
                {"device_token": "\(Self.token(2))", "device_name": "Anna's iPad", "device_model": "iPad13,1", "os_version": "17.4",
                 "app_version": "2.0", "environment": "sandbox", "groups": ["family"]}
                """)
        #expect(registered.status == 200 && registered.json?["status"] as? String == "registered")
        let device = try #require(registered.json?["device"] as? [String: Any])
        #expect(
            device["token"] as? String == openClawToken(Self.token(2)), "OpenClaw's routes show 16 characters and ...")
        #expect(device["device_name"] as? String == "Anna's iPad")
        #expect((device["registered_at"] as? String)?.hasSuffix("Z") == true)
        // No app device id: one is derived from the token, never the token itself.
        let derived = "apns-" + String(try sha256Hex(Self.token(2)).prefix(16))
        #expect(device["device_id"] as? String == derived)
        let stored = try #require(try devices()[derived])
        #expect(stored["token"] as? String == Self.token(2) && stored["environment"] as? String == "sandbox")
        #expect(stored["groups"] as? [String] == ["family"] && stored["model"] as? String == "iPad13,1")

        // The CLI sees the same registry and masks the derived device's token in its table.
        let listed = try BuiltTool.run("register-apns", ["list"], environment: environment())
        listed.expectSuccess()
        #expect(
            listed.stdout.contains(derived) && listed.stdout.contains("phone-1")
                && !listed.stdout.contains(Self.token(2)))

        let list = try server.request("GET", "/api/v1/devices")
        #expect(list.json?["count"] as? Int == 2)
        let entries = try #require(list.json?["devices"] as? [[String: Any]])
        #expect(entries.map { $0["device_id"] as? String } == [derived, "phone-1"])
        #expect(entries.map { $0["token"] as? String } == [openClawToken(Self.token(2)), openClawToken(Self.token(1))])
        #expect(!list.body.contains(Self.token(1)) && !list.body.contains(Self.token(2)))

        let hook = try server.request(
            "POST", "/hooks/ios-device",
            json:
                #"{"action": "register", "device_token": "watch-1", "apns_token": "\#(Self.token(3))", "device_name": "Watch"}"#
        )
        #expect(hook.status == 200 && hook.json?["status"] as? String == "registered")
        let hookDevice = hook.json?["device"] as? [String: Any]
        #expect(hookDevice?["token"] as? String == maskedToken(Self.token(3)), "native routes keep their mask")
        #expect(try devices()["watch-1"]?["name"] as? String == "Watch")
        let unhook = try server.request(
            "POST", "/hooks/ios-device", json: #"{"action": "unregister", "device_token": "watch-1"}"#)
        #expect(unhook.status == 200 && unhook.json as NSDictionary? == ["status": "unregistered"])
        #expect(try devices()["watch-1"] == nil)
        // Again: 200 as before, as the gateway's notifier answers (its map's delete is the same either way).
        let again = try server.request(
            "POST", "/hooks/ios-device", json: #"{"action": "unregister", "device_token": "watch-1"}"#)
        #expect(again.status == 200 && again.json as NSDictionary? == ["status": "unregistered"])

        // DELETE by token (any case), then 404.
        let deleted = try server.request("DELETE", "/api/v1/devices/" + Self.token(1).uppercased())
        #expect(deleted.status == 200 && deleted.json as NSDictionary? == ["status": "unregistered"])
        #expect(try devices()["phone-1"] == nil)
        let unknown = try server.request("DELETE", "/api/v1/devices/" + Self.token(1))
        #expect(unknown.status == 404 && unknown.error?.contains(Self.token(1)) == false, "the message masks the token")

        // One access-log line per request, tokens masked.
        let log = server.stderr
        #expect(log.contains("POST /register-apns 200") && log.contains("token=\(maskedToken(Self.token(1)))"))
        #expect(log.contains("DELETE /api/v1/devices/\(maskedToken(Self.token(1)))"))
        for token in [Self.token(1), Self.token(2), Self.token(3)] {
            #expect(!log.lowercased().contains(token), "no whole token in the access log")
        }
    }

    @Test("device texts take any character, control characters included, up to 256; null is absent")
    func deviceTexts() throws {
        let server = try RunningServe(["--no-auth"], environment: environment())
        let hostile = #"\u001b]0;pwned\u0007\u001b[2J\u202eAda"#
        let long = String(repeating: "m", count: 256)
        let answer = try server.request(
            "POST", "/api/v1/devices/register",
            json: #"""
                {"device_token": "\#(Self.token(3))", "device_name": "\#(hostile)", "device_model": "\#(long)", "os_version": null,
                 "app_version": "\u0000", "environment": null, "groups": null, "push_to_start_token": null}
                """#)
        #expect(answer.status == 200, "\(answer.body)")
        let stored = try #require(try devices()["apns-" + String(try sha256Hex(Self.token(3)).prefix(16))])
        #expect(
            stored["name"] as? String == "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{202E}Ada"
                && stored["model"] as? String == long)
        #expect(
            stored["app_version"] as? String == "\u{0}"
                && (stored["os_version"] == nil || stored["os_version"] is NSNull))
        let refused = try server.request(
            "POST", "/register-apns",
            json: #"{"device_token": "d", "apns_token": "\#(Self.token(4))", "model": "\#(long)x"}"#)
        #expect(refused.status == 400 && refused.error == "\"model\" is 257 characters long; at most 256 are accepted")
    }

    @Test("/registerSubscription joins the agent's group; a rotated token updates the same device")
    func subscriptions() throws {
        let server = try RunningServe(["--secret-file", try secretFile()], environment: environment())
        let auth = ["Authorization": "Bearer s3cret-for-tests"]
        let body =
            #"{"cwd": "/home/sven/agents/helper", "installation_id": "inst-7", "apns_token": "\#(Self.token(7))", "agent_display_name": "Helper"}"#
        let first = try server.request("POST", "/registerSubscription", json: body, headers: auth)
        let agent = try sha256Hex("/home/sven/agents/helper")
        #expect(
            first.status == 200
                && first.json as NSDictionary? == ["status": "subscribed", "agent": agent, "device_id": "inst-7"])
        let rotated = try server.request(
            "POST", "/registerSubscription",
            json: body.replacingOccurrences(of: Self.token(7), with: Self.token(8)), headers: auth)
        #expect(rotated.status == 200)
        let other = try server.request(
            "POST", "/registerSubscription",
            json: #"{"cwd": "/srv/other", "installation_id": "inst-7", "apns_token": "\#(Self.token(8))"}"#,
            headers: auth)
        #expect(other.status == 200)

        let stored = try devices()
        #expect(stored.count == 1, "a rotation updates the device, it does not add one")
        #expect(stored["inst-7"]?["token"] as? String == Self.token(8))
        #expect(stored["inst-7"]?["groups"] as? [String] == [agent, try sha256Hex("/srv/other")])
        let agents = try #require(try stateObject()["agents"] as? [String: [String: Any]])
        #expect(
            agents[agent]?["display_name"] as? String == "Helper"
                && agents[agent]?["cwd"] as? String == "/home/sven/agents/helper")

        // register-apns keeps the agents member when it rewrites the file.
        try BuiltTool.run("register-apns", ["other-device", Self.token(9)], environment: environment()).expectSuccess()
        #expect((try stateObject()["agents"] as? [String: Any])?.count == 2)
    }

    // MARK: Auth

    @Test("the secret: missing and wrong are 401 in both headers, right passes; /health is open, /metrics is not")
    func authentication() throws {
        let server = try RunningServe(["--secret-file", try secretFile()], environment: environment())
        let body = #"{"device_token": "phone-1", "apns_token": "\#(Self.token(1))"}"#
        let missing = try server.request("POST", "/register-apns", json: body)
        #expect(missing.status == 401 && missing.error?.contains("Authorization: Bearer") == true)
        #expect(missing.headers["www-authenticate"] == "Bearer")
        for headers in [
            ["Authorization": "Bearer wrong"], ["X-OpenClaw-Auth": "wrong"],
            ["Authorization": "Basic czNjcmV0LWZvci10ZXN0cw=="],
            ["Authorization": "Bearer s3cret-for-tests-and-more"], ["X-OpenClaw-Auth": "s3cret-for-test"],
        ] {
            let wrong = try server.request("POST", "/register-apns", json: body, headers: headers)
            #expect(
                wrong.status == 401 && wrong.error == "wrong secret"
                    || wrong.status == 401 && wrong.error?.contains("missing") == true, "\(headers)")
        }
        #expect(!FileManager.default.fileExists(atPath: stateFile), "nothing was written without the secret")
        for headers in [
            ["Authorization": "Bearer s3cret-for-tests"], ["authorization": "bearer s3cret-for-tests"],
            ["X-OpenClaw-Auth": "s3cret-for-tests"],
        ] {
            let right = try server.request("POST", "/register-apns", json: body, headers: headers)
            #expect(right.status == 200, "\(headers): \(right.body)")
        }
        #expect(try server.request("GET", "/api/v1/devices").status == 401)
        #expect(try server.request("GET", "/health").json as NSDictionary? == ["status": "healthy"])
        // /metrics needs the secret too, on loopback as anywhere (the document states one rule).
        let closed = try server.request("GET", "/metrics")
        #expect(
            closed.status == 401 && closed.headers["www-authenticate"] == "Bearer" && !closed.body.contains("pushkit_"))
        let metrics = try server.request("GET", "/metrics", headers: ["X-OpenClaw-Auth": "s3cret-for-tests"])
        #expect(metrics.status == 200)
        #expect(metrics.body.contains("pushkit_registrations_total{route=\"/register-apns\"} 3"))
        #expect(
            metrics.body.contains(
                "pushkit_http_requests_total{route=\"/register-apns\",method=\"POST\",status=\"401\"} 6"))
        #expect(!server.stderr.contains("s3cret"), "the secret is never logged")
    }

    @Test("refused at start: no secret, --no-auth off loopback, a secret file others can read, TLS halves")
    func startRefusals() throws {
        let env = environment()
        let noSecret = try BuiltTool.run("register-apns", ["serve", "--listen", "127.0.0.1:0"], environment: env)
        #expect(
            noSecret.status == 64 && noSecret.stderr.contains("--secret-file") && noSecret.stderr.contains("--no-auth"))
        let open = try BuiltTool.run(
            "register-apns", ["serve", "--listen", "0.0.0.0:0", "--no-auth"], environment: env)
        #expect(open.status == 64 && open.stderr.contains("--no-auth is only allowed on a loopback address"))
        let reachable = try BuiltTool.run("register-apns", ["serve", "--listen", "0.0.0.0:0"], environment: env)
        #expect(reachable.status == 64 && reachable.stderr.contains("needs a secret"))
        let readable = try BuiltTool.run(
            "register-apns", ["serve", "--listen", "127.0.0.1:0", "--secret-file", try secretFile(mode: 0o644)],
            environment: env)
        #expect(readable.status == 78 && readable.stderr.contains("chmod 600"))
        let empty = try BuiltTool.run(
            "register-apns", ["serve", "--listen", "127.0.0.1:0", "--secret-file", try secretFile(""), "--no-auth"],
            environment: env)
        #expect(empty.status == 64)
        let halfTLS = try BuiltTool.run(
            "register-apns", ["serve", "--no-auth", "--tls-cert", "x.pem"], environment: env)
        #expect(halfTLS.status == 64 && halfTLS.stderr.contains("--tls-cert and --tls-key go together"))
        let badListen = try BuiltTool.run(
            "register-apns", ["serve", "--no-auth", "--listen", "localhost"], environment: env)
        #expect(badListen.status == 64 && badListen.stderr.contains("HOST:PORT"))
        #expect(!FileManager.default.fileExists(atPath: stateFile))
    }

    @Test("the address in use exits 69")
    func addressInUse() throws {
        let first = try RunningServe(["--no-auth"], environment: environment())
        let second = try BuiltTool.run(
            "register-apns", ["serve", "--no-auth", "--listen", "127.0.0.1:\(first.port)"], environment: environment())
        #expect(second.status == 69 && second.stderr.contains("cannot serve 127.0.0.1:\(first.port)"))
    }

    // MARK: Bad input

    @Test("every bad request is a 4xx with {\"error\"} and leaves the state file byte for byte unchanged")
    func badInputChangesNothing() throws {
        let server = try RunningServe(["--no-auth", "--rate-limit", "1000"], environment: environment())
        try server.request(
            "POST", "/register-apns", json: #"{"device_token": "phone-1", "apns_token": "\#(Self.token(1))"}"#)
        let before = try stateBytes()
        let big =
            #"{"device_token": "phone-2", "apns_token": "\#(Self.token(2))", "device_name": ""#
            + String(repeating: "x", count: 4100) + "\"}"
        let cases: [(method: String, path: String, body: String?, status: Int, message: String)] = [
            ("POST", "/register-apns", big, 413, "over 4096 bytes"),
            ("POST", "/register-apns", "not json", 400, "not JSON"),
            ("POST", "/register-apns", "", 400, "empty"),
            ("POST", "/register-apns", "[1, 2]", 400, "expected a JSON object, not array"),
            ("POST", "/register-apns", #"{"apns_token": "\#(Self.token(2))"}"#, 400, "\"device_token\" is missing"),
            (
                "POST", "/register-apns", #"{"device_token": 7, "apns_token": "\#(Self.token(2))"}"#, 400,
                "\"device_token\" must be a string"
            ),
            (
                "POST", "/register-apns",
                #"{"device_token": "p", "apns_token": "\#(Self.token(2))", "environment": "staging"}"#, 400,
                "production or sandbox"
            ),
            (
                "POST", "/register-apns",
                #"{"device_token": "p", "apns_token": "\#(Self.token(2))", "groups": "family"}"#, 400,
                "array of strings"
            ),
            ("POST", "/register-apns", #"{"device_token": "p", "apns_token": "abc"}"#, 422, "hex digits"),
            (
                "POST", "/register-apns",
                #"{"device_token": "p", "apns_token": "\#(String(repeating: "zz", count: 32))"}"#, 422, "\"z\""
            ),
            ("POST", "/api/v1/devices/register", #"{"device_token": "short"}"#, 422, "device token"),
            (
                "POST", "/register-apns", #"{"device_token": "bad\u0001id", "apns_token": "\#(Self.token(2))"}"#, 400,
                "control character"
            ),
            ("POST", "/hooks/ios-device", #"{"device_token": "\#(Self.token(2))"}"#, 400, "\"action\" is missing"),
            (
                "POST", "/hooks/ios-device", #"{"action": "forget", "device_token": "\#(Self.token(2))"}"#, 400,
                "register or unregister"
            ),
            (
                "POST", "/registerSubscription", #"{"installation_id": "i", "apns_token": "\#(Self.token(2))"}"#, 400,
                "\"cwd\" is missing"
            ),
            (
                "POST", "/registerSubscription", #"{"cwd": "/x", "installation_id": "i", "apns_token": "12"}"#, 422,
                "device token"
            ),
            ("POST", "/api/v1/notifications/send", #"{"badge": 1}"#, 400, "nothing to send"),
            ("POST", "/api/v1/notifications/send", #"{"title": "t", "data": {"aps": {}}}"#, 400, "cannot set \"aps\""),
            (
                "POST", "/api/v1/notifications/send", #"{"title": "t", "badge": "one"}"#, 400,
                "\"badge\" must be a whole number"
            ),
            // The core's message, worded with the body's field name (send-push says --badge).
            (
                "POST", "/api/v1/notifications/send", #"{"title": "t", "badge": -1}"#, 400,
                "\"badge\" must be 0 or more, not -1"
            ),
            ("POST", "/triggerReplyFinished", #"{"message_preview": "hi"}"#, 400, "\"cwd\" is missing"),
            ("GET", "/register-apns", nil, 405, "takes POST"),
            ("PUT", "/api/v1/devices", nil, 405, "takes GET"),
            ("GET", "/api/v1/devices/register", nil, 405, "it takes POST"),
            (
                "POST", "/register-apns",
                #"{"device_token": "p", "apns_token": "\#(Self.token(2))", "device_name": "\#(String(repeating: "n", count: 257))"}"#,
                400, "\"device_name\" is 257 characters long; at most 256 are accepted"
            ),
            (
                "POST", "/register-apns",
                #"{"device_token": "p", "apns_token": "\#(Self.token(2))", "groups": ["a,b"]}"#, 400, "comma"
            ),
            (
                "POST", "/api/v1/notifications/send", #"{"title": "\#(String(repeating: "t", count: 4070))"}"#, 413,
                "4096-byte limit"
            ),
            ("POST", "/no/where/at/all/here", "{}", 404, "no route POST /no/where/at/all/here"),
            ("DELETE", "/api/v1/devices/" + Self.token(5), nil, 404, "no device"),
            ("POST", "/api/v1/notifications/send/unknown-device", #"{"title": "t"}"#, 404, "no device"),
        ]
        for test in cases {
            let answer = try server.request(test.method, test.path, json: test.body)
            #expect(
                answer.status == test.status,
                "\(test.method) \(test.path) \(test.body?.prefix(60) ?? ""): \(answer.status) \(answer.body)")
            #expect(answer.error?.contains(test.message) == true, "\(test.method) \(test.path): \(answer.body)")
            #expect(answer.headers["content-type"] == "application/json")
            #expect(try stateBytes() == before, "\(test.method) \(test.path) changed the state file")
        }
        let notAllowed = try server.request("GET", "/register-apns")
        #expect(notAllowed.headers["allow"] == "POST")
    }

    @Test("the rate limit: 429 with Retry-After past the per-minute allowance, per client, registrations only")
    func rateLimit() throws {
        let server = try RunningServe(["--no-auth", "--rate-limit", "3"], environment: environment())
        for n in 1...3 {
            #expect(
                try server.request(
                    "POST", "/register-apns", json: #"{"device_token": "d\#(n)", "apns_token": "\#(Self.token(n))"}"#
                ).status == 200)
        }
        let before = try stateBytes()
        let limited = try server.request(
            "POST", "/register-apns", json: #"{"device_token": "d4", "apns_token": "\#(Self.token(4))"}"#)
        #expect(limited.status == 429 && limited.error?.contains("limit 3 a minute") == true)
        let retryAfter = try #require(limited.headers["retry-after"].flatMap(Int.init))
        #expect((1...20).contains(retryAfter), "one request comes back every 20 s at 3 a minute")
        #expect(try stateBytes() == before)
        #expect(try server.request("GET", "/api/v1/devices").status == 200, "reading is not limited")
        #expect(try server.request("GET", "/health").status == 200)
    }

    // MARK: Sending

    @Test("send routes deliver through the emulator, prune a 410 device, and report per device")
    func sendRoutesPrune() throws {
        let dead = Self.token(21)
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let server = try RunningServe(["--no-auth"], environment: environment(emulator))
        try server.request(
            "POST", "/register-apns", json: #"{"device_token": "alive", "apns_token": "\#(Self.token(20))"}"#)
        try server.request("POST", "/register-apns", json: #"{"device_token": "dead", "apns_token": "\#(dead)"}"#)
        try unregister(dead, at: emulator)

        let sent = try server.request(
            "POST", "/api/v1/notifications/send",
            json:
                #"{"title": "Build", "body": "finished", "subtitle": "ci", "category": "BUILD", "badge": 2, "data": {"run": 42}}"#
        )
        #expect(sent.status == 200, "\(sent.body)")
        #expect(sent.json?["sent"] as? Int == 2, "the devices attempted, as the OpenClaw service counts them")
        let results = try #require(sent.json?["results"] as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: results.map { ($0["device_id"] as? String ?? "", $0) })
        #expect(byID["alive"]?["success"] as? Bool == true && byID["alive"]?["reason"] is NSNull)
        #expect(byID["dead"]?["success"] as? Bool == false && byID["dead"]?["reason"] as? String == "Unregistered")
        #expect(byID["dead"]?["token"] as? String == openClawToken(dead))
        #expect(try devices().keys.sorted() == ["alive"], "the 410 device was pruned")

        let record = try #require(emulator.waitForRecords(2).first { $0["device_token"] as? String == Self.token(20) })
        let payload = try #require(record["payload"] as? [String: Any])
        let aps = try #require(payload["aps"] as? [String: Any])
        #expect(aps["alert"] as? NSDictionary == ["title": "Build", "body": "finished", "subtitle": "ci"])
        #expect(aps["badge"] as? Int == 2 && aps["category"] as? String == "BUILD")
        #expect((payload["openclaw"] as? [String: Any])?["run"] as? Int == 42, "data under openclaw: \(payload)")
        #expect(aps["thread-id"] as? String == "openclaw" && aps["mutable-content"] as? Int == 1)

        let one = try server.request(
            "POST", "/api/v1/notifications/send/" + Self.token(20), json: #"{"title": "Just you"}"#)
        #expect(one.status == 200 && one.json?["success"] as? Bool == true && one.json?["reason"] is NSNull)
        #expect((one.json?["apns_id"] as? String)?.count == 36)
        let byDeviceID = try server.request("POST", "/api/v1/notifications/send/alive", json: #"{"body": "by id"}"#)
        #expect(byDeviceID.json?["success"] as? Bool == true)
        let gone = try server.request("POST", "/api/v1/notifications/send/" + dead, json: #"{"title": "x"}"#)
        #expect(gone.status == 404)

        let notified = try server.request(
            "POST", "/hooks/ios-notify", json: #"{"title": "Hook", "message": "from a hook"}"#)
        #expect(
            notified.json as NSDictionary? == ["status": "sent", "devices_notified": 1, "delivered_to": ["alive"]],
            "\(notified.body)")
        let hookRecord = try #require(emulator.waitForRecords(5).last)
        #expect(
            ((hookRecord["payload"] as? [String: Any])?["aps"] as? [String: Any])?["alert"] as? NSDictionary == [
                "title": "Hook", "body": "from a hook",
            ])

        let metrics = try server.request("GET", "/metrics").body
        #expect(metrics.contains("pushkit_prunes_total 1"))
        #expect(
            metrics.contains("pushkit_sends_total{outcome=\"delivered\"} 4")
                && metrics.contains("pushkit_sends_total{outcome=\"unregistered\"} 1"))
        #expect(metrics.contains("pushkit_http_request_duration_seconds_bucket{route=\"/api/v1/notifications/send\""))
    }

    @Test("an APNs connection that goes silent between pushes is replaced: the next push arrives in about 2 s")
    func silentConnectionReplaced() throws {
        let emulator = try RunningEmulator(environment: setup.environment)
        let server = try RunningServe(["--no-auth"], environment: environment(emulator))
        try server.request(
            "POST", "/register-apns",
            json: #"{"device_token": "phone", "apns_token": "\#(Self.token(30))"}"#)
        let first = try server.request("POST", "/api/v1/notifications/send", json: #"{"title": "one"}"#)
        #expect(first.json?["sent"] as? Int == 1, "\(first.body)")

        // The connection serve keeps between pushes now answers nothing, and never closes.
        let silenced = try Curl.request(emulator.baseURL + "/emulator/go-silent", cacert: emulator.caPath)
        #expect(silenced.json?["silenced"] as? Int == 1, "serve's connection was open: \(silenced.body)")

        let started = Date()
        let second = try server.request("POST", "/api/v1/notifications/send", json: #"{"title": "two"}"#)
        let elapsed = Date().timeIntervalSince(started)
        #expect(second.json?["sent"] as? Int == 1, "\(second.body)")
        // Found by a PING within about 2 s (SilenceWatch), far below serve's 10 s delivery timeout.
        #expect(elapsed < 5, "the push after the silence took \(elapsed) s")
        let records = emulator.waitForRecords(2).filter { $0["device_token"] as? String == Self.token(30) }
        #expect(records.map { $0["status"] as? Int } == [200, 200], "\(records)")
        let connections = records.compactMap { $0["connection"] as? Int }
        #expect(Set(connections).count == 2, "the second push went over a new connection: \(connections)")
        #expect(emulator.stderr.contains("went silent (POST /emulator/go-silent)"), "\(emulator.stderr)")

        // And the new connection is kept: a third push is as fast as ever.
        let third = try server.request("POST", "/api/v1/notifications/send", json: #"{"title": "three"}"#)
        #expect(third.json?["sent"] as? Int == 1, "\(third.body)")
    }

    @Test("/triggerReplyFinished goes to the agent's subscribers, titled with its name, collapsed by agent")
    func replyFinished() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let server = try RunningServe(["--secret-file", try secretFile()], environment: environment(emulator))
        let auth = ["X-OpenClaw-Auth": "s3cret-for-tests"]
        let cwd = "/home/sven/agents/helper"
        try server.request(
            "POST", "/registerSubscription",
            json:
                #"{"cwd": "\#(cwd)", "installation_id": "inst-1", "apns_token": "\#(Self.token(31))", "agent_display_name": "Helper"}"#,
            headers: auth)
        try server.request(
            "POST", "/registerSubscription",
            json: #"{"cwd": "/srv/unnamed-bot", "installation_id": "inst-2", "apns_token": "\#(Self.token(32))"}"#,
            headers: auth)
        try server.request(
            "POST", "/register-apns", json: #"{"device_token": "not-subscribed", "apns_token": "\#(Self.token(33))"}"#,
            headers: auth)

        let long = String(repeating: "word ", count: 60)
        let trigger = try server.request(
            "POST", "/triggerReplyFinished",
            json:
                #"{"cwd": "\#(cwd)", "conversation_id": "c-9", "message_preview": "\#(long)", "finished_at": "2026-11-23T12:00:00Z"}"#,
            headers: auth)
        let agent = try sha256Hex(cwd)
        #expect(
            trigger.status == 200
                && trigger.json as NSDictionary? == [
                    "status": "sent", "agent": agent, "devices_notified": 1, "delivered_to": ["inst-1"],
                ])
        let record = try #require(emulator.waitForRecords(1).first)
        #expect(record["device_token"] as? String == Self.token(31))
        #expect(record["collapse_id"] as? String == agent)
        let payload = try #require(record["payload"] as? [String: Any])
        let alert = try #require((payload["aps"] as? [String: Any])?["alert"] as? [String: Any])
        #expect(alert["title"] as? String == "Helper")
        #expect((alert["body"] as? String)?.count == 103 && (alert["body"] as? String)?.hasSuffix("...") == true)
        #expect(payload["type"] as? String == "reply_finished" && payload["cwd"] as? String == cwd)
        #expect(payload["server_key"] == nil, "a 16-character secret's hash is not sent (ServeAuthHardeningTests)")
        #expect(payload["conversation_id"] as? String == "c-9")

        let unnamed = try server.request(
            "POST", "/triggerReplyFinished", json: #"{"cwd": "/srv/unnamed-bot"}"#, headers: auth)
        #expect(unnamed.json?["devices_notified"] as? Int == 1)
        let second = try #require(emulator.waitForRecords(2).last)
        let secondAlert = ((second["payload"] as? [String: Any])?["aps"] as? [String: Any])?["alert"] as? NSDictionary
        #expect(secondAlert == ["title": "unnamed-bot", "body": "Reply ready"])

        let nobody = try server.request(
            "POST", "/triggerReplyFinished", json: #"{"cwd": "/nobody/listens"}"#, headers: auth)
        #expect(nobody.status == 200 && nobody.json?["devices_notified"] as? Int == 0)
        #expect(emulator.records().count == 2)
    }

    @Test("without a provider key the send routes answer 503 and registration still works")
    func sendingNotConfigured() throws {
        var env = environment()
        env["APNS_KEY_PATH"] = setup.directory.file("missing.p8")
        let server = try RunningServe(["--no-auth"], environment: env)
        #expect(server.stderr.contains("the notification routes will answer 503"))
        #expect(
            try server.request(
                "POST", "/register-apns", json: #"{"device_token": "d", "apns_token": "\#(Self.token(1))"}"#
            ).status == 200)
        let send = try server.request("POST", "/api/v1/notifications/send", json: #"{"title": "t"}"#)
        #expect(send.status == 503 && send.error?.contains("the provider key") == true, "\(send.body)")
        #expect(!send.body.contains("missing.p8") && !send.body.contains(setup.directory.path), "no path in the answer")
        let id = try #require(send.headers["x-request-id"])
        #expect(send.json?["request_id"] as? String == id && send.error?.contains(id) == true)
        #expect(server.stderr.contains("request \(id): POST /api/v1/notifications/send 503:"))
        #expect(
            server.stderr.contains("request \(id)") && server.stderr.contains("missing.p8"), "the log has the detail")

        // Health says sending is configured but broken; liveness is fine.
        let health = try server.request("GET", "/health")
        #expect(health.status == 503 && health.json?["status"] as? String == "unhealthy", "\(health.body)")
        #expect(health.error?.contains("provider key") == true && !health.body.contains("missing.p8"))
        #expect(try server.request("GET", "/health/live").status == 200)
    }

    // MARK: Durability and shutdown

    @Test(
        "100 concurrent registrations through the endpoint while register-apns adds and send-push prunes: nothing lost")
    func concurrentWriters() throws {
        let dead = (0..<10).map { Self.token(500 + $0) }
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = environment(emulator)
        for (n, token) in dead.enumerated() {
            try BuiltTool.run("register-apns", ["dead-\(n)", token], environment: env).expectSuccess()
            try unregister(token, at: emulator)
        }
        let server = try RunningServe(["--no-auth", "--rate-limit", "0"], environment: env)

        let cliWriters = try (0..<20).map { n in
            try BuiltTool.start("register-apns", ["cli-\(n)", Self.token(300 + n)], environment: env)
        }
        let pruner = try BuiltTool.start(
            "send-push",
            [
                "--title", "prune", "--device", "dead-0", "--device", "dead-1",
                "--device", "dead-2", "--device", "dead-3", "--device", "dead-4",
            ], environment: env)
        let pruner2 = try BuiltTool.start(
            "send-push",
            [
                "--title", "prune", "--device", "dead-5", "--device", "dead-6", "--device", "dead-7",
                "--device", "dead-8", "--device", "dead-9",
            ], environment: env)
        let script = """
            import json, sys, threading, urllib.request
            base, count = sys.argv[1], int(sys.argv[2])
            statuses = [None] * count
            barrier = threading.Barrier(count)
            def register(n):
                body = json.dumps({"device_token": "http-%d" % n, "apns_token": "%s%08x" % ("cd" * 28, 100 + n)}).encode()
                request = urllib.request.Request(base + "/register-apns", data=body, method="POST", headers={"Content-Type": "application/json"})
                barrier.wait()
                try:
                    with urllib.request.urlopen(request, timeout=60) as response:
                        statuses[n] = response.status
                except Exception as error:
                    statuses[n] = str(error)
            threads = [threading.Thread(target=register, args=(n,)) for n in range(count)]
            for thread in threads: thread.start()
            for thread in threads: thread.join()
            print(json.dumps(statuses))
            """
        let python = try BuiltTool.runSystem("python3", ["-c", script, server.baseURL, "100"])
        #expect(python.status == 0, "\(python.stderr)")
        let statuses = try #require(try JSONSerialization.jsonObject(with: Data(python.stdout.utf8)) as? [Any])
        #expect(statuses.count == 100 && statuses.allSatisfy { $0 as? Int == 200 }, "\(statuses)")
        for writer in cliWriters { try writer.wait().expectSuccess() }
        _ = try pruner.wait()
        _ = try pruner2.wait()

        let stored = try devices()
        for n in 0..<100 { #expect(stored["http-\(n)"]?["token"] as? String == Self.token(100 + n), "http-\(n) lost") }
        for n in 0..<20 { #expect(stored["cli-\(n)"]?["token"] as? String == Self.token(300 + n), "cli-\(n) lost") }
        #expect(stored.keys.filter { $0.hasPrefix("dead-") }.isEmpty, "send-push pruned every 410 device")
        #expect(stored.count == 120)

        let metrics = try server.request("GET", "/metrics").body
        let writes = try #require(metricValue(metrics, "pushkit_registry_writes_total"))
        #expect(writes <= 100, "100 registrations took \(writes) writes")
    }

    @Test("SIGTERM: requests in flight finish, then the server exits 0")
    func gracefulShutdown() throws {
        let emulator = try RunningEmulator(["--quiet", "--delay", "1500"], environment: setup.environment)
        let server = try RunningServe(["--no-auth"], environment: environment(emulator))
        try server.request("POST", "/register-apns", json: #"{"device_token": "d", "apns_token": "\#(Self.token(1))"}"#)
        let inFlight = try RunningTool(
            Process.curl([
                "-sS", "-X", "POST", "--max-time", "30", "--data-binary", #"{"title": "slow"}"#,
                server.baseURL + "/api/v1/notifications/send",
            ]), stdin: nil)
        // The send is in flight once the server has connected to the emulator (it does so for this request).
        let deadline = Date().addingTimeInterval(10)
        while !establishedConnection(toPort: emulator.port), Date() < deadline { usleep(10_000) }
        #expect(establishedConnection(toPort: emulator.port))
        #expect(server.process.isRunning)
        let status = server.terminate()
        #expect(status == 0, "\(server.stderr)")
        let answer = try inFlight.wait()
        #expect(answer.status == 0, "\(answer.stderr)")
        #expect(answer.stdout.contains("\"sent\":1"), "\(answer.stdout)")
        #expect(server.stderr.contains("POST /api/v1/notifications/send 200"))
        #expect(server.stderr.hasSuffix("register-apns serve: stopped\n"))
        let refused = try BuiltTool.runSystem("curl", ["-sS", "--max-time", "5", server.baseURL + "/health"])
        #expect(refused.status != 0, "no longer accepting")
    }

    @Test("HTTPS with --tls-cert/--tls-key")
    func tls() throws {
        let (certificate, key) = try setup.directory.selfSignedCertificate()
        let server = try RunningServe(
            ["--no-auth", "--tls-cert", certificate, "--tls-key", key], environment: environment())
        #expect(server.scheme == "https")
        let health = try server.request("GET", "/health", caFile: certificate)
        #expect(health.status == 200 && health.json as NSDictionary? == ["status": "healthy"])
        let unverified = try BuiltTool.runSystem("curl", ["-sS", "--max-time", "5", server.baseURL + "/health"])
        #expect(unverified.status == 60, "curl refuses the self-signed certificate without --cacert")
    }

    @Test("register-apns serve without register-apns-serve beside it or on PATH exits 69 with a hint")
    func missingCompanion() throws {
        let directory = try TemporaryDirectory()
        let copy = directory.file("register-apns")
        // register-apns is a link to the pushkit-free program: the copy is the program, named register-apns.
        try FileManager.default.copyItem(atPath: BuiltTool.path("pushkit-free"), toPath: copy)
        let result = try BuiltTool.runSystem("/usr/bin/env", ["PATH=/usr/bin:/bin", copy, "serve", "--help"])
        #expect(
            result.status == 69 && result.stderr.contains("register-apns-serve is not installed beside this program"))
        let help = try BuiltTool.run("register-apns", ["--help"])
        #expect(help.stdout.contains("serve"))
    }

    // MARK: OpenAPI

    @Test("every route's real responses match docs/openapi.yaml")
    func openAPIConformance() throws {
        let dead = Self.token(41)
        let emulator = try RunningEmulator(["--quiet", "--unregistered", dead], environment: setup.environment)
        let server = try RunningServe(
            ["--secret-file", try secretFile(), "--rate-limit", "13"], environment: environment(emulator))
        let auth = ["Authorization": "Bearer s3cret-for-tests"]
        var exchanges: [HTTPExchange] = []
        func call(_ method: String, _ path: String, _ json: String? = nil, headers: [String: String]? = nil) throws {
            exchanges.append(try server.request(method, path, json: json, headers: headers ?? auth))
        }
        try call("GET", "/health", headers: [:])
        try call("HEAD", "/health", headers: [:])
        try call("GET", "/health/live", headers: [:])
        try call("HEAD", "/health/live", headers: [:])
        try call("POST", "/register-apns", #"{"device_token": "phone", "apns_token": "\#(Self.token(40))"}"#)
        try call("POST", "/register-apns?device_token=by-query&apns_token=\(Self.token(45))")
        try call("POST", "/api/v1/devices/register", #"{"device_token": "\#(dead)", "device_name": "Old"}"#)
        try call(
            "POST", "/hooks/ios-device",
            #"{"action": "register", "device_token": "w", "apns_token": "\#(Self.token(42))"}"#)
        try call(
            "POST", "/registerSubscription",
            #"{"cwd": "/a", "installation_id": "phone", "apns_token": "\#(Self.token(40))", "agent_display_name": "A"}"#
        )
        try call(
            "POST", "/registerSubscription",
            #"{"cwd": "/b", "installation_id": "proxy", "fcm_token": "\#(Self.token(46))"}"#)
        try call(
            "POST", "/registerSubscription", #"{"cwd": "/b", "installation_id": "proxy", "fcm_token": "eXk3:APA91b"}"#)
        // FCM devices, answered and listed with their transport; removed before the sends below.
        try call("POST", "/api/v1/devices/register", #"{"device_token": "\#(fcmTokenText(47))", "transport": "fcm"}"#)
        try call(
            "POST", "/registerSubscription",
            #"{"cwd": "/b", "installation_id": "proxy-fcm", "fcm_token": "\#(fcmTokenText(48))"}"#)
        try call(
            "POST", "/register-apns", #"{"device_token": "x", "apns_token": "\#(Self.token(49))", "transport": "fcm"}"#)
        try call("GET", "/api/v1/devices")
        try call("HEAD", "/api/v1/devices")
        try call("DELETE", "/api/v1/devices/" + fcmTokenText(47))
        try call("DELETE", "/api/v1/devices/proxy-fcm")
        // Bark to the 410 device: APNs takes it for no device (502), and it is pruned.
        let deadID = "apns-" + String(try sha256Hex(dead).prefix(16))
        exchanges.append(
            try server.request(
                "POST", "/push", json: #"{"device_key": "\#(deadID)", "body": "b"}"#,
                headers: ["Authorization": "Basic " + Data("any:s3cret-for-tests".utf8).base64EncodedString()]))
        #expect(
            exchanges.last?.status == 502 && exchanges.last?.json?["code"] as? Int == 502,
            "\(exchanges.last?.body ?? "")")
        try call("POST", "/api/v1/notifications/send", #"{"title": "t", "body": "b"}"#)
        try call("POST", "/api/v1/notifications/send/phone", #"{"title": "t"}"#)
        try call("POST", "/hooks/ios-notify", #"{"message": "m"}"#)
        try call("POST", "/triggerReplyFinished", #"{"cwd": "/a", "message_preview": "p"}"#)
        // ntfy and Bark, to the device "phone" (and Basic with the secret as the password).
        let basic = ["Authorization": "Basic " + Data("any:s3cret-for-tests".utf8).base64EncodedString()]
        func send(_ method: String, _ path: String, _ body: String?, _ headers: [String: String]) throws {
            exchanges.append(
                try server.request(
                    method, path, body: body.map { Data($0.utf8) }, headers: headers.merging(basic) { $1 }))
        }
        try send("POST", "/phone", "hello", ["X-Title": "ntfy", "X-Priority": "high", "X-Tags": "tada,ci"])
        try send("PUT", "/phone?title=t&priority=min&click=https://example.com", "", [:])
        try send("POST", "/", #"{"topic": "phone", "message": "m", "priority": 2, "tags": ["x"]}"#, [:])
        try send("PUT", "/", #"{"topic": "phone", "title": "t"}"#, [:])
        try send("POST", "/push", #"{"device_key": "phone", "title": "t", "body": "b", "level": "passive"}"#, [:])
        for path in ["/phone/b", "/phone/t/b", "/phone/t/s/b"] {
            try send("GET", path + "?group=g&badge=1&id=c", nil, [:])
            try send("HEAD", path, nil, [:])
            try send("POST", path, "url=https%3A%2F%2Fexample.com&sound=minuet", [:])
        }
        try send("POST", "/nobody", "x", [:])
        try send("POST", "/phone", "x", ["Delay": "10m"])
        // ntfy's sequence ids: publish with one (header, path), clear, read, delete; a bad one.
        try send("POST", "/phone?title=t", "started", ["X-Sequence-ID": "job-1"])
        try send("PUT", "/phone/job-1", "finished", ["X-Priority": "4"])
        try send("PUT", "/phone/job-1/clear", nil, [:])
        try send("PUT", "/phone/job-1/read", nil, [:])
        try send("DELETE", "/phone/job-1", nil, [:])
        #expect(exchanges.last?.status == 200 && exchanges.last?.json?["event"] as? String == "message_delete")
        try send("PUT", "/phone/a.b", "x", [:])
        #expect(exchanges.last?.status == 400, "\(exchanges.last?.body ?? "")")
        try send("DELETE", "/nobody/job-1", nil, [:])
        try send("POST", "/push", #"{"device_key": "phone", "delete": 1, "id": "c"}"#, [:])
        try send("GET", "/phone/b?delete=1", nil, [:])
        #expect(exchanges.last?.status == 400, "\(exchanges.last?.body ?? "")")
        // Taking a notification back natively.
        try call("POST", "/v1/withdraw", #"{"id": "build-42", "device": "phone"}"#)
        #expect(exchanges.last?.status == 200, "\(exchanges.last?.body ?? "")")
        try call("POST", "/v1/withdraw", #"{"id": "build-42", "title": "t"}"#)
        try call("POST", "/v1/withdraw", #"{"id": "build-42", "device": "nosuch"}"#)
        try call("POST", "/v1/withdraw", #"{"id": "build-42"}"#, headers: [:])
        exchanges.append(
            try server.request("POST", "/push", json: #"{"device_key": "phone", "body": "b"}"#, headers: [:]))
        // Questions, asked of "phone" and answered with the token its push carried (no secret).
        func answerToken(_ id: String) throws -> String {
            let members = emulator.records().filter { $0["collapse_id"] as? String == "pushkit-q-\(id)" }
                .compactMap { ($0["payload"] as? [String: Any])?["pushkit"] as? [String: Any] }
            // The question's push, not the notice that replaced it.
            return try #require(members.compactMap { $0["answer_token"] as? String }.last)
        }
        let choices = #""choices": [{"id": "yes", "title": "Yes", "destructive": true}], "device": "phone""#
        try call("POST", "/v1/questions", #"{"title": "Deploy?", \#(choices), "timeout": 3600, "urgency": "high"}"#)
        let asked = try #require(exchanges.last?.json?["id"] as? String, "\(exchanges.last?.body ?? "")")
        try call("GET", "/v1/questions/\(asked)?wait=0")
        try call("HEAD", "/v1/questions/\(asked)")
        let token = try answerToken(asked)
        try call("POST", "/v1/questions/\(asked)/answer", #"{"token": "forged", "choice": "yes"}"#, headers: [:])
        try call("POST", "/v1/questions/\(asked)/answer", #"{"token": "\#(token)", "choice": "no"}"#, headers: [:])
        try call("POST", "/v1/questions/\(asked)/answer", #"{"token": "\#(token)", "choice": "yes"}"#, headers: [:])
        try call("POST", "/v1/questions/\(asked)/answer", #"{"token": "\#(token)", "choice": "yes"}"#, headers: [:])
        try call("GET", "/v1/questions/\(asked)?wait=1")
        try call("DELETE", "/v1/questions/\(asked)")
        try call(
            "POST", "/v1/questions", #"{"title": "Commit message?", "reply": {"button": "Send"}, "device": "phone"}"#)
        let typed = try #require(exchanges.last?.json?["id"] as? String, "\(exchanges.last?.body ?? "")")
        try call("DELETE", "/v1/questions/\(typed)")
        try call(
            "POST", "/v1/questions/\(typed)/answer", #"{"token": "\#(try answerToken(typed))", "text": "late"}"#,
            headers: [:])
        try call("GET", "/v1/questions/" + String(repeating: "0f", count: 16))
        try call("POST", "/v1/questions", #"{"title": "", \#(choices)}"#)
        try call("POST", "/hooks/ios-device", #"{"action": "unregister", "device_token": "w"}"#)
        try call("DELETE", "/api/v1/devices/" + Self.token(40))
        try call("GET", "/metrics")
        try call("GET", "/metrics", headers: [:])
        try call("HEAD", "/metrics", headers: [:])
        // Refusals.
        try call("POST", "/register-apns", #"{"device_token": "x", "apns_token": "\#(Self.token(43))"}"#, headers: [:])
        try call("POST", "/register-apns", "nope")
        try call("POST", "/api/v1/devices/register", #"{"device_token": "12"}"#)
        try call("POST", "/register-apns", String(repeating: " ", count: 5000))
        try call("DELETE", "/api/v1/devices/" + Self.token(40))
        try call("POST", "/api/v1/notifications/send/none", #"{"title": "t"}"#)
        try call("GET", "/register-apns")
        try call("DELETE", "/api/v1/devices/register")
        #expect(
            exchanges.last?.status == 405 && exchanges.last?.headers["allow"] == "POST",
            "a literal path is never a {token}")
        try call("POST", "/hooks/ios-notify", #"{"title": "\#(String(repeating: "t", count: 4070))"}"#)
        #expect(
            exchanges.last?.status == 413 && exchanges.last?.error?.contains("4096-byte limit") == true,
            "over APNs' payload limit")
        try call("GET", "/nowhere")
        // The allowance is spent, but requests come back meanwhile (one every 60/13 s), as many as
        // the time the calls above took, which a loaded machine stretches: more are sent until one
        // is refused, at most the whole allowance (13) and one more, which no refill outpaces.
        for _ in 0..<(13 + 1) {
            try call("POST", "/register-apns", #"{"device_token": "y", "apns_token": "\#(Self.token(44))"}"#)
            if exchanges.last?.status == 429 { break }
        }
        #expect(exchanges.last?.status == 429)
        // The Ember gateway's HTTP messages (the registration allowance is spent: device_token is 429).
        try call("POST", "/gateway/messages", #"{"type": "register", "client": "ember-ios", "version": "1.4"}"#)
        try call("POST", "/gateway/messages", #"{"type": "ping"}"#)
        try call("POST", "/gateway/messages", #"{"type": "inbox_list"}"#)
        try call("POST", "/gateway/messages", #"{"type": "device_token", "token": "\#(Self.token(47))"}"#)
        #expect(exchanges.last?.status == 429)
        try call("GET", "/gateway/ws")
        try call("HEAD", "/gateway/ws")
        try call("GET", "/gateway/ws", headers: [:])
        try call("GET", "/")
        try call("HEAD", "/")
        try call("GET", "/", headers: [:])
        // The agent tools over MCP: requests, a notification (202), a body that is no JSON-RPC message, GET.
        try call("POST", "/mcp", #"{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}"#)
        try call(
            "POST", "/mcp",
            #"{"jsonrpc": "2.0", "id": "c", "method": "tools/call", "params": {"name": "list_devices", "arguments": {}}}"#
        )
        try call("POST", "/mcp", #"{"jsonrpc": "2.0", "method": "notifications/initialized"}"#)
        #expect(exchanges.last?.status == 202)
        try call("POST", "/mcp", #"{"jsonrpc": "1.0", "id": 3, "method": "ping"}"#)
        #expect(exchanges.last?.status == 400)
        try call("GET", "/mcp")
        // A corrupt state file: 500 and an unhealthy /health.
        try Data("{".utf8).write(to: URL(fileURLWithPath: stateFile))
        try call("GET", "/api/v1/devices")
        try call("HEAD", "/api/v1/devices")
        try call("GET", "/health", headers: [:])
        try call("HEAD", "/health", headers: [:])
        #expect(
            Set(exchanges.map(\.status)) == [
                200, 201, 202, 400, 401, 403, 404, 405, 409, 410, 413, 422, 426, 429, 500, 502, 503,
            ])

        let file = setup.directory.file("exchanges.jsonl")
        let lines = try exchanges.map {
            String(
                decoding: try JSONSerialization.data(withJSONObject: $0.record, options: [.sortedKeys]), as: UTF8.self)
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let root = RepositoryFiles.root
        let check = try BuiltTool.runSystem(
            "python3", [root + "/Tests/Tools/check_openapi.py", root + "/docs/openapi.yaml", file, "--require-all"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("checked \(exchanges.count) exchanges"))
    }
}

/// The value of an unlabelled Prometheus metric line `name value`.
func metricValue(_ exposition: String, _ name: String) -> Double? {
    for line in exposition.split(separator: "\n") where line.hasPrefix(name + " ") {
        return Double(line.dropFirst(name.count + 1))
    }
    return nil
}

/// Whether a TCP connection to `port` on this machine is established (read from /proc/net/tcp).
func establishedConnection(toPort port: Int) -> Bool {
    // Read to the end: procfs files report a size of 0.
    let table = String(
        decoding: FileHandle(forReadingAtPath: "/proc/net/tcp")?.readDataToEndOfFile() ?? Data(), as: UTF8.self)
    let remote = String(format: ":%04X", port)
    return table.split(separator: "\n").dropFirst().contains { line in
        let columns = line.split(separator: " ")
        return columns.count > 3 && columns[2].hasSuffix(remote) && columns[3] == "01"
    }
}

extension Process {
    /// A `curl` process with `arguments`.
    static func curl(_ arguments: [String]) -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["curl"] + arguments
        return process
    }
}
