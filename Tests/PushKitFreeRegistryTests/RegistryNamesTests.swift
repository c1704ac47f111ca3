import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry

@Suite("registry: a name is a device id or a group, never both")
struct RegistryNamesTests {
    /// `mom` and `dad` in `family`, `phone` in no group.
    func family(indexed: Bool) throws -> RegisteredDevices {
        var registry = RegisteredDevices()
        if indexed { registry.indexTokens() }
        try registry.register(registration("mom", 1, groups: ["family"]), at: may1)
        try registry.register(registration("dad", 2, groups: ["family", "parents"]), at: may1)
        try registry.register(registration("phone", 3), at: may1)
        return registry
    }

    @Test(
        "a new device id that names a group, or a group that names a device, is refused; nothing changes",
        arguments: [false, true])
    func refusesEitherWay(indexed: Bool) throws {
        var registry = try family(indexed: indexed)
        let before = registry
        for (attempt, message) in [
            (registration("family", 9), "device id \"family\" is the name of a group of 2 devices"),
            (registration("parents", 9), "device id \"parents\" is the name of a group of 1 device:"),
            (registration("peer", 9, groups: ["mom"]), "group \"mom\" is the id of a device"),
            (registration("peer", 9, groups: ["peer"]), "group \"peer\" is the id of a device"),
            (registration("phone", 3, groups: ["dad"]), "group \"dad\" is the id of a device"),
        ] {
            let error = #expect(throws: RegistryError.self) { try registry.register(attempt, at: may1 + 60) }
            #expect(error?.exitStatus == .dataError)
            #expect(error?.description.hasPrefix(message) == true, "\(error?.description ?? "")")
            #expect(error?.description.contains("a name is a device or a group, never both") == true)
            #expect(registry == before && registry.changeCount == before.changeCount, "a refusal changed the registry")
        }
        // What a device has already is left alone: re-registering, a new token, its groups again.
        try registry.register(registration("dad", 4, groups: ["family", "parents"]), at: may1 + 60)
        try registry.register(registration("peer", 9, groups: ["family"]), at: may1 + 60)
        #expect(registry.memberCount(ofGroup: "family") == 3)
        // A group emptied by its last member leaving frees the name.
        try registry.register(registration("dad", 4, groups: ["family"]), at: may1 + 60)
        #expect(!registry.isGroup("parents"))
        try registry.register(registration("parents", 5), at: may1 + 60)
        #expect(registry.ambiguousNames.isEmpty)
        if indexed { #expect(registry.tokenIndex == registry.rebuiltTokenIndex, "the kept index drifted") }
    }

    @Test("the stores refuse it too, and an import that would make a name both imports nothing")
    func storesAndImports() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = StateFileRegistry(path: directory.appendingPathComponent("devices.json").path)
        try store.register([registration("mom", 1, groups: ["family"])])
        let written = try Data(contentsOf: URL(fileURLWithPath: store.path))
        #expect(throws: RegistryError.self) { try store.register([registration("ok", 5), registration("family", 6)]) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == written, "a batch is all or nothing")

        var imported = RegisteredDevices()
        try imported.register(registration("tablet", 7), at: may1)
        try imported.register(registration("family", 8), at: may1)
        let error = #expect(throws: RegistryError.self) { try store.merge(imported) }
        #expect(
            error?.description.hasPrefix("importing would make \"family\" both a device id and a group") == true,
            "\(error?.description ?? "")")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == written, "nothing was imported")
    }

    @Test("a registry edited by hand that holds both lists the name; a device registered so keeps registering")
    func handEdited() throws {
        let text = """
            {"version": 1, "devices": {
              "family": {"token": "\(token(9).text)", "groups": []},
              "mom": {"token": "\(token(1).text)", "groups": ["family"]}}}
            """
        var registry = try RegisteredDevices(stateFile: Data(text))
        #expect(registry.ambiguousNames == ["family"])
        #expect(registry.isDevice("family") && registry.isGroup("family"))
        try registry.register(registration("family", 10), at: may1)
        try registry.register(registration("mom", 1, groups: ["family"]), at: may1)
    }
}
