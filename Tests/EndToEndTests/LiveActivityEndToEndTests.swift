import Foundation
import Testing

/// `send-push --live-activity` and push-to-start tokens (`register-apns add --push-to-start-token`)
/// against the real `apns-emulator`: built binaries, HTTP/2 over TLS, real files.
@Suite("Live Activities end to end")
struct LiveActivityEndToEndTests: ClientToolSuite {
    let setup: ProviderSetup
    let devicesFile: String

    init() throws {
        setup = try ProviderSetup()
        devicesFile = setup.directory.file("devices.json")
    }

    static func deviceToken(_ n: Int) -> String { hexToken(n, filler: "ab") }
    static func startToken(_ n: Int) -> String { hexToken(n, filler: "5e") }
    static func updateToken(_ n: Int) -> String { hexToken(n, filler: "0d") }

    static let startFlags = [
        "--live-activity", "start", "--attributes-type", "BuildAttributes", "--attributes", #"{"project":"pushkit"}"#,
        "--content-state", #"{"progress":0}"#,
    ]

    var clientSettings: [String: String] { ["APNS_STATE_FILE": devicesFile] }

    func registry() throws -> [String: [String: Any]] {
        try stateFileDevices(devicesFile)
    }

    func aps(_ record: [String: Any]) -> [String: Any] {
        (record["payload"] as? [String: Any])?["aps"] as? [String: Any] ?? [:]
    }

    // MARK: Sending

    @Test("start with no --token goes to each device's push-to-start token; devices without one are named and skipped")
    func startToPushToStartToken() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register(["phone", Self.deviceToken(1), "--push-to-start-token", Self.startToken(1)], env: env)
        try register(["laptop", Self.deviceToken(2)], env: env)

        let before = Int(Date().timeIntervalSince1970)
        let result = try BuiltTool.run(
            "send-push", Self.startFlags + ["--title", "Build", "--body", "started", "--stale-date", "1900000000"],
            environment: env)
        let after = Int(Date().timeIntervalSince1970)
        result.expectSuccess()
        #expect(
            result.stderr.contains("1 selected device has no push-to-start token and is not sent the start: laptop"))
        #expect(result.stderr.contains("1 delivered, 0 failed, 0 pruned"))

        let records = emulator.waitForRecords(1)
        #expect(records.count == 1)
        let record = try #require(records.first)
        #expect(record["status"] as? Int == 200)
        #expect(
            record["device_token"] as? String == Self.startToken(1),
            "the push-to-start token, not the device token, is the path's token")
        #expect(record["push_type"] as? String == "liveactivity")
        #expect(record["topic"] as? String == "com.example.app.push-type.liveactivity")
        #expect(record["priority"] as? Int == 10)
        var payload = aps(record)
        let timestamp = try #require(payload.removeValue(forKey: "timestamp") as? Int)
        #expect((before...after).contains(timestamp), "timestamp defaults to now in UNIX seconds")
        #expect(
            payload as NSDictionary == [
                "event": "start", "attributes-type": "BuildAttributes", "attributes": ["project": "pushkit"],
                "content-state": ["progress": 0], "stale-date": 1_900_000_000,
                "alert": ["title": "Build", "body": "started"],
            ] as NSDictionary)

        let phone = try #require(try registry()["phone"])
        #expect(phone["push_to_start_token"] as? String == Self.startToken(1))
        #expect(phone["last_delivered_at"] is String)
        #expect(phone["environment"] is NSNull, "a push-to-start answer does not record the device's environment")
    }

    @Test("start with --token goes to that token; update and end go to the activity's update token given with --token")
    func updateAndEnd() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register(["phone", Self.deviceToken(1), "--push-to-start-token", Self.startToken(1)], env: env)
        try BuiltTool.run(
            "send-push", Self.startFlags + ["--token", Self.startToken(5), "--timestamp", "1700000000"],
            environment: env
        ).expectSuccess()
        let started = try #require(emulator.waitForRecords(1).first)
        #expect(
            started["device_token"] as? String == Self.startToken(5),
            "--token bypasses the registry's push-to-start tokens")
        #expect(aps(started)["event"] as? String == "start" && aps(started)["timestamp"] as? Int == 1_700_000_000)
        try BuiltTool.run(
            "send-push",
            [
                "--live-activity", "update", "--token", Self.updateToken(1), "--content-state", #"{"progress":0.5}"#,
                "--timestamp", "1700000060", "--stale-date", "1700000900", "--priority", "5",
            ], environment: env
        ).expectSuccess()
        try BuiltTool.run(
            "send-push",
            [
                "--live-activity", "end", "--token", Self.updateToken(1), "--content-state", #"{"progress":1}"#,
                "--timestamp", "1700000120", "--dismissal-date", "1700003720", "--title", "Build", "--body", "done",
                "--sound", "chime.aiff",
            ], environment: env
        ).expectSuccess()
        let records = Array(emulator.waitForRecords(3).dropFirst())
        #expect(records.count == 2)
        #expect(records.map { $0["device_token"] as? String } == [Self.updateToken(1), Self.updateToken(1)])
        #expect(
            records.allSatisfy {
                $0["push_type"] as? String == "liveactivity"
                    && $0["topic"] as? String == "com.example.app.push-type.liveactivity"
            })
        #expect(records.first?["priority"] as? Int == 5)
        #expect(
            aps(records[0]) as NSDictionary == [
                "event": "update", "timestamp": 1_700_000_060, "content-state": ["progress": 0.5],
                "stale-date": 1_700_000_900,
            ] as NSDictionary)
        #expect(
            aps(records[1]) as NSDictionary == [
                "event": "end", "timestamp": 1_700_000_120, "content-state": ["progress": 1],
                "dismissal-date": 1_700_003_720,
                "alert": ["title": "Build", "body": "done", "sound": "chime.aiff"],
            ] as NSDictionary)
    }

    @Test(
        "refusals exit 65 (bad data) or 64 (usage) before anything is sent",
        arguments: [
            (
                ["--live-activity", "start", "--content-state", "{}"], 65,
                "--live-activity start needs --attributes-type and --attributes"
            ),
            (
                ["--live-activity", "start", "--content-state", "{}", "--attributes-type", "A"], 65,
                "--live-activity start needs --attributes ("
            ),
            (
                ["--live-activity", "start", "--attributes-type", "A", "--attributes", "{}"], 65,
                "--live-activity start needs --content-state"
            ),
            (
                ["--live-activity", "update", "--token", LiveActivityEndToEndTests.startToken(9)], 65,
                "--live-activity update needs --content-state"
            ),
            (
                ["--live-activity", "end", "--token", LiveActivityEndToEndTests.startToken(9), "--attributes", "{}"],
                65, "--live-activity end takes no --attributes"
            ),
            (
                [
                    "--live-activity", "update", "--token", LiveActivityEndToEndTests.startToken(9), "--content-state",
                    "{}", "--dismissal-date", "1",
                ], 65, "--dismissal-date is only for --live-activity end"
            ),
            (
                [
                    "--live-activity", "update", "--token", LiveActivityEndToEndTests.startToken(9), "--content-state",
                    #"{"progress":"#,
                ], 65, "--content-state is not valid JSON"
            ),
            (
                ["--live-activity", "start", "--content-state", "{}", "--attributes-type", "A", "--attributes", "[1]"],
                65, "--attributes must be a JSON object"
            ),
            (["--live-activity", "update", "--content-state", "{}"], 64, "--live-activity update needs --token"),
            (["--live-activity", "end", "--group", "family"], 64, "--live-activity end needs --token"),
            (["--live-activity", "start", "--push-type", "alert"], 64, "it cannot be combined with --push-type alert"),
            (
                ["--live-activity", "stop"], 64,
                "'stop' is invalid for '--live-activity <event>'. Please provide one of 'start', 'update' or 'end'"
            ),
            (
                ["--live-activity", "end", "--token", LiveActivityEndToEndTests.startToken(9), "--timestamp=-1"], 64,
                "--timestamp must be UNIX seconds (0 or more), not -1"
            ),
            (["--content-state", "{}", "--body", "hi"], 64, "--content-state belongs to a Live Activity push"),
        ] as [([String], Int32, String)])
    func refusals(arguments: [String], status: Int32, message: String) throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register(
            ["phone", Self.deviceToken(1), "--push-to-start-token", Self.startToken(1), "--group", "family"], env: env)
        let result = try BuiltTool.run("send-push", arguments, environment: env)
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        // The control request goes after the refused run on the same emulator: once its answer is in,
        // any push the run had sent would already be recorded.
        let control = try Curl.request(emulator.baseURL + "/emulator/status", method: "GET", cacert: emulator.caPath)
        #expect(control.status == 200)
        #expect(emulator.records().isEmpty, "nothing is sent")
    }

    @Test(
        "410 for a push-to-start token clears only that token (unless registered after the 410); the device keeps its device token"
    )
    func pushToStartUnregistered() throws {
        let unregisteredList = try setup.directory.write("unregistered.txt", "\(Self.startToken(3)) 1000\n")
        let emulator = try RunningEmulator(
            ["--quiet", "--unregistered-file", unregisteredList], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register(["gone", Self.deviceToken(1), "--push-to-start-token", Self.startToken(1)], env: env)
        try register(["fine", Self.deviceToken(2), "--push-to-start-token", Self.startToken(2)], env: env)
        // Registered long after 1970.
        try register(["back", Self.deviceToken(3), "--push-to-start-token", Self.startToken(3)], env: env)
        try BuiltTool.runSystem(
            "curl",
            [
                "-s", "--http2", "--cacert", emulator.caPath, "-X", "POST",
                emulator.baseURL + "/emulator/unregister/" + Self.startToken(1),
            ]
        ).expectSuccess()

        let result = try BuiltTool.run("send-push", Self.startFlags + ["--json"], environment: env)
        #expect(result.status == 0, "a 410 is handled, not a failure: \(result.stderr)")
        let byDevice = Dictionary(
            uniqueKeysWithValues: jsonLines(result.stdout).map { ($0["device"] as? String ?? "", $0) })
        #expect(
            byDevice["gone"]?["outcome"] as? String == "unregistered" && byDevice["gone"]?["pruned"] as? Bool == true)
        #expect(
            byDevice["back"]?["outcome"] as? String == "unregistered" && byDevice["back"]?["pruned"] as? Bool == false)
        #expect(byDevice["fine"]?["outcome"] as? String == "delivered")

        let devices = try registry()
        #expect(Set(devices.keys) == ["gone", "fine", "back"], "no device is removed for a push-to-start 410")
        #expect(devices["gone"]?["token"] as? String == Self.deviceToken(1))
        #expect(devices["gone"]?["push_to_start_token"] == nil)
        #expect(devices["back"]?["push_to_start_token"] as? String == Self.startToken(3))
        #expect(devices["fine"]?["push_to_start_token"] as? String == Self.startToken(2))

        let alert = try BuiltTool.run("send-push", ["--device", "gone", "--body", "still here"], environment: env)
        alert.expectSuccess()
        #expect(
            emulator.records().last?["device_token"] as? String == Self.deviceToken(1), "the device token still works")
    }

    @Test("no selected device has a push-to-start token: the usual no-devices handling")
    func noPushToStartTokens() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register(["laptop", Self.deviceToken(2)], env: env)
        let result = try BuiltTool.run("send-push", Self.startFlags, environment: env)
        #expect(result.status == 0)
        #expect(result.stderr.contains("no push-to-start token") && result.stderr.contains("no devices to send to"))
        let required = try BuiltTool.run("send-push", Self.startFlags + ["--require-device"], environment: env)
        #expect(required.status == 66)
        #expect(emulator.records().isEmpty)
    }

    // MARK: The registry

    @Test("register-apns stores, lists and keeps push-to-start tokens; bad ones change nothing")
    func registryRoundTrip() throws {
        var env = setup.environment
        env["APNS_STATE_FILE"] = devicesFile
        let added = try BuiltTool.run(
            "register-apns",
            ["add", "phone", Self.deviceToken(1), "--push-to-start-token", Self.startToken(1).uppercased()],
            environment: env)
        added.expectSuccess()
        #expect(added.stdout.contains("push-to-start 5e5e5e5e…0001"))
        try register(["phone", Self.deviceToken(1), "--name", "Ada"], env: env)
        #expect(
            try registry()["phone"]?["push_to_start_token"] as? String == Self.startToken(1),
            "kept when not given again")

        let body =
            #"{"device_token": "ipad", "apns_token": "\#(Self.deviceToken(2))", "push_to_start_token": "\#(Self.startToken(2))"}"#
        try BuiltTool.run("register-apns", ["add", "--from-json", "-"], environment: env, stdin: Data(body.utf8))
            .expectSuccess()
        let listed = try BuiltTool.run("register-apns", ["list", "--json"], environment: env)
        let lines = jsonLines(listed.stdout)
        #expect(lines.map { $0["push_to_start_token"] as? String } == [Self.startToken(2), Self.startToken(1)])
        let table = try BuiltTool.run("register-apns", ["list"], environment: env)
        #expect(
            table.stdout.contains("PUSH-TO-START") && table.stdout.contains("5e5e5e5e…0002")
                && !table.stdout.contains(Self.startToken(2)))

        let before = try Data(contentsOf: URL(fileURLWithPath: devicesFile))
        let bad = try BuiltTool.run(
            "register-apns", ["add", "phone", Self.deviceToken(1), "--push-to-start-token", "xyz"], environment: env)
        #expect(bad.status == 65 && bad.stderr.contains("--push-to-start-token: device token has \"x\" at position 1"))
        let mixed = try BuiltTool.run(
            "register-apns", ["add", "--from-json", "-", "--push-to-start-token", Self.startToken(3)], environment: env,
            stdin: Data(body.utf8))
        #expect(mixed.status == 64 && mixed.stderr.contains("\"push_to_start_token\""))
        #expect(try Data(contentsOf: URL(fileURLWithPath: devicesFile)) == before, "bad input changes nothing on disk")
    }

    // MARK: The example

    @Test("examples/live-activity.sh: a start to the push-to-start token, three updates, an end with a dismissal date")
    func exampleScript() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        try register(["phone", Self.deviceToken(1), "--push-to-start-token", Self.startToken(1)], env: env)
        env["PUSHKIT_BIN"] = BuiltTool.binDirectory
        env["STEP_SECONDS"] = "0"
        env["TASK_NAME"] = "nightly"
        env["PATH"] = "/usr/bin:/bin" // no send-push on it: the script must use PUSHKIT_BIN
        let script = RepositoryFiles.path("examples/live-activity.sh")
        let started = Int(Date().timeIntervalSince1970)
        let result = try BuiltTool.runSystem(
            "env", ["-i"] + env.map { "\($0.key)=\($0.value)" } + ["bash", script, Self.updateToken(1)])
        result.expectSuccess()

        let records = emulator.waitForRecords(5)
        #expect(records.count == 5)
        #expect(records.allSatisfy { $0["status"] as? Int == 200 && $0["push_type"] as? String == "liveactivity" })
        #expect(records.map { aps($0)["event"] as? String } == ["start", "update", "update", "update", "end"])
        #expect(
            records.map { $0["device_token"] as? String } == [Self.startToken(1)]
                + Array(repeating: Self.updateToken(1), count: 4))
        let states = records.map { aps($0)["content-state"] as? [String: Any] ?? [:] }
        #expect(states.map { $0["step"] as? String } == ["starting", "fetch", "compile", "test", "done"])
        #expect(states.map { $0["progress"] as? Double } == [0, 0.33, 0.67, 1, 1])
        let start = aps(records[0])
        #expect(start["attributes-type"] as? String == "TaskAttributes")
        #expect(start["attributes"] as? NSDictionary == ["name": "nightly"] as NSDictionary)
        #expect(start["alert"] as? NSDictionary == ["title": "nightly", "body": "started"] as NSDictionary)
        let end = aps(records[4])
        #expect((end["dismissal-date"] as? Int ?? 0) >= started + 900, "the end leaves the Lock Screen later")
        #expect(records.allSatisfy { (aps($0)["timestamp"] as? Int ?? 0) >= started })
    }
}
