import Foundation
import Testing
@testable import PushKitFreeCore
import PushKitFreeTestSupport
@testable import PushKitFreeRegistry

#if canImport(Glibc)
import Glibc
#endif

/// The state file's journal: a journaling registry (serve's) appends batches beside the
/// file, every reader applies them, every other writer folds them into the file, and no order of
/// writers, crash leftovers or cut-off appends loses or resurrects a device.
@Suite("registry: the journal beside a large state file")
struct RegistryJournalTests {
    let directory: String
    let clock = ManualClock(Date(timeIntervalSince1970: 1_714_564_800.000_4))
    let path: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        path = directory + "/devices.json"
    }

    /// A registry that journals every batch (threshold 0), as serve's does for a large file.
    func journaling() -> StateFileRegistry {
        var registry = StateFileRegistry(path: path, clock: clock)
        registry.appendsToJournal = true
        registry.journalThreshold = 0
        return registry
    }

    /// A registry as a command-line tool has it: it never appends, and folds any journal.
    func plain() -> StateFileRegistry { StateFileRegistry(path: path, clock: clock) }

    /// The registry as a process that never read it before finds it.
    func fresh() throws -> RegisteredDevices { try plain().load() }

    var journalPath: String { path + ".journal" }
    func fileBytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }
    func journalLines() throws -> [String] {
        try String(decoding: Data(contentsOf: URL(fileURLWithPath: journalPath)), as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
    var journalExists: Bool { FileManager.default.fileExists(atPath: journalPath) }

    /// `count` devices written straight to the file (no `journal_base`), as an earlier release would.
    func writeRegistry(count: Int) throws {
        let devices = RegisteredDevices(
            devices: (1...count).map { number in
                RegisteredDevice(
                    id: String(format: "device-%04d", number),
                    record: DeviceRecord(token: token(number), name: "Phone \(number)", registeredAt: may1))
            })
        try Data(devices.stateFileBytes()).write(to: URL(fileURLWithPath: path))
    }

    func append(toJournal text: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: journalPath))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    @Test("batches go to the journal, not the file; any reader applies them; a command-line write folds them in")
    func appendsAndFolds() throws {
        try writeRegistry(count: 50)
        let server = journaling()
        // The file has no journal_base yet: the first batch writes it whole, with one.
        try server.register([registration("a", 101)])
        #expect(!journalExists)
        let base = try #require(try RegisteredDevices(stateFile: fileBytes()).journalBase)
        let file = try fileBytes()

        clock.advance(by: 1)
        try server.register([registration("b", 102, name: "Bea"), registration("device-0001", 103)])
        try server.remove(idOrToken: "device-0002")
        #expect(try fileBytes() == file, "the file is not rewritten")
        let lines = try journalLines()
        #expect(lines.count == 4 && lines[3].isEmpty, "header, two batches, final newline: \(lines)")
        #expect(lines[0] == #"{"journal": 1, "base": "\#(base)"}"#)
        #expect(lines[2] == #"{"devices": {"device-0002": null}}"#)
        #expect(PosixFile.permissions(of: journalPath) == PosixFile.permissions(of: path), "the file's mode")

        var expected = try fresh()
        #expect(expected.count == 51 && expected["b"]?.name == "Bea" && expected["device-0002"] == nil)
        #expect(expected["device-0001"]?.token == token(103))
        #expect(try server.load() == expected)
        #expect(expected.changeCount == 0)

        // A command-line write folds the journal: the file alone holds everything, with a new base.
        try plain().register([registration("c", 104)])
        #expect(!journalExists)
        let folded = try RegisteredDevices(stateFile: fileBytes())
        #expect(folded.journalBase != nil && folded.journalBase != base)
        let added: DeviceRecord = try #require(folded["c"])
        expected["c"] = added
        #expect(folded == expected)

        // The server notices the file was replaced, and journals on top of the new one.
        try server.register([registration("d", 105)])
        #expect(try journalLines()[0].contains(try #require(folded.journalBase)))
        #expect(try fresh()["d"] != nil && (try fresh()["c"]) != nil)
        #expect(try server.load() == (try fresh()))
    }

    @Test("a journal left behind by a writer killed between its rename and the removal is ignored, then replaced")
    func staleJournalIgnored() throws {
        try writeRegistry(count: 20)
        let server = journaling()
        try server.register([registration("first", 101)])
        try server.register([registration("ghost", 102)])
        let stale = try Data(contentsOf: URL(fileURLWithPath: journalPath))
        try plain().remove(idOrToken: "ghost") // folds, then removes the device
        #expect(!journalExists)
        // The crash: the journal the fold read is back beside the file it was folded into.
        try stale.write(to: URL(fileURLWithPath: journalPath))
        #expect(try fresh()["ghost"] == nil, "a journal of another base is not applied")
        #expect(try fresh().count == 21)

        try server.register([registration("after", 103)])
        let lines = try journalLines()
        #expect(lines.count == 3 && !lines.contains { $0.contains("ghost") }, "\(lines)")
        #expect(try fresh()["after"] != nil && (try fresh()["ghost"]) == nil)
    }

    @Test("a batch whose append was cut off is ignored by readers and cut off by the next writer")
    func cutOffBatch() throws {
        try writeRegistry(count: 20)
        let server = journaling()
        try server.register([registration("first", 101)])
        try server.register([registration("second", 102)])
        try append(toJournal: #"{"devices": {"torn": {"token": "ab"#)
        #expect(try fresh()["second"] != nil && (try fresh()["torn"]) == nil)
        #expect(try fresh().count == 22)

        let another = journaling()
        try another.register([registration("third", 103)])
        let lines = try journalLines()
        #expect(!lines.contains { $0.contains("torn") } && lines.count == 4, "\(lines)")
        #expect(try fresh()["third"] != nil)
        #expect(try server.load() == (try fresh()))
    }

    @Test("a journal line that does not parse is a corrupt registry (65) naming the journal; nothing is written")
    func corruptLine() throws {
        try writeRegistry(count: 20)
        let server = journaling()
        try server.register([registration("first", 101)])
        try server.register([registration("second", 102)])
        try append(toJournal: "{\"devices\": [1]}\n")
        let file = try fileBytes()
        let journal = try Data(contentsOf: URL(fileURLWithPath: journalPath))
        for attempt in [{ _ = try fresh() }, { try plain().register([registration("third", 103)]) }] {
            let error = try #require(throws: RegistryError.self) { try attempt() }
            #expect(error.exitStatus == .dataError)
            #expect(error.description.contains(journalPath) && error.description.contains("line 3"), "\(error)")
        }
        #expect(try fileBytes() == file)
        #expect(try Data(contentsOf: URL(fileURLWithPath: journalPath)) == journal)
    }

    @Test("two journaling processes read each other's batches from where they stopped")
    func twoWriters() throws {
        try writeRegistry(count: 30)
        let one = journaling()
        let two = journaling()
        try one.register([registration("a", 101)])
        try two.register([registration("b", 102)])
        try one.register([registration("c", 103)])
        try two.remove(idOrToken: "a")
        try one.register([registration("d", 102)]) // takes b's token: b goes
        let expected = try fresh()
        #expect(expected["a"] == nil && expected["b"] == nil && expected["c"] != nil && expected["d"] != nil)
        #expect(expected.count == 32)
        #expect(try one.load() == expected)
        #expect(try two.load() == expected)
        #expect(try journalLines().count == 6)
    }

    @Test("many devices, a top-level member, or a journal as large as the file: the file is written whole")
    func foldsWhenAppendingDoesNotPay() throws {
        try writeRegistry(count: 200)
        let server = journaling()
        try server.register([registration("a", 1_001)])
        try server.register([registration("b", 1_002)])
        #expect(journalExists)
        clock.advance(by: 1)
        try server.recordDelivery(to: (1...200).map { String(format: "device-%04d", $0) })
        #expect(!journalExists, "200 devices changed at once are more than the journal takes")
        #expect(try RegisteredDevices(stateFile: fileBytes())["device-0100"]?.lastDeliveredAt != nil)

        try server.register([registration("c", 1_003)])
        #expect(journalExists)
        try server.update { devices in devices.otherFields["note"] = .string("kept") }
        #expect(!journalExists)
        #expect(try RegisteredDevices(stateFile: fileBytes()).otherFields["note"] == .string("kept"))

        // The journal never grows much past the file's size before it is folded.
        var folds = 0
        for number in 1...400 {
            try server.register([
                registration("more-\(number)", 2_000 + number, name: String(repeating: "x", count: 200))
            ])
            if !journalExists { folds += 1 }
            let journalSize = (try? Data(contentsOf: URL(fileURLWithPath: journalPath)).count) ?? 0
            #expect(journalSize < (try fileBytes().count) + 1_000)
        }
        #expect(folds >= 2)
        #expect(try fresh().count == 603)
        #expect(try server.load() == (try fresh()))
    }

    @Test("below the threshold, and for a registry that does not journal, every write is the whole file")
    func smallFilesAreRewritten() throws {
        try writeRegistry(count: 20)
        var server = journaling()
        server.journalThreshold = 1 << 20
        try server.register([registration("a", 101)])
        try server.register([registration("b", 102)])
        #expect(!journalExists)
        let file = try RegisteredDevices(stateFile: fileBytes())
        #expect(file["b"] != nil && file.journalBase == nil, "a small file stays as earlier releases wrote it")
        try plain().register([registration("c", 103)])
        #expect(!journalExists)
    }

    @Test("folding writes the journal's batches into the file and removes the journal; with none it writes nothing")
    func fold() throws {
        try writeRegistry(count: 20)
        let server = journaling()
        try server.register([registration("a", 101)])
        try server.register([registration("b", 102)])
        let before = try fresh()
        #expect(try server.foldJournal())
        #expect(!journalExists)
        #expect(try RegisteredDevices(stateFile: fileBytes()) == before)
        let file = try fileBytes()
        #expect(try !server.foldJournal())
        #expect(try fileBytes() == file)
        // The registry the server keeps is still the file's.
        try server.register([registration("c", 103)])
        #expect(try server.load() == (try fresh()))
        #expect(try fresh().count == 23)
    }

    @Test("a server prepares at start: a large file without journal_base gets one; nothing else is written")
    func prepare() throws {
        let missing = journaling()
        missing.prepareJournal()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: path + ".lock"))

        try writeRegistry(count: 20)
        let original = try fileBytes()
        var small = journaling()
        small.journalThreshold = 1 << 20
        small.prepareJournal()
        #expect(try fileBytes() == original, "a file under the threshold is left as it is")
        plain().prepareJournal()
        #expect(try fileBytes() == original, "a registry that does not journal prepares nothing")

        let server = journaling()
        server.prepareJournal()
        let prepared = try RegisteredDevices(stateFile: fileBytes())
        #expect(prepared.journalBase != nil)
        #expect(try prepared == RegisteredDevices(stateFile: original))
        #expect(server.cache.current(at: path) != nil, "the registry is read and kept")
        let file = try fileBytes()
        server.prepareJournal()
        #expect(try fileBytes() == file, "prepared once")
        try server.register([registration("a", 101)])
        #expect(journalExists)
        #expect(try fileBytes() == file, "the first batch goes to the journal")
    }

    @Test("another server's journal and folds are taken without reading the file again; a command-line write is not")
    func foldsAdoptedWithoutParsing() throws {
        try writeRegistry(count: 100)
        let one = journaling()
        let two = journaling()
        one.prepareJournal()
        _ = try two.load()
        let reads = { two.cache.fileReads.load(ordering: .relaxed) }
        let before = reads()
        try one.register([registration("a", 201)]) // a new journal
        try two.register([registration("b", 202)])
        try one.register([registration("c", 203)])
        #expect(try one.foldJournal()) // one folds: the file is replaced, with journal_folded
        let header = try #require(String(data: fileBytes().prefix(300), encoding: .utf8))
        #expect(header.contains("\"journal_folded\": "), "\(header)")
        try two.register([registration("d", 204)]) // two takes the fold as its own
        #expect(try two.load() == (try fresh()))
        #expect(reads() == before, "two never parsed the file again")
        #expect(try fresh().count == 104)

        // Folding past the file's size, mid-batch, is a fold of the journal alone too.
        var folds = 0
        for number in 1...300 {
            try one.register([registration("more-\(number)", 1_000 + number, name: String(repeating: "x", count: 100))])
            if !journalExists { folds += 1 }
            try two.register([registration("other-\(number)", 5_000 + number)])
        }
        #expect(folds >= 1)
        #expect(reads() == before)
        #expect(try two.load() == (try fresh()) && (try one.load()) == (try fresh()))

        // A command-line write folds the journal together with its own change: read again.
        try plain().register([registration("cli", 9_999)])
        let header2 = try #require(String(data: fileBytes().prefix(300), encoding: .utf8))
        #expect(!header2.contains("journal_folded"))
        try two.register([registration("e", 205)])
        #expect(reads() == before + 1)
        #expect(try two.load() == (try fresh()))
        #expect(try fresh()["cli"] != nil && (try fresh()).count == 706)
    }
}
