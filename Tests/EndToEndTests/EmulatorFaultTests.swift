import Foundation
import Testing

/// One test per scripted state and fault flag, plus the control surface, shutdown and flag errors.
@Suite("apns-emulator faults and scripts")
struct EmulatorFaultTests {
    let setup: ProviderSetup

    init() throws {
        setup = try ProviderSetup()
    }

    @Test("--unregistered TOKEN: 410 Unregistered with the time it was marked, in milliseconds")
    func unregistered() throws {
        let before = Int(Date().timeIntervalSince1970 * 1000)
        let emulator = try RunningEmulator(
            ["--unregistered", deviceA.uppercased(), "--unregistered", deviceB], environment: setup.environment)
        let token = try setup.token()
        let response = try Curl.push(to: emulator, deviceToken: deviceA, token: token)
        #expect(response.status == 410)
        #expect(response.reason == "Unregistered")
        let timestamp = try #require(response.json?["timestamp"] as? Int)
        #expect(timestamp >= before && timestamp <= Int(Date().timeIntervalSince1970 * 1000))
        #expect(emulator.records().first?["timestamp"] as? Int == timestamp)
        #expect(try Curl.push(to: emulator, deviceToken: deviceB, token: token).status == 410)
        #expect(try Curl.push(to: emulator, deviceToken: "c3c3", token: token).status == 200)
    }

    @Test("--unregistered-file: tokens (and optional times) from a file")
    func unregisteredFile() throws {
        let list = try setup.directory.write("gone.txt", "# uninstalled\n\(deviceA) 1700000000000\n\(deviceB)\n")
        let emulator = try RunningEmulator(["--unregistered-file", list], environment: setup.environment)
        let token = try setup.token()
        let response = try Curl.push(to: emulator, deviceToken: deviceA, token: token)
        #expect(response.status == 410)
        #expect(response.json?["timestamp"] as? Int == 1_700_000_000_000)
        #expect(try Curl.push(to: emulator, deviceToken: deviceB, token: token).reason == "Unregistered")
    }

    @Test("--wrong-environment TOKEN: 400 BadDeviceToken")
    func wrongEnvironment() throws {
        let emulator = try RunningEmulator(["--wrong-environment", deviceA], environment: setup.environment)
        let response = try Curl.push(to: emulator, deviceToken: deviceA, token: try setup.token())
        #expect(response.status == 400)
        #expect(response.reason == "BadDeviceToken")
        #expect(response.json?["timestamp"] == nil)
    }

    @Test("--fail-first N:STATUS:REASON fails the first N valid requests of each device token")
    func failFirst() throws {
        let emulator = try RunningEmulator(["--fail-first", "2:429:TooManyRequests"], environment: setup.environment)
        let token = try setup.token()
        let statuses = try [deviceA, deviceA, deviceA, deviceB, deviceB, deviceB].map { device in
            try Curl.push(to: emulator, deviceToken: device, token: token)
        }
        #expect(statuses.map(\.status) == [429, 429, 200, 429, 429, 200])
        #expect(statuses[0].reason == "TooManyRequests")
        // Invalid requests are judged normally and do not use up the failures.
        let another = String(repeating: "c3", count: 32)
        #expect(try Curl.push(to: emulator, deviceToken: another, token: token, body: nil).reason == "PayloadEmpty")
        #expect(try Curl.push(to: emulator, deviceToken: another, token: token).status == 429)
    }

    @Test("--script-file: each token's answers request by request; the last step repeats; stall never answers")
    func scriptFile() throws {
        let stalled = String(repeating: "c3", count: 32)
        let script = try setup.directory.write(
            "script.txt",
            """
            # token  steps
            \(deviceA)  500:InternalServerError,delay:400,ok
            \(deviceB.uppercased())\t429:TooManyRequests
            \(stalled) stall,ok
            """)
        let emulator = try RunningEmulator(
            ["--script-file", script, "--record", setup.directory.file("records.jsonl")], environment: setup.environment
        )
        let token = try setup.token()
        let a = try (0..<4).map { _ in try Curl.push(to: emulator, deviceToken: deviceA, token: token) }
        #expect(a.map(\.status) == [500, 200, 200, 200])
        #expect(a[0].reason == "InternalServerError")
        #expect(a[1].totalTime >= 0.4, "the delay:400 step took \(a[1].totalTime)s")
        #expect(a[2].totalTime < 0.4 || a[3].totalTime < 0.4, "the ok step that repeats is not delayed")
        let b = try (0..<3).map { _ in try Curl.push(to: emulator, deviceToken: deviceB, token: token).status }
        #expect(b == [429, 429, 429])
        let first = try Curl.push(to: emulator, deviceToken: stalled, token: token, extra: ["--max-time", "1"])
        #expect(first.status == 0, "a stalled request gets no answer")
        #expect(try Curl.push(to: emulator, deviceToken: stalled, token: token).status == 200)
        let records = emulator.waitForRecords(8)
        #expect(records.count == 8, "the stalled request is not recorded")
        #expect(records.filter { $0["device_token"] as? String == stalled }.count == 1)
        #expect(records.first?["detail"] as? String == "--script-file")

        // A bad line names the file and line; exit 65.
        let broken = try setup.directory.write(
            "broken.txt", "\(deviceA) ok\n\(deviceB) 500:InternalServerError,sometimes\n")
        let refused = try BuiltTool.run(
            "apns-emulator", ["--port", "0", "--script-file", broken], environment: setup.environment)
        #expect(refused.status == 65)
        #expect(
            refused.stderr.contains("--script-file \(broken) line 2: unknown step \"sometimes\""), "\(refused.stderr)")
        let missing = try BuiltTool.run(
            "apns-emulator", ["--port", "0", "--script-file", setup.directory.file("nope.txt")],
            environment: setup.environment)
        #expect(missing.status == 66)
    }

    @Test("--fail-rate P:STATUS:REASON: 1 fails all, 0 none, and --seed repeats a mixed run")
    func failRate() throws {
        let token = try setup.token()
        let always = try RunningEmulator(["--fail-rate", "1:503:ServiceUnavailable"], environment: setup.environment)
        let failed = try Curl.push(to: always, deviceToken: deviceA, token: token)
        #expect(failed.status == 503)
        #expect(failed.reason == "ServiceUnavailable")
        let never = try RunningEmulator(["--fail-rate", "0%:503:ServiceUnavailable"], environment: setup.environment)
        #expect(try Curl.push(to: never, deviceToken: deviceA, token: token).status == 200)

        func run() throws -> [Int] {
            let emulator = try RunningEmulator(
                ["--fail-rate", "0.5:500:InternalServerError", "--seed", "42"], environment: setup.environment)
            return try (0..<8).map { _ in try Curl.push(to: emulator, deviceToken: deviceA, token: token).status }
        }
        let first = try run()
        #expect(Set(first) == [200, 500], "a mix: \(first)")
        #expect(try run() == first)
    }

    @Test("--delay MS answers each request that much later")
    func delay() throws {
        let emulator = try RunningEmulator(["--delay", "400"], environment: setup.environment)
        let token = try setup.token()
        let quick = try RunningEmulator(environment: setup.environment)
        _ = try Curl.push(to: quick, deviceToken: deviceA, token: token)
        let response = try Curl.push(to: emulator, deviceToken: deviceA, token: token)
        #expect(response.status == 200)
        #expect(response.totalTime >= 0.4, "took \(response.totalTime)s")
    }

    @Test("--goaway-after N: GOAWAY after N streams and close; the client carries on over a new connection")
    func goAway() throws {
        let emulator = try RunningEmulator(["--goaway-after", "2"], environment: setup.environment)
        let token = try setup.token()
        let url = emulator.baseURL + "/3/device/" + deviceA
        let perRequest = [
            "-H", "authorization: bearer \(token)", "-H", "apns-topic: \(ProviderSetup.topic)", "--data-binary",
            #"{"aps":{}}"#, "-o", "/dev/null", "-w", "%{http_code}\n",
        ]
        let result = try BuiltTool.runSystem(
            "curl",
            ["-sS", "-v", "--http2", "--cacert", emulator.caPath] + perRequest + [
                url, "--next", "--http2", "--cacert", emulator.caPath,
            ] + perRequest + [url, "--next", "--http2", "--cacert", emulator.caPath] + perRequest + [url])
        #expect(result.stdout == "200\n200\n200\n", "\(result.stderr)")
        let records = emulator.waitForRecords(3)
        #expect(records.compactMap { $0["connection"] as? Int } == [1, 1, 2], "\(records)")
    }

    @Test("--drop-after N: the connection is reset without an answer when stream N+1 arrives")
    func dropAfter() throws {
        let token = try setup.token()
        let never = try RunningEmulator(["--drop-after", "0"], environment: setup.environment)
        let dropped = try Curl.push(to: never, deviceToken: deviceA, token: token)
        #expect(dropped.status == 0)
        #expect(dropped.exitCode != 0)
        #expect(never.records().isEmpty)

        let once = try RunningEmulator(["--drop-after", "1"], environment: setup.environment)
        let url = once.baseURL + "/3/device/" + deviceA
        let perRequest = [
            "-H", "authorization: bearer \(token)", "-H", "apns-topic: \(ProviderSetup.topic)", "--data-binary",
            #"{"aps":{}}"#, "-o", "/dev/null", "-w", "%{http_code}\n",
        ]
        let result = try BuiltTool.runSystem(
            "curl",
            ["-sS", "--http2", "--cacert", once.caPath] + perRequest + [
                url, "--next", "--http2", "--cacert", once.caPath,
            ] + perRequest + [url])
        #expect(result.stdout.hasPrefix("200\n"), "\(result.stdout) \(result.stderr)")
        let onFirstConnection = once.records().filter { $0["connection"] as? Int == 1 }
        #expect(onFirstConnection.count == 1, "only stream 1 of connection 1 was answered: \(once.records())")
    }

    @Test("--go-silent-after N: the first connection to open stream N+1 stops answering without closing; new ones work")
    func goSilentAfter() throws {
        let emulator = try RunningEmulator(["--go-silent-after", "1"], environment: setup.environment)
        let token = try setup.token()
        let url = emulator.baseURL + "/3/device/" + deviceA
        let perRequest = [
            "-H", "authorization: bearer \(token)", "-H", "apns-topic: \(ProviderSetup.topic)",
            "--data-binary", #"{"aps":{}}"#, "-o", "/dev/null", "-w", "%{http_code}\n", "--max-time", "2",
        ]
        let started = Date()
        let connection = ["--http2", "--cacert", emulator.caPath]
        let result = try BuiltTool.runSystem(
            "curl",
            ["-sS"] + connection + perRequest + [url, "--next"] + connection
                + perRequest + [url])
        #expect(Date().timeIntervalSince(started) >= 2, "the second request waited for its --max-time")
        #expect(result.stdout == "200\n000\n", "\(result.stderr)")
        // Neither closed nor reset: curl saw nothing at all until it gave up.
        #expect(result.stderr.contains("timed out"), "\(result.stderr)")
        let note = "connection 1 went silent at stream 2 (--go-silent-after)"
        #expect(emulator.stderr.contains(note), "\(emulator.stderr)")
        // Only one connection ever goes silent: the next one answers every stream.
        #expect(try Curl.push(to: emulator, deviceToken: deviceA, token: token).status == 200)
        #expect(try Curl.push(to: emulator, deviceToken: deviceB, token: token).status == 200)
        let records = emulator.waitForRecords(3)
        let onFirst = records.filter { $0["connection"] as? Int == 1 }
        #expect(onFirst.count == 1, "the silent stream is not recorded: \(records)")
        #expect(records.allSatisfy { $0["status"] as? Int == 200 })
    }

    @Test("POST /emulator/go-silent silences the other open connections and says how many; GET is 405")
    func goSilentControl() throws {
        let emulator = try RunningEmulator(environment: setup.environment)
        let silenced = try Curl.request(emulator.baseURL + "/emulator/go-silent", cacert: emulator.caPath)
        #expect(silenced.status == 200)
        #expect(silenced.json?["silenced"] as? Int == 0, "only the control request's own connection: \(silenced.body)")
        let get = try Curl.request(emulator.baseURL + "/emulator/go-silent", method: "GET", cacert: emulator.caPath)
        #expect(get.status == 405)
        // New connections are not affected.
        #expect(try Curl.push(to: emulator, deviceToken: deviceA, token: try setup.token()).status == 200)
    }

    @Test("control surface: unregister and register a token at run time; list requests; status")
    func controlSurface() throws {
        let emulator = try RunningEmulator(environment: setup.environment)
        let token = try setup.token()
        #expect(try Curl.push(to: emulator, deviceToken: deviceA, token: token).status == 200)
        let marked = try Curl.request(emulator.baseURL + "/emulator/unregister/" + deviceA, cacert: emulator.caPath)
        #expect(marked.status == 200)
        let markedAt = try #require(marked.json?["timestamp"] as? Int)
        let gone = try Curl.push(to: emulator, deviceToken: deviceA, token: token)
        #expect(gone.status == 410)
        #expect(gone.json?["timestamp"] as? Int == markedAt)
        #expect(
            try Curl.request(emulator.baseURL + "/emulator/register/" + deviceA, cacert: emulator.caPath).status == 200)
        #expect(try Curl.push(to: emulator, deviceToken: deviceA, token: token).status == 200)

        let listed = try Curl.request(emulator.baseURL + "/emulator/requests", method: "GET", cacert: emulator.caPath)
        #expect(listed.status == 200)
        let statuses = listed.body.split(separator: "\n").compactMap { line in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["status"] as? Int
        }
        #expect(statuses == [200, 410, 200])
        let status = try #require(
            try Curl.request(emulator.baseURL + "/emulator/status", method: "GET", cacert: emulator.caPath).json)
        #expect(status["requests"] as? Int == 3)
        #expect(status["accepted"] as? Int == 2)
        #expect(status["environment"] as? String == "production")
        #expect(
            try Curl.request(emulator.baseURL + "/emulator/nothing", method: "GET", cacert: emulator.caPath).status
                == 404)
    }

    @Test("--record FILE takes the records (stdout keeps only the listening line); --quiet silences stderr")
    func recordFileAndQuiet() throws {
        let recordPath = setup.directory.file("records.jsonl")
        let emulator = try RunningEmulator(["--record", recordPath, "--quiet"], environment: setup.environment)
        #expect(try Curl.push(to: emulator, deviceToken: deviceA, token: try setup.token()).status == 200)
        #expect(emulator.waitForRecords(1).count == 1)
        #expect(emulator.stdout.split(separator: "\n").count == 1)
        #expect(emulator.terminate() == 0)
        #expect(emulator.stderr.isEmpty, "\(emulator.stderr)")
    }

    @Test("SIGINT and SIGTERM stop it cleanly with exit 0", arguments: [SIGINT, SIGTERM])
    func cleanShutdown(signal: Int32) throws {
        let emulator = try RunningEmulator(environment: setup.environment)
        #expect(try Curl.push(to: emulator, deviceToken: deviceA, token: try setup.token()).status == 200)
        #expect(emulator.terminate(signal: signal) == 0)
        #expect(emulator.records().count == 1)
    }

    @Test(
        "bad flags exit 64 with a message naming the flag",
        arguments: [
            (["--fail-first", "often"], "--fail-first"),
            (["--fail-rate", "2:500:InternalServerError"], "--fail-rate"),
            (["--port", "70000"], "--port"),
            (["--unregistered", "xyz"], "xyz"),
            (["--cert", "/tmp/c.pem"], "--cert-key"),
            (["--environment", "staging"], "--environment"),
            (["--bogus"], "--bogus"),
            (["--go-silent-after", "-1"], "--go-silent-after"),
            (["--go-silent-after", "often"], "--go-silent-after"),
        ])
    func badFlags(arguments: [String], mention: String) throws {
        let result = try BuiltTool.run("apns-emulator", arguments, environment: setup.environment)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(mention), "\(result.stderr)")
    }

    @Test("a missing key file exits 66; a broken config or no key at all exits 78")
    func configurationErrors() throws {
        var environment = setup.environment
        environment["APNS_KEY_PATH"] = setup.directory.file("missing.p8")
        let missing = try BuiltTool.run("apns-emulator", ["--port", "0"], environment: environment)
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("missing.p8"))

        environment = setup.environment
        environment["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", "{ not json")
        let broken = try BuiltTool.run("apns-emulator", ["--port", "0"], environment: environment)
        #expect(broken.status == 78)
        #expect(broken.stderr.contains("config.json"))

        environment = setup.environment
        environment["APNS_KEY_PATH"] = nil
        let none = try BuiltTool.run("apns-emulator", ["--port", "0"], environment: environment)
        #expect(none.status == 78)
        #expect(none.stderr.contains("--key-path"))
    }

    @Test("--public-key trusts a PEM public key instead of the .p8")
    func publicKey() throws {
        var environment = setup.environment
        environment["APNS_KEY_PATH"] = nil
        let emulator = try RunningEmulator(["--public-key", setup.key.publicKeyPath], environment: environment)
        #expect(try Curl.push(to: emulator, deviceToken: deviceA, token: try setup.token()).status == 200)
    }
}
