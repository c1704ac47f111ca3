import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry

@Suite("registry: registering, removing, merging")
struct RegistryChangesTests {
    @Test("a new device gets registered_at and last_seen_at; an update keeps registered_at")
    func registersAndUpdates() throws {
        var registry = RegisteredDevices()
        let first = try registry.register(
            registration("ipad", 1, environment: .sandbox, name: "iPad", groups: ["beta"]), at: may1)
        #expect(first.isNew && !first.tokenChanged && first.movedFrom.isEmpty)
        #expect(registry["ipad"]?.registeredAt == may1 && registry["ipad"]?.lastSeenAt == may1)

        let second = try registry.register(registration("ipad", 1), at: may1 + 60)
        #expect(!second.isNew && !second.tokenChanged)
        let record = try #require(registry["ipad"])
        #expect(record.registeredAt == may1 && record.lastSeenAt == may1 + 60)
        #expect(
            record.environment == .sandbox && record.name == "iPad" && record.groups == ["beta"],
            "fields not given are kept")
    }

    @Test("given fields replace, groups included")
    func replacesGivenFields() throws {
        var registry = RegisteredDevices()
        try registry.register(registration("ipad", 1, name: "old", groups: ["a", "b"]), at: may1)
        try registry.register(registration("ipad", 1, environment: .production, name: "new", groups: ["c"]), at: may1)
        #expect(
            registry["ipad"]?.name == "new" && registry["ipad"]?.groups == ["c"]
                && registry["ipad"]?.environment == .production)
    }

    @Test("a rotated token replaces the old one and forgets the old token's environment")
    func rotatesToken() throws {
        var registry = RegisteredDevices()
        try registry.register(registration("ipad", 1, environment: .sandbox), at: may1)
        let outcome = try registry.register(registration("ipad", 2), at: may1 + 1)
        #expect(outcome.tokenChanged)
        #expect(registry.count == 1)
        #expect(registry["ipad"]?.token == token(2) && registry["ipad"]?.environment == nil)
    }

    @Test("a token registered under another device id moves to the new one")
    func movesToken() throws {
        var registry = RegisteredDevices()
        try registry.register(registration("old-install", 7), at: may1)
        try registry.register(registration("other", 8), at: may1)
        let outcome = try registry.register(registration("new-install", 7), at: may1 + 1)
        #expect(outcome.movedFrom == ["old-install"])
        #expect(
            registry["old-install"] == nil && registry["new-install"]?.token == token(7) && registry["other"] != nil)
    }

    @Test("remove takes a device id first, else a token in any case")
    func removes() throws {
        var registry = RegisteredDevices()
        try registry.register(registration("a", 1), at: may1)
        try registry.register(registration("b", 2), at: may1)
        let byID = registry.remove(idOrToken: "a")
        let byToken = registry.remove(idOrToken: token(2).text.uppercased())
        let again = registry.remove(idOrToken: "a")
        #expect(byID.map(\.id) == ["a"] && byToken.map(\.id) == ["b"] && again.isEmpty)
        #expect(registry.count == 0)
    }

    @Test("410: removed unless the app registered after the timestamp, and only for that token")
    func appliesAppleRule() throws {
        var registry = RegisteredDevices()
        try registry.register(registration("a", 1), at: may1)
        let registeredAfter = registry.removeIfUnregistered(deviceID: "a", token: token(1), unregisteredAt: may1 - 1)
        let otherToken = registry.removeIfUnregistered(deviceID: "a", token: token(2), unregisteredAt: may1 + 1)
        let missing = registry.removeIfUnregistered(deviceID: "missing", token: token(1), unregisteredAt: nil)
        #expect(!registeredAfter && !otherToken && !missing && registry.count == 1)
        let registeredAt = registry.removeIfUnregistered(deviceID: "a", token: token(1), unregisteredAt: may1)
        #expect(registeredAt, "registered at the 410's time, not after it")
        #expect(registry.count == 0)

        registry = RegisteredDevices(records: ["legacy": DeviceRecord(token: token(3))])
        let legacy = registry.removeIfUnregistered(deviceID: "legacy", token: token(3), unregisteredAt: may1)
        #expect(legacy, "no registration time known")
    }

    @Test("environment and deliveries are recorded; a changed token is left alone")
    func recordsEnvironmentAndDelivery() throws {
        var registry = RegisteredDevices()
        try registry.register(registration("a", 1), at: may1)
        try registry.register(registration("b", 2), at: may1)
        let before = registry.changeCount
        let otherToken = registry.recordEnvironment(.sandbox, deviceID: "a", token: token(9))
        #expect(!otherToken)
        #expect(registry.changeCount == before, "nothing changed, nothing to write")
        let recorded = registry.recordEnvironment(.sandbox, deviceID: "a", token: token(1))
        let again = registry.recordEnvironment(.sandbox, deviceID: "a", token: token(1))
        #expect(recorded && !again)
        #expect(registry["a"]?.environment == .sandbox)
        let delivered = registry.recordDelivery(to: ["a", "b", "gone"], at: may1 + 5)
        #expect(delivered == 2)
        #expect(registry["a"]?.lastDeliveredAt == may1 + 5 && registry["b"]?.lastDeliveredAt == may1 + 5)
    }

    @Test("selection by id and group reports what matched nothing")
    func selects() throws {
        var registry = RegisteredDevices()
        try registry.register(registration("a", 1, groups: ["beta"]), at: may1)
        try registry.register(registration("b", 2, groups: ["beta", "staff"]), at: may1)
        try registry.register(registration("c", 3), at: may1)
        #expect(DeviceSelection.all.match(in: registry).devices.map(\.id) == ["a", "b", "c"])
        let match = DeviceSelection(deviceIDs: ["c", "zz", "c"], groups: ["staff", "nobody"]).match(in: registry)
        #expect(match.devices.map(\.id) == ["b", "c"])
        #expect(match.unknownDeviceIDs == ["zz"] && match.emptyGroups == ["nobody"])
    }

    @Test("merge: new devices are added, the later registration wins, a tie goes to the import")
    func merges() throws {
        var registry = RegisteredDevices()
        try registry.register(registration("kept", 1, name: "here"), at: may1 + 100)
        try registry.register(registration("replaced", 2, name: "here"), at: may1)
        try registry.register(registration("same", 3), at: may1)

        var imported = RegisteredDevices()
        try imported.register(registration("kept", 11, name: "there"), at: may1 + 50)
        try imported.register(registration("replaced", 12, name: "there"), at: may1 + 200)
        try imported.register(registration("same", 3), at: may1)
        try imported.register(registration("added", 14), at: may1)

        let summary = try registry.merge(imported)
        #expect(
            summary.added == ["added"] && summary.updated == ["replaced"] && summary.unchanged == ["same"]
                && summary.keptNewer == ["kept"])
        #expect(registry["kept"]?.name == "here" && registry["replaced"]?.name == "there")
        #expect(registry["replaced"]?.registeredAt == may1, "the earliest registered_at is kept")
    }

    @Test("merge keeps one device per token")
    func mergeKeepsTokensUnique() throws {
        var registry = RegisteredDevices()
        try registry.register(registration("old-id", 5), at: may1)
        try registry.register(registration("fresh-id", 6), at: may1 + 100)
        var imported = RegisteredDevices()
        try imported.register(registration("new-id", 5), at: may1 + 10)
        try imported.register(registration("stale-id", 6), at: may1 + 10)
        let summary = try registry.merge(imported)
        #expect(summary.movedFrom == ["old-id"] && summary.keptNewer == ["stale-id"])
        #expect(Set(registry.deviceIDs) == ["new-id", "fresh-id"])
    }

    @Test("a flat map merged into a registry does not clobber what the registry knows")
    func flatMapDoesNotClobber() throws {
        var registry = RegisteredDevices()
        try registry.register(registration("phone", 1, name: "Sven"), at: may1)
        let flat = try RegisteredDevices(
            stateFile: Data(#"{"phone": "\#(token(9).text)", "tablet": "\#(token(10).text)"}"#))
        let summary = try registry.merge(flat)
        #expect(summary.keptNewer == ["phone"] && summary.added == ["tablet"])
        #expect(registry["phone"]?.token == token(1))
    }
}
