import Foundation
import Synchronization
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry

/// A record that cannot be read (`UnreadableDevice`) through every store operation: kept byte for
/// byte by writes, journals and folds; selected and refused rather than sent; never rewritten by a
/// registration or an import; removed only when asked.
@Suite("registry: a record that cannot be read")
struct RegistryUnreadableRecordTests {
    static let bad = #"{"token": "\#(token(2).text)", "groups": ["family"], "content_key": "c2hvcnQ="}"#
    let directory: String
    let path: String

    /// The warnings the registry gave in this test process, kept here rather than written to the
    /// test run's standard error (the end-to-end tests read the tools' own).
    static let warnings = Mutex<[String]>([])

    /// Sends the registry's warnings to `warnings`.
    static func captureWarnings() {
        RegistryWarnings.setHandler { warning in RegistryUnreadableRecordTests.warnings.withLock { $0.append(warning) }
        }
    }

    init() throws {
        Self.captureWarnings()
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("unreadable-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/devices.json"
        let text = """
            {"version": 1, "devices": {
              "alpha": {"token": "\(token(1).text)", "groups": ["family"]},
              "bad": \(Self.bad)
            }}

            """
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    func fileText() throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test("writes, journal batches and folds keep it byte for byte")
    func keptByWrites() throws {
        var server = StateFileRegistry(path: path)
        server.appendsToJournal = true
        server.journalThreshold = 0
        try server.register([registration("gamma", 3)])
        try server.recordDelivery(to: ["alpha", "gamma"])
        try server.register([registration("epsilon", 5)])
        #expect(FileManager.default.fileExists(atPath: server.journalPath), "the batches went to the journal")
        let journaled = try StateFileRegistry(path: path).load()
        #expect(
            journaled.deviceIDs == ["alpha", "epsilon", "gamma"] && journaled.unreadableDevices.map(\.id) == ["bad"])
        let said = Self.warnings.withLock { $0 }.filter { $0.contains(path) }
        #expect(said.count == 1 && said[0].contains("device \"bad\""), "warned once for this file: \(said)")
        #expect(try server.foldJournal())
        let folded = try fileText()
        #expect(folded.contains("\"bad\": " + Self.bad), "\(folded)")
        let plain = StateFileRegistry(path: path)
        try plain.register([registration("delta", 4)])
        let reread = try StateFileRegistry(path: path).load()
        #expect(
            reread.deviceIDs == ["alpha", "delta", "epsilon", "gamma"] && reread.unreadableDevices.map(\.id) == ["bad"])
        #expect(try fileText().contains("\"bad\": " + Self.bad))
    }

    @Test("a selection finds it by id, group or all, and a send's targets refuse it with the field named")
    func selectedAndRefused() throws {
        let registry = StateFileRegistry(path: path)
        let devices = try registry.load()
        for selection in [DeviceSelection(), DeviceSelection(deviceIDs: ["bad"]), DeviceSelection(groups: ["family"])] {
            let match = selection.match(in: devices)
            #expect(
                match.unreadable.map(\.id) == ["bad"] && match.unknownDeviceIDs.isEmpty && match.emptyGroups.isEmpty)
        }
        let targets = try DeliveryTargets.select(registry: registry, deviceIDs: [], groups: ["family"])
        #expect(targets.map(\.deviceID) == ["alpha", "bad"])
        #expect(targets[0].unusableRecord == nil)
        #expect(targets[1].token == token(2) && targets[1].unusableRecord?.contains("\"content_key\"") == true)
        let due = try DeliveryTargets.select(registry: registry, deviceIDs: [], groups: [], due: .briefing)
        #expect(due.isEmpty, "a scheduled send cannot tell whether it is due, and leaves it out")
    }

    @Test("registering or importing its id is refused, nothing written; remove takes it away")
    func refusedThenRemoved() throws {
        let registry = StateFileRegistry(path: path)
        let before = try fileText()
        let error = #expect(throws: RegistryError.self) { try registry.register([registration("bad", 9)]) }
        #expect(error?.exitStatus == .dataError && error?.description.contains("\"content_key\"") == true)
        var imported = RegisteredDevices()
        try imported.register(registration("bad", 9), at: may1)
        #expect(throws: RegistryError.self) { try registry.merge(imported) }
        let withBadRecord = try RegisteredDevices(
            stateFile: Data(#"{"version": 1, "devices": {"x": {"token": "nothex"}}}"#.utf8))
        let refusedImport = #expect(throws: RegistryError.self) { try registry.merge(withBadRecord) }
        #expect(refusedImport?.description.contains("device \"x\" of the file to import cannot be read") == true)
        #expect(try fileText() == before)

        let removed = try registry.remove(idOrToken: "bad")
        #expect(removed.map(\.id) == ["bad"] && removed.first?.record.token == token(2))
        let after = try registry.load()
        let text = try fileText()
        #expect(after.unreadableDevices.isEmpty && !text.contains("\"bad\""))
    }

    @Test("a registry written as a flat map refuses to drop it")
    func flatMapRefused() throws {
        var devices = try RegisteredDevices(stateFile: Data(try fileText().utf8))
        devices.storedFormat = .versionedWithLegacyEntries
        try Data(devices.stateFileBytes()).write(to: URL(fileURLWithPath: path))
        // A string member beside `version`: a flat map's writer registered here, so it is written back as one.
        let text = try fileText().replacingOccurrences(
            of: "\"version\": 1,", with: "\"version\": 1, \"legacy\": \"\(token(5).text)\",")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: RegistryError.self) {
            try StateFileRegistry(path: path).register([registration("gamma", 3)])
        }
        #expect(error?.description.contains("device \"bad\" has a record that cannot be read") == true)
        #expect(try fileText() == text)
    }
}
