import Foundation
import Testing

/// What the built tools do when the file system misbehaves under them: a program rewriting the
/// state file in place, a spurious `ENOENT` from `open`, a full disk. Faults are real: another
/// writer holds the truncated file, and `Tests/Tools/fault_shim.c` (preloaded) makes the chosen
/// calls fail. The rule every test pins: no device a writer said it kept is ever lost, and a
/// failure is reported as what it was.
@Suite("file-system faults: nothing acknowledged is lost, nothing failed is reported done")
struct FileSystemFaultTests: ClientToolSuite {
    let setup: ProviderSetup
    let stateDirectory: String
    let stateFile: String

    init() throws {
        setup = try ProviderSetup()
        stateDirectory = setup.directory.file("registry")
        stateFile = stateDirectory + "/devices.json"
        try FileManager.default.createDirectory(
            atPath: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    var clientSettings: [String: String] { ["APNS_STATE_FILE": stateFile] }
    var environment: [String: String] { clientEnvironment(nil) }

    /// `count` devices `d-0`…, registered by `register-apns import`.
    func seed(_ count: Int, environment: [String: String]? = nil) throws {
        let lines = (0..<count).map { #"{"device_id": "d-\#($0)", "token": "\#(hexToken($0, filler: "5a"))"}"# }
        let input = setup.directory.file("seed.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        try BuiltTool.run("register-apns", ["import", input], environment: environment ?? self.environment)
            .expectSuccess()
    }

    /// The device ids `register-apns list --json` shows.
    func listed(_ environment: [String: String]? = nil) throws -> Set<String> {
        let run = try BuiltTool.run("register-apns", ["list", "--json"], environment: environment ?? self.environment)
        #expect(run.status == 0, "\(run.stderr)")
        return Set(try listedDevices(run.stdout).keys)
    }

    /// The state file's bytes with device `removed` taken out, as a hand edit would.
    func handEdit(removing removed: String) throws -> Data {
        let data = try Data(contentsOf: URL(fileURLWithPath: stateFile))
        var object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var devices = try #require(object["devices"] as? [String: Any])
        devices[removed] = nil
        object["devices"] = devices
        return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

    /// The state file opened and truncated, as `slow-command > devices.json` leaves it until the
    /// command writes: the caller writes the rest and closes it.
    func truncateInPlace() throws -> FileHandle {
        let handle = try #require(FileHandle(forUpdatingAtPath: stateFile))
        try handle.truncate(atOffset: 0)
        return handle
    }

    func inode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int)
    }

    @Test(
        "a file emptied by a program rewriting it in place: register-apns exits 75, writes nothing, and the rewrite lands"
    )
    func slowRewriteCommandLine() throws {
        try seed(20)
        let edited = try handEdit(removing: "d-3")
        let inodeBefore = try inode(stateFile)
        let rewrite = try truncateInPlace()

        let refused = try BuiltTool.run("register-apns", ["add", "new-1", hexToken(100)], environment: environment)
        #expect(refused.status == 75, "\(refused.stderr)")
        #expect(refused.stderr.contains("is empty, but held 20 devices"), "\(refused.stderr)")
        #expect(try inode(stateFile) == inodeBefore, "not replaced")
        #expect(try Data(contentsOf: URL(fileURLWithPath: stateFile)).isEmpty, "nothing written")

        try rewrite.write(contentsOf: edited)
        try rewrite.close()
        try BuiltTool.run("register-apns", ["add", "new-1", hexToken(100)], environment: environment).expectSuccess()
        let expected = Set((0..<20).map { "d-\($0)" }).subtracting(["d-3"]).union(["new-1"])
        #expect(try listed() == expected, "the 20 devices, the hand edit and the new device")
    }

    @Test("the same through serve: 503 with Retry-After while the file is emptied, then 200; nothing lost")
    func slowRewriteServe() throws {
        try seed(20)
        let server = try RunningServe(["--no-auth", "--rate-limit", "0"], environment: environment)
        let body = #"{"device_token": "new-1", "apns_token": "\#(hexToken(100))"}"#
        let edited = try handEdit(removing: "d-3")
        let rewrite = try truncateInPlace()

        let refused = try server.request("POST", "/register-apns", json: body)
        #expect(refused.status == 503, "\(refused.status) \(refused.body)")
        #expect(refused.headers["retry-after"] != nil)
        #expect(refused.error?.contains("another program") == true, "\(refused.body)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: stateFile)).isEmpty, "nothing written")

        try rewrite.write(contentsOf: edited)
        try rewrite.close()
        let accepted = try server.request("POST", "/register-apns", json: body)
        #expect(accepted.status == 200, "\(accepted.body)")
        let expected = Set((0..<20).map { "d-\($0)" }).subtracting(["d-3"]).union(["new-1"])
        #expect(try listed() == expected)
    }

    @Test("an empty file these tools never wrote is still an empty registry")
    func emptyFileNeverWritten() throws {
        _ = FileManager.default.createFile(atPath: stateFile, contents: Data())
        try BuiltTool.run("register-apns", ["add", "first", hexToken(1)], environment: environment).expectSuccess()
        #expect(try listed() == ["first"])
    }

    @Test("a spurious ENOENT from open(): read again, never taken for no file; one that persists is exit 74")
    func spuriousENOENT() throws {
        try seed(10)
        let once = FaultShim.environment(
            environment, ["PUSHKIT_FAULT_ENOENT": "/devices.json", "PUSHKIT_FAULT_ENOENT_COUNT": "1"])
        try BuiltTool.run("register-apns", ["add", "new-1", hexToken(100)], environment: once).expectSuccess()
        #expect(try listed().count == 11, "the 10 devices and the new one")

        let before = try Data(contentsOf: URL(fileURLWithPath: stateFile))
        let always = FaultShim.environment(
            environment, ["PUSHKIT_FAULT_ENOENT": "/devices.json", "PUSHKIT_FAULT_ENOENT_COUNT": "1000"])
        let failed = try BuiltTool.run("register-apns", ["add", "new-2", hexToken(101)], environment: always)
        #expect(failed.status == 74, "\(failed.stderr)")
        #expect(failed.stderr.contains("opening it keeps failing"), "\(failed.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: stateFile)) == before, "nothing written")
    }

    @Test("a spurious ENOENT on serve's journal during a command-line write: the journal's batches are kept")
    func spuriousENOENTOnJournal() throws {
        var environment = self.environment
        environment["PUSHKIT_REGISTRY_JOURNAL_BYTES"] = "0"
        environment["PUSHKIT_REGISTRY_JOURNAL_IDLE_MS"] = "600000"
        try seed(10, environment: environment)
        let server = try RunningServe(["--no-auth", "--rate-limit", "0"], environment: environment)
        for n in 0..<5 {
            let answer = try server.request(
                "POST", "/register-apns",
                json: #"{"device_token": "served-\#(n)", "apns_token": "\#(hexToken(200 + n))"}"#)
            #expect(answer.status == 200, "\(answer.body)")
        }
        #expect(FileManager.default.fileExists(atPath: stateFile + ".journal"), "the batches are in the journal")

        let faulty = FaultShim.environment(
            environment, ["PUSHKIT_FAULT_ENOENT": "/devices.json.journal", "PUSHKIT_FAULT_ENOENT_COUNT": "1"])
        try BuiltTool.run("register-apns", ["add", "cli-1", hexToken(300)], environment: faulty).expectSuccess()
        let served = Set((0..<5).map { "served-\($0)" })
        #expect(try listed(environment).isSuperset(of: served.union(["cli-1"])), "every 200 kept")
        #expect(try listed(environment).count == 16)
    }

    /// Each device's token, name and groups, as `register-apns list --json` shows them.
    func details() throws -> [String: String] {
        let run = try BuiltTool.run("register-apns", ["list", "--json"], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        return try listedDevices(run.stdout).mapValues { record in
            let groups = (record["groups"] as? [String] ?? []).joined(separator: ",")
            return "\(record["token"] as? String ?? "-") \(record["name"] as? String ?? "-") [\(groups)]"
        }
    }

    @Test(
        "flat-map mode with failing renames: a command that fails leaves the registry as it was, one that succeeds whole"
    )
    func flatMapWithFailingRenames() throws {
        let flatMap = (0..<4).map { #""p\#($0)": "\#(hexToken($0, filler: "3c"))""# }.joined(separator: ", ")
        try "{\(flatMap)}\n".write(toFile: stateFile, atomically: true, encoding: .utf8)
        for n in 0..<4 {
            try register(
                "p\(n)", hexToken(n, filler: "3c"), ["--name", "Phone \(n)", "--group", "g\(n)"], env: environment)
        }
        #expect(try String(contentsOfFile: stateFile, encoding: .utf8).hasPrefix("{\n  \"p0\""), "still a flat map")

        var outcomes = (failed: 0, succeeded: 0)
        // Every rename failing, every second one, every third one, each from each phase: the
        // pending sidecar, the flat map and the final rename each fail in some command.
        let schedules = [(1, 0), (2, 0), (2, 1), (3, 0), (3, 1), (3, 2)]
        for (round, (every, phase)) in (schedules + schedules + schedules).enumerated() {
            let faulty = FaultShim.environment(
                environment,
                [
                    "PUSHKIT_FAULT_RENAME": "*", "PUSHKIT_FAULT_RENAME_EVERY": String(every),
                    "PUSHKIT_FAULT_RENAME_PHASE": String(phase),
                ])
            let command: [String]
            switch round % 3 {
            case 0: command = ["add", "new-\(round)", hexToken(100 + round, filler: "3c"), "--name", "New \(round)"]
            case 1: command = ["remove", "p\(round % 4)"]
            default:
                command = ["add", "p\(round % 4)", hexToken(round % 4, filler: "3c"), "--name", "Renamed \(round)"]
            }
            let before = try details()
            let run = try BuiltTool.run("register-apns", command, environment: faulty)
            let after = try details()
            if run.status != 0 {
                outcomes.failed += 1
                #expect(
                    after == before,
                    "round \(round) (\(command.joined(separator: " "))) failed but changed the registry")
                continue
            }
            outcomes.succeeded += 1
            switch round % 3 {
            case 0: #expect(after["new-\(round)"]?.contains("New \(round)") == true, "round \(round): \(after)")
            case 1: #expect(after["p\(round % 4)"] == nil, "round \(round)")
            default: #expect(after["p\(round % 4)"]?.contains("Renamed \(round)") == true, "round \(round): \(after)")
            }
            #expect(
                after.count == before.count + [1, -1, 0][round % 3]
                    + (before["p\(round % 4)"] == nil && round % 3 == 2 ? 1 : 0))
        }
        print("flat map with failing renames: \(outcomes.failed) commands failed, \(outcomes.succeeded) succeeded")
        #expect(outcomes.failed > 0 && outcomes.succeeded > 0)
    }

    @Test("send-push on a full disk: the 410 is reported as not pruned, exit 74, and the device stays")
    func pruneOnFullDisk() throws {
        let emulator = try RunningEmulator(["--quiet"], environment: setup.environment)
        let env = clientEnvironment(emulator)
        try register("alive", hexToken(1, filler: "ab"), env: env)
        try register("dead", hexToken(2, filler: "ab"), env: env)
        try BuiltTool.runSystem(
            "curl",
            [
                "-s", "--http2", "--cacert", emulator.caPath, "-X", "POST",
                emulator.baseURL + "/emulator/unregister/" + hexToken(2, filler: "ab"),
            ]
        ).expectSuccess()

        let full = FaultShim.environment(env, ["PUSHKIT_FAULT_ENOSPC": stateDirectory + "/"])
        let result = try BuiltTool.run("send-push", ["--body", "hi", "--json"], environment: full)
        #expect(result.status == 74, "the registry could not be written: \(result.stderr)")
        let dead = jsonLines(result.stdout).first { $0["device"] as? String == "dead" }
        #expect(dead?["outcome"] as? String == "unregistered")
        #expect(dead?["pruned"] as? Bool == false, "no prune is reported that did not happen")
        #expect((dead?["prune_error"] as? String)?.contains("No space left on device") == true, "\(dead ?? [:])")
        #expect(result.stderr.contains("1 not pruned"), "\(result.stderr)")
        #expect(try listed(env) == ["alive", "dead"])

        let text = try BuiltTool.run("send-push", ["--body", "hi"], environment: full)
        #expect(text.stdout.contains("(not removed from registry"), "\(text.stdout)")
        #expect(!text.stdout.contains("(removed from registry)"), "\(text.stdout)")
    }

    @Test("serve on a full disk: the 500 says what failed, /health turns 503, and both recover when room is back")
    func serveOnFullDisk() throws {
        try seed(3)
        let gate = setup.directory.file("disk-full")
        let faulty = FaultShim.environment(
            environment, ["PUSHKIT_FAULT_ENOSPC": stateDirectory + "/", "PUSHKIT_FAULT_WHILE": gate])
        let server = try RunningServe(["--no-auth", "--rate-limit", "0"], environment: faulty)
        let body = { (id: String, n: Int) in #"{"device_token": "\#(id)", "apns_token": "\#(hexToken(n))"}"# }
        #expect(try server.request("POST", "/register-apns", json: body("before", 10)).status == 200)
        #expect(try server.request("GET", "/health").status == 200)

        _ = FileManager.default.createFile(atPath: gate, contents: Data())
        let refused = try server.request("POST", "/register-apns", json: body("during", 11))
        #expect(refused.status == 500, "\(refused.body)")
        let message = refused.error ?? ""
        #expect(message.contains("No space left on device"), "\(message)")
        #expect(!message.contains("cannot be read"), "a write failure is not called a read failure: \(message)")
        let health = try server.request("GET", "/health")
        #expect(health.status == 503, "\(health.body)")
        #expect(health.error?.contains("registrations cannot be written") == true, "\(health.body)")

        try FileManager.default.removeItem(atPath: gate)
        #expect(try server.request("GET", "/health").status == 200, "healthy again without a registration")
        #expect(try server.request("POST", "/register-apns", json: body("after", 12)).status == 200)
        #expect(try listed() == ["d-0", "d-1", "d-2", "before", "after"])
    }
}
