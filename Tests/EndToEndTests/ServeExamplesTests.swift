import Foundation
import Testing

/// The examples for `register-apns serve`: `examples/serve-requests.sh` (the app-side request of
/// every route) run against the built server sending to the real `apns-emulator`, and
/// `examples/systemd/register-apns-serve.service` run by its ExecStart.
@Suite("Serve examples")
struct ServeExamplesTests {
    static let examples = RepositoryFiles.path("examples")
    static let script = examples + "/serve-requests.sh"
    static let unitPath = examples + "/systemd/register-apns-serve.service"
    /// The system's PATH only (bash, curl, cat, grep): the script needs none of the built tools.
    static let systemPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"

    // The script's default tokens, and what it does with them.
    static let phoneToken = "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad"
    static let ipadToken = "038a68bab42615689a5e872771d00e9d51e4e5020c2e5edfa510284f58a93dad"
    static let macToken = "dd380a606337851ad8aff57364d5d108319ad843ded7b8c27c2c1a9bbcfde12b"
    static let oldPhoneToken = "c476b95401189dde1ca3b8f0bfbae71e6bebf91bfd12b3e4ddb5694751b2484c"
    static let agentDirectory = "/home/ada/projects/sven"

    let setup: ProviderSetup

    init() throws {
        setup = try ProviderSetup()
        try FileManager.default.createDirectory(atPath: setup.environment["HOME"]!, withIntermediateDirectories: true)
    }

    /// `bash examples/serve-requests.sh` with exactly `env`.
    func runScript(env: [String: String]) throws -> ToolResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["bash", Self.script]
        process.environment = BuiltTool.childEnvironment(env)
        return try RunningTool(process, stdin: nil).wait()
    }

    /// "METHOD PATH STATUS" of each access-log line the server wrote.
    static func accessLog(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").compactMap { line in
            line.firstMatch(of: /^\S+Z 127\.0\.0\.1 (\S+) (\S+) (\d{3})\s/).map { "\($0.1) \($0.2) \($0.3)" }
        }
    }

    static func alert(_ record: [String: Any]) -> [String: Any]? {
        ((record["payload"] as? [String: Any])?["aps"] as? [String: Any])?["alert"] as? [String: Any]
    }

    // MARK: serve-requests.sh

    @Test(
        "serve-requests.sh against a server with a secret: exit 0 after every route answered 200, the devices it registered are in the state file, the emulator received its 8 pushes"
    )
    func requestsScript() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let secret = "serve-secret-\(UUID().uuidString)"
        let secretFile = try setup.directory.write("serve.secret", secret + "\n")
        let stateFile = setup.directory.file("devices.json")
        let server = try RunningServe(
            [
                "--secret-file", secretFile, "--state-file", stateFile,
                "--apns-url", emulator.baseURL, "--cacert", emulator.caPath,
            ],
            environment: setup.environment)
        let scriptEnvironment = ["PATH": Self.systemPath, "HOME": setup.environment["HOME"]!, "BASE": server.baseURL]

        let result = try runScript(env: scriptEnvironment.merging(["SECRET_FILE": secretFile]) { $1 })
        #expect(result.status == 0, "\(result.stderr)\n\(server.stderr)")
        #expect(result.stderr.isEmpty, "\(result.stderr)")

        // Every route of the contract, in the script's order, each answered 200.
        #expect(
            Self.accessLog(server.stderr) == [
                "GET /health 200",
                "POST /register-apns 200",
                "POST /register-apns 200",
                "POST /api/v1/devices/register 200",
                "POST /hooks/ios-device 200",
                "POST /hooks/ios-device 200",
                "POST /registerSubscription 200",
                "POST /gateway/messages 200",
                "GET /api/v1/devices 200",
                "POST /api/v1/notifications/send 200",
                "POST /api/v1/notifications/send/\(maskedToken(Self.phoneToken)) 200",
                "POST /hooks/ios-notify 200",
                "POST /triggerReplyFinished 200",
                "GET /metrics 200",
                "DELETE /api/v1/devices/\(maskedToken(Self.macToken)) 200",
            ], "\(server.stderr)")

        // What it printed: the answers, one JSON object per line, and the metrics without buckets.
        let macID = "apns-" + (try sha256Hex(Self.macToken)).prefix(16)
        let answers = jsonLines(result.stdout)
        #expect(answers.first.map(NSDictionary.init(dictionary:)) == ["status": "healthy"] as NSDictionary)
        let macRegistration = answers.first { $0["status"] as? String == "registered" }?["device"] as? [String: Any]
        #expect(macRegistration?["device_id"] as? String == macID, "the derived device id: \(result.stdout)")
        #expect(macRegistration?["device_name"] as? String == "Ada's MacBook")
        #expect(answers.first { $0["count"] != nil }?["count"] as? Int == 3, "three devices listed before the sends")
        #expect(answers.first { $0["sent"] != nil }?["sent"] as? Int == 3)
        #expect(result.stdout.contains("pushkit_sends_total{outcome=\"delivered\"} 8"), "\(result.stdout)")
        #expect(!result.stdout.contains("_bucket{"))

        // The state file: the iPhone (subscribed to the agent) and the iPad (sandbox, family); the
        // Mac was deleted by the last request and the old iPhone unregistered by the hook.
        let agent = try sha256Hex(Self.agentDirectory)
        let state = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stateFile))) as? [String: Any])
        let devices = try #require(state["devices"] as? [String: [String: Any]])
        #expect(Set(devices.keys) == ["ada-iphone", "ada-ipad"], "\(devices)")
        #expect(devices["ada-iphone"]?["token"] as? String == Self.phoneToken)
        #expect(devices["ada-iphone"]?["groups"] as? [String] == [agent])
        #expect((devices["ada-iphone"]?["briefing"] as? [String: Any])?["timezone"] as? String == "Europe/London")
        #expect(devices["ada-ipad"]?["token"] as? String == Self.ipadToken)
        #expect(devices["ada-ipad"]?["environment"] as? String == "sandbox")
        #expect(devices["ada-ipad"]?["groups"] as? [String] == ["family"])
        #expect(devices.values.allSatisfy { $0["last_delivered_at"] is String }, "both received pushes")
        #expect(
            (state["agents"] as? [String: Any])?[agent] as? NSDictionary == [
                "cwd": Self.agentDirectory, "display_name": "Sven",
            ] as NSDictionary)

        // The pushes: send to all (3), to the iPhone (1), ios-notify (3), the agent's reply (1).
        let records = emulator.waitForRecords(8)
        #expect(records.count == 8)
        var titles: [String: [String]] = [:]
        for record in records {
            titles[record["device_token"] as? String ?? "?", default: []].append(
                Self.alert(record)?["title"] as? String ?? "?")
        }
        #expect(
            titles == [
                Self.phoneToken: ["Build finished", "Just for your iPhone", "Reminder", "Sven"],
                Self.ipadToken: ["Build finished", "Reminder"],
                Self.macToken: ["Build finished", "Reminder"],
            ])
        let broadcast = try #require(records.first)
        #expect(
            Self.alert(broadcast).map(NSDictionary.init(dictionary:)) == [
                "title": "Build finished", "subtitle": "main", "body": "All 312 tests passed.",
            ] as NSDictionary)
        let aps = (broadcast["payload"] as? [String: Any])?["aps"] as? [String: Any]
        #expect(aps?["category"] as? String == "BUILD")
        #expect(aps?["badge"] as? Int == 1)
        let envelope = (broadcast["payload"] as? [String: Any])?["openclaw"] as? [String: Any]
        #expect(envelope?["build_id"] as? String == "312", "the OpenClaw app reads its data under openclaw")
        let reminders = records.filter { Self.alert($0)?["title"] as? String == "Reminder" }
        #expect(
            reminders.allSatisfy { Self.alert($0)?["body"] as? String == "Stand-up in 5 minutes." },
            "\"message\" stands for \"body\"")
        let reply = try #require(records.last)
        #expect(reply["device_token"] as? String == Self.phoneToken)
        #expect(reply["collapse_id"] as? String == agent)
        #expect(
            Self.alert(reply)?["body"] as? String
                == "Here is the plan for tomorrow: three meetings and the dentist at four.")
        let replyData = reply["payload"] as? [String: Any]
        #expect(replyData?["type"] as? String == "reply_finished")
        #expect(replyData?["server_key"] as? String == (try sha256Hex(secret)))
        #expect(replyData?["conversation_id"] as? String == "c-42")

        // curl -f makes a refused request fail the script: a wrong secret stops it at the first
        // request that needs one (curl exit 22), and nothing changes.
        let before = try Data(contentsOf: URL(fileURLWithPath: stateFile))
        let refused = try runScript(env: scriptEnvironment.merging(["SECRET": "not-the-secret"]) { $1 })
        #expect(refused.status == 22, "\(refused.stderr)")
        #expect(refused.stderr.contains("401"), "\(refused.stderr)")
        #expect(Self.accessLog(server.stderr).suffix(2) == ["GET /health 200", "POST /register-apns 401"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: stateFile)) == before)
        let missing = try runScript(
            env: scriptEnvironment.merging(["SECRET_FILE": setup.directory.file("no-such-secret")]) { $1 })
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("no-such-secret"), "\(missing.stderr)")
        #expect(Self.accessLog(server.stderr).count == 17, "no request without a secret")
        #expect(emulator.records().count == 8)
    }

    // MARK: The systemd unit

    @Test("register-apns-serve.service: hardening as documented, and systemd-analyze verify finds nothing to say")
    func unitDirectives() throws {
        let unit = try ServiceUnit(path: Self.unitPath)
        #expect(unit.value("Service", "Type") == "exec")
        #expect(!(unit.value("Service", "User") ?? "root").isEmpty && unit.value("Service", "User") != "root")
        #expect(unit.value("Service", "Restart") == "on-failure")
        #expect(unit.value("Service", "KillSignal") == "SIGTERM")
        #expect(unit.value("Service", "TimeoutStopSec") == "30s")
        for (key, value) in [
            ("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"), ("ProtectHome", "yes"), ("PrivateTmp", "yes"),
            ("PrivateDevices", "yes"), ("CapabilityBoundingSet", ""),
        ] {
            #expect(unit.value("Service", key) == value, "\(key)")
        }
        // The state directory is the same one wherever it is named.
        let stateDirectory = "%S/" + (unit.value("Service", "StateDirectory") ?? "?")
        #expect(unit.values("Service", "ReadWritePaths") == [stateDirectory])
        #expect(unit.values("Service", "Environment").contains("PUSHKIT_STATE_DIR=" + stateDirectory))
        let argv = try unit.execStart()
        #expect(Array(argv.prefix(4)) == ["/usr/local/bin/register-apns", "serve", "--listen", "127.0.0.1:8100"])
        #expect(argv.firstIndex(of: "--secret-file").map { argv[$0 + 1] } == "%E/pushkit-free/serve.secret")

        let which = try BuiltTool.runSystem("sh", ["-c", "command -v systemd-analyze"])
        try #require(which.status == 0, "systemd-analyze is missing (Debian package systemd)")
        // verify checks that ExecStart's program exists: the built one stands in for /usr/local/bin's.
        let directory = try TemporaryDirectory()
        let copy = try directory.write(
            "register-apns-serve.service",
            try String(contentsOfFile: Self.unitPath, encoding: .utf8)
                .replacingOccurrences(of: "/usr/local/bin/register-apns", with: BuiltTool.path("register-apns")))
        let verify = try BuiltTool.runSystem("systemd-analyze", ["verify", copy])
        #expect(verify.status == 0)
        #expect(
            verify.stdout.isEmpty && verify.stderr.isEmpty,
            "unknown keys or bad values: \(verify.stdout)\(verify.stderr)")
        let security = try BuiltTool.runSystem("systemd-analyze", ["security", "--offline=true", copy])
        let level = security.stdout.firstMatch(of: /Overall exposure level for [^:]+: (\d+\.\d+)/).flatMap {
            Double($0.1)
        }
        #expect(
            level.map { $0 <= 2.0 } == true,
            "systemd-analyze security: \(security.stdout.suffix(300))\(security.stderr)")
    }

    @Test(
        "register-apns-serve.service by its ExecStart (the built binary, test directories for %E and %S, a free port): /health, a registration into the state directory, exit 0 on SIGTERM; a secret readable by others (78) or no config file (66) is not restarted"
    )
    func unitRuns() throws {
        let unit = try ServiceUnit(path: Self.unitPath)
        let root = try TemporaryDirectory()
        let specifiers: [Character: String] = [
            "E": root.file("etc"), "S": root.file("var/lib"), "h": root.file("var/lib/pushkit-free"),
        ]
        var argv = try unit.execStart(specifiers)
        try #require(argv.first == "/usr/local/bin/register-apns" && argv.dropFirst().first == "serve", "\(argv)")
        let listen = try #require(argv.firstIndex(of: "--listen"))
        argv[listen + 1] = "127.0.0.1:0"
        let secretFile = try #require(argv.firstIndex(of: "--secret-file").map { argv[$0 + 1] })

        // What the administrator installs (the unit's header): config, key and secret, mode 600.
        let environment = try unit.environment(
            specifiers,
            manager: [
                "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
                "USER": unit.value("Service", "User") ?? "", "HOME": specifiers["h"]!,
            ])
        let configPath = try #require(environment["PUSHKIT_CONFIG"])
        let stateDirectory = try #require(environment["PUSHKIT_STATE_DIR"])
        let configDirectory = URL(fileURLWithPath: configPath).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: configDirectory, withIntermediateDirectories: true)
        let keyPath = configDirectory + "/AuthKey_\(ProviderSetup.keyID).p8"
        try FileManager.default.copyItem(atPath: setup.key.pkcs8Path, toPath: keyPath)
        let config: [String: Any] = [
            "team_id": ProviderSetup.teamID, "key_id": ProviderSetup.keyID,
            "bundle_id": ProviderSetup.topic, "key_path": keyPath,
        ]
        try JSONSerialization.data(withJSONObject: config).write(to: URL(fileURLWithPath: configPath))
        let secret = "unit-secret-\(UUID().uuidString)"
        try Data((secret + "\n").utf8).write(to: URL(fileURLWithPath: secretFile))
        for file in [configPath, keyPath, secretFile] { chmod(file, 0o600) }
        // What systemd does for StateDirectory= before starting it.
        try FileManager.default.createDirectory(
            atPath: stateDirectory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        #expect(stateDirectory == specifiers["S"]! + "/" + (unit.value("Service", "StateDirectory") ?? "?"))

        // `serve` and its arguments, after the built register-apns, which RunningServe runs.
        let service = try RunningServe(Array(argv.dropFirst(2)), environment: environment)
        #expect(!service.stderr.contains("will answer 503"), "the config file was read: \(service.stderr)")
        let health = try service.request("GET", "/health")
        #expect(health.status == 200)
        #expect(health.json.map(NSDictionary.init(dictionary:)) == ["status": "healthy"] as NSDictionary)
        let registration = #"{"device_token": "ada-iphone", "apns_token": "\#(Self.phoneToken)"}"#
        #expect(
            try service.request("POST", "/register-apns", json: registration).status == 401, "the secret file is used")
        let registered = try service.request(
            "POST", "/register-apns", json: registration, headers: ["Authorization": "Bearer " + secret])
        #expect(registered.status == 200, "\(registered.body) \(service.stderr)")
        let devices =
            try? JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: stateDirectory + "/devices.json"))) as? [String: Any]
        #expect(
            (devices?["devices"] as? [String: Any])?.keys.sorted() == ["ada-iphone"],
            "registered in the state directory")
        #expect(
            service.terminate() == 0,
            "systemctl stop sends KillSignal=\(unit.value("Service", "KillSignal") ?? "?"): \(service.stderr)")
        #expect(service.stderr.hasSuffix("register-apns serve: stopped\n"), "\(service.stderr)")

        // Errors a restart cannot fix are not retried: their exit status is in RestartPreventExitStatus=.
        let noRestart = (unit.value("Service", "RestartPreventExitStatus") ?? "").split(separator: " ").map(String.init)
        chmod(secretFile, 0o644)
        let exposedSecret = try startFailure(argv, environment)
        #expect(exposedSecret?.status == 78, "\(exposedSecret?.stderr ?? "it started")")
        #expect(exposedSecret?.stderr.contains("chmod 600") == true)
        chmod(secretFile, 0o600)
        try FileManager.default.removeItem(atPath: configPath)
        let noConfig = try startFailure(argv, environment)
        #expect(noConfig?.status == 66, "\(noConfig?.stderr ?? "it started")")
        #expect(noConfig?.stderr.contains(configPath) == true)
        for failure in [exposedSecret, noConfig].compactMap({ $0 }) {
            #expect(
                noRestart.contains("\(failure.status)"), "Restart=on-failure would retry exit \(failure.status) forever"
            )
        }
    }

    /// How the unit's ExecStart fails to start, or nil when it started after all.
    func startFailure(_ argv: [String], _ environment: [String: String]) throws -> ServeStartError? {
        do {
            _ = try RunningServe(Array(argv.dropFirst(2)), environment: environment)
            return nil
        } catch let error as ServeStartError {
            return error
        }
    }
}

// MARK: - Helpers

/// A service unit read as systemd reads it, enough for this example: sections, repeated keys,
/// ExecStart= and Environment= split into words, specifiers expanded from a table.
private struct ServiceUnit {
    let name: String
    private let entries: [(section: String, key: String, value: String)]

    init(path: String) throws {
        name = URL(fileURLWithPath: path).lastPathComponent
        var section = ""
        var entries: [(String, String, String)] = []
        for raw in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n") {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                section = String(line.dropFirst().dropLast())
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw UnitError("\(name): not a key=value line: \(line)")
            }
            entries.append(
                (
                    section, line[..<equals].trimmingCharacters(in: .whitespaces),
                    line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
                ))
        }
        self.entries = entries
    }

    func values(_ section: String, _ key: String) -> [String] {
        entries.filter { $0.section == section && $0.key == key }.map(\.value)
    }

    /// The last value of `key` (a later assignment wins, as in systemd).
    func value(_ section: String, _ key: String) -> String? { values(section, key).last }

    /// `%X` replaced from `specifiers` (`%%` is a percent); any other specifier is an error, so
    /// the test notices a new one it does not stand in for. Without a table, words stay unexpanded.
    func expand(_ word: String, _ specifiers: [Character: String]?) throws -> String {
        guard let specifiers else { return word }
        var result = ""
        var characters = word.makeIterator()
        while let character = characters.next() {
            guard character == "%" else {
                result.append(character)
                continue
            }
            guard let specifier = characters.next() else { throw UnitError("a lone % in \(word)") }
            if specifier == "%" {
                result.append("%")
                continue
            }
            guard let value = specifiers[specifier] else { throw UnitError("no stand-in for %\(specifier) in \(word)") }
            result += value
        }
        return result
    }

    /// The one ExecStart= line as argv, without systemd's prefix characters (-@:+!).
    func execStart(_ specifiers: [Character: String]? = nil) throws -> [String] {
        let lines = values("Service", "ExecStart")
        guard lines.count == 1 else { throw UnitError("\(name): \(lines.count) ExecStart= lines") }
        var words = try Self.words(lines[0]).map { try expand($0, specifiers) }
        if let first = words.first { words[0] = String(first.drop { "-@:+!".contains($0) }) }
        return words
    }

    /// The manager's environment, then each Environment= assignment.
    func environment(_ specifiers: [Character: String], manager: [String: String]) throws -> [String: String] {
        var env = manager
        for line in values("Service", "Environment") {
            for assignment in try Self.words(line) {
                let expanded = try expand(assignment, specifiers)
                guard let equals = expanded.firstIndex(of: "=") else {
                    throw UnitError("\(name): not an assignment: \(assignment)")
                }
                env[String(expanded[..<equals])] = String(expanded[expanded.index(after: equals)...])
            }
        }
        return env
    }

    /// Splits a command line as systemd does (the examples suite's reading of units).
    static func words(_ line: String) throws -> [String] { try SystemdUnit.words(line) }
}

private struct UnitError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
