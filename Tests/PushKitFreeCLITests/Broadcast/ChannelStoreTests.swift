import Foundation
import Testing
@testable import PushKitFreeCLI
@testable import PushKitFreeCore
import PushKitFreeTestSupport

@Suite("the channels file")
struct ChannelStoreTests {
    func record(_ name: String, id: String = "dHN0LXNyY2gtY2hubA==") -> ChannelRecord {
        ChannelRecord(
            name: name, id: id, environment: .sandbox, storagePolicy: .latest, bundleID: "com.example.app",
            createdAt: Date(timeIntervalSince1970: 1_750_000_000))
    }

    @Test("records survive a round trip, sorted by name, and a taken name is refused without a write")
    func roundTrip() throws {
        let store = ChannelStore(stateDirectory: try makeTemporaryDirectory() + "/state")
        #expect(try store.load().isEmpty, "no file yet")
        try store.add(record("match-2", id: "YWJjZA=="))
        try store.add(record("match-1"))
        #expect(try store.load().map(\.name) == ["match-1", "match-2"])
        #expect(try store.record(named: "match-2") == record("match-2", id: "YWJjZA=="))
        let before = try Data(contentsOf: URL(fileURLWithPath: store.path))
        #expect(throws: BroadcastChannelError.self) { try store.add(record("match-1", id: "ZWZnaA==")) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == before)
        #expect(try store.remove(named: "match-1")?.id == "dHN0LXNyY2gtY2hubA==")
        #expect(try store.remove(named: "match-1") == nil)
        #expect(try store.load().map(\.name) == ["match-2"])
    }

    @Test("a corrupt file is reported (65) and left as it is; members this version does not know are kept")
    func corruptAndUnknown() throws {
        let directory = try makeTemporaryDirectory()
        let store = ChannelStore(stateDirectory: directory)
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: store.path))
        do {
            _ = try store.load()
            Issue.record("a corrupt file loaded")
        } catch {
            #expect(error.exitStatus == .dataError && error.description.contains("corrupt"))
        }
        #expect(throws: BroadcastChannelError.self) { try store.add(record("x")) }
        #expect(try String(contentsOfFile: store.path, encoding: .utf8) == "{not json")
        let known =
            #"{"version":1,"note":"mine","channels":{"a":{"id":"YWJjZA==","environment":"production","storage":"none","extra":true}}}"#
        try Data(known.utf8).write(to: URL(fileURLWithPath: store.path))
        try store.add(record("b"))
        let saved = try JSONValue.parse(Data(contentsOf: URL(fileURLWithPath: store.path)))
        #expect(saved["channels"]?["a"]?["extra"] == .bool(true))
        #expect(try store.record(named: "a")?.storagePolicy == ChannelStoragePolicy.none)
    }

    @Test("names: letters, digits, '.', '_', '-', not starting with '-', at most 64")
    func names() {
        #expect(ChannelRecord.problem(withName: "world-cup_2026.final") == nil)
        #expect(ChannelRecord.problem(withName: "") != nil)
        #expect(ChannelRecord.problem(withName: "-x") != nil)
        #expect(ChannelRecord.problem(withName: "a b") != nil)
        #expect(ChannelRecord.problem(withName: String(repeating: "a", count: 65)) != nil)
    }
}
