#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PushKitFreeCore

/// Reading and writing the state file's bytes: `{"version": 1, "devices": {...}}`, or the flat map
/// `{"<device id>": "<token>"}` of earlier servers (see `RegisteredDevices+FlatMap.swift` for how a
/// flat map is kept flat when written).
extension RegisteredDevices {
    /// Parses a state file.
    ///
    /// Empty (or whitespace-only) contents read as an empty registry. Anything else must be a
    /// version 1 registry or a flat map whose every value is a token string, with no empty device id.
    /// A record of a version 1 registry that is valid JSON but not a usable device (a field of the
    /// wrong type or value) does not fail the whole file: it is kept in `unreadableDevices`.
    /// A top-level string member of a version 1 registry whose value is a valid token (other than
    /// `version` and `devices`) is a registration a writer of the flat map added: it is adopted, and
    /// wins over the record of the same id in `devices` (see `adoptLegacyEntry(deviceID:token:)`).
    /// Other top-level members are kept as unknown fields.
    /// - Throws: `JSONSyntaxError` whose detail names the line and column, for bad JSON and for a
    ///   valid document of the wrong shape alike.
    package init(stateFile data: Data) throws(JSONSyntaxError) {
        self = try JSONScanner.withScanner(over: data) { (scanner: inout JSONScanner) throws(JSONSyntaxError) in
            if scanner.isAtEnd() { return RegisteredDevices() }
            return try Self.read(from: &scanner, data: data)
        }
    }

    private static func read(from scanner: inout JSONScanner, data: Data) throws(JSONSyntaxError) -> RegisteredDevices {
        guard try scanner.peekKind() == .object else {
            throw scanner.failure(
                "expected an object with \"version\" and \"devices\", found \(try scanner.peekKind().name)")
        }
        scanner.skipWhitespace()
        let start = scanner.offset
        var version: (value: Double, position: Int)?
        var devices: [RegisteredDevice]?
        var unreadable: [UnreadableDevice] = []
        var stringMembers: [(key: String, value: String, position: Int)] = []
        var otherMembers: [(key: String, value: JSONValue, position: Int)] = []

        if try scanner.beginObject() {
            repeat {
                let key = try scanner.readMemberName()
                let position = scanner.offset
                switch (key, try scanner.peekKind()) {
                case ("version", .number):
                    version = (try scanner.readNumber(), position)
                case ("devices", .object):
                    // A registry is about 340 bytes per device; reserve to avoid regrowing a large array.
                    var entries: [RegisteredDevice] = []
                    entries.reserveCapacity(scanner.remainingByteCount / 256)
                    if try scanner.beginObject(depth: 1) {
                        repeat {
                            scanner.skipWhitespace()
                            let idStart = scanner.offset
                            let id = try scanner.readMemberName()
                            // As `device_id` in an imported line, and as every registration checks.
                            if id.isEmpty { throw scanner.failure("a device id must not be empty", at: idStart) }
                            let valueStart = scanner.offset
                            do throws(JSONSyntaxError) {
                                var device = try DeviceRecord.read(from: &scanner, deviceID: id)
                                device.storedJSON =
                                    data[data.startIndex + valueStart..<data.startIndex + scanner.offset]
                                entries.append(device)
                            } catch {
                                // Valid JSON that is no usable record is kept apart (the JSON read
                                // again as a value: a syntax error there still fails the file).
                                scanner.rewind(to: valueStart)
                                _ = try scanner.readValue(depth: 1)
                                let bytes = data[data.startIndex + valueStart..<data.startIndex + scanner.offset]
                                unreadable.append(UnreadableDevice(id: id, storedJSON: bytes, error: error))
                            }
                        } while try scanner.nextMember()
                    }
                    devices = entries
                case (_, .string):
                    stringMembers.append((key, try scanner.readString(), position))
                default:
                    otherMembers.append((key, try scanner.readValue(depth: 1), position))
                }
            } while try scanner.nextMember()
        }
        try scanner.expectEnd()

        guard let version else {
            if devices != nil {
                throw scanner.failure(
                    "\"devices\" without \"version\": expected {\"version\": 1, \"devices\": {...}}", at: start)
            }
            if let other = otherMembers.first {
                throw scanner.failure(
                    "\"\(other.key)\" is \(other.value.typeName), but without \"version\" this must be a flat map of device ids to token strings",
                    at: other.position)
            }
            return try legacyFlatMap(stringMembers, scanner: scanner)
        }
        guard version.value == Double(formatVersion) else {
            let shown =
                version.value.rounded() == version.value && abs(version.value) < 1e15
                ? String(Int(version.value)) : String(version.value)
            throw scanner.failure(
                "version \(shown) is not supported: this register-apns reads version \(formatVersion) (a newer release may have written it)",
                at: version.position)
        }
        var registry = RegisteredDevices(devices: devices ?? [])
        for device in unreadable { registry.keepUnreadable(device) }
        if let index = stringMembers.firstIndex(where: { $0.key == journalBaseMember }) {
            registry.journalBase = stringMembers.remove(at: index).value
        }
        if let index = stringMembers.firstIndex(where: { $0.key == journalFoldedMember }) {
            registry.journalFolded = stringMembers.remove(at: index).value
        }
        // A string member holding a token was added by a writer of the flat map (an earlier server
        // still running): a registration, newer than the record of that id in `devices`.
        var adopted: [String] = []
        var unknownStrings: [(key: String, value: String, position: Int)] = []
        for member in stringMembers {
            guard !member.key.isEmpty, member.key != "devices", member.key != "version",
                let token = try? DeviceToken(validating: member.value, transport: nil)
            else {
                unknownStrings.append(member)
                continue
            }
            registry.adoptLegacyEntry(deviceID: member.key, token: token)
            adopted.append(member.key)
        }
        let members =
            unknownStrings.map { (key: $0.key, value: JSONValue.string($0.value), position: $0.position) }
            + otherMembers
        for member in members {
            if member.key == "devices" {
                throw scanner.failure(
                    "\"devices\" must be an object, not \(member.value.typeName)", at: member.position)
            }
            if member.key == "version" {
                let kind = member.value.typeName
                throw scanner.failure("\"version\" appears twice, once as \(kind)", at: member.position)
            }
            registry.otherFields[member.key] = member.value
        }
        registry.storedFormat = adopted.isEmpty ? .versioned : .versionedWithLegacyEntries
        registry.adoptedLegacyEntries = adopted
        registry.markUnchanged()
        return registry
    }

    private static func legacyFlatMap(
        _ members: [(key: String, value: String, position: Int)], scanner: JSONScanner
    ) throws(JSONSyntaxError) -> RegisteredDevices {
        var devices: [RegisteredDevice] = []
        devices.reserveCapacity(members.count)
        for member in members {
            if member.key.isEmpty { throw scanner.failure("a device id must not be empty", at: member.position) }
            do throws(DeviceTokenError) {
                devices.append(
                    RegisteredDevice(
                        id: member.key,
                        record: DeviceRecord(token: try DeviceToken(validating: member.value, transport: nil))))
            } catch {
                throw scanner.failure("device \"\(member.key)\": \(error.message)", at: member.position)
            }
        }
        var registry = RegisteredDevices(devices: devices)
        registry.storedFormat = .legacyFlatMap
        return registry
    }

    /// The state file's bytes: version 1, one device per line sorted by id, so the file is stable,
    /// diffable and greppable; preserved top-level members follow `devices`. Records not changed
    /// since they were read are copied as they were in the file.
    package func stateFileBytes() -> [UInt8] {
        var bytes: [UInt8] = []
        encodeStateFile(chunkSize: .max) { (writer: inout JSONWriter) in
            bytes += writer.bytes
            writer.bytes.removeAll(keepingCapacity: true)
        }
        return bytes
    }

    /// The top-level member naming the version of the file a journal continues (see `RegistryJournal`).
    static let journalBaseMember = "journal_base"
    /// The top-level member telling a journal's reader that the file is its file and journal folded.
    static let journalFoldedMember = "journal_folded"

    /// Makes this registry what reading the version 1 file just written from it would give: each
    /// record changed since it was read (or built) is encoded and read back, its bytes kept for the
    /// next write, and the top-level members likewise; stored as version 1, no changes counted. Costs
    /// what changed, plus a look at each device.
    mutating func adoptWrittenRecords() throws(JSONSyntaxError) {
        for index in devices.indices where devices[index].storedJSON == nil {
            _ = try adoptWrittenRecord(at: index)
        }
        for (key, value) in otherFields {
            var writer = JSONWriter(capacity: 256)
            writer.value(value)
            otherFields[key] = try JSONValue.parse(Data(writer.bytes))
        }
        storedFormat = .versioned
        adoptedLegacyEntries = []
        markUnchanged()
    }

    /// One batch of the state file's journal (see `RegistryJournal`): the devices changed since the
    /// registry was read or last written (`changedDeviceIDs`), `{"devices": {"<id>": <record> or
    /// null, ...}}` and a newline. Like `adoptWrittenRecords()`, each changed record is encoded once
    /// and read back, so this registry is what reading the journal gives; no changes counted after.
    mutating func journalBatch() throws(JSONSyntaxError) -> [UInt8] {
        var writer = JSONWriter(capacity: 64 + changedDeviceIDs.count * 400)
        writer.raw("{\"devices\": {")
        for (number, id) in changedDeviceIDs.sorted().enumerated() {
            if number > 0 { writer.raw(", ") }
            writer.string(id)
            writer.raw(": ")
            let (index, found) = position(of: id)
            guard found else {
                writer.raw("null")
                continue
            }
            let bytes = try adoptWrittenRecord(at: index)
            bytes.withUnsafeBytes { writer.bytes.append(contentsOf: $0) }
        }
        writer.raw("}}\n")
        markUnchanged()
        return writer.bytes
    }

    /// The bytes of the record at `index` as written: kept ones, or else encoded and read back
    /// (so its times have the file's millisecond precision) and kept.
    private mutating func adoptWrittenRecord(at index: Int) throws(JSONSyntaxError) -> Data {
        if let stored = devices[index].storedJSON { return stored }
        let id = devices[index].id
        var writer = JSONWriter(capacity: 512)
        devices[index].record.write(to: &writer)
        let bytes = Data(writer.bytes)
        let written = try JSONScanner.withScanner(over: bytes) { (scanner: inout JSONScanner) throws(JSONSyntaxError) in
            try DeviceRecord.read(from: &scanner, deviceID: id)
        }
        devices[index] = RegisteredDevice(id: id, record: written.record, storedJSON: bytes)
        return bytes
    }

    /// Writes the state file's bytes (see `stateFileBytes()`) to `output` in chunks of about a
    /// megabyte, so a large registry is never held in memory twice.
    func writeStateFile(to output: inout FileOutput) throws(FileSystemError) {
        try encodeStateFile(chunkSize: 1 << 20) { (writer: inout JSONWriter) throws(FileSystemError) in
            try output.write(writer.bytes)
            writer.bytes.removeAll(keepingCapacity: true)
        }
    }

    /// Encodes the state file, calling `flush` (which must empty the writer) whenever `chunkSize`
    /// bytes are ready, and once at the end.
    private func encodeStateFile<Failure: Error>(
        chunkSize: Int, _ flush: (inout JSONWriter) throws(Failure) -> Void
    ) throws(Failure) {
        var writer = JSONWriter(capacity: chunkSize == .max ? 64 + devices.count * 400 : chunkSize + 4096)
        writer.raw("{\n  \"version\": 1,")
        // Before the devices, so a reader can tell a fold from the file's first bytes (`journalHeader`).
        if let journalBase {
            writer.raw("\n  \"journal_base\": ")
            writer.string(journalBase)
            writer.raw(",")
        }
        if journalBase != nil, let journalFolded {
            writer.raw("\n  \"journal_folded\": ")
            writer.string(journalFolded)
            writer.raw(",")
        }
        writer.raw("\n  \"devices\": {")
        // Unreadable records go back where they were, in id order among the others, as read.
        var unreadable = unreadableDevices.makeIterator()
        var nextUnreadable = unreadable.next()
        var written = 0
        func writeUnreadable(before id: String?) {
            while let device = nextUnreadable, id.map({ device.id < $0 }) ?? true {
                writer.raw(written == 0 ? "\n    " : ",\n    ")
                writer.string(device.id)
                writer.raw(": ")
                device.storedJSON.withUnsafeBytes { writer.bytes.append(contentsOf: $0) }
                written += 1
                nextUnreadable = unreadable.next()
            }
        }
        // By index, not by element: a copy of each device would retain every field of its record.
        for index in devices.indices {
            if nextUnreadable != nil { writeUnreadable(before: devices[index].id) }
            writer.raw(written == 0 ? "\n    " : ",\n    ")
            writer.string(devices[index].id)
            writer.raw(": ")
            if let stored = devices[index].storedJSON {
                stored.withUnsafeBytes { writer.bytes.append(contentsOf: $0) }
            } else {
                devices[index].record.write(to: &writer)
            }
            written += 1
            if writer.bytes.count >= chunkSize { try flush(&writer) }
        }
        writeUnreadable(before: nil)
        writer.raw(written == 0 ? "}" : "\n  }")
        for (key, value) in otherFields.sorted(by: { $0.key < $1.key })
        where key != "version" && key != "devices"
            && (journalBase == nil || (key != Self.journalBaseMember && key != Self.journalFoldedMember))
        {
            writer.raw(",\n  ")
            writer.string(key)
            writer.raw(": ")
            writer.value(value)
        }
        writer.raw("\n}\n")
        try flush(&writer)
    }
}
