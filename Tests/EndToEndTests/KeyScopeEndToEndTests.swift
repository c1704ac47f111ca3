import Foundation
import Testing

/// Keys limited to an environment or to topics, connections bound to their first key, and expired
/// device tokens: the real `apns-emulator` answers as APNs does, and the built `send-push` acts on
/// each answer (attempts, connections, pruning, exit status, what it says).
@Suite("key scope end to end")
struct KeyScopeEndToEndTests: ClientToolSuite {
    let setup: ProviderSetup
    let devicesFile: String

    init() throws {
        setup = try ProviderSetup()
        devicesFile = setup.directory.file("devices.json")
    }

    var clientSettings: [String: String] { ["APNS_STATE_FILE": devicesFile] }

    func registeredDevices() throws -> [String: [String: Any]] {
        try stateFileDevices(devicesFile)
    }

    func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    /// The provider token `send-push` signed with (from the shared cache), to prove it is never shown.
    func cachedProviderToken(_ env: [String: String]) throws -> String {
        let result = try BuiltTool.run("apns-jwt", [], environment: env)
        result.expectSuccess()
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a key limited to sandbox: 403 BadEnvironmentKeyIdInToken, sent once, no switch, nothing pruned, explained")
    func keyLimitedToSandbox() throws {
        let production = try RunningEmulator(
            ["--quiet", "--key-environment", "sandbox"], environment: setup.environment)
        let env = clientEnvironment(production)
        try register("phone", hexToken(1), env: env)
        try register("ipad", hexToken(2), env: env)

        let result = try BuiltTool.run("send-push", ["--body", "hi", "--json"], environment: env)
        #expect(result.status == 1, "a permanent failure: \(result.stderr)")
        let lines = jsonLines(result.stdout)
        #expect(lines.count == 2)
        for line in lines {
            #expect(line["outcome"] as? String == "rejected")
            #expect(line["status"] as? Int == 403)
            #expect(line["reason"] as? String == "BadEnvironmentKeyIdInToken")
            #expect(line["attempts"] as? Int == 1)
            #expect(line["pruned"] as? Bool == false)
            #expect(line["environment"] as? String == "production")
            #expect(
                (line["advice"] as? String)?.hasPrefix("key ABCDE12345 is limited to sandbox, not production") == true)
        }
        let records = production.waitForRecords(2)
        #expect(records.count == 2, "no retry and no attempt in the sandbox (the same emulator plays both)")
        #expect(records.allSatisfy { $0["reason"] as? String == "BadEnvironmentKeyIdInToken" })
        #expect(
            result.stderr.contains(
                "send-push: key ABCDE12345 is limited to sandbox, not production: sign with a key for production "
                    + "(key_id and key_path) or send to sandbox (--environment sandbox) (2 devices)"),
            "\(result.stderr)")
        let devices = try registeredDevices()
        #expect(Set(devices.keys) == ["phone", "ipad"])
        #expect(devices.values.allSatisfy { !($0["environment"] is String) }, "no environment learned from a key scope")
        let providerToken = try cachedProviderToken(env)
        #expect(!result.stdout.contains(providerToken) && !result.stderr.contains(providerToken))

        // apns-jwt check says it too, from what the send noted, until the key works there.
        let check = try BuiltTool.run("apns-jwt", ["check"], environment: env)
        #expect(check.status == 78, "\(check.stdout)")
        #expect(
            check.stdout.contains(
                "APNs answered BadEnvironmentKeyIdInToken in production"),
            "\(check.stdout)")
        #expect(check.stdout.contains("the key is limited to sandbox; use a key for production"))

        // The advice works: the sandbox, where the key is valid.
        let sandbox = try RunningEmulator(
            ["--quiet", "--environment", "sandbox", "--key-environment", "sandbox"], environment: setup.environment)
        let fixed = try BuiltTool.run(
            "send-push", ["--body", "hi", "--environment", "sandbox"],
            environment: clientEnvironment(production, sandbox: sandbox))
        fixed.expectSuccess()
        #expect(sandbox.waitForRecords(2).filter { $0["status"] as? Int == 200 }.count == 2)
        let sandboxCheck = try BuiltTool.run("apns-jwt", ["check", "--environment", "sandbox"], environment: env)
        #expect(
            sandboxCheck.stdout.contains("devices registered for production need another key"), "\(sandboxCheck.stdout)"
        )
    }

    @Test("UnrelatedKeyIdInToken: a new connection, the request resent once on it and delivered")
    func unrelatedKeyGetsANewConnection() throws {
        let script = try setup.directory.write("script", "\(hexToken(1)) 403:UnrelatedKeyIdInToken,ok\n")
        let emulator = try RunningEmulator(["--quiet", "--script-file", script], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register("phone", hexToken(1), env: env)
        try register("ipad", hexToken(2), env: env)

        let result = try BuiltTool.run("send-push", ["--body", "hi", "--json"], environment: env)
        result.expectSuccess()
        let byDevice = Dictionary(
            uniqueKeysWithValues: jsonLines(result.stdout).map { ($0["device"] as? String ?? "", $0) })
        #expect(byDevice["phone"]?["outcome"] as? String == "delivered")
        #expect(byDevice["phone"]?["attempts"] as? Int == 2)
        #expect(byDevice["ipad"]?["attempts"] as? Int == 1)
        let records = emulator.waitForRecords(3)
        let phone = records.filter { $0["device_token"] as? String == hexToken(1) }
        #expect(phone.map { $0["status"] as? Int } == [403, 200])
        let first = phone.first?["connection"] as? Int
        let second = phone.last?["connection"] as? Int
        #expect(first != nil && second != nil && first != second, "the resend went out on a new connection")
        #expect(Set(records.compactMap { $0["connection"] as? Int }).count == 2, "exactly one new connection")
        #expect(!result.stderr.contains("new connection"), "nothing to advise once delivered: \(result.stderr)")
    }

    @Test("UnrelatedKeyIdInToken again on the new connection: reported after two attempts on two connections")
    func unrelatedKeyPersists() throws {
        let script = try setup.directory.write("script", "\(hexToken(1)) 403:UnrelatedKeyIdInToken\n")
        let emulator = try RunningEmulator(["--quiet", "--script-file", script], environment: setup.environment)
        let env = clientEnvironment(emulator)
        let result = try BuiltTool.run("send-push", ["--token", hexToken(1), "--body", "hi"], environment: env)
        #expect(result.status == 1)
        #expect(result.stdout.contains("403 UnrelatedKeyIdInToken [2 attempts]"), "\(result.stdout)")
        #expect(result.stderr.contains("also on a new connection"), "\(result.stderr)")
        let records = emulator.waitForRecords(2)
        #expect(records.count == 2)
        #expect(Set(records.compactMap { $0["connection"] as? Int }).count == 2)
    }

    @Test("the emulator binds a connection to its first key: curl sends two keys on one connection")
    func emulatorBindsConnectionsToTheirFirstKey() throws {
        let second = try OpenSSLKey(in: setup.directory, name: "second")
        let emulator = try RunningEmulator(
            ["--quiet", "--trust-key", "FGHIJ67890=\(second.publicKeyPath)"], environment: setup.environment)
        let first = try ProviderTokenMaker.sign(keyPath: setup.key.pkcs8Path)
        let other = try ProviderTokenMaker.sign(keyPath: second.pkcs8Path, keyID: "FGHIJ67890")
        let url = emulator.baseURL + "/3/device/" + hexToken(1)
        let body = try setup.directory.write("body", #"{"aps":{"alert":"hi"}}"#)
        // One curl, two transfers: the second reuses the first one's connection.
        let result = try BuiltTool.runSystem(
            "curl",
            [
                "-sS", "--http2", "--cacert", emulator.caPath, "-o", "/dev/null", "-w", "%{http_code}\\n",
                "-H", "authorization: bearer \(first)", "-H", "apns-topic: com.example.app", "--data-binary",
                "@" + body,
                url, "--next",
                "--http2", "--cacert", emulator.caPath, "-o", "/dev/null", "-w", "%{http_code}\\n",
                "-H", "authorization: bearer \(other)", "-H", "apns-topic: com.example.app", "--data-binary",
                "@" + body,
                url,
            ])
        #expect(result.stdout.split(separator: "\n") == ["200", "403"], "\(result.stdout) \(result.stderr)")
        let records = emulator.waitForRecords(2)
        #expect(records.last?["reason"] as? String == "UnrelatedKeyIdInToken")
        #expect(records.first?["connection"] as? Int == records.last?["connection"] as? Int)
        // The other key alone, on a connection of its own, is accepted.
        let alone = try Curl.request(
            url, headers: [("authorization", "bearer \(other)"), ("apns-topic", "com.example.app")],
            body: #"{"aps":{"alert":"hi"}}"#, cacert: emulator.caPath)
        #expect(alone.status == 200)
    }

    @Test("ExpiredToken: pruned like Unregistered (unless registered again after its timestamp), exit 0, explained")
    func expiredToken() throws {
        var env = clientEnvironment(nil)
        try register("old", hexToken(1), env: env)
        let emulator = try RunningEmulator(
            ["--quiet", "--expired", hexToken(1), "--expired", hexToken(2)], environment: setup.environment)
        env = clientEnvironment(emulator)
        // Registered after the emulator marked the token expired: the app has it again.
        try register("renewed", hexToken(2), env: env)
        let result = try BuiltTool.run("send-push", ["--body", "hi"], environment: env)
        result.expectSuccess()
        #expect(result.stdout.contains("410 ExpiredToken (removed from registry)"), "\(result.stdout)")
        #expect(
            result.stderr.contains(
                "send-push: the device token has expired: the app must register its new one (2 devices)"),
            "\(result.stderr)")
        #expect(result.stderr.contains("1 pruned"))
        #expect(Set(try registeredDevices().keys) == ["renewed"])
        let records = emulator.waitForRecords(2)
        #expect(records.allSatisfy { $0["status"] as? Int == 410 && $0["timestamp"] as? Int != nil })
    }

    @Test("ExpiredToken for a push-to-start token clears only that token; the device and its device token stay")
    func expiredPushToStartToken() throws {
        var env = clientEnvironment(nil)
        let startToken = hexToken(1, filler: "5e")
        try register(["phone", hexToken(1), "--push-to-start-token", startToken], env: env)
        let emulator = try RunningEmulator(["--quiet", "--expired", startToken], environment: setup.environment)
        env = clientEnvironment(emulator)
        let result = try BuiltTool.run(
            "send-push",
            [
                "--live-activity", "start", "--attributes-type", "BuildAttributes", "--attributes",
                #"{"project":"pushkit"}"#, "--content-state", #"{"progress":0}"#, "--json",
            ], environment: env)
        result.expectSuccess()
        let line = try #require(jsonLines(result.stdout).first)
        #expect(line["reason"] as? String == "ExpiredToken" && line["pruned"] as? Bool == true)
        #expect(line["advice"] as? String == "the push-to-start token has expired: the app must send its new one")
        let phone = try #require(try registeredDevices()["phone"])
        #expect(phone["token"] as? String == hexToken(1))
        #expect(phone["push_to_start_token"] == nil)
    }

    @Test("a 410 injected with --script-file carries a timestamp, as every 410 from APNs does")
    func scriptedGoneCarriesATimestamp() throws {
        let script = try setup.directory.write("script", "\(hexToken(1)) 410:ExpiredToken\n")
        let emulator = try RunningEmulator(["--quiet", "--script-file", script], environment: setup.environment)
        let answer = try Curl.request(
            emulator.baseURL + "/3/device/" + hexToken(1),
            headers: [("authorization", "bearer \(try setup.token())"), ("apns-topic", "com.example.app")],
            body: #"{"aps":{"alert":"hi"}}"#, cacert: emulator.caPath)
        #expect(answer.status == 410 && answer.reason == "ExpiredToken")
        let timestamp = try #require(answer.json?["timestamp"] as? Int)
        #expect(abs(Double(timestamp) / 1000 - Date().timeIntervalSince1970) < 60)
    }

    @Test("--detach: push.log carries the advice with each device's record")
    func backgroundLogCarriesAdvice() throws {
        let emulator = try RunningEmulator(["--quiet", "--key-environment", "sandbox"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        let stateDirectory = setup.directory.file("state")
        env["PUSHKIT_STATE_DIR"] = stateDirectory
        try register("phone", hexToken(1), env: env)
        try BuiltTool.run("send-push", ["--body", "hi", "--detach"], environment: env).expectSuccess()
        // The background process writes its records when it is done: poll for them.
        let deadline = Date().addingTimeInterval(20)
        var records: [[String: Any]] = []
        while Date() < deadline {
            records = jsonLines((try? String(contentsOfFile: stateDirectory + "/push.log", encoding: .utf8)) ?? "")
            if records.contains(where: { $0["device"] as? String == "phone" }) { break }
            usleep(20_000)
        }
        let record = try #require(records.first { $0["device"] as? String == "phone" }, "\(records)")
        #expect(record["reason"] as? String == "BadEnvironmentKeyIdInToken")
        #expect((record["advice"] as? String)?.hasPrefix("key ABCDE12345 is limited to sandbox") == true)
    }

    @Test("a topic-specific key for another app: 400 TopicDisallowed, not retried, the topic named")
    func topicOutsideTheKeysScope() throws {
        let emulator = try RunningEmulator(
            ["--quiet", "--key-topics", "com.example.other,com.example.third"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        let result = try BuiltTool.run("send-push", ["--token", hexToken(1), "--body", "hi"], environment: env)
        #expect(result.status == 1)
        #expect(result.stdout.contains("400 TopicDisallowed"))
        #expect(result.stderr.contains("key ABCDE12345 may not push to topic com.example.app"), "\(result.stderr)")
        #expect(emulator.waitForRecords(1).count == 1)
        #expect(
            emulator.records().first?["detail"] as? String
                == "key ABCDE12345 is scoped to com.example.other, com.example.third (--key-topics), "
                + "not to com.example.app"
        )
    }

    @Test("register-apns serve: the same pipeline; each device's reason in the answer, the advice in the server's log")
    func serverSendRoute() throws {
        let emulator = try RunningEmulator(["--quiet", "--key-environment", "sandbox"], environment: setup.environment)
        let server = try RunningServe(["--no-auth"], environment: emulator.asAPNs(for: clientEnvironment(nil)))
        try server.request(
            "POST", "/register-apns", json: #"{"device_token": "phone", "apns_token": "\#(hexToken(1))"}"#)
        let sent = try server.request("POST", "/api/v1/notifications/send", json: #"{"title": "t"}"#)
        #expect(sent.status == 200, "\(sent.body)")
        #expect(sent.json?["sent"] as? Int == 1, "one device attempted, as the OpenClaw service counts")
        let results = try #require(sent.json?["results"] as? [[String: Any]])
        #expect(results.first?["success"] as? Bool == false)
        #expect(results.first?["reason"] as? String == "BadEnvironmentKeyIdInToken")
        #expect(emulator.waitForRecords(1).count == 1, "not retried")
        #expect(Set(try registeredDevices().keys) == ["phone"], "not pruned")
        #expect(server.stderr.contains("key ABCDE12345 is limited to sandbox, not production"), "\(server.stderr)")
    }

    @Test("the emulator refuses scope flags for keys it does not trust (exit 64), naming the flag")
    func unknownKeyInScopeFlag() throws {
        let result = try BuiltTool.run(
            "apns-emulator", ["--port", "0", "--key-environment", "ZZZZZ00000=sandbox"], environment: setup.environment)
        #expect(result.status == 64)
        #expect(result.stderr.contains("--key-environment names key id ZZZZZ00000"), "\(result.stderr)")
        let bad = try BuiltTool.run(
            "apns-emulator", ["--port", "0", "--key-environment", "staging"], environment: setup.environment)
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--key-environment must be sandbox or production"))
    }
}
