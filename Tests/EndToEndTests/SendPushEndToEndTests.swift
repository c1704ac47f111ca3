import Foundation
import Testing

/// `send-push` against the real `apns-emulator`: built binaries, real HTTP/2 over TLS, real files.
@Suite("send-push end to end")
struct SendPushEndToEndTests: ClientToolSuite {
    let setup: ProviderSetup
    let devicesFile: String

    init() throws {
        setup = try ProviderSetup()
        devicesFile = setup.directory.file("devices.json")
    }

    var clientSettings: [String: String] { ["APNS_STATE_FILE": devicesFile] }

    func registry() throws -> [String: [String: Any]] {
        try stateFileDevices(devicesFile)
    }

    /// How many 200 answers each device token got, from the emulator's record.
    func deliveriesPerToken(_ emulator: RunningEmulator) -> [String: Int] {
        emulator.records().filter { $0["status"] as? Int == 200 }
            .reduce(into: [:]) { counts, record in counts[record["device_token"] as? String ?? "", default: 0] += 1 }
    }

    @Test("every flag reaches the headers and payload APNs receives")
    func flagsReachTheWire() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        let apnsID = "6f1c7a52-3c3e-4b8e-9a51-2f4c1d9e8b70"
        let result = try BuiltTool.run(
            "send-push",
            [
                "--token", hexToken(1, filler: "ab"), "--title", "T", "--subtitle", "S", "--body", "B", "--badge", "3",
                "--sound", "ping.caf",
                "--category", "REPLY", "--thread-id", "chat", "--mutable-content", "--interruption-level",
                "time-sensitive",
                "--relevance-score", "0.75", "--target-content-id", "room-1", "--data", #"{"message_id":"m1"}"#,
                "--data", #"{"n":2}"#,
                "--collapse-id", "c-1", "--apns-id", apnsID, "--expiration", "0", "--priority", "5",
            ], environment: env)
        result.expectSuccess()
        let record = try #require(emulator.waitForRecords(1).first)
        #expect(record["status"] as? Int == 200)
        #expect(record["topic"] as? String == "com.example.app")
        #expect(record["push_type"] as? String == "alert")
        #expect(record["priority"] as? Int == 5)
        #expect(record["collapse_id"] as? String == "c-1")
        #expect(record["apns_id"] as? String == apnsID)
        #expect(record["expiration"] as? Int == 0)
        let payload = try #require(record["payload"] as? NSDictionary)
        #expect(
            payload == [
                "aps": [
                    "alert": ["title": "T", "subtitle": "S", "body": "B"], "badge": 3, "sound": "ping.caf",
                    "category": "REPLY",
                    "thread-id": "chat", "mutable-content": 1, "interruption-level": "time-sensitive",
                    "relevance-score": 0.75,
                    "target-content-id": "room-1",
                ],
                "message_id": "m1", "n": 2,
            ] as NSDictionary)
        #expect(result.stdout.contains("delivered"))
        #expect(result.stdout.contains(apnsID))
    }

    @Test("push types add their topic suffix; background goes out at priority 5 with content-available only")
    func pushTypes() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try BuiltTool.run(
            "send-push", ["--token", hexToken(1, filler: "ab"), "--push-type", "voip", "--data", #"{"call":"x"}"#],
            environment: env
        ).expectSuccess()
        try BuiltTool.run(
            "send-push", ["--token", hexToken(1, filler: "ab"), "--push-type", "background"], environment: env
        ).expectSuccess()
        try BuiltTool.run(
            "send-push", ["--token", hexToken(1, filler: "ab"), "--push-type", "liveactivity", "--data", #"{"x":1}"#],
            environment: env
        ).expectSuccess()
        let records = emulator.waitForRecords(3)
        #expect(
            records.map { $0["topic"] as? String } == [
                "com.example.app.voip", "com.example.app", "com.example.app.push-type.liveactivity",
            ])
        #expect(records[1]["priority"] as? Int == 5)
        #expect((records[1]["payload"] as? NSDictionary) == ["aps": ["content-available": 1]] as NSDictionary)

        let refused = try BuiltTool.run(
            "send-push", ["--token", hexToken(1, filler: "ab"), "--push-type", "background", "--priority", "10"],
            environment: env)
        #expect(refused.status == 65)
        #expect(refused.stderr.contains("--priority 10 is not allowed for background notifications"))
        #expect(emulator.records().count == 3, "nothing is sent when the request is refused before sending")
    }

    @Test("the legacy form: MESSAGE_ID PREVIEW to every device, title from the config, preview cut at 100 characters")
    func legacyForm() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        env["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", #"{"title": "Sven", "use_sandbox": false}"#)
        try register("phone", hexToken(1, filler: "ab"), env: env)
        try register("ipad", hexToken(2, filler: "ab"), env: env)
        let preview = String(repeating: "é", count: 150)
        let result = try BuiltTool.run("send-push", ["msg-42", preview], environment: env)
        result.expectSuccess()
        let records = emulator.waitForRecords(2)
        #expect(
            Set(records.compactMap { $0["device_token"] as? String }) == [
                hexToken(1, filler: "ab"), hexToken(2, filler: "ab"),
            ])
        for record in records {
            #expect(
                (record["payload"] as? NSDictionary) == [
                    "aps": [
                        "alert": ["title": "Sven", "body": String(repeating: "é", count: 100) + "..."], "badge": 1,
                        "sound": "default",
                    ],
                    "message_id": "msg-42",
                ] as NSDictionary)
        }
        #expect(result.stderr.contains("2 delivered, 0 failed, 0 pruned"))
        let devices = try registry()
        #expect(devices["phone"]?["last_delivered_at"] is String)
        #expect(devices["phone"]?["environment"] as? String == "production")
    }

    @Test("the legacy form with --sandbox goes to the sandbox; --full shows whole tokens")
    func legacySandbox() throws {
        let production = try RunningEmulator(["--quiet"], environment: setup.environment)
        var sandboxEnv = setup.environment
        sandboxEnv["HOME"] = setup.directory.file("sandbox-home")
        let sandbox = try RunningEmulator(["--quiet", "--sandbox"], environment: sandboxEnv)
        var env = clientEnvironment(production, sandbox: sandbox)
        env["APNS_CA_FILE"] = sandbox.caPath
        try register("phone", hexToken(1, filler: "ab"), env: env)
        let result = try BuiltTool.run("send-push", ["m-1", "hello", "--sandbox", "--full"], environment: env)
        result.expectSuccess()
        #expect(result.stdout.contains(hexToken(1, filler: "ab")))
        #expect(sandbox.waitForRecords(1).first?["device_token"] as? String == hexToken(1, filler: "ab"))
        #expect(production.records().isEmpty)
    }

    @Test("--device and --group choose registered devices; the others get nothing")
    func selection() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register("phone", hexToken(1, filler: "ab"), ["--group", "family"], env: env)
        try register("ipad", hexToken(2, filler: "ab"), ["--group", "family", "--group", "kitchen"], env: env)
        try register("laptop", hexToken(3, filler: "ab"), env: env)
        try BuiltTool.run("send-push", ["--body", "a", "--device", "laptop"], environment: env).expectSuccess()
        try BuiltTool.run("send-push", ["--body", "b", "--group", "kitchen"], environment: env).expectSuccess()
        try BuiltTool.run("send-push", ["--body", "c", "--group", "family"], environment: env).expectSuccess()
        let sent = emulator.waitForRecords(4).map { record -> String in
            let body =
                ((record["payload"] as? [String: Any])?["aps"] as? [String: Any]).flatMap {
                    ($0["alert"] as? [String: Any])?["body"] as? String
                } ?? "?"
            return body + ":" + String((record["device_token"] as? String ?? "").suffix(1))
        }
        #expect(sent.sorted() == ["a:3", "b:2", "c:1", "c:2"])
    }

    @Test("410: the device is pruned; a device that registered again after the 410's timestamp is kept")
    func pruning() throws {
        let unregisteredList = try setup.directory.write("unregistered.txt", "\(hexToken(3, filler: "ab")) 1000\n")
        let emulator = try RunningEmulator(
            ["--quiet", "--unregistered-file", unregisteredList], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register("alive", hexToken(1, filler: "ab"), env: env)
        try register("dead", hexToken(2, filler: "ab"), env: env)
        try register("back", hexToken(3, filler: "ab"), env: env) // registered long after the 410 timestamp (1970)
        try BuiltTool.runSystem(
            "curl",
            [
                "-s", "--http2", "--cacert", emulator.caPath, "-X", "POST",
                emulator.baseURL + "/emulator/unregister/" + hexToken(2, filler: "ab"),
            ]
        ).expectSuccess()

        let result = try BuiltTool.run("send-push", ["--body", "hi", "--json"], environment: env)
        #expect(result.status == 0, "a 410 is handled, not a failure: \(result.stderr)")
        let lines = jsonLines(result.stdout)
        let byDevice = Dictionary(uniqueKeysWithValues: lines.map { ($0["device"] as? String ?? "", $0) })
        #expect(byDevice["alive"]?["outcome"] as? String == "delivered")
        #expect(byDevice["dead"]?["outcome"] as? String == "unregistered")
        #expect(byDevice["dead"]?["pruned"] as? Bool == true)
        #expect(byDevice["dead"]?["status"] as? Int == 410)
        #expect(byDevice["back"]?["outcome"] as? String == "unregistered")
        #expect(byDevice["back"]?["pruned"] as? Bool == false)
        #expect(Set(try registry().keys) == ["alive", "back"])
        for line in lines {
            #expect(
                Set(line.keys) == [
                    "device", "token", "environment", "outcome", "status", "reason", "apns_id", "attempts", "pruned",
                ])
            #expect((line["token"] as? String)?.contains("…") == true, "tokens are masked by default")
        }
    }

    @Test("BadDeviceToken with no recorded environment: the other environment is tried once and recorded")
    func environmentLearning() throws {
        let production = try RunningEmulator(
            [
                "--quiet", "--wrong-environment", hexToken(1, filler: "ab"), "--wrong-environment",
                hexToken(2, filler: "ab"),
                "--wrong-environment", hexToken(3, filler: "ab"),
            ], environment: setup.environment)
        var sandboxEnv = setup.environment
        sandboxEnv["HOME"] = setup.directory.file("sandbox-home") // its own CA directory
        let sandbox = try RunningEmulator(
            ["--quiet", "--sandbox", "--wrong-environment", hexToken(3, filler: "ab")], environment: sandboxEnv)
        var env = clientEnvironment(production, sandbox: sandbox)
        let bundle = setup.directory.file("ca-bundle.pem")
        try
            (String(contentsOfFile: production.caPath, encoding: .utf8)
            + String(contentsOfFile: sandbox.caPath, encoding: .utf8))
            .write(toFile: bundle, atomically: true, encoding: .utf8)
        env["APNS_CA_FILE"] = bundle
        try register("debug-build", hexToken(1, filler: "ab"), env: env)
        try register("pinned", hexToken(2, filler: "ab"), ["--environment", "production"], env: env)
        try register("nowhere", hexToken(3, filler: "ab"), env: env)

        let result = try BuiltTool.run("send-push", ["--body", "hi", "--json"], environment: env)
        #expect(result.status == 1)
        let byDevice = Dictionary(
            uniqueKeysWithValues: jsonLines(result.stdout).map { ($0["device"] as? String ?? "", $0) })
        #expect(byDevice["debug-build"]?["outcome"] as? String == "delivered")
        #expect(byDevice["debug-build"]?["environment"] as? String == "sandbox")
        #expect(byDevice["debug-build"]?["attempts"] as? Int == 2)
        #expect(byDevice["pinned"]?["outcome"] as? String == "rejected", "a recorded environment is not second-guessed")
        #expect(byDevice["pinned"]?["attempts"] as? Int == 1)
        #expect(byDevice["nowhere"]?["outcome"] as? String == "rejected")
        #expect(byDevice["nowhere"]?["reason"] as? String == "BadDeviceToken")
        let devices = try registry()
        #expect(devices["debug-build"]?["environment"] as? String == "sandbox")
        #expect(devices["pinned"]?["environment"] as? String == "production")
        #expect(
            devices["nowhere"] != nil && !(devices["nowhere"]?["environment"] is String), "both failed: left as it was")
    }

    @Test("500, 503 and 429 are retried with back-off until delivered")
    func retriesUntilDelivered() throws {
        for fault in ["2:500:InternalServerError", "1:503:ServiceUnavailable", "2:429:TooManyRequests"] {
            let emulator = try RunningEmulator(["--quiet", "--fail-first", fault], environment: setup.environment)
            let result = try BuiltTool.run(
                "send-push", ["--token", hexToken(1, filler: "ab"), "--body", "hi", "--json"],
                environment: clientEnvironment(emulator))
            result.expectSuccess()
            let line = try #require(jsonLines(result.stdout).first)
            #expect(line["outcome"] as? String == "delivered")
            #expect(line["attempts"] as? Int == Int(fault.prefix(1))! + 1, "fault \(fault)")
        }
    }

    @Test("only temporary failures left after the retries: exit 75, and the token stays registered")
    func temporaryFailuresExit75() throws {
        let emulator = try RunningEmulator(
            ["--quiet", "--fail-first", "10:503:ServiceUnavailable"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register("phone", hexToken(1, filler: "ab"), env: env)
        let result = try BuiltTool.run("send-push", ["--body", "hi", "--retries", "2", "--json"], environment: env)
        #expect(result.status == 75)
        let line = try #require(jsonLines(result.stdout).first)
        #expect(line["outcome"] as? String == "failed")
        #expect(line["status"] as? Int == 503)
        #expect(line["attempts"] as? Int == 3)
        #expect(try registry()["phone"] != nil)
    }

    @Test("a permanent rejection is reported once, not retried, exit 1, token kept")
    func permanentRejection() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        try register("phone", hexToken(1, filler: "ab"), env: env)
        env["APNS_TOPIC"] = "com.example.other"
        let result = try BuiltTool.run("send-push", ["--body", "hi"], environment: env)
        #expect(result.status == 1)
        #expect(result.stdout.contains("rejected"))
        #expect(result.stdout.contains("400 DeviceTokenNotForTopic"))
        #expect(emulator.waitForRecords(1).count == 1)
        #expect(try registry()["phone"] != nil)
    }

    /// libcurl 7.88 reset every finished stream; the emulator (SwiftNIO's rapid-reset guard) answers
    /// more than 200 resets in 30 s with GOAWAY ENHANCE_YOUR_CALM, so 300 pushes would need a second
    /// connection if a single reset of a finished stream went out.
    @Test("300 pushes share one connection: finished streams are not reset")
    func fanOutStaysOnOneConnection() throws {
        let emulator = try RunningEmulator([], environment: setup.environment)
        let env = clientEnvironment(emulator)
        let tokens = (1...300).map { hexToken($0, filler: "ab") }
        let result = try BuiltTool.run(
            "send-push", tokens.flatMap { ["--token", $0] } + ["--body", "hi", "--json"], environment: env)
        result.expectSuccess()
        let records = emulator.waitForRecords(300)
        #expect(records.count == 300)
        #expect(records.allSatisfy { $0["status"] as? Int == 200 })
        #expect(Set(records.map { $0["connection"] as? Int ?? 0 }) == [1])
        let resetGuardTripped = emulator.stderr.contains("ExcessiveRSTFrames")
        #expect(!resetGuardTripped)
    }

    @Test("plain http:// (HTTP/2 prior knowledge): every device is delivered, not only the first")
    func priorKnowledgeDeliversEveryDevice() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        env["APNS_PRODUCTION_URL"] = emulator.plainURL
        let tokens = (1...5).map { hexToken($0, filler: "ab") }
        let result = try BuiltTool.run(
            "send-push", tokens.flatMap { ["--token", $0] } + ["--body", "hi", "--json"], environment: env)
        result.expectSuccess()
        #expect(jsonLines(result.stdout).map { $0["outcome"] as? String } == Array(repeating: "delivered", count: 5))
        #expect(deliveriesPerToken(emulator) == Dictionary(uniqueKeysWithValues: tokens.map { ($0, 1) }))
    }

    @Test(
        "GOAWAY and dropped connections: every device delivered exactly once",
        arguments: ["--goaway-after", "--drop-after"])
    func connectionLossResendsWithoutDuplicates(flag: String) throws {
        let emulator = try RunningEmulator(["--quiet", flag, "4"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        let tokens = (1...12).map { hexToken($0, filler: "ab") }
        let result = try BuiltTool.run(
            "send-push", tokens.flatMap { ["--token", $0] } + ["--body", "hi", "--json"], environment: env)
        result.expectSuccess()
        #expect(jsonLines(result.stdout).allSatisfy { $0["outcome"] as? String == "delivered" })
        #expect(deliveriesPerToken(emulator) == Dictionary(uniqueKeysWithValues: tokens.map { ($0, 1) }))
    }

    @Test("a connection that goes silent mid-run: all delivered on a new one, well inside --timeout, none twice")
    func silentConnectionMidRun() throws {
        // The first connection answers 100 streams, then nothing, and never closes.
        let emulator = try RunningEmulator(["--quiet", "--go-silent-after", "100"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        let tokens = (1...300).map { hexToken($0, filler: "ab") }
        let started = Date()
        let arguments = tokens.flatMap { ["--token", $0] } + ["--body", "hi", "--timeout", "20", "--json"]
        let result = try BuiltTool.run("send-push", arguments, environment: env)
        let elapsed = Date().timeIntervalSince(started)
        result.expectSuccess()
        let lines = jsonLines(result.stdout)
        #expect(lines.count == 300)
        #expect(lines.allSatisfy { $0["outcome"] as? String == "delivered" }, "\(result.stdout.prefix(2000))")
        // Those caught on the silent connection took a second attempt, each counted once.
        let retried = lines.filter { $0["attempts"] as? Int == 2 }.count
        #expect(retried >= 100, "\(retried) devices resent")
        #expect(lines.allSatisfy { ($0["attempts"] as? Int ?? 0) <= 2 })
        // Found by a PING within about 2 s (SilenceWatch), far below the 20 s --timeout.
        #expect(elapsed < 8, "the run took \(elapsed) s")
        let once = Dictionary(uniqueKeysWithValues: tokens.map { ($0, 1) })
        #expect(deliveriesPerToken(emulator) == once, "a device got two 200s, or none")
    }

    @Test("a slow answer is not taken for silence: the PING is answered, so the request waits and is sent once")
    func slowAnswerIsNotSilence() throws {
        // 3 s without a frame on any stream: the connection is pinged (after 1 s, and again), and answers.
        let emulator = try RunningEmulator(["--quiet", "--delay", "3000"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        let started = Date()
        let result = try BuiltTool.run(
            "send-push", ["--token", hexToken(1, filler: "ab"), "--body", "hi", "--json"], environment: env)
        result.expectSuccess()
        #expect(Date().timeIntervalSince(started) >= 3)
        let line = try #require(jsonLines(result.stdout).first)
        #expect(line["outcome"] as? String == "delivered")
        #expect(line["attempts"] as? Int == 1, "\(result.stdout)")
        #expect(emulator.waitForRecords(1).count == 1)
        #expect(emulator.records().count == 1, "sent once: \(emulator.records())")
    }

    @Test("--timeout is honoured: a server that never answers in time ends the run, exit 75, nothing pruned")
    func timeoutHonoured() throws {
        let emulator = try RunningEmulator(["--quiet", "--delay", "20000"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register("phone", hexToken(1, filler: "ab"), env: env)
        let started = Date()
        let result = try BuiltTool.run("send-push", ["--body", "hi", "--timeout", "1", "--json"], environment: env)
        #expect(Date().timeIntervalSince(started) < 10, "a 1-second timeout, far from the 20-second delay")
        #expect(result.status == 75)
        let line = try #require(jsonLines(result.stdout).first)
        #expect(line["outcome"] as? String == "failed")
        #expect(line["status"] as? Int == 0)
        #expect(try registry()["phone"] != nil)
    }

    @Test("an unreachable APNs: exit 69")
    func unreachable() throws {
        var env = setup.environment
        env["APNS_STATE_FILE"] = devicesFile
        let result = try BuiltTool.run(
            "send-push",
            [
                "--token", hexToken(1, filler: "ab"), "--body", "hi", "--apns-url", "https://127.0.0.1:9", "--retries",
                "0",
            ], environment: env)
        #expect(result.status == 69, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("no answer"))
    }

    @Test("--dry-run prints the requests with secrets redacted and sends nothing")
    func dryRun() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register("phone", hexToken(1, filler: "ab"), env: env)
        let result = try BuiltTool.run("send-push", ["--body", "hi", "--dry-run"], environment: env)
        result.expectSuccess()
        #expect(result.stdout.contains("POST \(emulator.baseURL)/3/device/abababab…"))
        #expect(result.stdout.contains("authorization: bearer <provider token>"))
        #expect(result.stdout.contains(#"{"aps":{"alert":{"body":"hi"},"sound":"default"}}"#))
        #expect(!result.stdout.contains(hexToken(1, filler: "ab")))
        let status = try BuiltTool.runSystem(
            "curl", ["-s", "--http2", "--cacert", emulator.caPath, emulator.baseURL + "/emulator/requests"])
        #expect(emulator.records().isEmpty, "the emulator saw: \(status.stdout)")
    }

    @Test(
        "10 consecutive runs reuse one provider token (with --global-token-updates the emulator would answer 429 to a replacement)"
    )
    func providerTokenReused() throws {
        let emulator = try RunningEmulator(["--quiet", "--global-token-updates"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        for _ in 0..<10 {
            try BuiltTool.run("send-push", ["--token", hexToken(1, filler: "ab"), "--body", "hi"], environment: env)
                .expectSuccess()
        }
        let records = emulator.waitForRecords(10)
        #expect(records.count == 10)
        let claims = Set(records.compactMap { ($0["provider_token"] as? [String: Any])?["claims"] as? NSDictionary })
        #expect(claims.count == 1)
        #expect(records.allSatisfy { $0["status"] as? Int == 200 })
    }

    @Test("a cached token APNs rejects as invalid is replaced once and the push goes through")
    func rejectedProviderTokenIsReplaced() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        // Put a token signed by another key into the cache under this key's entry.
        let fingerprint = try #require(
            try BuiltTool.run("apns-jwt", ["check"], environment: env).stdout
                .components(separatedBy: "fingerprint ").last?.prefix(16))
        let other = try OpenSSLKey(in: setup.directory, name: "other")
        var otherEnv = env
        otherEnv["APNS_KEY_PATH"] = other.pkcs8Path
        otherEnv["HOME"] = setup.directory.file("other-home")
        let forged = try BuiltTool.run("apns-jwt", [], environment: otherEnv).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let cachePath = setup.directory.file("home/.local/state/pushkit-free/provider-tokens.json")
        try FileManager.default.createDirectory(
            atPath: setup.directory.file("home/.local/state/pushkit-free"), withIntermediateDirectories: true)
        let cache: [String: Any] = [
            "version": 1,
            "tokens": [
                "\(ProviderSetup.teamID).\(ProviderSetup.keyID).\(fingerprint)": [
                    "token": forged, "issued_at": Int(Date().timeIntervalSince1970),
                ]
            ],
        ]
        try JSONSerialization.data(withJSONObject: cache).write(to: URL(fileURLWithPath: cachePath))

        let result = try BuiltTool.run(
            "send-push", ["--token", hexToken(1, filler: "ab"), "--body", "hi", "--json"], environment: env)
        result.expectSuccess()
        let records = emulator.waitForRecords(2)
        #expect(records.map { $0["reason"] as? String } == ["InvalidProviderToken", nil])
        #expect(
            try BuiltTool.run("apns-jwt", [], environment: env).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
                != forged)
    }

    @Test("no devices: a warning and exit 0; with --require-device exit 66")
    func noDevices() throws {
        var env = setup.environment
        env["APNS_STATE_FILE"] = devicesFile
        let quiet = try BuiltTool.run("send-push", ["--body", "hi"], environment: env)
        #expect(quiet.status == 0)
        #expect(quiet.stderr.contains("warning: no devices to send to"))
        let strict = try BuiltTool.run("send-push", ["--body", "hi", "--require-device"], environment: env)
        #expect(strict.status == 66)
    }

    @Test("bad input is refused before sending, with the right exit code")
    func badInput() throws {
        var env = setup.environment
        env["APNS_STATE_FILE"] = devicesFile
        let cases: [([String], Int32, String)] = [
            (["--token", "xyz", "--body", "hi"], 65, "device token"),
            (["--token", hexToken(1, filler: "ab")], 64, "nothing to send"),
            (
                [
                    "--token", hexToken(1, filler: "ab"), "--body", "hi", "--collapse-id",
                    String(repeating: "c", count: 65),
                ], 65, "--collapse-id is 65 bytes"
            ),
            (["--token", hexToken(1, filler: "ab"), "--body", "hi", "--apns-id", "not-a-uuid"], 65, "--apns-id"),
            (
                ["--token", hexToken(1, filler: "ab"), "--body", "hi", "--push-type", "fax"], 64,
                "'fax' is invalid for '--push-type <type>'"
            ),
            (
                ["--token", hexToken(1, filler: "ab"), "--body", "hi", "--push-type", "background"], 65,
                "background notifications carry no alert, badge or sound; drop them or use --push-type alert"
            ),
            (
                ["--token", hexToken(1, filler: "ab"), "--body", "hi", "--data", "[1]"], 65,
                "--data must be a JSON object"
            ),
            (
                ["--token", hexToken(1, filler: "ab"), "--data", String(repeating: "x", count: 10)], 65,
                "--data must be a JSON object"
            ),
            (
                ["--token", hexToken(1, filler: "ab"), "--payload-file", "/nonexistent.json"], 66,
                "--payload-file /nonexistent.json does not exist"
            ),
            (["--device", "ghost", "--body", "hi"], 65, "no device \"ghost\""),
            (["only-one-positional"], 64, "MESSAGE_ID PREVIEW"),
            (["--body", "hi", "--timeout", "0"], 64, "--timeout"),
        ]
        for (arguments, status, message) in cases {
            let result = try BuiltTool.run("send-push", arguments, environment: env)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
    }

    @Test("--body - reads standard input; a body too long for 4096 bytes is shortened with …")
    func bodyFromStdinIsFitted() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let long = String(repeating: "word ", count: 2000)
        let result = try BuiltTool.run(
            "send-push", ["--token", hexToken(1, filler: "ab"), "--body", "-"],
            environment: clientEnvironment(emulator), stdin: Data((long + "\n").utf8))
        result.expectSuccess()
        #expect(result.stderr.contains("shortened"))
        let record = try #require(emulator.waitForRecords(1).first)
        let body = try #require(
            ((record["payload"] as? [String: Any])?["aps"] as? [String: Any]).flatMap {
                ($0["alert"] as? [String: Any])?["body"] as? String
            })
        #expect(body.hasSuffix("…"))
        #expect(long.hasPrefix(String(body.dropLast())))
        #expect((record["payload_bytes"] as? Int ?? 0) <= 4096)
    }

    @Test("a simulator .apns file: its bundle key becomes the topic and leaves the payload")
    func simulatorPayloadFile() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        env["APNS_TOPIC"] = nil
        let file = try setup.directory.write(
            "push.apns", #"{"Simulator Target Bundle": "com.example.app", "aps": {"alert": "from a file"}}"#)
        try BuiltTool.run(
            "send-push", ["--token", hexToken(1, filler: "ab"), "--payload-file", file], environment: env
        ).expectSuccess()
        let record = try #require(emulator.waitForRecords(1).first)
        #expect(record["topic"] as? String == "com.example.app")
        #expect((record["payload"] as? NSDictionary) == ["aps": ["alert": "from a file"]] as NSDictionary)
    }
}
