import Foundation
import Testing

/// FCM registration tokens as devices on every way in and out of the built tools: `register-apns
/// add`, `list` and `remove`, a state file edited by hand, and each registration route of
/// `register-apns serve`. The state file is checked with `JSONSerialization`, not with the code
/// under test.
@Suite("FCM devices end to end")
struct FCMDevicesEndToEndTests {
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

    @discardableResult
    func tool(_ arguments: String..., stdin: Data? = nil) throws -> ToolResult {
        try BuiltTool.run("register-apns", arguments, environment: environment, stdin: stdin)
    }

    func devices() throws -> [String: [String: Any]] { try stateFileDevices(stateFile) }

    func stateBytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: stateFile)) }

    // MARK: register-apns

    @Test("add takes an FCM token by its shape or by --transport fcm; list shows its transport; remove by token")
    func addListRemove() throws {
        let fcm = fcmTokenText(1)
        let added = try tool("pixel", fcm, "--name", "Pixel 8")
        added.expectSuccess()
        #expect(added.stdout == "added pixel: token \(maskedToken(fcm)) (fcm)\n")
        try tool("add", "tablet", fcmTokenText(2), "--transport", "fcm").expectSuccess()
        try tool("phone", hexToken(3), "--transport", "apns", "--sandbox").expectSuccess()

        let stored = try devices()
        #expect(stored["pixel"]?["token"] as? String == fcm, "kept as given, case and all")
        #expect(stored["pixel"]?["transport"] as? String == "fcm" && stored["pixel"]?["environment"] is NSNull)
        #expect(stored["tablet"]?["transport"] as? String == "fcm")
        #expect(stored["phone"]?["transport"] == nil, "an APNs record is written as before")

        let table = try tool("list")
        table.expectSuccess()
        let lines = table.stdout.split(separator: "\n").map {
            $0.split(separator: " ", omittingEmptySubsequences: true)
        }
        #expect(lines[0].prefix(5) == ["DEVICE", "ID", "TOKEN", "TRANSPORT", "ENVIRONMENT"], "\(table.stdout)")
        #expect(lines[1].prefix(4) == ["phone", maskedToken(hexToken(3))[...], "apns", "sandbox"])
        #expect(lines[2].prefix(4) == ["pixel", maskedToken(fcm)[...], "fcm", "-"])
        #expect(!table.stdout.contains(fcm), "tables mask FCM tokens too")

        let json = try tool("list", "--json")
        json.expectSuccess()
        let listed = jsonLines(json.stdout)
        #expect(listed.map { $0["transport"] as? String } == ["apns", "fcm", "fcm"])
        #expect(listed[1]["token"] as? String == fcm)
        // list --json imports back: the FCM devices as FCM devices, the APNs record as the file had it.
        let copy = setup.directory.file("state/copy.json")
        try BuiltTool.run(
            "register-apns", ["import", "-", "--state-file", copy], environment: environment,
            stdin: Data(json.stdout.utf8)
        ).expectSuccess()
        let copied = try stateFileDevices(copy)
        #expect(copied["pixel"]?["transport"] as? String == "fcm" && copied["phone"]?["transport"] == nil)
        #expect(copied["tablet"]?["token"] as? String == fcmTokenText(2))

        let removed = try tool("remove", fcm)
        removed.expectSuccess()
        #expect(removed.stdout == "removed pixel: token \(maskedToken(fcm))\n")
        #expect(Set(try devices().keys) == ["phone", "tablet"])
    }

    @Test(
        "a token of another transport than stated, or with a push-to-start token, exits 65 with nothing written",
        arguments: [
            (
                ["add", "a", fcmTokenText(1), "--transport", "apns"], nil as String?,
                "--transport is apns, but the token is an FCM registration token"
            ),
            (
                ["add", "a", hexToken(1), "--transport", "fcm"], nil,
                "--transport is fcm, but the token is an APNs device token"
            ),
            (["add", "a", "x:" + hexToken(1)], nil, "registration token has 66 characters; expected 100 to 4096"),
            (
                ["add", "a", fcmTokenText(1), "--push-to-start-token", hexToken(2)], nil,
                "a push-to-start token is for Live Activities, which only APNs starts"
            ),
            (
                ["add", "--from-json", "-"],
                #"{"device_token": "a", "apns_token": "\#(fcmTokenText(1))", "transport": "apns"}"#,
                "\"transport\" is apns, but the token is an FCM registration token"
            ),
            (
                ["add", "--from-json", "-", "--transport", "apns"], #"{"device_token": "\#(fcmTokenText(1))"}"#,
                "--transport is apns, but the token is an FCM registration token"
            ),
        ])
    func mismatchRefused(arguments: [String], stdin: String?, message: String) throws {
        try tool("existing", hexToken(9)).expectSuccess()
        let before = try stateBytes()
        let result = try BuiltTool.run(
            "register-apns", arguments, environment: environment, stdin: stdin.map { Data($0.utf8) })
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("register-apns: ") && result.stderr.contains(message), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(try stateBytes() == before)
    }

    @Test(
        "an APNs environment with an FCM token is a usage error (64), nothing created",
        arguments: [
            ["add", "a", fcmTokenText(1), "--sandbox"], ["add", "a", fcmTokenText(1), "--environment", "production"],
            ["add", "a", hexToken(1), "--transport", "fcm", "--production"],
        ])
    func environmentIsUsage(arguments: [String]) throws {
        let result = try BuiltTool.run("register-apns", arguments, environment: environment)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains("an FCM registration token has none"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: stateFile))
    }

    @Test("a record whose \"transport\" disagrees with its token is flagged, kept byte for byte, and sent nothing")
    func mismatchingStateFile() throws {
        let wrong = #"{"token": "\#(hexToken(1))", "transport": "fcm", "groups": ["family"]}"#
        let good = #"{"token": "\#(fcmTokenText(2))", "transport": "fcm"}"#
        let text = "{\"version\": 1, \"devices\": {\n  \"bad\": \(wrong),\n  \"pixel\": \(good)\n}}\n"
        try FileManager.default.createDirectory(
            atPath: setup.directory.file("state"), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: stateFile))

        let table = try tool("list")
        table.expectSuccess()
        #expect(table.stdout.contains("UNREADABLE") && table.stdout.contains("\"transport\" is fcm, but the token is"))
        #expect(
            table.stderr.contains("device \"bad\" in \(stateFile) cannot be used: \"transport\" is fcm"),
            "\(table.stderr)")
        let json = jsonLines(try tool("list", "--json").stdout)
        #expect(json.map { $0["device_id"] as? String } == ["pixel"])

        try tool("tablet", fcmTokenText(3)).expectSuccess()
        #expect(String(decoding: try stateBytes(), as: UTF8.self).contains("\"bad\": \(wrong)"), "kept as it was")
    }

    @Test("send-push --dry-run shows an FCM device's request as FCM is sent, its token masked, beside APNs ones")
    func dryRun() throws {
        let fcm = fcmTokenText(1)
        try tool("pixel", fcm).expectSuccess()
        try tool("phone", hexToken(2), "--sandbox").expectSuccess()
        var env = environment
        env["FCM_URL"] = "https://fcm.example.test"
        let text = try BuiltTool.run("send-push", ["--body", "hi", "--dry-run"], environment: env)
        text.expectSuccess()
        #expect(
            text.stdout.contains(
                "POST https://fcm.example.test/v1/projects/<project id>/messages:send  (device pixel, fcm)\n"
                    + "authorization: Bearer <access token>\n"), "\(text.stdout)")
        #expect(text.stdout.contains(#""notification":{"body":"hi"},"token":"\#(maskedToken(fcm))""#))
        #expect(!text.stdout.contains(fcm), "the registration token is masked")
        #expect(
            text.stdout.contains("(device phone, sandbox)") && text.stdout.hasSuffix("dry run: 2 requests not sent\n"))

        let json = try BuiltTool.run("send-push", ["--body", "hi", "--dry-run", "--json"], environment: env)
        json.expectSuccess()
        let lines = jsonLines(json.stdout)
        #expect(lines.map { $0["transport"] as? String } == ["apns", "fcm"])
        #expect(lines[1]["environment"] is NSNull && lines[1]["token"] as? String == maskedToken(fcm))
        let message = (lines[1]["payload"] as? [String: Any])?["message"] as? [String: Any]
        #expect(message?["token"] as? String == maskedToken(fcm), "\(json.stdout)")
    }

    // MARK: register-apns serve

    @Test("every registration route takes an FCM token: stored as FCM, no environment, listed with its transport")
    func serveRoutes() throws {
        let secret = "s3cret-for-tests"
        let server = try RunningServe(
            ["--secret-file", try setup.directory.write("secret", secret + "\n")], environment: environment)
        let auth = ["Authorization": "Bearer \(secret)"]
        func post(_ path: String, _ json: String? = nil) throws -> HTTPExchange {
            try server.request("POST", path, json: json, headers: auth)
        }

        #expect(
            try post("/register-apns", #"{"device_token": "p1", "apns_token": "\#(fcmTokenText(1))"}"#).status == 200)
        #expect(try post("/register-apns?device_token=p2&apns_token=\(fcmTokenText(2))").status == 200)
        let openClaw = try post(
            "/api/v1/devices/register",
            #"{"device_token": "\#(fcmTokenText(3))", "environment": "sandbox", "transport": "fcm"}"#)
        #expect(openClaw.status == 200, "\(openClaw.body)")
        let derived = "fcm-" + String(try sha256Hex(fcmTokenText(3)).prefix(16))
        let device = try #require(openClaw.json?["device"] as? [String: Any])
        #expect(device["device_id"] as? String == derived && device["transport"] as? String == "fcm")
        #expect(device["environment"] is NSNull, "an FCM token's environment hint is ignored")
        #expect(
            try post(
                "/hooks/ios-device",
                #"{"action": "register", "device_token": "p4", "apns_token": "\#(fcmTokenText(4))"}"#
            ).status == 200)
        let gateway = try post(
            "/gateway/messages", #"{"type": "device_token", "token": "\#(fcmTokenText(5))", "platform": "android"}"#)
        #expect(gateway.json?["type"] as? String == "device_token_confirmed", "\(gateway.body)")
        let briefing = try post(
            "/gateway/messages",
            #"{"type": "briefing_config", "token": "\#(fcmTokenText(5))", "time": "07:00", "timezone": "Europe/Berlin"}"#
        )
        #expect(briefing.json?["type"] as? String == "ack", "a briefing_config names an FCM device by its token")
        let subscribed = try post(
            "/registerSubscription",
            #"{"cwd": "/srv/chat", "installation_id": "p6", "fcm_token": "\#(fcmTokenText(6))", "environment": "sandbox"}"#
        )
        #expect(subscribed.status == 200 && subscribed.json?["status"] as? String == "subscribed", "\(subscribed.body)")

        let stored = try devices()
        let gatewayID = "fcm-" + String(try sha256Hex(fcmTokenText(5)).prefix(16))
        for (id, n) in [("p1", 1), ("p2", 2), (derived, 3), ("p4", 4), (gatewayID, 5), ("p6", 6)] {
            #expect(stored[id]?["token"] as? String == fcmTokenText(n), "\(id)")
            #expect(stored[id]?["transport"] as? String == "fcm", "\(id)")
            #expect(stored[id]?["environment"] is NSNull, "\(id)")
        }
        #expect((stored[gatewayID]?["briefing"] as? [String: Any])?["time"] as? String == "07:00")
        let list = try server.request("GET", "/api/v1/devices", headers: auth)
        let entries = try #require(list.json?["devices"] as? [[String: Any]])
        #expect(entries.count == 6 && entries.allSatisfy { $0["transport"] as? String == "fcm" })
        #expect(!list.body.contains(fcmTokenText(1)), "tokens masked")

        let deleted = try server.request("DELETE", "/api/v1/devices/" + fcmTokenText(1), headers: auth)
        let remaining = try devices()
        #expect(deleted.status == 200 && remaining["p1"] == nil, "\(deleted.body)")
    }

    @Test("a body whose \"transport\" the token contradicts is a 422 naming the member; nothing is written")
    func serveMismatch() throws {
        let server = try RunningServe(["--no-auth"], environment: environment)
        #expect(
            try server.request(
                "POST", "/register-apns", json: #"{"device_token": "x", "apns_token": "\#(hexToken(1))"}"#
            ).status == 200)
        let before = try stateBytes()
        for (path, json) in [
            ("/register-apns", #"{"device_token": "a", "apns_token": "\#(fcmTokenText(1))", "transport": "apns"}"#),
            ("/api/v1/devices/register", #"{"device_token": "\#(hexToken(2))", "transport": "fcm"}"#),
            (
                "/registerSubscription",
                #"{"cwd": "/a", "installation_id": "b", "fcm_token": "\#(hexToken(2))", "transport": "fcm"}"#
            ),
        ] {
            let refused = try server.request("POST", path, json: json)
            #expect(refused.status == 422, "\(path): \(refused.body)")
            #expect(refused.error?.contains("\"transport\" is ") == true, "\(path): \(refused.body)")
        }
        let startToken = try server.request(
            "POST", "/register-apns",
            json:
                #"{"device_token": "c", "apns_token": "\#(fcmTokenText(3))", "push_to_start_token": "\#(hexToken(4))"}"#
        )
        #expect(
            startToken.status == 422 && startToken.error?.contains("only APNs starts") == true, "\(startToken.body)")
        #expect(try stateBytes() == before)
    }
}
