import Foundation
import Synchronization
import Testing

private let tokenA = "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad"
private let tokenB = "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9"

/// A distinct 32-byte token for `number`.
private func deviceToken(_ number: Int) -> String { String(format: "%064x", number) }

/// What the reader thread of the concurrency test saw.
private final class ReaderLog: Sendable {
    let stop = Atomic(false)
    let state = Mutex((parsed: 0, failures: [String](), counts: Set<Int>()))
}

/// `register-apns` run as a server runs it: the built binary, real files, concurrent and killed
/// processes. The state file is checked with `JSONSerialization`, not with the code under test.
@Suite("register-apns end to end")
struct RegisterAPNsEndToEndTests {
    let directory: TemporaryDirectory
    let stateFile: String
    let environment: [String: String]

    init() throws {
        directory = try TemporaryDirectory()
        stateFile = directory.file("state/devices.json")
        environment = ["HOME": directory.file("home"), "APNS_STATE_FILE": stateFile]
    }

    @discardableResult
    func tool(_ arguments: String..., stdin: Data? = nil) throws -> ToolResult {
        try BuiltTool.run("register-apns", arguments, environment: environment, stdin: stdin)
    }

    /// The state file's `devices`, parsed independently.
    func devices(at path: String? = nil) throws -> [String: [String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path ?? stateFile))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        return try #require(object["devices"] as? [String: [String: Any]])
    }

    func listed() throws -> [[String: Any]] {
        let result = try tool("list", "--json")
        result.expectSuccess()
        return try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    func stateBytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: stateFile)) }

    // MARK: Round trips

    @Test("add, then list as a table, with --full, and as JSON Lines")
    func addAndList() throws {
        let added = try tool(
            "ipad", tokenA.uppercased(), "--sandbox", "--name", "Sven's iPad", "--model", "iPad13,1",
            "--os-version", "17.4", "--app-version", "2.0", "--group", "beta", "--group", "staff")
        added.expectSuccess()
        #expect(added.stdout == "added ipad: token 740f4707…78ad, sandbox\n")

        let table = try tool("list")
        table.expectSuccess()
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("DEVICE ID"))
        #expect(
            lines[1].hasPrefix("ipad") && lines[1].contains("740f4707…78ad") && lines[1].contains("Sven's iPad")
                && lines[1].contains("beta,staff"))
        #expect(!table.stdout.contains(tokenA), "tables mask tokens")
        #expect(try tool("list", "--full").stdout.contains(tokenA))

        let json = try listed()
        #expect(json.count == 1)
        let device = json[0]
        #expect(device["device_id"] as? String == "ipad")
        #expect(device["token"] as? String == tokenA, "stored lowercase, shown whole in JSON")
        #expect(device["environment"] as? String == "sandbox")
        #expect(
            device["model"] as? String == "iPad13,1" && device["os_version"] as? String == "17.4"
                && device["app_version"] as? String == "2.0")
        #expect(device["groups"] as? [String] == ["beta", "staff"])
        #expect(device["registered_at"] as? String == device["last_seen_at"] as? String)
        #expect(device["last_delivered_at"] is NSNull && device["transport"] as? String == "apns")

        let stored = try devices()["ipad"]
        #expect(stored?["token"] as? String == tokenA && stored?["name"] as? String == "Sven's iPad")
        #expect(
            Set(try #require(stored).keys).union(["device_id", "transport"]) == Set(device.keys),
            "list --json has the file's fields, and the transport"
        )
    }

    @Test("updating keeps registered_at, refreshes last_seen_at and the fields given; a token moves between ids")
    func updateAndMove() throws {
        try tool("add", "phone", tokenA, "--name", "old name", "--group", "beta").expectSuccess()
        let first = try #require(try devices()["phone"])
        var updated: [String: Any] = [:]
        // Timestamps have millisecond resolution: poll until a later one is written.
        for _ in 0..<100 {
            try tool("phone", tokenA, "--name", "new name").expectSuccess()
            updated = try #require(try devices()["phone"])
            if updated["last_seen_at"] as? String != first["last_seen_at"] as? String { break }
        }
        #expect(updated["registered_at"] as? String == first["registered_at"] as? String)
        #expect((updated["last_seen_at"] as? String ?? "") > (first["last_seen_at"] as? String ?? ""))
        #expect(updated["name"] as? String == "new name" && updated["groups"] as? [String] == ["beta"])

        let moved = try tool("reinstalled-phone", tokenA)
        moved.expectSuccess()
        #expect(moved.stdout.contains("token moved from phone"))
        #expect(Set(try devices().keys) == ["reinstalled-phone"])
    }

    @Test("remove by device id and by token")
    func remove() throws {
        try tool("a", tokenA).expectSuccess()
        try tool("b", tokenB).expectSuccess()
        let byID = try tool("remove", "a")
        byID.expectSuccess()
        #expect(byID.stdout == "removed a: token 740f4707…78ad\n")
        let byToken = try tool("remove", tokenB.uppercased())
        byToken.expectSuccess()
        #expect(byToken.stdout.hasPrefix("removed b:"))
        #expect(try devices().isEmpty)

        let before = try stateBytes()
        let missing = try tool("remove", "a")
        #expect(missing.status == 65)
        #expect(missing.stderr == "register-apns: no device with id or token \"a\" in \(stateFile)\n")
        #expect(try stateBytes() == before)
    }

    @Test("--from-json reads both body shapes, from a file or standard input, one per line")
    func fromJSON() throws {
        let body = try directory.write(
            "body.json", #"{"device_token": "install-1", "apns_token": "\#(tokenA)", "device_name": "Anna"}"#)
        try tool("add", "--from-json", body, "--production").expectSuccess()
        let lines = """
            {"device_token": "\(tokenB)", "device_name": "iPhone", "device_model": "iPhone15,2", "os_version": "17.4", "app_version": "3.1"}
            {"device_token": "install-3", "apns_token": "\(deviceToken(3))"}
            """
        let result = try tool("add", "--from-json", "-", "--group", "imported", stdin: Data(lines.utf8))
        result.expectSuccess()
        #expect(result.stdout.split(separator: "\n").count == 2)

        let stored = try devices()
        // No app device id in the second shape: "apns-" + the first 16 hex digits of SHA-256 of the token.
        let derivedID = "apns-" + String(try sha256Hex(tokenB).prefix(16))
        #expect(Set(stored.keys) == ["install-1", derivedID, "install-3"])
        #expect(
            stored["install-1"]?["name"] as? String == "Anna"
                && stored["install-1"]?["environment"] as? String == "production")
        let keyedByToken = try #require(stored[derivedID])
        #expect(keyedByToken["token"] as? String == tokenB && keyedByToken["model"] as? String == "iPhone15,2")
        #expect(keyedByToken["os_version"] as? String == "17.4" && keyedByToken["app_version"] as? String == "3.1")
        #expect(keyedByToken["groups"] as? [String] == ["imported"] && keyedByToken["environment"] is NSNull)
    }

    @Test("import merges a flat map, and list --json output imports back to the same registry")
    func importRoundTrip() throws {
        try tool("kept", tokenA, "--name", "registered here").expectSuccess()
        let flat = try directory.write(
            "sven-apns-tokens.json", #"{"kept": "\#(deviceToken(9))", "old-phone": "\#(tokenB.uppercased())"}"#)
        let imported = try tool("import", flat)
        imported.expectSuccess()
        #expect(imported.stdout.contains("1 added") && imported.stdout.contains("1 kept"))
        #expect(try devices()["kept"]?["token"] as? String == tokenA, "the registry's later registration wins")
        #expect(try devices()["old-phone"]?["token"] as? String == tokenB)

        let exported = try tool("list", "--json")
        let copy = directory.file("copy/devices.json")
        let intoCopy = try BuiltTool.run(
            "register-apns", ["import", "-", "--state-file", copy], environment: environment,
            stdin: Data(exported.stdout.utf8))
        intoCopy.expectSuccess()
        let relisted = try BuiltTool.run(
            "register-apns", ["list", "--json", "--state-file", copy], environment: environment)
        #expect(relisted.stdout == exported.stdout)
    }

    // MARK: The file

    @Test("new files are 0600 in a 0700 directory")
    func permissions() throws {
        try tool("a", tokenA).expectSuccess()
        let attributes = { (path: String) throws -> Int? in
            try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        }
        #expect(try attributes(stateFile) == 0o600)
        #expect(try attributes(directory.file("state")) == 0o700)
    }

    @Test("a flat map is read as is and stays flat when written; convert makes it version 1, kept as .v0.bak")
    func keepsFlatMapUntilConverted() throws {
        try FileManager.default.createDirectory(atPath: directory.file("state"), withIntermediateDirectories: true)
        let original = #"{"sven-iphone": "\#(tokenA)", "sven-ipad": "\#(tokenB.uppercased())"}"#
        try directory.write("state/devices.json", original)

        let before = try listed()
        #expect(before.map { $0["device_id"] as? String } == ["sven-ipad", "sven-iphone"])
        #expect(try directory.read("state/devices.json") == original, "reading leaves the file alone")

        try tool("sven-watch", deviceToken(5), "--name", "Sven's Watch").expectSuccess()
        let flat = try #require(try JSONSerialization.jsonObject(with: stateBytes()) as? [String: String])
        #expect(flat == ["sven-iphone": tokenA, "sven-ipad": tokenB, "sven-watch": deviceToken(5)])
        #expect(!FileManager.default.fileExists(atPath: stateFile + ".v0.bak"))
        #expect(FileManager.default.fileExists(atPath: stateFile + ".meta.json"))
        #expect(try listed().last?["name"] as? String == "Sven's Watch")

        let written = try directory.read("state/devices.json")
        let converted = try tool("convert")
        converted.expectSuccess()
        #expect(
            converted.stdout
                == "converted \(stateFile) to version 1 (3 devices); the flat map is kept as \(stateFile).v0.bak\n")
        #expect(try directory.read("state/devices.json.v0.bak") == written)
        #expect(!FileManager.default.fileExists(atPath: stateFile + ".meta.json"))
        let upgraded = try devices()
        #expect(Set(upgraded.keys) == ["sven-iphone", "sven-ipad", "sven-watch"])
        #expect(upgraded["sven-ipad"]?["token"] as? String == tokenB)
        #expect(upgraded["sven-ipad"]?["registered_at"] is NSNull)
        #expect(upgraded["sven-watch"]?["name"] as? String == "Sven's Watch")
        #expect(try tool("convert").stdout == "\(stateFile) is not a flat map; nothing to convert\n")
    }

    @Test("fields and members written by a newer version survive a rewrite")
    func preservesUnknownFields() throws {
        try FileManager.default.createDirectory(atPath: directory.file("state"), withIntermediateDirectories: true)
        try directory.write(
            "state/devices.json",
            """
            {"version": 1, "quiet_hours": {"from": "22:00", "to": "07:00"}, "devices": {
              "a": {"token": "\(tokenA)", "push_count": 42, "tags": ["x", {"y": null}], "environment": "sandbox"}}}
            """)
        try tool("b", tokenB).expectSuccess()
        try tool("a", tokenA, "--name", "renamed").expectSuccess()
        let object = try #require(try JSONSerialization.jsonObject(with: stateBytes()) as? [String: Any])
        #expect((object["quiet_hours"] as? [String: String]) == ["from": "22:00", "to": "07:00"])
        let a = try #require(try devices()["a"])
        #expect(a["push_count"] as? Int == 42)
        #expect((a["tags"] as? [Any])?.count == 2)
        #expect(a["name"] as? String == "renamed" && a["environment"] as? String == "sandbox")
        #expect(try listed().first?["push_count"] as? Int == 42, "list --json shows them too")
    }

    // MARK: Bad input

    // One record of valid JSON that is no usable device breaks only that device
    // (UnreadableRecordEndToEndTests); these break the file.
    @Test(
        "a broken state file stops every command with exit 65 and is left byte for byte",
        arguments: [
            (
                "malformed", "{\"version\": 1, \"devices\": {\"a\": {\"token\" \"x\"}}}",
                "line 1, column 42: expected ':'"
            ),
            (
                "truncated", "{\n  \"version\": 1,\n  \"devices\": {\n    \"a\": {\"token\":\"740f4707bebcf74f9b7c25d4",
                "line 4, column 19: unterminated string"
            ),
            (
                "wrong top-level type", "[\"740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad\"]",
                "found an array"
            ),
            (
                "devices of the wrong type", "{\"version\": 1, \"devices\": [\"\(tokenA)\"]}",
                "\"devices\" must be an object, not array"
            ),
            ("newer version", "{\"version\": 2, \"devices\": {}}", "version 2 is not supported"),
        ])
    func brokenStateFile(kind: String, contents: String, detail: String) throws {
        try FileManager.default.createDirectory(atPath: directory.file("state"), withIntermediateDirectories: true)
        try directory.write("state/devices.json", contents)
        let before = try stateBytes()
        let flat = try directory.write("flat.json", #"{"z": "\#(tokenB)"}"#)
        for arguments in [["b", tokenB], ["list"], ["list", "--json"], ["remove", "a"], ["import", flat]] {
            let result = try BuiltTool.run("register-apns", arguments, environment: environment)
            #expect(result.status == 65, "\(kind): \(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("register-apns: state file \(stateFile) is corrupt: "), "\(result.stderr)")
            #expect(result.stderr.contains(detail), "\(kind): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(try stateBytes() == before, "\(kind): \(arguments) changed the file")
        }
        #expect(!FileManager.default.fileExists(atPath: stateFile + ".v0.bak"))
    }

    @Test(
        "bad tokens, bodies and empty standard input are refused with exit 65, the file unchanged",
        arguments: [
            (
                ["add", "a", "abc"], nil as String?,
                "device token has 3 hex digits; expected an even number from 32 to 512 (16 to 256 bytes)"
            ),
            (["add", "a", String(repeating: "a", count: 63)], nil, "device token has 63 hex digits"),
            (["add", "a", String(repeating: "a", count: 514)], nil, "device token has 514 hex digits"),
            (
                ["add", "a", "740f4707 bebcf74f 9b7c25d4 8e335894 5f6aa01d a5ddb387 462c7eaf 61bb78ad"], nil,
                "device token has a space at position 9"
            ),
            (
                ["add", "a", "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78aG"], nil,
                "device token has \"G\" at position 64"
            ),
            (["add", "", tokenA], nil, "device id is empty"),
            (["add", "--from-json", "-"], "", "no registration body: standard input is empty"),
            (["add", "--from-json", "-"], "\n  \n", "no registration body: standard input is empty"),
            (
                ["add", "--from-json", "-"], "{\"device_token\": ",
                "registration body in standard input is not valid JSON: line 1, column 18"
            ),
            (["add", "--from-json", "-"], "{\"device_token\": 42}", "\"device_token\" must be a string, not number"),
            (
                ["add", "--from-json", "-"],
                "{\"device_token\": \"a\", \"apns_token\": \"\(tokenB)\"}\n{\"device_token\": \"b\", \"apns_token\": \"nope\"}",
                "line 2 of standard input: device token has \"n\" at position 1"
            ),
            (["import", "-"], "", "nothing to import: standard input is empty"),
            (["import", "-"], "{\"a\": 5}", "standard input is not a registry, flat map or JSON Lines"),
        ])
    func badInput(arguments: [String], stdin: String?, message: String) throws {
        try tool("existing", tokenA).expectSuccess()
        let before = try stateBytes()
        let result = try BuiltTool.run(
            "register-apns", arguments, environment: environment, stdin: stdin.map { Data($0.utf8) })
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr == "register-apns: \(message)\n" || result.stderr.contains(message), "\(result.stderr)")
        #expect(try stateBytes() == before)
        #expect(Set(try devices().keys) == ["existing"], "the batch was all or nothing")
    }

    @Test("bad input never creates a state file")
    func badInputCreatesNothing() throws {
        #expect(try tool("a", "abc").status == 65)
        #expect(try tool("add", "--from-json", "-", stdin: Data()).status == 65)
        #expect(!FileManager.default.fileExists(atPath: directory.file("state")))
    }

    @Test(
        "usage errors exit 64",
        arguments: [
            ["add", "only-an-id"], ["add"], ["add", "a", tokenA, "--from-json", "-"],
            ["add", "a", tokenA, "--sandbox", "--production"], ["add", "a", tokenA, "--environment", "staging"],
            ["list", "--bogus"], ["remove"],
        ])
    func usage(arguments: [String]) throws {
        let result = try BuiltTool.run("register-apns", arguments, environment: environment)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: stateFile))
    }

    @Test("a state file that cannot be created exits 73; a missing input file 66")
    func fileErrors() throws {
        let plainFile = try directory.write("plain", "x")
        let result = try BuiltTool.run(
            "register-apns", ["a", tokenA, "--state-file", plainFile + "/devices.json"], environment: environment)
        #expect(result.status == 73, "\(result.stderr)")
        #expect(result.stderr.contains(plainFile))
        let missing = try tool("import", directory.file("nope.json"))
        #expect(missing.status == 66 && missing.stderr.contains("nope.json"))
    }

    // MARK: Concurrency and crashes

    @Test("32 processes registering at once all land, and a polling reader only ever parses whole JSON")
    func concurrentProcesses() throws {
        try tool("seed", tokenA).expectSuccess()
        let log = ReaderLog()
        let reader = Thread { [stateFile] in
            while !log.stop.load(ordering: .acquiring) {
                do {
                    let data = try Data(contentsOf: URL(fileURLWithPath: stateFile))
                    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                    let count = (object?["devices"] as? [String: Any])?.count ?? -1
                    log.state.withLock {
                        $0.parsed += 1
                        $0.counts.insert(count)
                    }
                } catch {
                    log.state.withLock { $0.failures.append("\(error)") }
                }
            }
        }
        reader.start()
        defer { log.stop.store(true, ordering: .releasing) }

        let processes = try (0..<32).map { number in
            try BuiltTool.start(
                "register-apns", ["device-\(number)", deviceToken(number + 100)], environment: environment)
        }
        let results = try processes.map { try $0.wait() }
        log.stop.store(true, ordering: .releasing)
        while !reader.isFinished { Thread.sleep(forTimeInterval: 0.001) }

        for (number, result) in results.enumerated() {
            #expect(result.status == 0, "device-\(number): \(result.stderr)")
        }
        let stored = try devices()
        #expect(stored.count == 33)
        for number in 0..<32 {
            #expect(stored["device-\(number)"]?["token"] as? String == deviceToken(number + 100))
        }
        let seen = log.state.withLock { $0 }
        #expect(seen.failures.isEmpty, "the reader saw a partial file: \(seen.failures.prefix(3))")
        #expect(seen.parsed > 0)
        #expect(seen.counts.isSubset(of: Set(1...33)), "every version the reader saw was a whole registry")
    }

    @Test("a writer killed with SIGKILL at random points leaves the old file or the new one, whole")
    func killedWriters() throws {
        // A registry big enough that writing it takes a while.
        let lines = (0..<3000).map {
            #"{"device_id": "device-\#($0)", "token": "\#(deviceToken($0 + 1))", "name": "Phone \#($0)"}"#
        }
        try tool("import", "-", stdin: Data(lines.joined(separator: "\n").utf8)).expectSuccess()

        // How long one registration takes, to spread the kills over its whole run.
        let started = Date()
        try tool("calibration", tokenA).expectSuccess()
        let duration = Date().timeIntervalSince(started)

        var previous = Set(try devices().keys)
        var outcomes = (old: 0, new: 0, killed: 0)
        let rounds = 30
        for round in 0..<rounds {
            let id = "killed-\(round)"
            let writer = try BuiltTool.start(
                "register-apns", [id, deviceToken(10_000 + round)], environment: environment)
            if round.isMultiple(of: 2) {
                // Anywhere in the run: start-up, parsing, writing, or after.
                Thread.sleep(forTimeInterval: Double.random(in: 0..<duration))
            } else {
                // In the write itself: once a temporary file appears or the file changes, then a little later.
                waitForWriteToStart(by: writer, timeout: duration * 2)
                Thread.sleep(forTimeInterval: Double.random(in: 0..<0.003))
            }
            writer.kill()
            let result = try writer.wait()
            if writer.wasSignaled { outcomes.killed += 1 } else { #expect(result.status == 0, "\(result.stderr)") }

            let now = Set(try devices().keys)
            if now == previous {
                #expect(writer.wasSignaled, "a writer that exited 0 must have landed its change")
                outcomes.old += 1
            } else {
                #expect(now == previous.union([id]), "round \(round): neither the old nor the new registry")
                outcomes.new += 1
            }
            previous = now
        }
        #expect(outcomes.killed > 0, "no writer was caught before it finished: \(outcomes)")

        try tool("after-the-crashes", tokenB).expectSuccess()
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.file("state")).filter {
            $0.contains(".tmp-")
        }
        #expect(leftovers.isEmpty, "temporary files of killed writers are cleaned up: \(leftovers)")
    }

    /// Polls until `writer` starts replacing the state file (a temporary file appears beside it, or
    /// the file itself changes size), it exits, or `timeout` passes.
    private func waitForWriteToStart(by writer: RunningTool, timeout: TimeInterval) {
        let stateDirectory = directory.file("state")
        let size = { (try? FileManager.default.attributesOfItem(atPath: self.stateFile)[.size] as? Int) ?? -1 }
        let originalSize = size()
        let deadline = Date() + timeout
        while writer.process.isRunning, Date() < deadline {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: stateDirectory)) ?? []
            if names.contains(where: { $0.contains(".tmp-") }) || size() != originalSize { return }
        }
    }
}
