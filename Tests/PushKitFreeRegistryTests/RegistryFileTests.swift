import Foundation
import Synchronization
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry

/// `StateFileRegistry` against real files in a temporary directory.
@Suite("registry: the state file on disk")
struct RegistryFileTests {
    let directory: String
    let clock = ManualClock()

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("registry-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func registry(_ name: String = "devices.json") -> StateFileRegistry {
        StateFileRegistry(path: directory + "/" + name, clock: clock)
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test("a missing file loads as empty and is not created by reading")
    func missingFile() throws {
        let registry = registry("nested/devices.json")
        #expect(try registry.load().count == 0)
        #expect(!FileManager.default.fileExists(atPath: directory + "/nested"))
    }

    @Test("the first write creates the directory 0700 and the file 0600")
    func createsPrivately() throws {
        let registry = registry("state/pushkit/devices.json")
        try registry.register([registration("a", 1)])
        #expect(try mode(directory + "/state") == 0o700)
        #expect(try mode(directory + "/state/pushkit") == 0o700)
        #expect(try mode(registry.path) == 0o600)
        #expect(try registry.load()["a"]?.lastSeenAt == clock.now())
    }

    @Test("a registry over a megabyte (read through a memory map) takes a registration and reads back whole")
    func largeRegistry() throws {
        let registry = registry()
        let devices = RegisteredDevices(
            devices: (1...6_000).map { number in
                RegisteredDevice(
                    id: "device-\(number)",
                    record: DeviceRecord(
                        token: token(number), name: "Phone \(number)",
                        groups: number.isMultiple(of: 7) ? ["seven"] : [],
                        registeredAt: may1, lastSeenAt: may1
                    ))
            })
        try Data(devices.stateFileBytes()).write(to: URL(fileURLWithPath: registry.path))
        #expect(try bytes(registry.path).count > 1 << 20, "large enough to be mapped")

        try registry.register([registration("device-3000", 99_999, name: "renamed")])
        let reread = try registry.load()
        #expect(reread.count == 6_000)
        #expect(reread["device-3000"]?.name == "renamed" && reread["device-3000"]?.token == token(99_999))
        #expect(reread["device-2999"] == devices["device-2999"] && reread["device-6000"] == devices["device-6000"])
        #expect(try registry.devices(DeviceSelection(groups: ["seven"])).devices.count == 6_000 / 7)
    }

    @Test("a rewrite keeps the file's permissions")
    func keepsPermissions() throws {
        let registry = registry()
        try registry.register([registration("a", 1)])
        chmod(registry.path, 0o640)
        try registry.register([registration("b", 2)])
        #expect(try mode(registry.path) == 0o640)
    }

    @Test("a flat map stays flat on a write (details in the sidecar); converting keeps it as .v0.bak")
    func keepsFlatMapUntilConverted() throws {
        let registry = registry()
        let original = Data(#"{"phone": "\#(token(1).text)", "tablet": "\#(token(2).text.uppercased())"}"#)
        try original.write(to: URL(fileURLWithPath: registry.path))
        #expect(try registry.load().storedFormat == .legacyFlatMap)

        clock.advance(by: 10)
        try registry.register([registration("watch", 3)])
        #expect(!FileManager.default.fileExists(atPath: registry.legacyBackupPath))
        let flat = try bytes(registry.path)
        #expect(
            try JSONSerialization.jsonObject(with: flat) as? [String: String]
                == ["phone": token(1).text, "tablet": token(2).text, "watch": token(3).text])
        #expect(try registry.load()["watch"]?.registeredAt == clock.now(), "from the sidecar")

        #expect(try registry.convertToVersionOne() == 3)
        #expect(try bytes(registry.legacyBackupPath) == flat)
        let upgraded = try registry.load()
        #expect(upgraded.storedFormat == .versioned)
        #expect(Set(upgraded.deviceIDs) == ["phone", "tablet", "watch"])
        #expect(upgraded["tablet"]?.token == token(2) && upgraded["tablet"]?.registeredAt == nil)
    }

    @Test(
        "a corrupt file is never overwritten",
        arguments: [
            "{\"version\": 1, \"devices\": {\"a\": {\"token\": ",
            "{\"version\": 1, \"devices\": {\"a\": {\"token\": 12}}, \"devices\": 3}",
            "not json",
        ])
    func leavesCorruptFile(text: String) throws {
        let registry = registry()
        try Data(text).write(to: URL(fileURLWithPath: registry.path))
        let error = #expect(throws: RegistryError.self) { try registry.register([registration("b", 2)]) }
        #expect(error?.exitStatus == .dataError)
        #expect(
            error?.description.contains("state file \(registry.path) is corrupt: line 1, column") == true,
            "\(error?.description ?? "")")
        #expect(try bytes(registry.path) == Data(text))
        #expect(throws: RegistryError.self) { try registry.load() }
    }

    @Test("nothing is written when nothing changed or the change failed")
    func skipsNeedlessWrites() throws {
        let registry = registry()
        try registry.register([registration("a", 1)])
        let before = try bytes(registry.path)
        clock.advance(by: 5)
        #expect(try registry.recordEnvironment(.sandbox, deviceID: "a", token: token(2)) == false)
        #expect(throws: RegistryError.self) { try registry.remove(idOrToken: "nobody") }
        #expect(try bytes(registry.path) == before)
    }

    @Test("a missing file is not created by a failed change")
    func failedChangeCreatesNoFile() throws {
        let registry = registry()
        #expect(throws: RegistryError.self) { try registry.remove(idOrToken: "nobody") }
        #expect(!FileManager.default.fileExists(atPath: registry.path))
    }

    @Test("temporary files left by a killed writer are cleaned up by the next write")
    func removesStaleTemporaries() throws {
        let registry = registry()
        let stale = registry.path + ".tmp-999999-1"
        let unrelated = directory + "/provider-tokens.json.tmp-999999-1"
        try Data("partial").write(to: URL(fileURLWithPath: stale))
        try Data("other").write(to: URL(fileURLWithPath: unrelated))
        try registry.register([registration("a", 1)])
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: unrelated))
    }

    @Test("a state directory that cannot be created is exit 73, a state file that cannot be read 74")
    func reportsFileSystemErrors() throws {
        let plainFile = directory + "/not-a-directory"
        try Data("x").write(to: URL(fileURLWithPath: plainFile))
        let error = #expect(throws: RegistryError.self) {
            try StateFileRegistry(path: plainFile + "/devices.json").register([registration("a", 1)])
        }
        #expect(error?.exitStatus == .cannotCreate)
        #expect(error?.description.contains(plainFile) == true)

        let directoryAsFile = directory + "/devices.json"
        try FileManager.default.createDirectory(atPath: directoryAsFile, withIntermediateDirectories: true)
        let readError = #expect(throws: RegistryError.self) { try StateFileRegistry(path: directoryAsFile).load() }
        #expect(readError?.exitStatus == .ioError)
        #expect(
            readError?.description.contains("cannot read \(directoryAsFile)") == true, "\(readError?.description ?? "")"
        )
    }

    @Test("writers on many threads all land their change")
    func concurrentWriters() throws {
        let registry = registry()
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 24) { number in
            do {
                try registry.register([registration("device-\(number)", number + 1)])
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(try registry.load().count == 24)
    }
}
