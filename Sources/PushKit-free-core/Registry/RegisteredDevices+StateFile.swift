#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reading and writing the state file's bytes: `{"version": 1, "devices": {...}}`, or the flat map
/// `{"<device id>": "<token>"}` of earlier servers, which is read the same way and written as version 1.
extension RegisteredDevices {
    /// Parses a state file.
    ///
    /// Empty (or whitespace-only) contents read as an empty registry. Anything else must be a
    /// version 1 registry or a flat map whose every value is a token string.
    /// - Throws: `JSONSyntaxError` whose detail names the line and column, for bad JSON and for a
    ///   valid document of the wrong shape alike.
    public init(stateFile data: Data) throws(JSONSyntaxError) {
        self = try JSONScanner.withScanner(over: data) { (scanner: inout JSONScanner) throws(JSONSyntaxError) in
            if scanner.isAtEnd() { return RegisteredDevices() }
            return try Self.read(from: &scanner)
        }
    }

    private static func read(from scanner: inout JSONScanner) throws(JSONSyntaxError) -> RegisteredDevices {
        guard try scanner.peekKind() == .object else {
            throw scanner.failure("expected an object with \"version\" and \"devices\", found \(try scanner.peekKind().name)")
        }
        scanner.skipWhitespace()
        let start = scanner.offset
        var version: (value: Double, position: Int)?
        var devices: [String: DeviceRecord]?
        var stringMembers: [(key: String, value: String, position: Int)] = []
        var otherMembers: [(key: String, value: JSONValue, position: Int)] = []

        try scanner.forEachMember { (key: String, scanner: inout JSONScanner) throws(JSONSyntaxError) in
            scanner.skipWhitespace()
            let position = scanner.offset
            let kind = try scanner.peekKind()
            switch (key, kind) {
            case ("version", .number):
                version = (try scanner.readNumber(), position)
            case ("devices", .object):
                var records: [String: DeviceRecord] = [:]
                try scanner.forEachMember(depth: 1) { (id: String, scanner: inout JSONScanner) throws(JSONSyntaxError) in
                    records[id] = try DeviceRecord.read(from: &scanner, deviceID: id).record
                }
                devices = records
            case (_, .string):
                stringMembers.append((key, try scanner.readString(), position))
            default:
                otherMembers.append((key, try scanner.readValue(depth: 1), position))
            }
        }
        try scanner.expectEnd()

        guard let version else {
            if devices != nil {
                throw scanner.failure("\"devices\" without \"version\": expected {\"version\": 1, \"devices\": {...}}", at: start)
            }
            if let other = otherMembers.first {
                throw scanner.failure("\"\(other.key)\" is \(other.value.typeName), but without \"version\" this must be a flat map of device ids to token strings", at: other.position)
            }
            return try legacyFlatMap(stringMembers, scanner: scanner)
        }
        guard version.value == Double(formatVersion) else {
            let shown = version.value.rounded() == version.value && abs(version.value) < 1e15 ? String(Int(version.value)) : String(version.value)
            throw scanner.failure("version \(shown) is not supported: this register-apns reads version \(formatVersion) (a newer release may have written it)", at: version.position)
        }
        var registry = RegisteredDevices(records: devices ?? [:])
        for member in stringMembers.map({ ($0.key, JSONValue.string($0.value), $0.position) }) + otherMembers {
            if member.0 == "devices" {
                throw scanner.failure("\"devices\" must be an object, not \(member.1.typeName)", at: member.2)
            }
            registry.otherFields[member.0] = member.1
        }
        registry.storedFormat = .versioned
        registry.changeCount = 0
        return registry
    }

    private static func legacyFlatMap(_ members: [(key: String, value: String, position: Int)], scanner: JSONScanner) throws(JSONSyntaxError) -> RegisteredDevices {
        var records: [String: DeviceRecord] = [:]
        records.reserveCapacity(members.count)
        for member in members {
            do throws(DeviceTokenError) {
                records[member.key] = DeviceRecord(token: try DeviceToken(validating: member.value))
            } catch {
                throw scanner.failure("device \"\(member.key)\": \(error.message)", at: member.position)
            }
        }
        var registry = RegisteredDevices(records: records)
        registry.storedFormat = .legacyFlatMap
        return registry
    }

    /// The state file's bytes: version 1, one device per line sorted by id, so the file is stable,
    /// diffable and greppable; preserved top-level members follow `devices`.
    public func stateFileBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 64 + records.count * 400)
        writer.raw("{\n  \"version\": 1,\n  \"devices\": {")
        for (index, device) in records.sorted(by: { $0.key < $1.key }).enumerated() {
            writer.raw(index == 0 ? "\n    " : ",\n    ")
            writer.string(device.key)
            writer.raw(": ")
            device.value.write(to: &writer)
        }
        writer.raw(records.isEmpty ? "}" : "\n  }")
        for (key, value) in otherFields.sorted(by: { $0.key < $1.key }) where key != "version" && key != "devices" {
            writer.raw(",\n  ")
            writer.string(key)
            writer.raw(": ")
            writer.value(value)
        }
        writer.raw("\n}\n")
        return writer.bytes
    }
}
