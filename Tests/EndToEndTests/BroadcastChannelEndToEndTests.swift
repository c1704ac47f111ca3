import Foundation
import Testing

/// Broadcast channels for Live Activities (iOS 18) end to end: `register-apns channel ...` against
/// the emulator's channel management listener, `send-push --live-activity update|end --channel`
/// against its broadcast endpoint, and starts that ask for an input push token or channel.
@Suite("broadcast channels end to end")
struct BroadcastChannelEndToEndTests: ClientToolSuite {
    let setup: ProviderSetup
    let stateDirectory: String

    init() throws {
        setup = try ProviderSetup()
        stateDirectory = setup.directory.file("state")
    }

    var clientSettings: [String: String] {
        ["PUSHKIT_STATE_DIR": stateDirectory, "APNS_STATE_FILE": setup.directory.file("devices.json")]
    }

    /// `channels.json` as written, by name.
    func storedChannels() throws -> [String: [String: Any]] {
        let path = stateDirectory + "/channels.json"
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        let object =
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        return object?["channels"] as? [String: [String: Any]] ?? [:]
    }

    func channel(_ arguments: [String], env: [String: String]) throws -> ToolResult {
        try BuiltTool.run("register-apns", ["channel"] + arguments, environment: env)
    }

    func aps(_ record: [String: Any]) -> [String: Any] {
        (record["payload"] as? [String: Any])?["aps"] as? [String: Any] ?? [:]
    }

    func startEmulator(_ extra: [String] = []) throws -> RunningEmulator {
        try RunningEmulator(["--manage-port", "0", "--quiet"] + extra, environment: setup.environment)
    }

    @Test("create a channel, broadcast an update and an end, delete it, and the next broadcast is refused")
    func lifecycle() throws {
        let emulator = try startEmulator()
        let env = clientEnvironment(emulator)

        let created = try channel(["create", "final", "--storage", "latest"], env: env)
        created.expectSuccess()
        let stored = try #require(try storedChannels()["final"])
        let id = try #require(stored["id"] as? String)
        #expect(created.stdout == "created channel final: \(id) (production, storage latest)\n")
        #expect(stored["environment"] as? String == "production" && stored["storage"] as? String == "latest")
        #expect(stored["bundle_id"] as? String == ProviderSetup.topic)

        let update = try BuiltTool.run(
            "send-push", ["--live-activity", "update", "--channel", "final", "--content-state", #"{"score":"1-0"}"#],
            environment: env)
        update.expectSuccess()
        #expect(update.stdout.hasPrefix("delivered    channel final  \(id)  production  200 "))
        #expect(update.stderr.contains("broadcast to channel \"final\" (\(id)) accepted"))
        let end = try BuiltTool.run(
            "send-push",
            [
                "--live-activity", "end", "--channel", "final", "--content-state", #"{"score":"2-1"}"#,
                "--dismissal-date", "0",
            ],
            environment: env)
        end.expectSuccess()

        let shown = try channel(["show", "final"], env: env)
        shown.expectSuccess()
        #expect(shown.stdout.contains("id: \(id)\n") && shown.stdout.contains("storage: latest\n"))
        let listed = try channel(["list", "--remote"], env: env)
        listed.expectSuccess()
        #expect(listed.stdout.contains("final  \(id)  production  storage latest  live"))

        let deleted = try channel(["delete", "final"], env: env)
        deleted.expectSuccess()
        #expect(deleted.stdout == "deleted channel \"final\" (\(id)) (production)\n")
        #expect(try storedChannels().isEmpty)

        let refused = try BuiltTool.run(
            "send-push", ["--live-activity", "update", "--channel", id, "--content-state", "{}"], environment: env)
        #expect(refused.status == 1, "a refusal, as for a device: \(refused.stderr)")
        #expect(refused.stdout.hasPrefix("rejected     channel -  \(id)  production  400 ChannelNotRegistered"))
        #expect(refused.stderr.contains("APNs has no such channel in production"))
        let byName = try BuiltTool.run(
            "send-push", ["--live-activity", "update", "--channel", "final", "--content-state", "{}"], environment: env)
        #expect(byName.status == 65 && byName.stderr.contains("no channel named \"final\""))

        let records = emulator.waitForRecords(7)
        #expect(
            records.map { $0["kind"] as? String ?? "" } == [
                "channel-create", "broadcast", "broadcast", "channel-read", "channel-list", "channel-delete",
                "broadcast",
            ])
        #expect(records.map { $0["status"] as? Int ?? 0 } == [201, 200, 200, 200, 200, 204, 400])
        let broadcast = records[1]
        #expect(broadcast["path"] as? String == "/4/broadcasts/apps/\(ProviderSetup.topic)")
        #expect(broadcast["channel_id"] as? String == id)
        #expect(broadcast["push_type"] as? String == "liveactivity")
        #expect(aps(broadcast)["event"] as? String == "update")
        #expect((aps(broadcast)["content-state"] as? [String: Any])?["score"] as? String == "1-0")
        #expect(aps(records[2])["event"] as? String == "end" && aps(records[2])["dismissal-date"] as? Int == 0)
        #expect(records[0]["message_storage_policy"] as? Int == 1)
        #expect(records[6]["reason"] as? String == "ChannelNotRegistered")
    }

    @Test("a name whose channel APNs no longer has is named stale; delete then forgets it")
    func staleName() throws {
        let emulator = try startEmulator()
        let env = clientEnvironment(emulator)
        try channel(["create", "match", "--storage", "none"], env: env).expectSuccess()
        let id = try #require(try storedChannels()["match"]?["id"] as? String)
        // Deleted behind the tool's back, with Apple's own request shape.
        let token = try setup.token()
        let gone = try Curl.request(
            emulator.managementURL! + "/1/apps/\(ProviderSetup.topic)/channels", method: "DELETE",
            headers: [("authorization", "bearer " + token), ("apns-channel-id", id)], cacert: emulator.caPath)
        #expect(gone.status == 204)

        let json = try BuiltTool.run(
            "send-push", ["--live-activity", "update", "--channel", "match", "--content-state", "{}", "--json"],
            environment: env)
        #expect(json.status == 1)
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(report["channel"] as? String == "match" && report["channel_id"] as? String == id)
        #expect(report["outcome"] as? String == "rejected" && report["status"] as? Int == 400)
        #expect(report["reason"] as? String == "ChannelNotRegistered" && report["attempts"] as? Int == 1)
        #expect(report["apns_request_id"] is String)
        #expect(json.stderr.contains("the name \"match\" is stale: forget it with register-apns channel delete match"))
        #expect(try storedChannels()["match"] != nil, "the name is not dropped silently")

        let forgot = try channel(["delete", "match"], env: env)
        forgot.expectSuccess()
        #expect(forgot.stdout == "forgot channel \"match\" (\(id)): APNs no longer had it in production\n")
        #expect(try storedChannels().isEmpty)
    }

    @Test("a no-storage channel gets apns-expiration 0; a dry run shows the request and sends nothing")
    func noStorageAndDryRun() throws {
        let emulator = try startEmulator(["--strict-broadcast"])
        let env = clientEnvironment(emulator)
        try channel(["create", "quiz", "--storage", "none"], env: env).expectSuccess()
        let id = try #require(try storedChannels()["quiz"]?["id"] as? String)
        let dry = try BuiltTool.run(
            "send-push",
            [
                "--live-activity", "update", "--channel", "quiz", "--content-state", "{}", "--priority", "5",
                "--dry-run",
            ],
            environment: env)
        dry.expectSuccess()
        #expect(
            dry.stdout.contains("POST \(emulator.baseURL)/4/broadcasts/apps/\(ProviderSetup.topic)  (channel \"quiz\""))
        #expect(dry.stdout.contains("apns-channel-id: \(id)\n") && dry.stdout.contains("apns-expiration: 0\n"))
        #expect(dry.stdout.contains("authorization: bearer <provider token>\n"))
        #expect(emulator.records().count == 1, "only the create")
        let otherEnvironment = try BuiltTool.run(
            "send-push", ["--live-activity", "end", "--channel", "quiz", "--sandbox", "--dry-run"], environment: env)
        otherEnvironment.expectSuccess()
        #expect(otherEnvironment.stdout.contains("(channel \"quiz\" (\(id)), production)"))
        #expect(otherEnvironment.stderr.contains("lives in production; the broadcast goes there, not to sandbox"))
        let sent = try BuiltTool.run(
            "send-push",
            ["--live-activity", "update", "--channel", "quiz", "--content-state", "{}", "--priority", "5"],
            environment: env)
        sent.expectSuccess()
        let record = try #require(emulator.waitForRecords(2).last)
        #expect(record["expiration"] as? Int == 0 && record["priority"] as? Int == 5 && record["status"] as? Int == 200)
    }

    @Test("start with an input push token, and with an input push channel")
    func startWithInputPush() throws {
        let emulator = try startEmulator()
        let env = clientEnvironment(emulator)
        try register(
            ["phone", hexToken(1, filler: "ab"), "--push-to-start-token", hexToken(1, filler: "5e")], env: env)
        try channel(["create", "derby"], env: env).expectSuccess()
        let id = try #require(try storedChannels()["derby"]?["id"] as? String)
        let start = [
            "--live-activity", "start", "--attributes-type", "MatchAttributes", "--attributes", #"{"home":"A"}"#,
            "--content-state", #"{"score":"0-0"}"#,
        ]
        try BuiltTool.run("send-push", start + ["--input-push-token"], environment: env).expectSuccess()
        try BuiltTool.run("send-push", start + ["--input-push-channel", "derby"], environment: env).expectSuccess()
        try BuiltTool.run("send-push", start + ["--input-push-channel", id], environment: env).expectSuccess()
        let records = emulator.waitForRecords(4).filter { $0["kind"] as? String == "push" }
        #expect(records.count == 3)
        #expect(aps(records[0])["input-push-token"] as? Int == 1 && aps(records[0])["input-push-channel"] == nil)
        #expect(aps(records[1])["input-push-channel"] as? String == id && aps(records[1])["input-push-token"] == nil)
        #expect(aps(records[2])["input-push-channel"] as? String == id)
        #expect(
            records.allSatisfy {
                $0["device_token"] as? String == hexToken(1, filler: "5e") && $0["status"] as? Int == 200
            })
    }

    @Test("the channel limit answers CannotCreateChannelConfig, explained, and nothing is recorded")
    func limit() throws {
        let emulator = try startEmulator(["--channel-limit", "1"])
        let env = clientEnvironment(emulator)
        try channel(["create", "one"], env: env).expectSuccess()
        let second = try channel(["create", "two"], env: env)
        #expect(second.status == 65)
        #expect(second.stderr.contains("APNs refused to create a channel: 400 CannotCreateChannelConfig"))
        #expect(second.stderr.contains("10,000 per environment"))
        #expect(try storedChannels().keys.sorted() == ["one"])
        let taken = try channel(["create", "one"], env: env)
        #expect(taken.status == 65 && taken.stderr.contains("a channel named \"one\" exists already"))
        #expect(emulator.records().count == 2, "a taken name is refused before APNs is asked")
    }

    @Test("a channel APNs created but the file cannot hold is reported with its id, never lost silently")
    func createdButNotRecorded() throws {
        let emulator = try startEmulator()
        let env = clientEnvironment(emulator)
        // The lock file cannot be opened: the name is free (read without the lock), the write fails.
        try FileManager.default.createDirectory(
            atPath: stateDirectory + "/channels.json.lock", withIntermediateDirectories: true)
        let result = try channel(["create", "orphan"], env: env)
        #expect([73, 74].contains(result.status), "\(result.status): \(result.stderr)")
        let record = try #require(emulator.waitForRecords(1).first)
        let id = try #require(record["channel_id"] as? String)
        #expect(record["status"] as? Int == 201)
        #expect(
            result.stderr.contains("APNs created channel \(id) (production) but it could not be recorded as \"orphan\"")
        )
        #expect(result.stderr.contains("register-apns channel delete \(id)"))
    }

    @Test("unknown names and bad usage are refused before anything is sent")
    func refusedLocally() throws {
        let emulator = try startEmulator()
        let env = clientEnvironment(emulator)
        for (arguments, status, message) in [
            (
                ["--live-activity", "update", "--channel", "nosuch", "--content-state", "{}"], Int32(65),
                "no channel named \"nosuch\""
            ),
            (
                [
                    "--live-activity", "start", "--channel", "x", "--attributes-type", "A", "--attributes", "{}",
                    "--content-state", "{}",
                ], 64, "a broadcast cannot start a Live Activity"
            ),
            (
                ["--live-activity", "update", "--channel", "x", "--token", hexToken(1), "--content-state", "{}"], 64,
                "cannot be combined with --token"
            ),
            (
                ["--live-activity", "update", "--token", hexToken(1), "--content-state", "{}", "--input-push-token"],
                64,
                "--input-push-token is only for --live-activity start"
            ),
            (
                ["--live-activity", "start", "--input-push-token", "--input-push-channel", "x"], 64,
                "exclude each other"
            ),
        ] {
            let result = try BuiltTool.run("send-push", arguments, environment: env)
            #expect(result.status == status, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let show = try channel(["show", "nosuch"], env: env)
        #expect(show.status == 65 && show.stderr.contains("no channel named \"nosuch\""))
        let badName = try channel(["create", "a b"], env: env)
        #expect(badName.status == 64)
        #expect(emulator.records().isEmpty)
    }

    @Test("429 on a broadcast is retried like any push")
    func retried() throws {
        let emulator = try startEmulator(["--fail-first", "1:429:TooManyRequests"])
        let env = clientEnvironment(emulator)
        try channel(["create", "busy"], env: env).expectSuccess()
        let result = try BuiltTool.run(
            "send-push", ["--live-activity", "update", "--channel", "busy", "--content-state", "{}"], environment: env)
        result.expectSuccess()
        #expect(result.stdout.contains("[2 attempts]"))
        #expect(emulator.waitForRecords(3).suffix(2).map { $0["status"] as? Int ?? 0 } == [429, 200])
    }

    /// No Python client on PyPI manages channels or sends broadcasts (aioapns 4.0, kalyke-apns 1.5.0,
    /// apns2 and its forks were read): Apple's documented request shapes are sent with curl instead.
    @Test("Apple's documented requests, sent with curl, get Apple's documented answers")
    func appleDocumentedRequests() throws {
        let emulator = try startEmulator()
        let management = try #require(emulator.managementURL)
        let token = try setup.token()
        let requestID = "0309F412-AA57-46A8-9AC6-B5AECA8C4594"
        let create = try Curl.request(
            management + "/1/apps/\(ProviderSetup.topic)/channels",
            headers: [("authorization", "bearer " + token), ("apns-request-id", requestID)],
            body: #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#, cacert: emulator.caPath)
        #expect(create.status == 201 && create.httpVersion == "2")
        #expect(create.headers["apns-request-id"] == requestID)
        let id = try #require(create.headers["apns-channel-id"])
        let read = try Curl.request(
            management + "/1/apps/\(ProviderSetup.topic)/channels", method: "GET",
            headers: [("authorization", "bearer " + token), ("apns-channel-id", id)], cacert: emulator.caPath)
        #expect(read.status == 200 && read.json?["message-storage-policy"] as? Int == 1)
        #expect(read.json?["push-type"] as? String == "LiveActivity")
        let all = try Curl.request(
            management + "/1/apps/\(ProviderSetup.topic)/all-channels", method: "GET",
            headers: [("authorization", "bearer " + token)], cacert: emulator.caPath)
        #expect(all.status == 200 && all.json?["channels"] as? [String] == [id])
        let broadcast = try Curl.request(
            emulator.baseURL + "/4/broadcasts/apps/\(ProviderSetup.topic)",
            headers: [
                ("authorization", "bearer " + token), ("apns-channel-id", id), ("apns-push-type", "liveactivity"),
                ("apns-priority", "10"), ("apns-expiration", "0"),
            ],
            body: #"{"aps":{"timestamp":1700000000,"event":"update","content-state":{"status":"on time"}}}"#,
            cacert: emulator.caPath)
        #expect(broadcast.status == 200 && broadcast.headers["apns-request-id"] != nil)
        let missing = try Curl.request(
            emulator.baseURL + "/4/broadcasts/apps/\(ProviderSetup.topic)",
            headers: [("authorization", "bearer " + token), ("apns-push-type", "liveactivity")],
            body: #"{"aps":{"event":"update"}}"#, cacert: emulator.caPath)
        #expect(
            missing.status == 400 && missing.reason == "MissingChannelId" && missing.headers["apns-request-id"] != nil)
        let onPushHost = try Curl.request(
            emulator.baseURL + "/1/apps/\(ProviderSetup.topic)/channels",
            headers: [("authorization", "bearer " + token)],
            body: #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#, cacert: emulator.caPath)
        #expect(onPushHost.status == 404 && onPushHost.reason == "BadPath", "management lives on its own listener")
        let status = try Curl.request(emulator.baseURL + "/emulator/status", method: "GET", cacert: emulator.caPath)
        #expect(status.json?["channels"] as? Int == 1)
    }
}
