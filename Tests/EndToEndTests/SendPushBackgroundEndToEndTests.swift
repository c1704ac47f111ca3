import Crypto
import Foundation
import Testing

/// `send-push --detach` and `--hook`, and the delivery policy, against the real emulator: the built
/// tools, real processes, real files.
@Suite("send-push in the background and its delivery policy, end to end")
struct SendPushBackgroundEndToEndTests: ClientToolSuite {
    let setup: ProviderSetup
    let devicesFile: String
    let stateDirectory: String

    init() throws {
        setup = try ProviderSetup()
        devicesFile = setup.directory.file("devices.json")
        stateDirectory = setup.directory.file("state")
    }

    var logPath: String { stateDirectory + "/push.log" }

    var clientSettings: [String: String] { ["APNS_STATE_FILE": devicesFile, "PUSHKIT_STATE_DIR": stateDirectory] }

    /// The records of push.log so far.
    func logRecords() -> [[String: Any]] {
        jsonLines((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")
    }

    /// Polls push.log until `count` records are there (the background process writes them when it is done).
    func waitForLog(_ count: Int, timeout: TimeInterval = 20) -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(timeout)
        var records = logRecords()
        while records.count < count, Date() < deadline {
            usleep(20_000)
            records = logRecords()
        }
        return records
    }

    /// Runs `send-push ARGUMENTS` the way a Python back end's hook does today:
    /// `subprocess.run(..., capture_output=True, timeout=10)`, with `stdin` as input. Returns the
    /// exit status and what was captured; `subprocess.run` returns only once both pipes are closed.
    func runFromPython(
        _ arguments: [String], stdin: String, env: [String: String]
    ) throws -> (status: Int, stdout: String, stderr: String) {
        let script = """
            import json, subprocess, sys
            args = json.loads(sys.argv[1])
            done = subprocess.run(args, input=sys.argv[2].encode(), capture_output=True, timeout=10)
            print(json.dumps({"status": done.returncode, "stdout": done.stdout.decode(), "stderr": done.stderr.decode()}))
            """
        let arguments = [BuiltTool.path("send-push")] + arguments
        let argumentsJSON = String(decoding: try JSONSerialization.data(withJSONObject: arguments), as: UTF8.self)
        let process = BuiltTool.process("send-push", [], environment: env)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script, argumentsJSON, stdin]
        let result = try RunningTool(process, stdin: nil).wait()
        #expect(result.status == 0, "python: \(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        return (object["status"] as? Int ?? -1, object["stdout"] as? String ?? "", object["stderr"] as? String ?? "")
    }

    @Test(
        "--hook from a caller that captures output: the caller is back before a slow delivery ends; the log gets the outcome"
    )
    func hookDoesNotHoldTheCaller() throws {
        // Every answer takes 3 s, so the delivery cannot have finished when the caller is back.
        let emulator = try RunningEmulator(["--quiet", "--delay", "3000"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        env["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", #"{"title": "Sven"}"#)
        try register("phone", hexToken(1), env: env)
        let reply = String(repeating: "word ", count: 40) + "\n"
        let hook = try runFromPython(["--hook", "msg-7"], stdin: reply, env: env)
        #expect(hook.status == 0)
        #expect(hook.stdout.isEmpty && hook.stderr.isEmpty, "a hook that worked says nothing: \(hook.stderr)")
        #expect(
            !logRecords().contains { $0["outcome"] as? String == "delivered" },
            "the caller got its answer before the delivery ended")

        let records = waitForLog(1)
        let record = try #require(records.first)
        #expect(record["outcome"] as? String == "delivered", "\(records)")
        #expect(record["message_id"] as? String == "msg-7")
        #expect(record["device"] as? String == "phone")
        #expect((record["token"] as? String)?.contains("…") == true, "tokens are masked in the log")
        let sent = try #require(emulator.waitForRecords(1).first)
        #expect(
            (sent["payload"] as? NSDictionary) == [
                "aps": [
                    "alert": ["title": "Sven", "body": String(reply.prefix(100)) + "..."], "badge": 1,
                    "sound": "default",
                ],
                "message_id": "msg-7",
            ] as NSDictionary)
        let mode = try FileManager.default.attributesOfItem(atPath: logPath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test(
        "a relative ca_file in the config is beside the config: --detach delivers from /, a foreground run from elsewhere"
    )
    func relativePathsInTheConfig() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        env["APNS_CA_FILE"] = nil
        let configDirectory = setup.directory.file("config")
        try FileManager.default.createDirectory(atPath: configDirectory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: emulator.caPath, toPath: configDirectory + "/tls.pem")
        try #"{"ca_file": "tls.pem"}"#.write(
            toFile: configDirectory + "/config.json", atomically: true, encoding: .utf8)
        env["PUSHKIT_CONFIG"] = configDirectory + "/config.json"
        try register("phone", hexToken(1), env: env)

        // The background delivery runs from /, where no tls.pem is.
        let detached = try BuiltTool.run(
            "send-push", ["--detach", "--body", "from the hook"], environment: env, directory: configDirectory)
        detached.expectSuccess()
        let logged = waitForLog(1).first
        #expect(logged?["outcome"] as? String == "delivered", "\(logged ?? [:])")
        // A caller elsewhere (a cron job in HOME) finds it too.
        let elsewhere = try BuiltTool.run(
            "send-push", ["--body", "from cron"], environment: env, directory: setup.directory.path)
        #expect(elsewhere.status == 0, "\(elsewhere.stderr)")
        #expect(emulator.waitForRecords(2).count == 2)
    }

    @Test("--detach says where the outcome goes and exits 0; usage, payload and key problems still fail at once")
    func detachValidatesInTheForeground() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register("phone", hexToken(1), env: env)
        let detached = try BuiltTool.run(
            "send-push", ["--detach", "--title", "Build", "--body", "green"], environment: env)
        detached.expectSuccess()
        #expect(detached.stderr.contains("sending to 1 device in the background; outcomes go to \(logPath)"))
        #expect(waitForLog(1).first?["outcome"] as? String == "delivered")

        let usage = try BuiltTool.run("send-push", ["--detach", "--body", "x", "--retries", "-1"], environment: env)
        #expect(usage.status == 64)
        let priority = try BuiltTool.run("send-push", ["--detach", "--body", "x", "--priority", "7"], environment: env)
        #expect(priority.status == 64)
        #expect(
            priority.stderr.contains(
                "'7' is invalid for '--priority <priority>'. Please provide one of '10', '5' or '1'"))
        let payload = try BuiltTool.run("send-push", ["--detach", "--body", "x", "--data", "[1]"], environment: env)
        #expect(payload.status == 65)
        #expect(payload.stderr.contains("--data must be a JSON object"))
        var noKey = env
        noKey["APNS_KEY_PATH"] = setup.directory.file("missing.p8")
        let key = try BuiltTool.run("send-push", ["--detach", "--body", "x"], environment: noKey)
        #expect(key.status == 66)
        #expect(emulator.records().count == 1, "only the good run sent anything")
        #expect(logRecords().count == 1)
    }

    @Test(
        "the background process is isolated: its own session, streams on /dev/null, no signal blocked; SIGTERM stops it, and push.log says the push's fate is unknown"
    )
    func backgroundProcessIsolated() throws {
        let emulator = try RunningEmulator(["--quiet", "--delay", "8000"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        let marker = "isolation-\(UUID().uuidString)"
        try BuiltTool.run("send-push", ["--detach", "--token", hexToken(9), "--body", marker], environment: env)
            .expectSuccess()
        // The delivering process waits 8 s for its answer: find it by its command line.
        func find() -> Int32? {
            for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
                guard let pid = Int32(entry), let line = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
                else { continue }
                if String(decoding: line, as: UTF8.self).contains(marker) { return pid }
            }
            return nil
        }
        var pid: Int32?
        for _ in 0..<200 where pid == nil {
            pid = find()
            if pid == nil { usleep(10_000) }
        }
        let child = try #require(pid, "the background process is running")
        // The process is found by its command line as soon as it is forked, possibly before it has
        // detached (new session, 0-2 on /dev/null, inherited descriptors closed, signals unblocked,
        // in that order): give it a moment to finish, well inside the 8 s it waits for its answer.
        func inherited() -> [String] {
            let others = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(child)/fd")) ?? []).compactMap(
                Int.init
            ).filter { $0 > 2 }
            return others.map {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child)/fd/\($0)")) ?? ""
            }
            .filter { $0.hasPrefix("/tmp") || $0.hasPrefix("pipe:") }
        }
        func blockedSignals() -> Substring? {
            let status = (try? String(contentsOfFile: "/proc/\(child)/status", encoding: .utf8)) ?? ""
            return status.split(separator: "\n").first { $0.hasPrefix("SigBlk:") }?.split(separator: "\t").last
        }
        for _ in 0..<300 where !(inherited().isEmpty && blockedSignals()?.allSatisfy { $0 == "0" } == true) {
            usleep(10_000)
        }
        let blocked = blockedSignals()
        #expect(blocked.map { $0.allSatisfy { $0 == "0" } } == true, "no signal blocked: \(blocked ?? "?")")
        let stat = try String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        // After the command: state, ppid, pgrp, session, tty_nr.
        let session = try #require(Int32(fields[3]))
        #expect(session != getsid(0), "not in the caller's session")
        #expect(session == child, "a session of its own (setsid)")
        #expect(fields[4] == "0", "no controlling terminal")
        for descriptor in 0...2 {
            let target = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child)/fd/\(descriptor)")
            #expect(target == "/dev/null", "fd \(descriptor) -> \(target)")
        }
        #expect(inherited().isEmpty, "only its own sockets are open, not the caller's files: \(inherited())")
        kill(child, SIGTERM)
        // It stops sending at once, waits up to 2 s for the answer on its way (which the emulator
        // holds for 8 s), then writes push.log and exits.
        var gone = false
        for _ in 0..<1000 where !gone {
            gone = kill(child, 0) != 0
            if !gone { usleep(10_000) }
        }
        #expect(gone, "SIGTERM stops it")
        let record = try #require(waitForLog(1).first, "the interrupted send is in push.log")
        #expect(record["outcome"] as? String == "unknown", "\(record)")
        #expect((record["reason"] as? String)?.contains("APNs may have delivered it") == true, "\(record)")
    }

    @Test("a hook whose APNs is unreachable exits 0 and logs why")
    func hookUnreachable() throws {
        let env = clientEnvironment(nil)
        try register("phone", hexToken(1), env: env)
        let result = try BuiltTool.run(
            "send-push", ["--hook", "m1", "--timeout", "5"], environment: env, stdin: Data("reply".utf8))
        #expect(result.status == 0)
        let record = try #require(waitForLog(1).first)
        #expect(record["outcome"] as? String == "failed")
        #expect(record["status"] as? Int == 0)
        #expect((record["reason"] as? String)?.isEmpty == false, "the connection failure is named: \(record)")
        #expect(record["message_id"] as? String == "m1")
    }

    @Test(
        "a hook whose configuration is broken, or whose key is missing, exits 0, says why on stderr and in the log",
        arguments: ["config", "key", "nothing to send"])
    func hookWithBrokenSetup(problem: String) throws {
        var env = clientEnvironment(nil)
        var stdin = "the reply"
        let expected: (status: Int, message: String)
        switch problem {
        case "config":
            env["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", #"{"team_id": "#)
            expected = (78, "is not valid JSON")
        case "key":
            try register("phone", hexToken(1), env: env)
            env["APNS_KEY_PATH"] = setup.directory.file("missing.p8")
            expected = (66, "missing.p8")
        default:
            try register("phone", hexToken(1), env: env)
            stdin = "  \n"
            expected = (65, "nothing to send")
        }
        let result = try BuiltTool.run("send-push", ["--hook", "m2"], environment: env, stdin: Data(stdin.utf8))
        #expect(result.status == 0)
        #expect(result.stderr.contains(expected.message), "\(result.stderr)")
        let record = try #require(logRecords().first, "the foreground wrote the error before exiting")
        #expect(record["outcome"] as? String == "error")
        #expect(record["exit_status"] as? Int == expected.status)
        #expect((record["reason"] as? String)?.contains(expected.message) == true)
        #expect(record["message_id"] as? String == "m2")
    }

    @Test("a hook with no registered device exits 0 and says so in the log (cron and hooks must not fail for it)")
    func hookWithoutDevices() throws {
        let env = clientEnvironment(nil)
        let result = try BuiltTool.run("send-push", ["--hook", "m3"], environment: env, stdin: Data("reply".utf8))
        #expect(result.status == 0)
        #expect(result.stderr.contains("no devices to send to"))
        let record = try #require(logRecords().first)
        #expect(record["outcome"] as? String == "no_devices")
        #expect(record["message_id"] as? String == "m3")
        #expect(record["exit_status"] == nil)
    }

    @Test("a usage error in the hook's own arguments is the one thing that fails it (64)")
    func hookUsageError() throws {
        let env = clientEnvironment(nil)
        for arguments in [["--hook", "a", "b", "c"], ["--hook", "--urgency", "loud"], ["--hook", "--no-such-flag"]] {
            let result = try BuiltTool.run("send-push", arguments, environment: env, stdin: Data("x".utf8))
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
        }
        #expect(logRecords().isEmpty)
    }

    /// The hour of now in `zone`, from Foundation's own time-zone data (not our code).
    func currentHour(in zone: String) throws -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: zone))
        return calendar.component(.hour, from: Date())
    }

    /// A quiet_hours config for `zone` whose window holds now (or, with `holdingNow: false`, does not),
    /// with two hours' margin on either side.
    func quietConfig(zone: String, holdingNow: Bool) throws -> String {
        let hour = try currentHour(in: zone)
        let start = holdingNow ? (hour + 22) % 24 : (hour + 3) % 24
        let end = holdingNow ? (hour + 3) % 24 : (hour + 22) % 24
        return
            #"{"quiet_hours": {"start": "\#(String(format: "%02d", start)):00", "end": "\#(String(format: "%02d", end)):00", "timezone": "\#(zone)"}}"#
    }

    @Test(
        "quiet hours in an IANA zone, each policy: passive sends silently, skip reports skipped, ignore sends as asked",
        arguments: ["Pacific/Kiritimati", "America/Los_Angeles"])
    func quietHours(zone: String) throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        env["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", try quietConfig(zone: zone, holdingNow: true))
        let token = hexToken(3)

        let passive = try BuiltTool.run("send-push", ["--token", token, "--body", "late reply"], environment: env)
        passive.expectSuccess()
        #expect(passive.stderr.contains("quiet hours"), "\(passive.stderr)")
        let skipped = try BuiltTool.run(
            "send-push", ["--token", token, "--body", "late reply", "--quiet-policy", "skip", "--json"],
            environment: env)
        skipped.expectSuccess()
        let line = try #require(try JSONSerialization.jsonObject(with: Data(skipped.stdout.utf8)) as? [String: Any])
        #expect(line["outcome"] as? String == "skipped")
        #expect((line["reason"] as? String)?.hasPrefix("quiet hours") == true)
        #expect((line["reason"] as? String)?.hasSuffix(zone) == true)
        try BuiltTool.run(
            "send-push", ["--token", token, "--body", "late reply", "--quiet-policy", "ignore"], environment: env
        ).expectSuccess()
        try BuiltTool.run(
            "send-push", ["--token", token, "--body", "urgent", "--quiet-policy", "skip", "--urgency", "high"],
            environment: env
        ).expectSuccess()

        env["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", try quietConfig(zone: zone, holdingNow: false))
        try BuiltTool.run(
            "send-push", ["--token", token, "--body", "daytime", "--quiet-policy", "skip"], environment: env
        ).expectSuccess()

        let aps = emulator.waitForRecords(4).map { ($0["payload"] as? [String: Any])?["aps"] as? [String: Any] ?? [:] }
        #expect(aps.count == 4, "the skipped one was not sent")
        #expect(aps.first?["interruption-level"] as? String == "passive")
        #expect(aps.first?["sound"] == nil)
        #expect(aps.dropFirst().first?["sound"] as? String == "default", "ignore")
        #expect(
            aps.dropFirst(2).first?["interruption-level"] as? String == "time-sensitive", "high urgency breaks through")
        #expect(aps.last?["sound"] as? String == "default", "outside the window nothing changes")
        #expect(aps.last?["interruption-level"] == nil)
    }

    @Test(
        "quiet hours without a timezone follow the tool's TZ: a zone name, a POSIX rule, empty for UTC",
        arguments: [(":Asia/Karachi", true), ("<+05>-5", true), ("<-07>7", false), ("", false)])
    func quietHoursInTheSystemZone(tz: String, holdsNow: Bool) throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        env["TZ"] = tz
        // A window from two hours before to three after now at UTC+5 (Karachi keeps no DST).
        let hour = (try currentHour(in: "UTC") + 5) % 24
        let window = String(
            format: #"{"quiet_hours": {"start": "%02d:00", "end": "%02d:00"}}"#,
            (hour + 22) % 24, (hour + 3) % 24)
        env["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", window)
        let arguments = ["--token", hexToken(1), "--body", "x", "--quiet-policy", "skip", "--json"]
        let result = try BuiltTool.run("send-push", arguments, environment: env)
        result.expectSuccess()
        let line = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(line["outcome"] as? String == (holdsNow ? "skipped" : "delivered"), "TZ=\(tz): \(result.stdout)")
        if holdsNow { #expect((line["reason"] as? String)?.hasSuffix("system") == true) }
    }

    @Test("an unknown time zone in quiet_hours is a configuration error (78) naming it")
    func unknownZone() throws {
        var env = clientEnvironment(nil)
        env["PUSHKIT_CONFIG"] = try setup.directory.write(
            "config.json", #"{"quiet_hours": {"start": "22:00", "end": "07:00", "timezone": "Europe/Atlantis"}}"#)
        let result = try BuiltTool.run("send-push", ["--token", hexToken(1), "--body", "x"], environment: env)
        #expect(result.status == 78)
        #expect(result.stderr.contains("\"Europe/Atlantis\" is not an IANA time zone"))
    }

    @Test("the frequency cap holds across processes: of two sends started together, one goes out and one is skipped")
    func frequencyCapAcrossProcesses() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        env["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", #"{"min_interval_seconds": 3600}"#)
        try register("phone", hexToken(1), env: env)
        let arguments = ["--title", "Loop", "--body", "again", "--collapse-id", "runaway", "--json"]
        let runs = try (0..<2).map { _ in try BuiltTool.start("send-push", arguments, environment: env) }
        let results = try runs.map { try $0.wait() }
        for result in results { result.expectSuccess() }
        let outcomes = results.compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.stdout.utf8)) as? [String: Any])?["outcome"] as? String
        }
        #expect(outcomes.sorted() == ["delivered", "skipped"])
        let skipped = try #require(results.first { $0.stdout.contains("skipped") })
        #expect(skipped.stdout.contains("frequency cap"))
        #expect(emulator.waitForRecords(1).count == 1)

        let otherKey = try BuiltTool.run(
            "send-push", ["--title", "Other", "--body", "b", "--collapse-id", "other"], environment: env)
        otherKey.expectSuccess()
        #expect(otherKey.stdout.hasPrefix("delivered"), "another collapse id has its own interval")
        let overridden = try BuiltTool.run("send-push", arguments + ["--min-interval", "0"], environment: env)
        overridden.expectSuccess()
        #expect(overridden.stdout.contains("delivered"), "--min-interval 0 turns the cap off")
        #expect(emulator.waitForRecords(3).count == 3)
    }

    @Test(
        "--collapse-id auto sends the SHA-256 of the thread id; --urgency maps to the level and the config's category")
    func collapseAutoAndUrgency() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        env["PUSHKIT_CONFIG"] = try setup.directory.write("config.json", #"{"urgency_categories": {"high": "URGENT"}}"#)
        try BuiltTool.run(
            "send-push",
            [
                "--token", hexToken(1), "--body", "x", "--thread-id", "chat-1", "--collapse-id", "auto", "--urgency",
                "high",
            ],
            environment: env
        ).expectSuccess()
        try BuiltTool.run("send-push", ["--token", hexToken(1), "--body", "y", "--urgency", "low"], environment: env)
            .expectSuccess()
        let records = emulator.waitForRecords(2)
        let expected = SHA256.hash(data: Data("thread:chat-1".utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(records.first?["collapse_id"] as? String == expected)
        let aps = records.map { ($0["payload"] as? [String: Any])?["aps"] as? [String: Any] ?? [:] }
        #expect(aps.first?["interruption-level"] as? String == "time-sensitive")
        #expect(aps.first?["category"] as? String == "URGENT")
        #expect(aps.last?["interruption-level"] as? String == "passive")
        #expect(aps.last?["category"] == nil)
    }

    @Test("libcurl is loaded only when something is sent: not for --dry-run, --help or a usage error")
    func libcurlLoadedOnDemand() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        var env = clientEnvironment(emulator)
        env["LD_DEBUG"] = "files"
        let loads: (ToolResult) -> Bool = { $0.stderr.contains("file=libcurl.so.4") }
        let dryRun = try BuiltTool.run(
            "send-push", ["--token", hexToken(1), "--body", "x", "--dry-run"], environment: env)
        dryRun.expectSuccess()
        #expect(!loads(dryRun))
        #expect(!loads(try BuiltTool.run("send-push", ["--help"], environment: env)))
        #expect(!loads(try BuiltTool.run("send-push", ["--retries", "-1", "--body", "x"], environment: env)))
        let sent = try BuiltTool.run("send-push", ["--token", hexToken(1), "--body", "x"], environment: env)
        sent.expectSuccess()
        #expect(loads(sent), "a real send loads it")
    }

    @Test("libcurl that cannot be loaded: exit 69 with what the loader said and how to install it; nothing sent")
    func libcurlUnloadable() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        // A file named libcurl.so.4 that is no library, found first through LD_LIBRARY_PATH.
        let libraries = setup.directory.file("broken-libs")
        try FileManager.default.createDirectory(atPath: libraries, withIntermediateDirectories: true)
        try Data("not a library".utf8).write(to: URL(fileURLWithPath: libraries + "/libcurl.so.4"))
        var env = clientEnvironment(emulator)
        env["LD_LIBRARY_PATH"] = libraries
        let broken = try BuiltTool.run("send-push", ["--token", hexToken(1), "--body", "x"], environment: env)
        #expect(broken.status == 69, "\(broken.stderr)")
        #expect(broken.stderr.contains("cannot load libcurl"))
        #expect(broken.stderr.contains("libcurl.so.4"))
        #expect(broken.stderr.contains("apt-get install libcurl4"))
        #expect(emulator.records().isEmpty, "nothing was sent")
    }
}
