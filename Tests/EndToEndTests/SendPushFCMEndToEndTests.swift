import Foundation
import Testing

/// `send-push` to FCM devices against the real `apns-emulator`, which plays FCM's token endpoint and
/// `messages:send` on the same port as APNs: built binaries, real HTTP/2 over TLS, real files.
@Suite("send-push to FCM devices end to end")
struct SendPushFCMEndToEndTests: ClientToolSuite {
    let setup: ProviderSetup
    let devicesFile: String

    init() throws {
        setup = try ProviderSetup()
        devicesFile = setup.directory.file("devices.json")
    }

    var clientSettings: [String: String] { ["APNS_STATE_FILE": devicesFile] }

    /// A registration token of today's shape, distinct for each `n`.
    static func fcmToken(_ n: Int) -> String {
        "d\(n)K3x9Yv0QxS2bP1cLmN4o:APA91b" + String(repeating: "Fz7_-q\(n % 10)", count: 20)
    }

    /// The clients' environment with the emulator as APNs and as FCM (its service account file).
    func fcmEnvironment(_ emulator: RunningEmulator) -> [String: String] {
        var env = clientEnvironment(emulator)
        env["FCM_URL"] = emulator.baseURL
        env["FCM_SERVICE_ACCOUNT"] = EmulatorFCMTests.accountPath(emulator)
        return env
    }

    func fcmRecords(_ emulator: RunningEmulator, kind: String = "send") -> [[String: Any]] {
        emulator.records().filter { $0["provider"] as? String == "fcm" && $0["kind"] as? String == kind }
    }

    func status(_ emulator: RunningEmulator) throws -> [String: Any] {
        try Curl.request(emulator.baseURL + "/emulator/status", method: "GET", cacert: emulator.caPath).json ?? [:]
    }

    @Test("one run reaches an APNs device and an FCM device; the FCM message is the same notification, key by key")
    func mixedAudience() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = fcmEnvironment(emulator)
        let fcm = Self.fcmToken(1)
        let result = try BuiltTool.run(
            "send-push",
            [
                "--token", hexToken(1, filler: "ab"), "--token", fcm, "--title", "Build", "--body", "finished",
                "--data", #"{"job":"deploy","n":2}"#, "--collapse-id", "job-7", "--interruption-level",
                "time-sensitive", "--json",
            ], environment: env)
        result.expectSuccess()
        let lines = jsonLines(result.stdout)
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0["outcome"] as? String == "delivered" }, "\(lines)")
        let fcmLine = try #require(lines.first { $0["transport"] as? String == "fcm" })
        #expect((fcmLine["fcm_name"] as? String)?.hasPrefix("projects/pushkit-emulator/messages/") == true)
        #expect(fcmLine["environment"] is NSNull)
        #expect(fcmLine["token"] as? String == String(fcm.prefix(8)) + "…" + String(fcm.suffix(4)))

        let apns = try #require(emulator.records().first { $0["kind"] as? String == "push" })
        let sent = try #require(fcmRecords(emulator).first)
        #expect(sent["status"] as? Int == 200)
        let message = try #require(sent["message"] as? NSDictionary)
        #expect(
            message == [
                "token": fcm,
                "notification": ["title": "Build", "body": "finished"],
                "data": ["job": "deploy", "n": "2"],
                "apns": [
                    "headers": [
                        "apns-push-type": "alert", "apns-priority": "10", "apns-collapse-id": "job-7",
                    ],
                    "payload": apns["payload"] as Any,
                ],
                "android": ["priority": "HIGH", "collapse_key": "job-7"],
            ] as NSDictionary)
    }

    @Test("a second process reuses the access token: one token request for two runs, the cache file 0600")
    func accessTokenReused() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = fcmEnvironment(emulator)
        for run in 1...2 {
            try BuiltTool.run("send-push", ["--token", Self.fcmToken(run), "--body", "run \(run)"], environment: env)
                .expectSuccess()
        }
        let counters = try status(emulator)
        #expect(counters["fcm_token_requests"] as? Int == 1, "\(counters)")
        #expect(counters["fcm_delivered"] as? Int == 2, "\(counters)")
        let cache = setup.directory.file("home/.local/state/pushkit-free/fcm-access-token.json")
        let attributes = try FileManager.default.attributesOfItem(atPath: cache)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        // The access token is a secret: never on the command's output.
        let text = try String(contentsOfFile: cache, encoding: .utf8)
        let token = try #require(
            ((try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["tokens"]
                as? [String: [String: Any]])?.values.first?["token"] as? String)
        let again = try BuiltTool.run(
            "send-push", ["--token", Self.fcmToken(3), "--body", "x", "--json"], environment: env)
        again.expectSuccess()
        #expect(!again.stdout.contains(token) && !again.stderr.contains(token))
    }

    @Test("a 429 QUOTA_EXCEEDED is sent again, not before its Retry-After")
    func quotaRetried() throws {
        let fcm = Self.fcmToken(4)
        let script = try setup.directory.write("script", "\(fcm) QUOTA_EXCEEDED:1,ok\n")
        let emulator = try RunningEmulator(["--quiet", "--script-file", script], environment: setup.environment)
        let result = try BuiltTool.run(
            "send-push", ["--token", fcm, "--body", "busy", "--json"], environment: fcmEnvironment(emulator))
        result.expectSuccess()
        let line = try #require(jsonLines(result.stdout).first)
        #expect(line["outcome"] as? String == "delivered" && line["attempts"] as? Int == 2, "\(line)")
        let sends = fcmRecords(emulator)
        #expect(sends.map { $0["status"] as? Int } == [429, 200])
        let times = sends.compactMap { ($0["time"] as? String).flatMap(Self.parseTime) }
        #expect(times.count == 2)
        if times.count == 2 { #expect(times[1].timeIntervalSince(times[0]) >= 1.0, "\(times)") }
    }

    static func parseTime(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    @Test("an FCM token answered UNREGISTERED is pruned from the registry; the APNs device stays")
    func unregisteredPruned() throws {
        let dead = Self.fcmToken(5)
        let script = try setup.directory.write("script", "\(dead) UNREGISTERED\n")
        let emulator = try RunningEmulator(["--quiet", "--script-file", script], environment: setup.environment)
        let env = fcmEnvironment(emulator)
        try BuiltTool.run("register-apns", ["add", "pixel", dead], environment: env).expectSuccess()
        try BuiltTool.run("register-apns", ["add", "iphone", hexToken(6)], environment: env).expectSuccess()
        let result = try BuiltTool.run("send-push", ["--body", "hello", "--json"], environment: env)
        result.expectSuccess()
        let lines = jsonLines(result.stdout)
        let pixel = try #require(lines.first { $0["device"] as? String == "pixel" })
        #expect(pixel["outcome"] as? String == "unregistered" && pixel["pruned"] as? Bool == true, "\(pixel)")
        #expect(pixel["status"] as? Int == 404)
        #expect(lines.first { $0["device"] as? String == "iphone" }?["outcome"] as? String == "delivered")
        let devices = try stateFileDevices(devicesFile)
        #expect(devices["pixel"] == nil && devices["iphone"] != nil)
    }

    @Test("THIRD_PARTY_AUTH_ERROR stops sending to FCM with the fix, said once; the APNs device still gets it")
    func thirdPartyAuthStops() throws {
        let tokens = (7...9).map(Self.fcmToken)
        let script = try setup.directory.write(
            "script", tokens.map { "\($0) THIRD_PARTY_AUTH_ERROR" }.joined(separator: "\n") + "\n")
        let emulator = try RunningEmulator(["--quiet", "--script-file", script], environment: setup.environment)
        var arguments = ["--body", "hello", "--token", hexToken(7)]
        for token in tokens { arguments += ["--token", token] }
        let result = try BuiltTool.run("send-push", arguments, environment: fcmEnvironment(emulator))
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let text = result.stdout + result.stderr
        #expect(text.components(separatedBy: "upload the .p8 key in the Firebase console").count - 1 == 1, "\(text)")
        #expect(result.stdout.hasPrefix("delivered"), "\(result.stdout)")
    }

    @Test("FCM devices without a service account: exit 78 naming the setting when every device is FCM, nothing sent")
    func notConfigured() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = fcmEnvironment(emulator)
        env["FCM_SERVICE_ACCOUNT"] = nil
        let result = try BuiltTool.run("send-push", ["--token", Self.fcmToken(10), "--body", "x"], environment: env)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("fcm_service_account"))
        #expect(emulator.records().isEmpty)
    }

    @Test("what FCM cannot carry (a data key it reserves) is refused for the FCM device; the APNs device gets it")
    func unsupportedPushType() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let result = try BuiltTool.run(
            "send-push",
            [
                "--token", hexToken(11), "--token", Self.fcmToken(11), "--push-type", "background", "--data",
                #"{"from":"x"}"#, "--json",
            ], environment: fcmEnvironment(emulator))
        #expect(result.status == 1, "\(result.stderr)")
        let lines = jsonLines(result.stdout)
        let refused = try #require(lines.first { $0["transport"] as? String == "fcm" })
        #expect(refused["outcome"] as? String == "refused")
        #expect((refused["reason"] as? String)?.contains("reserved by FCM") == true, "\(refused)")
        #expect(result.stderr.contains("1 refused: FCM cannot carry it"), "\(result.stderr)")
        #expect(fcmRecords(emulator).isEmpty)
    }
}

extension SendPushFCMEndToEndTests {
    @Test("an access token FCM refuses (401 UNAUTHENTICATED) is replaced once and the message sent again")
    func refusedAccessTokenReplaced() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = fcmEnvironment(emulator)
        try BuiltTool.run("send-push", ["--token", Self.fcmToken(12), "--body", "one"], environment: env)
            .expectSuccess()
        // The cached token goes bad (revoked, or the server forgot it): FCM answers 401.
        let cache = setup.directory.file("home/.local/state/pushkit-free/fcm-access-token.json")
        let text = try String(contentsOfFile: cache, encoding: .utf8)
        let token = try #require(
            ((try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])?["tokens"]
                as? [String: [String: Any]])?.values.first?["token"] as? String)
        try text.replacingOccurrences(of: token, with: "ya29.revoked").write(
            toFile: cache, atomically: true, encoding: .utf8)
        let result = try BuiltTool.run(
            "send-push", ["--token", Self.fcmToken(12), "--body", "two", "--json"], environment: env)
        result.expectSuccess()
        #expect(jsonLines(result.stdout).first?["attempts"] as? Int == 2, "\(result.stdout)")
        #expect(fcmRecords(emulator).map { $0["status"] as? Int } == [200, 401, 200])
        #expect(try status(emulator)["fcm_token_requests"] as? Int == 2)
    }
}

extension SendPushFCMEndToEndTests {
    @Test("send-push --encrypt to an FCM device: the sealed content travels in data.enc, nothing in clear")
    func encryptedToFCM() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = fcmEnvironment(emulator)
        let key = Data((0..<32).map { UInt8($0) }).base64EncodedString()
        try BuiltTool.run(
            "register-apns", ["add", "pixel", Self.fcmToken(13), "--content-key-file", "-"], environment: env,
            stdin: Data(key.utf8)
        ).expectSuccess()
        try BuiltTool.run("register-apns", ["add", "keyless", Self.fcmToken(14)], environment: env).expectSuccess()
        let result = try BuiltTool.run(
            "send-push", ["--encrypt", "--title", "Secret", "--body", "the launch code is 0000", "--json"],
            environment: env)
        #expect(result.status == 1, "the keyless device is refused: \(result.stderr)")
        let lines = jsonLines(result.stdout)
        #expect(lines.first { $0["device"] as? String == "pixel" }?["outcome"] as? String == "delivered")
        #expect(lines.first { $0["device"] as? String == "keyless" }?["outcome"] as? String == "refused")
        let sends = fcmRecords(emulator)
        #expect(sends.count == 1, "the keyless device is sent nothing, not even in clear")
        let message = try #require(sends.first?["message"] as? [String: Any])
        let text = String(decoding: try JSONSerialization.data(withJSONObject: message), as: UTF8.self)
        #expect(!text.contains("launch") && !text.contains("Secret"), "\(text)")
        let data = try #require(message["data"] as? [String: String])
        #expect(data["enc"]?.isEmpty == false, "\(message)")
        let payload = try #require((message["apns"] as? [String: Any])?["payload"] as? [String: Any])
        #expect(payload["enc"] as? String == data["enc"], "the iOS app behind FCM gets the same sealed content")
    }
}
