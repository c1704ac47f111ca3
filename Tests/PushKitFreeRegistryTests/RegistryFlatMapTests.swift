import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry

/// Living beside the server the tools replace, which writes the flat map `{"<device id>": "<token>"}`
/// with no lock (`tokens = json.loads(...); tokens[id] = token; write_text(json.dumps(tokens))`).
@Suite("registry: beside a writer of the flat map")
struct RegistryFlatMapTests {
    let directory: String
    let clock = ManualClock()
    let registry: StateFileRegistry

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("flat-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        registry = StateFileRegistry(path: directory + "/tokens.json", clock: clock)
    }

    /// What the other server does to the file: read it as a dict, set one key, write it in place.
    func legacyWrite(_ id: String, _ number: Int) throws {
        let url = URL(fileURLWithPath: registry.path)
        var tokens = (try? JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any]) ?? [:]
        tokens[id] = token(number).text
        try JSONSerialization.data(withJSONObject: tokens).write(to: url)
    }

    /// The file as that server's own reader sees it: a dict of device id to token string.
    func legacyView() throws -> [String: String] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: registry.path)))
        return try #require(object as? [String: String], "not a flat map of strings: \(object)")
    }

    func write(_ text: String, to path: String? = nil) throws {
        try Data(text).write(to: URL(fileURLWithPath: path ?? registry.path))
    }

    @Test("a flat map stays flat when written; environment, name and groups go to the sidecar")
    func keepsFlatMapFlat() throws {
        try legacyWrite("phone", 1)
        try registry.register([registration("tablet", 2, name: "Sven's iPad", groups: ["beta"])])
        #expect(try registry.recordEnvironment(.sandbox, deviceID: "phone", token: token(1)))

        #expect(try legacyView() == ["phone": token(1).text, "tablet": token(2).text])
        #expect(!FileManager.default.fileExists(atPath: registry.legacyBackupPath))
        let sidecar = try RegisteredDevices(stateFile: Data(contentsOf: URL(fileURLWithPath: registry.sidecarPath)))
        #expect(sidecar["phone"]?.environment == .sandbox && sidecar["tablet"]?.groups == ["beta"])

        let loaded = try registry.load()
        #expect(loaded.storedFormat == .legacyFlatMap)
        #expect(loaded["phone"] == DeviceRecord(token: token(1), environment: .sandbox))
        #expect(loaded["tablet"]?.name == "Sven's iPad" && loaded["tablet"]?.lastSeenAt == clock.now())
    }

    @Test("registrations the other server adds after our writes are read, and kept by the next write")
    func adoptsLaterFlatEntries() throws {
        try registry.register([registration("phone", 1, environment: .production)])
        try legacyWrite("new-phone", 2)
        #expect(try registry.load().deviceIDs == ["new-phone", "phone"])

        try registry.register([registration("watch", 3)])
        #expect(try legacyView() == ["new-phone": token(2).text, "phone": token(1).text, "watch": token(3).text])
        #expect(try registry.load()["phone"]?.environment == .production)
    }

    @Test("a token the other server changed is not given the old token's environment; the install's name stays")
    func sidecarFollowsTheToken() throws {
        try legacyWrite("phone", 1)
        try registry.register([registration("phone", 1, environment: .sandbox, name: "Ada's iPhone", groups: ["home"])])
        try legacyWrite("phone", 9)
        let record = try #require(try registry.load()["phone"])
        #expect(record.token == token(9) && record.environment == nil)
        #expect(record.name == "Ada's iPhone" && record.groups == ["home"])
    }

    @Test("pruning removes the device from the flat map and the sidecar")
    func pruneRemovesFromBoth() throws {
        try legacyWrite("phone", 1)
        try legacyWrite("gone", 2)
        #expect(try registry.removeIfUnregistered(deviceID: "gone", token: token(2), unregisteredAt: nil))
        #expect(try legacyView() == ["phone": token(1).text])
        #expect(try registry.load().deviceIDs == ["phone"])
        let sidecar = try RegisteredDevices(stateFile: Data(contentsOf: URL(fileURLWithPath: registry.sidecarPath)))
        #expect(sidecar.deviceIDs == ["phone"])
    }

    @Test("a device the other server's stale rewrite dropped from the flat map is kept from the sidecar")
    func staleRewriteLosesNothing() throws {
        try legacyWrite("phone", 1)
        let staleRead = try Data(contentsOf: URL(fileURLWithPath: registry.path))
        try registry.register([registration("ours", 2, name: "added by register-apns")])
        // The other server read before our write and writes after it, with its own new entry.
        var tokens = try #require(try JSONSerialization.jsonObject(with: staleRead) as? [String: String])
        tokens["theirs"] = token(3).text
        try JSONSerialization.data(withJSONObject: tokens).write(to: URL(fileURLWithPath: registry.path))

        #expect(try registry.load().deviceIDs == ["ours", "phone", "theirs"])
        clock.advance(by: 1)
        try registry.recordDelivery(to: ["phone"])
        #expect(Set(try legacyView().keys) == ["ours", "phone", "theirs"])
    }

    @Test("an empty flat map file beside a sidecar still holds the sidecar's devices")
    func emptyFileKeepsSidecarDevices() throws {
        try legacyWrite("phone", 1)
        try registry.register([registration("tablet", 2)])
        try write("")
        #expect(try registry.load().deviceIDs == ["phone", "tablet"])
    }

    @Test("a file caught empty mid-rewrite is read again, not taken as an empty registry")
    func waitsOutRewriteInPlace() throws {
        try legacyWrite("phone", 1)
        try legacyWrite("tablet", 2)
        let whole = try Data(contentsOf: URL(fileURLWithPath: registry.path))
        // Truncated now (as `write_text` does first), written whole a moment later.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: registry.path))
        try handle.truncate(atOffset: 0)
        let writer = Thread {
            Thread.sleep(forTimeInterval: 0.05)
            try? handle.write(contentsOf: whole)
            try? handle.close()
        }
        writer.start()
        try registry.register([registration("watch", 3)])
        #expect(try legacyView() == ["phone": token(1).text, "tablet": token(2).text, "watch": token(3).text])
    }

    @Test("a rewrite between our read and our rename is not undone: the change is applied again")
    func reappliesAfterConcurrentRewrite() throws {
        try legacyWrite("phone", 1)
        var runs = 0
        try registry.update { devices in
            runs += 1
            if runs == 1 { try legacyWrite("theirs", 2) }
            try devices.register(registration("ours", 3), at: clock.now())
        }
        #expect(runs == 2)
        #expect(try legacyView() == ["ours": token(3).text, "phone": token(1).text, "theirs": token(2).text])
    }

    @Test(
        "a registration written into the file between our last look and our rename is carried into the new file",
        arguments: [false, true])
    func carriesLateRegistration(startsAsVersionOne: Bool) throws {
        if startsAsVersionOne {
            try registry.register([registration("phone", 1)])
        } else {
            try legacyWrite("phone", 1)
        }
        var registry = registry
        let path = registry.path
        // The other server read the file before our write; it truncates it and writes its dict in place.
        let late = try JSONSerialization.data(withJSONObject: ["phone": token(1).text, "theirs": token(2).text])
        final class Once: @unchecked Sendable { var fired = false }
        let once = Once()
        registry.afterLastLook = {
            guard !once.fired, let handle = FileHandle(forWritingAtPath: path) else { return }
            once.fired = true
            handle.truncateFile(atOffset: 0)
            handle.write(late)
            handle.closeFile()
        }
        try registry.register([registration("ours", 3)])
        #expect(once.fired)
        #expect(try legacyView() == ["ours": token(3).text, "phone": token(1).text, "theirs": token(2).text])
    }

    @Test("a file rewritten at every attempt is left as the other program wrote it (75)")
    func givesUpOnConstantRewrites() throws {
        try legacyWrite("phone", 1)
        var number = 10
        let error = #expect(throws: RegistryError.self) {
            try registry.update { devices in
                number += 1
                try legacyWrite("theirs", number)
                try devices.register(registration("ours", 3), at: clock.now())
            }
        }
        #expect(error?.exitStatus == .temporaryFailure)
        #expect(number == 10 + StateFileRegistry.maximumAttempts)
        #expect(try legacyView() == ["phone": token(1).text, "theirs": token(number).text])
        #expect(try registry.load().deviceIDs == ["phone", "theirs"], "the sidecar is put back as it was")
    }

    @Test("a version 1 file adopts registrations found beside version and devices; the newer token wins")
    func adoptsTopLevelEntries() throws {
        let text = """
            {"version": 1, "devices": {"phone": {"token": "\(token(1).text)", "environment": "sandbox", "name": "Ada"},
            "tablet": {"token": "\(token(2).text)", "environment": "production"}},
            "phone": "\(token(7).text.uppercased())", "tablet": "\(token(2).text)", "new": "\(token(8).text)",
            "note": "not a token", "agents": {"a": 1}}
            """
        let registry = try RegisteredDevices(stateFile: Data(text))
        #expect(registry.storedFormat == .versionedWithLegacyEntries && registry.writesFlatMap)
        #expect(registry.adoptedLegacyEntries == ["phone", "tablet", "new"])
        #expect(registry["phone"] == DeviceRecord(token: token(7), name: "Ada"))
        #expect(registry["tablet"] == DeviceRecord(token: token(2), environment: .production))
        #expect(registry["new"] == DeviceRecord(token: token(8)))
        #expect(registry.otherFields == ["note": .string("not a token"), "agents": .object(["a": .number(1)])])
        // Written as version 1 (import, fuzz round trip) they move into "devices".
        let reread = try RegisteredDevices(stateFile: Data(registry.stateFileBytes()))
        #expect(reread == registry && reread.storedFormat == .versioned)
    }

    @Test("a second \"version\" member beside the number is refused, not dropped on the next write")
    func refusesSecondVersion() {
        let error = #expect(throws: JSONSyntaxError.self) {
            try RegisteredDevices(stateFile: Data(#"{"version": 1, "devices": {}, "version": "\#(token(1).text)"}"#))
        }
        #expect(error?.detail.contains("\"version\" appears twice, once as string") == true, "\(error?.detail ?? "")")
    }

    @Test("a version 1 file the other server wrote into goes back to a flat map with sidecar on the next write")
    func versionOneWithLegacyEntriesIsWrittenFlat() throws {
        let phone = #"{"token": "\#(token(1).text)", "environment": "sandbox"}"#
        try write(#"{"version": 1, "devices": {"phone": \#(phone)}, "agents": {"x": 1}}"#)
        try legacyWrite("new", 2)
        #expect(try registry.load().deviceIDs == ["new", "phone"])
        try registry.register([registration("watch", 3)])
        #expect(try legacyView() == ["new": token(2).text, "phone": token(1).text, "watch": token(3).text])
        let loaded = try registry.load()
        #expect(loaded["phone"]?.environment == .sandbox)
        #expect(loaded.otherFields == ["agents": .object(["x": .number(1)])])
    }

    @Test("a version 1 file nobody else writes stays version 1 and needs no sidecar")
    func versionOneStays() throws {
        try registry.register([registration("phone", 1)])
        try registry.register([registration("tablet", 2)])
        #expect(try registry.load().storedFormat == .versioned)
        #expect(!FileManager.default.fileExists(atPath: registry.sidecarPath))
    }

    @Test("convert writes a flat map and its sidecar as version 1, keeping the flat map as .v0.bak")
    func convertsOnRequest() throws {
        try legacyWrite("phone", 1)
        try registry.register([registration("tablet", 2, environment: .sandbox, name: "iPad")])
        let flat = try Data(contentsOf: URL(fileURLWithPath: registry.path))
        #expect(try registry.convertToVersionOne() == 2)
        #expect(try Data(contentsOf: URL(fileURLWithPath: registry.legacyBackupPath)) == flat)
        #expect(!FileManager.default.fileExists(atPath: registry.sidecarPath))
        let converted = try registry.load()
        #expect(converted.storedFormat == .versioned && converted.deviceIDs == ["phone", "tablet"])
        #expect(converted["tablet"]?.name == "iPad" && converted["tablet"]?.environment == .sandbox)
        #expect(try registry.convertToVersionOne() == nil)
    }

    @Test("the flat map is written one device per line, sorted, tokens lowercase")
    func flatMapLayout() throws {
        var devices = RegisteredDevices()
        try devices.register(registration("b", 2), at: may1)
        try devices.register(registration("a", 1), at: may1)
        let text = String(decoding: devices.flatMapBytes(), as: UTF8.self)
        #expect(text == "{\n  \"a\": \"\(token(1).text)\",\n  \"b\": \"\(token(2).text)\"\n}\n")
        #expect(String(decoding: RegisteredDevices().flatMapBytes(), as: UTF8.self) == "{}\n")
    }
}
