import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry

#if canImport(Glibc)
import Glibc
#endif

/// A `StateFileRegistry` keeps the registry it read or wrote, and reads the file again only when it
/// changed: the reuse must never hide another writer's change.
@Suite("registry: the registry kept between writes")
struct RegistryCacheTests {
    let directory: String
    let clock = ManualClock(Date(timeIntervalSince1970: 1_714_564_800.000_4))

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func registry(_ name: String = "devices.json") -> StateFileRegistry {
        StateFileRegistry(path: directory + "/" + name, clock: clock)
    }

    /// The registry as a process that never read it before finds it in the file.
    func fresh(_ registry: StateFileRegistry) throws -> RegisteredDevices {
        try StateFileRegistry(path: registry.path, clock: clock).load()
    }

    /// A registry of `count` devices written straight to the file, as another process would.
    func writeRegistry(_ registry: StateFileRegistry, count: Int) throws {
        let devices = RegisteredDevices(
            devices: (1...count).map { number in
                RegisteredDevice(
                    id: String(format: "device-%06d", number),
                    record: DeviceRecord(token: token(number), name: "Phone \(number)", registeredAt: may1))
            })
        try Data(devices.stateFileBytes()).write(to: URL(fileURLWithPath: registry.path))
    }

    /// Rewrites the file in place (same inode) with `change` applied to its bytes, then puts its
    /// modification time back: a rewrite of the same size within the same clock tick.
    func rewriteInPlaceKeepingTime(_ path: String, _ change: (inout Data) -> Void) throws {
        var info = stat()
        #expect(stat(path, &info) == 0)
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        let size = data.count
        change(&data)
        #expect(data.count == size)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 0)
        try handle.write(contentsOf: data)
        try handle.close()
        var times = [info.st_atim, info.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        var after = stat()
        #expect(stat(path, &after) == 0)
        #expect(after.st_ino == info.st_ino && after.st_size == info.st_size)
        #expect(after.st_mtim.tv_sec == info.st_mtim.tv_sec && after.st_mtim.tv_nsec == info.st_mtim.tv_nsec)
    }

    @Test("the registry kept after a write is what reading the file gives (times at the file's milliseconds)")
    func keptIsWhatTheFileHolds() throws {
        let registry = registry()
        try registry.register([registration("a", 1, name: "Ada"), registration("b", 2)])
        clock.advance(by: 1.000_3)
        try registry.register([registration("a", 3, groups: ["beta"])])

        let kept = try #require(registry.cache.current(at: registry.path), "a version 1 file written is kept")
        #expect(kept.devices == (try fresh(registry)))
        #expect(kept.devices["a"]?.lastSeenAt != clock.now(), "the file holds milliseconds")
        #expect(kept.devices.changeCount == 0 && kept.devices.storedFormat == .versioned)
        // The next write starts from the kept registry and still lands only its change.
        clock.advance(by: 1)
        try registry.recordDelivery(to: ["b"])
        #expect(try registry.load() == (try fresh(registry)))
        #expect(try fresh(registry)["b"]?.lastDeliveredAt != nil)
    }

    @Test("another process's write between two batches is read, not overwritten")
    func anotherWriterBetweenBatches() throws {
        let serve = registry()
        let other = registry()
        try serve.register([registration("a", 1)])
        try other.register([registration("b", 2)])
        #expect(try serve.load().deviceIDs == ["a", "b"])
        try serve.register([registration("c", 3)])
        try other.remove(idOrToken: "a")
        try serve.register([registration("d", 4)])
        #expect(try fresh(serve).deviceIDs == ["b", "c", "d"])
        #expect(try serve.load().deviceIDs == ["b", "c", "d"])
    }

    @Test("the flat-map writer's registrations beside version 1 between two batches are adopted")
    func flatMapWriterBetweenBatches() throws {
        let registry = registry()
        try registry.register([registration("phone", 1)])
        // The earlier server: json.loads, one key set, write_text in place.
        let url = URL(fileURLWithPath: registry.path)
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        object["legacy"] = token(2).text
        try JSONSerialization.data(withJSONObject: object).write(to: url)

        try registry.register([registration("watch", 3)])
        #expect(try fresh(registry).deviceIDs == ["legacy", "phone", "watch"])
        #expect(registry.cache.current(at: registry.path) == nil, "a file written back as a flat map is not kept")
    }

    @Test("a rewrite in place of the same size and modification time is seen (small file: its bytes)")
    func sameSizeSameTimeSmall() throws {
        let registry = registry()
        try registry.register([registration("a", 1)])
        #expect(registry.cache.current(at: registry.path) != nil)
        try rewriteInPlaceKeepingTime(registry.path) { data in
            let hex = Data(token(1).text.utf8)
            let range = data.range(of: hex)!
            data.replaceSubrange(range, with: Data(token(9).text.utf8))
        }
        #expect(try registry.load()["a"]?.token == token(9))
        try registry.register([registration("b", 2)])
        #expect(try fresh(registry)["a"]?.token == token(9))
    }

    @Test("a rewrite in place of the same size and modification time is seen (large file: its status change)")
    func sameSizeSameTimeLarge() throws {
        let registry = registry()
        try writeRegistry(registry, count: 6_000)
        #expect(try registry.load().count == 6_000)
        #expect(try Data(contentsOf: URL(fileURLWithPath: registry.path)).count > RegistryCache.comparedBytes)
        try registry.register([registration("device-000001", 1, name: "renamed")])
        #expect(registry.cache.current(at: registry.path) != nil)
        try rewriteInPlaceKeepingTime(registry.path) { data in
            let name = Data("\"Phone 2\"".utf8)
            let range = data.range(of: name)!
            data.replaceSubrange(range, with: Data("\"Phone X\"".utf8))
        }
        #expect(try registry.load()["device-000002"]?.name == "Phone X")
        try registry.register([registration("new", 9_999)])
        let reread = try fresh(registry)
        #expect(reread["device-000002"]?.name == "Phone X" && reread["device-000001"]?.name == "renamed")
        #expect(reread.count == 6_001)
    }

    @Test("a failed change leaves the kept registry as the file holds it")
    func failedChangeKeepsNothingHalfDone() throws {
        let registry = registry()
        try registry.register([registration("a", 1), registration("b", 2)])
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try registry.update { devices in
                devices["a"] = nil
                throw Refused()
            }
        }
        #expect(try registry.load().deviceIDs == ["a", "b"])
        try registry.register([registration("c", 3)])
        #expect(try fresh(registry).deviceIDs == ["a", "b", "c"])
        #expect(throws: RegistryError.self) { try registry.remove(idOrToken: "nobody") }
        #expect(registry.cache.current(at: registry.path) != nil, "a change that changed nothing keeps the registry")
    }

    @Test("a kept registry gets a token index, right across register, remove, prune, import and delivery")
    func tokenIndexStaysRight() throws {
        let registry = registry()
        try registry.register((1...50).map { registration("device-\($0)", $0) })
        func check(_ step: String) throws {
            let kept = try #require(registry.cache.current(at: registry.path), "\(step): kept")
            #expect(kept.devices.isTokenIndexed, "\(step): indexed")
            #expect(kept.devices.tokenIndex == kept.devices.rebuiltTokenIndex, "\(step)")
            #expect(kept.devices == (try fresh(registry)), "\(step)")
        }
        // A token moving to another id, a new token for an id, a push-to-start token moving.
        try registry.register([registration("device-51", 3), registration("device-4", 104)])
        try check("register")
        let start = token(777)
        try registry.register([
            try DeviceRegistration(deviceID: "device-5", token: token(5), pushToStartToken: start)
        ])
        try registry.register([
            try DeviceRegistration(deviceID: "device-6", token: token(6), pushToStartToken: start)
        ])
        try check("push-to-start")
        #expect(try fresh(registry)["device-5"]?.pushToStartToken == nil)
        #expect(try registry.remove(idOrToken: token(7).text).map(\.id) == ["device-7"])
        #expect(try registry.remove(idOrToken: "device-8").map(\.id) == ["device-8"])
        try check("remove")
        #expect(try registry.removeIfUnregistered(deviceID: "device-9", token: token(9), unregisteredAt: nil))
        try check("prune")
        var imported = RegisteredDevices()
        imported["device-10"] = DeviceRecord(token: token(1_010), lastSeenAt: clock.now() + 60)
        imported["device-99"] = DeviceRecord(token: token(11), lastSeenAt: clock.now() + 60)
        try registry.merge(imported)
        try check("import")
        try registry.recordDelivery(to: ["device-12"])
        try check("delivery")
        // The index answers as a scan does: the token moved by the import, the one removed.
        let kept = try #require(registry.cache.current(at: registry.path)).devices
        #expect(kept.deviceIDs(holding: token(11)) == ["device-99"])
        #expect(kept.deviceIDs(holding: token(7)).isEmpty)
        #expect(kept.deviceIDs(holding: token(3)) == ["device-51"])
    }

    @Test("a registry read for one change looks tokens up without building an index")
    func oneChangeBuildsNoIndex() throws {
        let registry = registry()
        try writeRegistry(registry, count: 20)
        var devices = try fresh(registry)
        try devices.register(registration("device-000001", 2), at: may1)
        #expect(!devices.isTokenIndexed)
        #expect(
            devices.deviceIDs == (1...20).map { String(format: "device-%06d", $0) }.filter { $0 != "device-000002" })
    }
}
